#include "taskmap/topology/infiniband.h"

#include <fmt/format.h>

namespace taskmap::ib {
namespace {

std::string describe(const Subnet& subnet, PortRef p) {
  const Node& n = subnet.nodes[p.node];
  const char* kind = n.kind == NodeKind::Switch ? "switch" : n.kind == NodeKind::Router ? "router" : "CA";
  return fmt::format("{} 0x{:016x} '{}' port {} (line {})", kind, n.guid, n.description, p.port, n.line);
}

}  // namespace

std::string Subnet::index_lids() {
  lid_owner.clear();
  std::string clash;
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    // A switch is addressed through port 0; an end port through its own LID range.
    for (std::uint32_t p = n.is_switch() ? 0 : 1; p < n.ports.size() && (p == 0 || !n.is_switch()); ++p) {
      const Port& port = n.ports[p];
      if (port.lid == 0) continue;
      const std::uint32_t last = port.lid + (1u << port.lmc) - 1;
      if (last > kMaxLid) continue;  // not a unicast LID: nothing routes to it
      if (lid_owner.size() <= last) lid_owner.resize(std::size_t{last} + 1);
      for (std::uint32_t lid = port.lid; lid <= last; ++lid) {
        PortRef& owner = lid_owner[lid];
        if (owner.node != kNoNode) {
          // A router's ports may show one LID: the same node, no clash.
          if (clash.empty() && owner.node != i) {
            clash = fmt::format("LID {} is given to {} and to {}", lid, describe(*this, owner),
                                describe(*this, {i, static_cast<std::uint8_t>(p)}));
          }
          continue;
        }
        owner = {i, static_cast<std::uint8_t>(p)};
      }
    }
  }
  return clash;
}

std::uint32_t Subnet::node_of_guid(std::uint64_t guid) const {
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].guid == guid) return i;
  }
  return kNoNode;
}

}  // namespace taskmap::ib
