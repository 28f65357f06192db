// read_dragonfly_file: taskmap's plain Dragonfly format, for hand-made fabrics and for
// machines (Slingshot, ...) whose wiring has no Aries port list (docs/topology-file.md):
//   router NAME GROUP
//   link A B [global|local] [GBPS]
//   nodes ROUTER COUNT
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/core/text_source.h"
#include "common_checks.h"
#include "taskmap/topology/fabric.h"

namespace taskmap {
namespace {

constexpr std::int64_t kMaxNodes = detail::kMaxRouters;  // a fabric's hosts and switches together, at most

class DragonflyFile final {
 public:
  DragonflyFile(const std::string& path, Fabric& fabric) : cursor_(path, io::read_text_file(path)), fabric_(fabric) {}

  void read() {
    while (auto line = cursor_.next_content_line("#")) {
      const auto fields = io::split_fields(line->substr(0, line->find('#')));  // '#' starts a comment
      if (fields[0] == "router") {
        read_router(fields);
      } else if (fields[0] == "link") {
        read_link(fields);
      } else if (fields[0] == "nodes") {
        read_nodes(fields);
      } else {
        cursor_.fail_here(fmt::format("unknown line '{}' (expected router, link or nodes)", fields[0]));
      }
    }
    if (fabric_.switches.empty()) cursor_.fail_at_end("no router (expected 'router NAME GROUP' lines)");
    // The groups, in the order their first router is declared.
    std::map<std::string, std::uint32_t, std::less<>> group_index;
    for (const std::string& group : group_) {
      const auto [it, added] = group_index.emplace(group, static_cast<std::uint32_t>(fabric_.group_names.size()));
      if (added) fabric_.group_names.push_back(group);
      fabric_.switch_group.push_back(it->second);
    }
    if (fabric_.hosts.empty()) cursor_.fail_at_end("no nodes (expected 'nodes ROUTER COUNT' lines)");
  }

 private:
  std::uint32_t router(std::string_view name) const {
    const auto it = index_.find(name);
    if (it == index_.end()) {
      cursor_.fail_here(fmt::format("unknown router '{}' (declare it with 'router {} GROUP' first)", name, name));
    }
    return it->second;
  }

  void read_router(const std::vector<std::string_view>& f) {
    if (f.size() != 3) cursor_.fail_here("expected 'router NAME GROUP'");
    const auto [it, added] = index_.emplace(std::string(f[1]), static_cast<std::uint32_t>(fabric_.switches.size()));
    if (!added)
      cursor_.fail_here(fmt::format("router '{}' is declared twice (first on line {})", f[1], line_[it->second]));
    fabric_.switches.emplace_back(f[1]);
    group_.emplace_back(f[2]);
    line_.push_back(cursor_.line_number());
    has_nodes_.push_back(false);
  }

  void read_link(const std::vector<std::string_view>& f) {
    if (f.size() < 3 || f.size() > 5) cursor_.fail_here("expected 'link A B [global|local] [GBPS]'");
    const std::uint32_t a = router(f[1]);
    const std::uint32_t b = router(f[2]);
    if (a == b) cursor_.fail_here(fmt::format("a link from router '{}' to itself", f[1]));
    std::size_t next = 3;
    if (next < f.size() && (f[next] == "global" || f[next] == "local")) {
      const bool global = f[next] == "global";
      if (global != (group_[a] != group_[b])) {
        cursor_.fail_here(
            fmt::format("a {} link between routers of groups '{}' and '{}'", f[next], group_[a], group_[b]));
      }
      ++next;
    }
    double gbps = 0;
    if (next < f.size()) {
      const auto rate = io::parse_double(f[next]);
      if (!rate || *rate <= 0) cursor_.fail_here(fmt::format("'{}' is not a positive rate in Gb/s", f[next]));
      gbps = *rate;
      ++next;
    }
    if (next != f.size())
      cursor_.fail_here(fmt::format("unexpected '{}' (expected 'link A B [global|local] [GBPS]')", f[next]));
    fabric_.cables.push_back({a, b, gbps});
  }

  void read_nodes(const std::vector<std::string_view>& f) {
    if (f.size() != 3) cursor_.fail_here("expected 'nodes ROUTER COUNT'");
    const std::uint32_t sw = router(f[1]);
    const auto count = io::parse_int(f[2]);
    if (!count || *count < 1) cursor_.fail_here(fmt::format("'{}' is not a node count (1 or more)", f[2]));
    if (has_nodes_[sw]) cursor_.fail_here(fmt::format("router '{}' has a nodes line already", f[1]));
    const auto total = static_cast<std::int64_t>(fabric_.hosts.size()) + *count;
    if (total > kMaxNodes) cursor_.fail_here(fmt::format("more than {} nodes", kMaxNodes));
    check_memory(cursor_.source(), saturating_mul(static_cast<std::uint64_t>(total), 96), "the nodes' names");
    has_nodes_[sw] = true;
    for (std::int64_t node = 0; node < *count; ++node) {
      fabric_.host_ports.push_back({static_cast<std::uint32_t>(fabric_.hosts.size()), sw, 0.0});
      fabric_.hosts.push_back(fmt::format("{}n{}", f[1], node));
    }
  }

  io::LineCursor cursor_;
  Fabric& fabric_;
  std::map<std::string, std::uint32_t, std::less<>> index_;
  std::vector<std::string> group_;  // per router
  std::vector<std::size_t> line_;   // per router: where it is declared
  std::vector<bool> has_nodes_;
};

}  // namespace

Fabric read_dragonfly_file(const std::string& path, const WarningSink& /*warn*/) {
  Fabric fabric;
  fabric.source = path;
  fabric.hosts_on_switches = true;
  DragonflyFile(path, fabric).read();
  fabric.rates_in_gbps = true;  // the optional GBPS of a link line
  return fabric;
}

}  // namespace taskmap
