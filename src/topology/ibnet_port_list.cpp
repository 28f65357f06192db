// The `ibnetdiscover -p` port report: one line per port of every node,
//   CA   182  1 0x001175000077d284 4x QDR - SW    18 18 0x00066a00ec002dd9 ( 'node179 HCA-1' - 'QLogic ... L112' )
//   SW    18  1 0x00066a00ec002dd9 4x SDR                                    'QLogic ... L112'
// i.e. type, LID, port, port GUID, width, speed, then the peer's four fields and both node
// descriptions, or only the node's description when the port has no peer. Every cable is listed
// from both ends. The GUIDs are port GUIDs: a switch's ports share one, each CA port has its own.
#include <fmt/format.h>

#include <algorithm>

#include "ibnet_dump.h"
#include "taskmap/core/error.h"

namespace taskmap::ibnet {
namespace {

struct PortField {
  NodeKind kind = NodeKind::kCa;
  std::uint32_t lid = 0;
  std::uint32_t port = 0;
  std::string guid;
};

class PortListParser final {
 public:
  explicit PortListParser(io::LineCursor& cursor) : cur_(cursor) {}

  Dump run() {
    while (auto raw = cur_.next_content_line("#")) {
      const auto line = *raw;
      const auto quote = line.find('\'');
      const auto fields = io::split_fields(line.substr(0, quote));
      if (!fields.empty() && fields[0] == "DR") continue;  // discovery trace ("DR path slid 0; ...")
      if (fields.empty() || !node_kind(fields[0])) {
        if (cur_.in_unterminated_last_line()) cur_.fail_here(fmt::format("the file ends inside '{}': is it cut?", line));
        dump_.ignored_lines.note(fmt::format("line {}: '{}'", cur_.line_number(), line));
        continue;
      }
      read_port_line(line, fields, quote);
    }
    dump_.last_line = cur_.line_number();
    // A switch's port count: its highest port listed, cabled or not.
    for (const auto& [guid, port] : uncabled_ports_) {
      if (auto it = node_of_guid_.find(guid); it != node_of_guid_.end()) {
        dump_.nodes[it->second].port_count = std::max(dump_.nodes[it->second].port_count, port);
      }
    }
    return std::move(dump_);
  }

 private:
  static std::optional<NodeKind> node_kind(std::string_view word) {
    if (word == "CA") return NodeKind::kCa;
    if (word == "SW") return NodeKind::kSwitch;
    if (word == "RT") return NodeKind::kRouter;
    return std::nullopt;
  }

  static const char* kind_name(NodeKind kind) {
    return kind == NodeKind::kCa ? "CA" : kind == NodeKind::kRouter ? "router" : "switch";
  }

  [[noreturn]] void fail_form() const {
    cur_.fail_here("expected 'TYPE LID PORT 0xGUID WIDTH SPEED [- TYPE LID PORT 0xGUID ( 'DESC' - 'DESC' )]'");
  }

  // Four fields from `at`: TYPE LID PORT 0xGUID.
  PortField port_field(const std::vector<std::string_view>& f, std::size_t at) const {
    const auto kind = node_kind(f[at]);
    const auto lid = io::parse_int(f[at + 1]);
    const auto port = io::parse_int(f[at + 2]);
    const auto guid = f[at + 3].starts_with("0x") ? canonical_guid(f[at + 3]) : std::nullopt;
    if (!kind || !lid || !port || !guid) fail_form();
    if (*lid < 0 || *lid > kMaxLid) cur_.fail_here(fmt::format("LID {}: LIDs are 0 to {}", *lid, kMaxLid));
    if (*port < 1 || *port > kMaxPort) {
      cur_.fail_here(fmt::format("port {}: cabled ports are numbered 1 to {}", *port, kMaxPort));
    }
    return {*kind, static_cast<std::uint32_t>(*lid), static_cast<std::uint32_t>(*port), *guid};
  }

  // "( 'node179 HCA-1' - 'QLogic ... L112' )" -> both descriptions; a line without its closing
  // "' )" is cut.
  std::pair<std::string, std::string> descriptions(std::string_view line, std::size_t quote) const {
    auto rest = quote == std::string_view::npos ? std::string_view{} : line.substr(quote + 1);
    while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t')) rest.remove_suffix(1);
    const auto middle = rest.find("' - '");
    if (middle == std::string_view::npos || !rest.ends_with(')')) fail_form();
    const auto end = rest.rfind('\'');
    if (end < middle + 5) fail_form();
    return {std::string(rest.substr(0, middle)), std::string(rest.substr(middle + 5, end - middle - 5))};
  }

  std::uint32_t node_of(const PortField& port, std::string description) {
    auto [it, added] = node_of_guid_.emplace(port.guid, static_cast<std::uint32_t>(dump_.nodes.size()));
    if (added) {
      Node node;
      node.kind = port.kind;
      node.guid = port.guid;
      node.description = std::move(description);
      if (port.kind == NodeKind::kCa) node.port_guids.push_back(port.guid), node.listed_port = port.port;
      node.line = cur_.line_number();
      dump_.nodes.push_back(std::move(node));
    } else if (const Node& first = dump_.nodes[it->second]; first.kind != port.kind) {
      cur_.fail_here(fmt::format("GUID 0x{} is a {} here and a {} on line {}", port.guid, kind_name(port.kind),
                                 kind_name(first.kind), first.line));
    }
    // The port list has no LMC; a switch's LID is its port 0's.
    Node& node = dump_.nodes[it->second];
    node.note_address(port.kind == NodeKind::kSwitch ? 0 : port.port, port.guid, port.lid, 0);
    node.port_count = std::max(node.port_count, port.port);
    return it->second;
  }

  void read_port_line(std::string_view line, const std::vector<std::string_view>& f, std::size_t quote) {
    if (f.size() < 6) fail_form();
    const auto own = port_field(f, 0);
    const std::string rate = fmt::format("{}{}", f[4], f[5]);
    if (f.size() == 6) {  // no peer: the port is not cabled (or down)
      dump_.unconnected_ports.note(fmt::format("line {}: port {} of 0x{}", cur_.line_number(), own.port, own.guid));
      uncabled_ports_[own.guid] = std::max(uncabled_ports_[own.guid], own.port);
      return;
    }
    if (f.size() != 12 || f[6] != "-" || f[11] != "(") fail_form();
    const auto peer = port_field(f, 7);
    auto [own_description, peer_description] = descriptions(line, quote);
    const auto a = node_of(own, std::move(own_description));
    const auto b = node_of(peer, std::move(peer_description));
    dump_.links.add({a, own.port}, {b, peer.port}, rate, cur_.line_number());
  }

  io::LineCursor& cur_;
  Dump dump_;
  std::map<std::string, std::uint32_t, std::less<>> node_of_guid_;
  std::map<std::string, std::uint32_t, std::less<>> uncabled_ports_;  // per GUID: its highest port with no peer
};

}  // namespace

Dump parse_port_list(io::LineCursor& cursor) { return PortListParser(cursor).run(); }

}  // namespace taskmap::ibnet
