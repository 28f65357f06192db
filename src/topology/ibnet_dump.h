#pragma once
// What the two ibnetdiscover outputs say, before naming: nodes (switches, CAs) keyed by GUID and
// the cables between their ports, each once. ibnet_plain.cpp reads the default topology output,
// ibnet_port_list.cpp the `ibnetdiscover -p` port list; ibnet_reader.cpp names hosts and
// switches and fills a Fabric from either.
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "taskmap/core/text_source.h"

namespace taskmap::ibnet {

// A kind of oddity met while reading: how many, and the first one (with its line) for the warning.
struct Oddity {
  std::size_t count = 0;
  std::string first;
  void note(std::string example) {
    if (count++ == 0) first = std::move(example);
  }
};

// Routers (Rt) join subnets: a route inside one subnet never crosses them, so they are skipped.
enum class NodeKind { kSwitch, kCa, kRouter };

struct Node {
  NodeKind kind = NodeKind::kCa;
  std::string guid;                     // 16 lowercase hex digits: the node GUID (the port GUID in a port list)
  std::string description;              // the NodeDescription, as the file quotes it
  std::vector<std::string> port_guids;  // a CA's port GUIDs the file shows, for the GUID map
  std::uint32_t listed_port = 0;        // a port list's CA (one per port GUID): its port number
  std::string peer_description;         // how its peers' port lines describe it (ibnetdiscover
                                        // --node-name-map writes the mapped name there only)
  std::size_t line = 0;                 // where the node is first declared
};

struct PortEnd {
  std::uint32_t node = 0;
  std::uint32_t port = 0;
  auto operator<=>(const PortEnd&) const = default;
};

struct Link {
  PortEnd a, b;
  std::string rate;  // "4xQDR" as written; gbps 0 when not recognised
  double gbps = 0;
  std::size_t line = 0;
};

// Cables, each once: both ends list a cable, the second listing only confirms it (and when the
// two ends report different rates, the lower is kept). A port listed with two different peers
// keeps its first.
class LinkSet final {
 public:
  void add(PortEnd a, PortEnd b, std::string_view rate, std::size_t line);
  const std::vector<Link>& links() const { return links_; }

  Oddity conflicting_peers;
  Oddity rate_mismatches;

 private:
  std::vector<Link> links_;
  std::map<PortEnd, std::size_t> link_of_end_;
};

struct Dump {
  std::vector<Node> nodes;
  LinkSet links;
  std::size_t last_line = 0;

  Oddity ignored_lines;      // lines of no known form between blocks
  Oddity unconnected_ports;  // port-list lines with no peer
  Oddity undefined_peers;    // port lines leading to a GUID with no block of its own
  Oddity portless_blocks;    // blocks with no port line (not at the end of the file)
};

// "S-0008f10500200b50", "0x0008f10500200b50", "8f10500200b50" -> "0008f10500200b50"; nullopt
// when not a GUID.
std::optional<std::string> canonical_guid(std::string_view text);
// Port numbers are 8 bits in InfiniBand; port 0 (a switch's management port) has no cable.
inline constexpr std::int64_t kMaxPort = 255;
inline constexpr std::int64_t kMaxLid = 0xFFFF;

Dump parse_plain(io::LineCursor& cursor);
Dump parse_port_list(io::LineCursor& cursor);

}  // namespace taskmap::ibnet
