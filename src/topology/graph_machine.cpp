#include <fmt/format.h>

#include <map>

#include "common_checks.h"
#include "taskmap/core/text_source.h"
#include "taskmap/topology/builders.h"

namespace taskmap {

// Format (docs/topology-file.md): "routers N" first, then any of
//   class NAME BANDWIDTH      a link class (default: one class "link" of bandwidth 1)
//   link U V [CLASS]          a bidirectional link: channels U->V and V->U
//   channel U V [CLASS]       one directed channel U->V
Machine read_graph_machine(const std::string& path, std::uint32_t nodes_per_router, std::uint32_t slots_per_node) {
  io::LineCursor cur(path, io::read_text_file(path));
  Machine m;
  m.nodes_per_router = nodes_per_router;
  m.slots_per_node = slots_per_node;
  m.shape = GraphShape{path};
  std::map<std::string, std::uint16_t, std::less<>> class_ids;
  bool have_routers = false;
  std::uint64_t links = 0;
  auto router_field = [&](std::string_view f) -> RouterId {
    auto v = io::parse_int(f);
    if (!v) cur.fail_here(fmt::format("router id '{}' is not an integer", f));
    if (*v < 0 || *v >= m.num_routers) {
      cur.fail_here(fmt::format("router id {} is out of range [0, {})", *v, m.num_routers));
    }
    return static_cast<RouterId>(*v);
  };
  while (auto line = cur.next_content_line("#")) {
    auto f = io::split_fields(*line);
    const std::string_view key = f[0];
    if (!have_routers) {
      if (key != "routers" || f.size() != 2) cur.fail_here("expected 'routers N' as the first line");
      auto n = io::parse_int(f[1]);
      if (!n || *n <= 0 || static_cast<std::uint64_t>(*n) > detail::kMaxRouters) {
        cur.fail_here(fmt::format("'{}' is not a valid router count", f[1]));
      }
      m.num_routers = static_cast<std::uint32_t>(*n);
      have_routers = true;
    } else if (key == "class") {
      if (f.size() != 3) cur.fail_here("expected 'class NAME BANDWIDTH'");
      auto bw = io::parse_double(f[2]);
      if (!bw || *bw <= 0) cur.fail_here(fmt::format("bandwidth '{}' is not a positive number", f[2]));
      if (class_ids.count(f[1])) cur.fail_here(fmt::format("class '{}' defined twice", f[1]));
      if (links > 0) cur.fail_here("classes must be defined before the first link");
      if (m.classes.size() >= Machine::kMaxLinkClasses) {
        cur.fail_here(fmt::format("class '{}': a machine has at most {} link classes", f[1], Machine::kMaxLinkClasses));
      }
      // Names are checked against class_ids above; add_class would compare with every class.
      m.classes.push_back(LinkClass{std::string(f[1]), *bw});
      class_ids.emplace(std::string(f[1]), static_cast<std::uint16_t>(m.classes.size() - 1));
    } else if (key == "link" || key == "channel") {
      if (f.size() != 3 && f.size() != 4) cur.fail_here(fmt::format("expected '{} U V [CLASS]'", key));
      if (m.classes.empty()) class_ids.emplace("link", m.add_class("link", 1.0));
      RouterId u = router_field(f[1]), v = router_field(f[2]);
      if (u == v) cur.fail_here("a link from a router to itself carries no traffic; remove it");
      std::uint16_t cls = 0;
      if (f.size() == 4) {
        auto it = class_ids.find(f[3]);
        if (it == class_ids.end()) cur.fail_here(fmt::format("unknown link class '{}'", f[3]));
        cls = it->second;
      }
      m.add_channel(u, v, cls);
      if (key == "link") m.add_channel(v, u, cls);
      ++links;
    } else {
      cur.fail_here(fmt::format("unknown keyword '{}' (expected class, link or channel)", key));
    }
  }
  if (!have_routers) cur.fail_at_end("no 'routers N' line");
  if (links == 0) cur.fail_at_end("no links");
  detail::check_machine_size(path.c_str(), m.num_routers, nodes_per_router, slots_per_node);
  return m;
}

}  // namespace taskmap
