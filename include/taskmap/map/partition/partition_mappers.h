#pragma once
// The mappers built on graph partitioners and graph embedding: the task graph is cut into
// per-router parts (Scotch's mapping, METIS k-way, recursive bisection, the multilevel mapper)
// or grown onto the routers greedily; tasks then fill their routers' slots. They map many tasks
// per slot too, and keep the default order when their placement has no fewer hop-bytes.
#include <cstdint>
#include <memory>

#include "taskmap/map/mapper.h"

namespace taskmap {

// Scotch's mapping strategy: SCOTCH_STRATQUALITY, or SCOTCH_STRATSPEED | SCOTCH_STRATRECURSIVE
// (recursive bipartitioning without the k-way FM refinement, 70% of quality's time on a million
// tasks), or by job size (Auto: quality up to kScotchQualityUpToTasks tasks, speed beyond).
enum class ScotchStrategy { Auto, Quality, Speed };
inline constexpr std::uint32_t kScotchQualityUpToTasks = std::uint32_t{1} << 18;
// seed 0: Scotch's own fixed random state; another: that state seeded with it (a different
// mapping of the same quality on average: Scotch's result moves by 10-20% with its seed on meshes).
std::unique_ptr<Mapper> make_scotch_mapper(MapperLabel label, ScotchStrategy strategy = ScotchStrategy::Auto,
                                           std::uint64_t seed = 0);
// The terminals of the distance matrix Scotch's mapping builds as the target of `machine` (its
// routers with slots, or all its routers when they are alike; the matrix grows with their
// square), 0 where Scotch takes the machine natively (tori, 2D/3D meshes, hypercubes, uniform
// hierarchies).
std::size_t scotch_distance_matrix_terminals(const Machine& machine);
// PT-Scotch's distributed partition over the problem's processes, then Scotch places the parts
// on routers; scotch on the leader when the processes have no PT-Scotch.
std::unique_ptr<Mapper> make_ptscotch_mapper(MapperLabel label);
// greedy_assignment: METIS's parts onto routers greedily by traffic (else part i on router i).
std::unique_ptr<Mapper> make_metis_mapper(MapperLabel label, bool greedy_assignment);
std::unique_ptr<Mapper> make_greedy_mapper(MapperLabel label);
struct RbOptions {
  std::uint32_t tries = 1;    // METIS bisections computed per split, the lowest cut kept
  bool leaves_first = false;  // on leaf-switch fabrics: the tasks into all leaves at once first
  bool by_link_speed = false;  // with free slots, fewer tasks on nodes behind slower links
};
std::unique_ptr<Mapper> make_rb_mapper(MapperLabel label, RbOptions options);

// ml: the multilevel mapper (src/map/partition/multilevel_mapper.cpp). A run coarsens the task
// graph (label propagation within a cluster weight limit), places the coarsest graph by
// recursive bisection of the graph and the machine together, and refines the placement on
// every level on the way back (hop-bytes under the machine's distances, within the balance:
// simulated annealing where vertices are few, greedy moves and exchanges, FM searches).
// V-cycles coarsen a placement again with clusters inside its routers and refine it again.
// A run's coarsest level is annealed longest (coarsest_anneal_steps). Runs alternate: the
// multilevel one, Scotch's mapping, another multilevel one, Scotch's mapping with a new seed,
// ...; each with its V-cycles; runs start while the work budget lasts, the best is kept.
// Deterministic for a seed.
struct MultilevelOptions {
  std::uint32_t seeds = 2;     // runs at most (the first always runs)
  std::uint32_t vcycles = 1;   // V-cycles after each run
  // Annealing steps per vertex on a run's coarsest level (the other annealed levels: 2,000).
  std::uint32_t coarsest_anneal_steps = 16000;
  std::uint64_t work = 1000;   // millions of work units: no run or V-cycle starts beyond them
  std::uint64_t seed = 1;      // of the coarsening, the bisections and the refinement
};
std::unique_ptr<Mapper> make_multilevel_mapper(MapperLabel label, MultilevelOptions options);

}  // namespace taskmap
