#pragma once
// The subnet as OpenSM's routing engines see it (opensm_engines.cpp, opensm_ftree.cpp): the
// switches in OpenSM's order of their GUIDs, their switch neighbours, the end ports cabled to
// them, and the LMC its LIDs were given with.
#include <cstdint>
#include <optional>
#include <vector>

#include "taskmap/routing/forwarding_tables.h"
#include "taskmap/topology/infiniband.h"

namespace taskmap::detail {

inline constexpr std::uint32_t kNone = UINT32_MAX;

class OsmView final {
 public:
  explicit OsmView(const ib::Subnet& subnet) : subnet_(subnet), index_of_(subnet.nodes.size(), kNone) {
    for (std::uint32_t n = 0; n < subnet.nodes.size(); ++n) {
      if (subnet.nodes[n].is_switch()) switches_.push_back(n);
    }
    std::stable_sort(switches_.begin(), switches_.end(), [&](std::uint32_t a, std::uint32_t b) {
      return ib::opensm_key(subnet.nodes[a].guid) < ib::opensm_key(subnet.nodes[b].guid);
    });
    for (std::uint32_t i = 0; i < switches_.size(); ++i) index_of_[switches_[i]] = i;
    for (const ib::Node& n : subnet.nodes) {
      if (n.is_switch()) continue;
      for (const ib::Port& p : n.ports) lmc_ = std::max(lmc_, p.lmc);
    }
  }

  const ib::Subnet& subnet() const { return subnet_; }
  std::uint32_t count() const { return static_cast<std::uint32_t>(switches_.size()); }
  // Switch i (OpenSM's order) as a subnet node, and back.
  std::uint32_t node(std::uint32_t i) const { return switches_[i]; }
  std::uint32_t index(std::uint32_t node) const { return index_of_[node]; }
  const ib::Node& sw(std::uint32_t i) const { return subnet_.nodes[switches_[i]]; }
  // Ports 0 .. N of switch i: N + 1.
  std::uint32_t ports(std::uint32_t i) const { return static_cast<std::uint32_t>(sw(i).ports.size()); }
  // The port at the far end of port p of node n, if cabled.
  std::optional<ib::PortRef> remote(std::uint32_t n, std::uint32_t p) const {
    const auto& ports = subnet_.nodes[n].ports;
    if (p >= ports.size() || ports[p].peer_node == ib::kNoNode) return std::nullopt;
    return ib::PortRef{ports[p].peer_node, ports[p].peer_port};
  }
  // The switch (index) at the far end of port p of switch i, or kNone (no cable, an end port).
  std::uint32_t peer_switch(std::uint32_t i, std::uint32_t p) const {
    const auto r = remote(node(i), p);
    return r && subnet_.nodes[r->node].is_switch() ? index_of_[r->node] : kNone;
  }
  // True when port p of switch i is cabled to an end port (a CA or a router).
  bool to_end_port(std::uint32_t i, std::uint32_t p) const {
    const auto r = remote(node(i), p);
    return r && !subnet_.nodes[r->node].is_switch();
  }
  std::uint32_t lid(std::uint32_t i) const { return sw(i).ports[0].lid; }
  // OpenSM's lmc option: the LMC its end ports were given (the largest in the file).
  std::uint8_t lmc() const { return lmc_; }

  // The empty tables, one per switch, sized for every LID in use.
  ForwardingTables empty_tables() const {
    ForwardingTables t;
    t.port.resize(subnet_.nodes.size());
    t.origin.resize(subnet_.nodes.size());
    for (std::uint32_t n : switches_) t.port[n].assign(std::size_t{subnet_.max_lid()} + 1, ib::kNoPort);
    return t;
  }

 private:
  const ib::Subnet& subnet_;
  std::vector<std::uint32_t> switches_;
  std::vector<std::uint32_t> index_of_;
  std::uint8_t lmc_ = 0;
};

// ftree (opensm_ftree.cpp).
ForwardingTables fat_tree_tables(const OsmView& view, const std::vector<std::uint64_t>& roots);

}  // namespace taskmap::detail
