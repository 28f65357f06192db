#pragma once
// An InfiniBand subnet as ibnetdiscover shows it: every node (switches, channel adapters,
// routers) with its GUIDs and numbered ports, every cable with the ports at both ends, and the
// LIDs the subnet manager gave. The Fabric (fabric.h) keeps the hosts and cables that carry a
// job's traffic; the subnet keeps the rest too (SHARP aggregation nodes, CAs of no host,
// routers), because a subnet manager routes to every LID and its choice of ports counts them
// all. The routings that follow forwarding tables (routing/forwarding_tables.h) work on it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace taskmap::ib {

enum class NodeKind : std::uint8_t { Switch, Ca, Router };

inline constexpr std::uint32_t kNoNode = UINT32_MAX;
// Port numbers are 8 bits; 255 in a forwarding table means "no route" (OpenSM's OSM_NO_PATH).
inline constexpr std::uint8_t kNoPort = 255;
inline constexpr std::uint32_t kMaxLid = 0xBFFF;  // the highest unicast LID

struct Port {
  std::uint32_t peer_node = kNoNode;  // kNoNode: not cabled (or the management port 0)
  std::uint8_t peer_port = 0;
  std::uint64_t guid = 0;  // the port GUID (a switch's ports all carry the node GUID)
  // The port's LID range lid .. lid + 2^lmc - 1: an end port's (CA, router), or a switch's
  // port 0; 0 when the file gives none.
  std::uint32_t lid = 0;
  std::uint8_t lmc = 0;
};

struct Node {
  NodeKind kind = NodeKind::Ca;
  std::uint64_t guid = 0;
  std::uint64_t system_guid = 0;  // sysimgguid=; the node GUID when the file does not say
  std::string description;
  std::size_t line = 0;      // where the file declares it
  std::vector<Port> ports;   // index = port number, 0 .. the node's port count
  std::uint32_t num_ports() const { return static_cast<std::uint32_t>(ports.size()) - 1; }
  bool is_switch() const { return kind == NodeKind::Switch; }
};

// A port of a node: (node index, port number).
struct PortRef {
  std::uint32_t node = kNoNode;
  std::uint8_t port = 0;
  bool operator==(const PortRef&) const = default;
};

struct Subnet {
  std::string source;  // the file it was read from, for messages
  std::vector<Node> nodes;
  // The port that ran the discovery, as the file says: the port GUID of ibnetdiscover's
  // "# Initiated from node N port P" line, or the node GUID of a discovery trace's first CA
  // ("DR path ... -> new Channel Adapter {G}"); 0 when the file does not say.
  std::uint64_t discovering_port = 0;

  const Port& port(PortRef p) const { return nodes[p.node].ports[p.port]; }
  // The end port (CA or router port, or a switch's port 0) whose LID range holds `lid`, or
  // nullopt. Built by index_lids().
  std::optional<PortRef> port_of_lid(std::uint32_t lid) const {
    if (lid >= lid_owner.size() || lid_owner[lid].node == kNoNode) return std::nullopt;
    return lid_owner[lid];
  }
  // The highest LID in use.
  std::uint32_t max_lid() const { return lid_owner.empty() ? 0 : static_cast<std::uint32_t>(lid_owner.size()) - 1; }
  // Fills the LID index from the ports' LID ranges; returns a message naming the first two
  // ports that claim one LID, or "" when the LIDs are distinct.
  std::string index_lids();
  // The index of the node with this GUID, or kNoNode.
  std::uint32_t node_of_guid(std::uint64_t guid) const;

  std::vector<PortRef> lid_owner;  // per LID: the port whose range holds it
};

// A switch's cable ports in OpenSM's order of the node's GUID: the GUID in network byte order
// read as a host (little-endian) integer, i.e. the byte-reversed GUID. OpenSM keeps switches,
// ports and nodes in maps with that key, so its "GUID order" is this order on x86 hosts.
inline std::uint64_t opensm_key(std::uint64_t guid) { return __builtin_bswap64(guid); }

}  // namespace taskmap::ib
