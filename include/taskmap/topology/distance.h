#pragma once
// Hop distance between routers: the hop count of the machine's minimal route: a shortest
// path on tori, meshes, RT/RTT and file graphs; the local-global-local route on Dragonfly;
// the L-D-L route on PERCS (both can have rare shortcuts through a second global/D link that
// their minimal routing never takes). Valiant and indirect routes are longer still, see
// Metrics::avg_routed_hops. Closed forms for structured machines, cached BFS rows for graphs.
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
