#pragma once
// Hop distance between routers: the hop count of the machine's minimal route: a shortest
// path on tori, meshes, RT/RTT and file graphs; the local-global-local route on Dragonfly;
// the L-D-L route on PERCS (both can have rare shortcuts through a second global/D link that
// their minimal routing never takes). Valiant and indirect routes are longer still, see
// Metrics::avg_routed_hops. On a hier machine it is not a hop count but the hierarchy's
// distance of the level where two slots' groups meet (HierShape::distance), so that hop-bytes
// is KaHIP's communication cost there. Closed forms for structured machines, cached BFS rows
// for graphs.
#include <cstdint>
#include <memory>
#include <vector>

#include "taskmap/topology/machine.h"

namespace taskmap {

// On GPU nodes a GPU's distance to a GPU of another node is the shortest through their NICs
// (GPU to NIC, the network, NIC to GPU), as their traffic goes without PXN; inside a node, 1
// over a direct NVLink, else 2 (through the NVSwitches or the CPUs).
class HopDistance {
 public:
  explicit HopDistance(const Machine& machine);
  ~HopDistance();
  std::uint32_t operator()(RouterId a, RouterId b) const;

 private:
  const Machine& machine_;
  struct GraphCache;
  std::unique_ptr<GraphCache> graph_;
  // GPU nodes (Machine::gpu_links): the network alone (the machine cut at its network's
  // channels), whose rows graph_ holds; a GPU's distances are its NICs' plus its own hops.
  std::unique_ptr<Machine> network_;
  std::uint32_t gpu_distance(RouterId a, RouterId b) const;
};

// Diameter and average distance (over ordered pairs of distinct routers; on hier machines, of
// distinct slots) of the hop distance.
// Exact on every structured family, from its parameters alone (closed forms: the channels are
// not needed, so an outline machine will do), and on graphs and fabrics small enough for a
// breadth-first search from every router. Larger graphs and fabrics are estimated from a
// uniform sample of sources (fixed seed: the same numbers every run).
struct TopologyStats {
  std::uint32_t diameter = 0;  // estimated: the largest distance seen, a lower bound
  double avg_distance = 0;
  bool estimated = false;
  std::uint32_t diameter_upper = 0;  // == diameter when exact; else twice the smallest eccentricity seen
  double avg_error = 0;              // estimated: half-width of the 99% confidence interval
  std::uint32_t sources = 0;         // estimated: breadth-first searches from sampled routers
};
// Graphs and fabrics with routers x (routers + channels) above `exact_work` are sampled, with
// as many sources as that work allows (at least 64).
inline constexpr std::uint64_t kExactDistanceWork = std::uint64_t{1} << 28;
TopologyStats topology_stats(const Machine& machine, std::uint64_t exact_work = kExactDistanceWork);

// Out-channel adjacency (CSR over routers), shared by BFS users.
struct ChannelAdjacency {
  std::vector<std::uint32_t> offsets;
  std::vector<ChannelId> channels;
  ChannelAdjacency(const Machine& m, bool reverse);
};

// Breadth-first search over out-channels from `source`: row[r] is r's hop count (UINT32_MAX when
// unreached); returns the number of routers reached. row and queue hold num_routers entries.
std::size_t bfs_row(const Machine& machine, const ChannelAdjacency& adjacency, RouterId source,
                    std::vector<std::uint32_t>& row, std::vector<RouterId>& queue);

}  // namespace taskmap
