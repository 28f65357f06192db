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

// What the file says of one port's address: its GUID and LID range (LID 0: not given).
struct PortAddress {
  std::string guid;
  std::uint32_t lid = 0;
  std::uint32_t lmc = 0;
};

struct Node {
  NodeKind kind = NodeKind::kCa;
  std::string guid;                     // 16 lowercase hex digits: the node GUID (the port GUID in a port list)
  std::string description;              // the NodeDescription, as the file quotes it
  std::vector<std::string> port_guids;  // a CA's port GUIDs the file shows, for the GUID map
  std::uint32_t listed_port = 0;        // a port list's CA (one per port GUID): its port number
  std::string peer_description;         // how its peers' port lines describe it (ibnetdiscover
                                        // --node-name-map writes the mapped name there only)
  std::size_t line = 0;                 // where the node is first declared
  std::uint32_t port_count = 0;         // the block header's port count; 0 when not given
  std::string system_guid;              // sysimgguid= before the block; empty when not given
  // Per port number (a switch's LID is its port 0's): the addresses the file gives, from the
  // node's own lines or its peers'.
  std::map<std::uint32_t, PortAddress> addresses;
  // Records what a line says of port `port`'s address: the first LID given stays; a peer's
  // line gives no LMC, the port's own line may add it.
  void note_address(std::uint32_t port, std::string_view port_guid, std::uint32_t lid, std::uint32_t lmc) {
    PortAddress& a = addresses[port];
    if (a.guid.empty()) a.guid = std::string(port_guid);
    if (lid != 0 && (a.lid == 0 || (a.lid == lid && lmc > a.lmc))) a.lid = lid, a.lmc = lmc;
  }
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
  std::uint64_t discovering_port = 0;  // ib::Subnet::discovering_port

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
