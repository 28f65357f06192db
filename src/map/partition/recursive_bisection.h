#pragma once
// Recursive bisection of a task graph and the machine together (the rb mapper, and the initial
// placement of the multilevel mapper's coarsest graph). The routers are halved (tori, meshes,
// hypercubes: the box across its longest side; machines whose routers differ, such as fabrics
// read from files: along the hierarchy the hop distances show, whole leaves and pods to a side
// (DistanceSplit); other machines: a METIS bisection of their router graph); the tasks are
// bisected by METIS in proportion to the two halves' slots, and each task half recurses into
// its router half down to single routers.
#include <metis.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "distance_split.h"

#include "taskmap/map/router_placement.h"
#include "taskmap/topology/distance.h"

namespace taskmap::detail {

// Settings of one split other than the run's: a balance (each side at most this times its
// share of the weight; 0: the run's --imbalance) and METIS tries (0: the run's).
struct SplitSettings {
  double balance = 0;
  std::uint32_t tries = 0;
};

class RecursiveBisection {
 public:
  // tries: METIS bisections computed per split, the lowest cut kept; seed: METIS's. orient: each
  // split's two task halves go to the router halves that put them nearer to the tasks they talk
  // to outside the split (where those sit so far), instead of the first half to the first.
  // leaves_first: on a fabric with leaf switches, the first split puts the tasks into every
  // leaf at once (METIS's recursive k-way, each leaf its share of the slots), and the halving
  // starts inside the leaves: the cut it minimizes is then exactly the traffic leaving the
  // leaves, where halving whole leaves to a side fixes a grouping of the leaves first.
  RecursiveBisection(const Machine& machine, double imbalance, std::uint32_t tries, std::int32_t seed = 1,
                     bool orient = false, bool leaves_first = false, bool by_link_speed = false);

  // The router of each vertex of `g`. `vertex_weights` (tasks per vertex; empty: one each)
  // are what the two sides of a split share in proportion to their slots; by_link_speed: where
  // the job leaves slots free and the nodes' own links differ in speed, fewer on a node behind a
  // slower link, in proportion to its speed as far as the free slots allow (task_capacities;
  // not with orient, whose swap of two halves asks only for equal slots).
  std::vector<RouterId> run(const IntegerGraph& g, const std::vector<std::int32_t>& vertex_weights = {}) const;

 private:
  // One split of the recursion: tasks onto routers.
  struct Piece {
    std::vector<TaskId> tasks;
    std::vector<RouterId> routers;
  };
  // Whether the halves a and b (onto routers first and second) should trade places: the
  // volume of their edges to tasks outside `piece_of` == self, times the distance from a
  // representative router of each side to one of the piece those tasks are in.
  bool swapped_is_nearer(const IntegerGraph& g, const std::vector<TaskId>& a, const std::vector<TaskId>& b,
                         RouterId first, RouterId second, const std::vector<std::uint32_t>& piece_of,
                         std::uint32_t self, const std::vector<RouterId>& representative,
                         const HopDistance& hops) const;
  std::pair<std::vector<RouterId>, std::vector<RouterId>> halve_routers(const std::vector<RouterId>& routers) const;
  // index: all -1, as many as g's vertices; used and left all -1 again (one scratch for every split).
  std::vector<bool> bisect(const IntegerGraph& g, const std::vector<std::int32_t>& vertex_weights,
                           const std::vector<TaskId>& tasks, double share, std::vector<std::int32_t>& index,
                           const SplitSettings& settings = {}) const;
  std::vector<bool> bisect_graph(IntegerGraph& g, double share, std::vector<std::int32_t> vertex_weights,
                                 const SplitSettings& settings = {}) const;
  // leaves_first: one piece per leaf holding slots, the tasks shared out by METIS (the least
  // cut of three orders of the leaves, then improve_leaf_pairs); empty when the machine has no
  // leaf switches, the job spans one leaf, or METIS refuses.
  // capacity_of: what a set of routers holds, in tasks (the shares of the split are by it).
  std::vector<Piece> leaf_pieces(const IntegerGraph& g, const std::vector<std::int32_t>& vertex_weights,
                                 const std::function<double(const std::vector<RouterId>&)>& capacity_of) const;
  // Shares the tasks of two leaves out again between them, pair by pair (most traffic between
  // them first), keeping a lower cut; up to kLeafPairPasses passes while one improves, each
  // sharing out at most kLeafPairWork times the job's tasks; not on jobs of more than
  // kLeafPairMaxLeaves leaves.
  static constexpr int kLeafPairPasses = 4;
  static constexpr double kLeafPairWork = 8;
  static constexpr std::size_t kLeafPairMaxLeaves = 4096;  // the alike test costs leaves^2 hop look-ups
  void improve_leaf_pairs(const IntegerGraph& g, const std::vector<std::int32_t>& vertex_weights,
                          const std::vector<double>& holds, std::vector<Piece>& leaves) const;
  // METIS's recursive k-way with the target shares of the vertex weight, under the run's seed,
  // tries and --imbalance (at least 0.1%, below which METIS's own rounding leaves it no room),
  // or those `settings` gives; nothing when METIS refuses.
  // (g and vertex_weights are not changed; METIS takes non-const arrays.)
  std::optional<std::vector<idx_t>> metis_parts(IntegerGraph& g, std::vector<real_t> shares,
                                                std::vector<std::int32_t>& vertex_weights,
                                                const SplitSettings& settings = {}) const;

  const Machine& machine_;
  double imbalance_;
  std::uint32_t tries_;
  std::int32_t seed_;
  bool orient_, leaves_first_, by_link_speed_;
  std::optional<DistanceSplit> hierarchy_;  // machines whose routers differ
  // The routers' adjacency for halve_routers' METIS splits, built on the first; one scratch
  // index over the routers for router_graph (a run is one thread's).
  mutable std::optional<RouterAdjacency> adjacency_;
  mutable std::vector<std::int32_t> router_index_;
};

}  // namespace taskmap::detail
