#pragma once
// RAHTM merging [RAHTM §III-D]: the child blocks of one tree node are re-oriented (every
// rotation and reflection of the block) and combined greedily, heaviest pairwise MCL first,
// keeping a beam of the best N partial mappings. MCL is evaluated on the real machine with
// the flow split evenly over all minimal paths.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "taskmap/routing/route_cache.h"
#include "taskmap/workload/comm_graph.h"
#include "taskmap/routing/routing.h"
#include "taskmap/topology/machine.h"

namespace taskmap::rahtm {

// A box of routers of a torus: origin and extent per machine dimension.
struct Box {
  std::vector<std::uint32_t> origin, extent;
  std::uint32_t num_routers() const;
};

// A symmetry of a box: local coordinate x goes to y with y[perm[d]] = x[d] (reflected:
// extent - 1 - x[d]); perm only swaps dimensions of equal extent.
struct Orientation {
  std::vector<std::uint8_t> perm;
  std::vector<bool> reflect;
};
// All symmetries of boxes with these extents, the identity first.
std::vector<Orientation> box_orientations(const std::vector<std::uint32_t>& extent);

struct MergeResult {
  std::vector<std::uint32_t> orientation;  // per child: index into box_orientations
  double mcl = 0;                          // of the node's flows after merging
  double input_mcl = 0;                    // of the node's flows as pseudo-pinned
  std::uint32_t steps = 0;
};

class Merger {
 public:
  // router_of_cluster: the current placement of the level-0 clusters, updated by merge().
  // threads: workers for the candidate evaluation.
  Merger(const Machine& machine, RouteCache& routes, const CommGraph& clusters,
         std::vector<RouterId>& router_of_cluster, unsigned threads,
         std::function<void(const std::string&)> progress);

  // Merges the children of one node. fix_first keeps the first block in its current
  // orientation (used at the top, where a common symmetry of all blocks is a machine symmetry).
  // The flows between the children and the clusters in the context boxes (left where they
  // are) count as well.
  MergeResult merge(const std::vector<Box>& children, std::uint32_t beam, bool fix_first,
                    const std::vector<Box>& context = {});
  // Applies orientations found for an identical node.
  void apply(const std::vector<Box>& children, const std::vector<std::uint32_t>& orientation);
  // The node's flows (both ends inside the children), as (local router u, local router v,
  // volume) over the children's routers in order: identical signatures merge identically.
  std::vector<double> signature(const std::vector<Box>& children) const;

 private:
  struct Block;
  struct State;
  class NodeMerge;
  std::vector<Block> collect(const std::vector<Box>& children, const std::vector<Box>& context = {}) const;
  RouterId router_at(const Box& box, const Orientation& o, const std::vector<std::uint32_t>& local) const;

  const Machine& machine_;
  const TorusShape& torus_;
  RouteCache& routes_;
  const CommGraph& clusters_;
  std::vector<RouterId>& router_of_cluster_;
  std::vector<std::uint32_t> cluster_at_router_;  // inverse of router_of_cluster_, UINT32_MAX = empty
  unsigned threads_;
  std::function<void(const std::string&)> progress_;
};

}  // namespace taskmap::rahtm
