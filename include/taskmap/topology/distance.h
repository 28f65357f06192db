#pragma once
// Hop distance between routers: the length of a shortest path in the router graph (not of
// the routed path: Valiant or indirect routes are longer, see Metrics::avg_routed_hops).
// Closed forms for the structured machines, breadth-first search rows cached for file graphs.
#include <cstdint>
#include <memory>
#include <vector>

#include "taskmap/topology/machine.h"

namespace taskmap {

class HopDistance {
 public:
  explicit HopDistance(const Machine& machine);
  ~HopDistance();
  std::uint32_t operator()(RouterId a, RouterId b) const;

 private:
  const Machine& machine_;
  struct GraphCache;
  std::unique_ptr<GraphCache> graph_;
};

struct TopologyStats {
  std::uint32_t diameter = 0;
  double avg_distance = 0;  // over ordered pairs of distinct routers
};
TopologyStats topology_stats(const Machine& machine);

// Out-channel adjacency (CSR over routers), shared by BFS users.
struct ChannelAdjacency {
  std::vector<std::uint32_t> offsets;
  std::vector<ChannelId> channels;
  ChannelAdjacency(const Machine& m, bool reverse);
};

}  // namespace taskmap
