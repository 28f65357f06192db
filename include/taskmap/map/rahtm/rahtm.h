#pragma once
// RAHTM [RAHTM]: routing-aware hierarchical mapping on tori. Tasks are clustered by tiling
// (concentration first), clusters are placed top-down onto 2-ary n-cubes by the MILP of the
// paper's Table II (solved with COIN-OR CBC; cube.h), and the resulting blocks are merged bottom-up
// over all their rotations and reflections with a beam of the best N partial mappings.
#include <cstdint>
#include <string>
#include <vector>

#include <memory>

#include "taskmap/map/mapper.h"
#include "taskmap/map/rahtm/cube.h"
#include "taskmap/problem/problem.h"

namespace taskmap {

enum class RahtmLeafSolver { Milp, Greedy };

struct RahtmOptions {
  std::uint32_t beam = 64;         // N of §III-D
  // Per sub-problem, CBC's simplex iterations (checked between branch-and-bound nodes; the
  // best placement found is used when they run out): a count, so the same result on every run.
  std::uint32_t milp_iterations = 2000;
  double milp_seconds = 0;         // a wall-clock limit per sub-problem on top (0: none); not reproducible
  RahtmLeafSolver leaf = RahtmLeafSolver::Milp;
  unsigned threads = 0;            // for sub-problems and merge candidates; 0: one per core
  bool progress = true;            // progress lines on stderr (only when it is a terminal)
};

struct RahtmStats {
  std::uint32_t subproblems = 0;   // cube placements needed (top-down phase)
  std::uint32_t solved = 0;        // of those, solved (the rest reused an identical one)
  std::uint32_t optimal = 0;       // of the solved, proven optimal by the MILP
  std::uint32_t greedy_kept = 0;   // of the solved, where the greedy placement beat the MILP's
  std::uint32_t merges = 0;        // merge steps (blocks added to a beam)
  std::uint32_t merges_reused = 0; // tree nodes whose merge was copied from an identical node
  double merge_improvement = 0;    // MCL of the pseudo-pinned mapping minus the merged one's
  double pinned_mcl = 0;           // MCL (the problem's routing) of the top-down placement
  double final_mcl = 0;            // MCL (the problem's routing) of the returned mapping
  bool kept_rank_order = false;    // the clusters in rank order (merged as well) won
  std::string clustering;          // tile shapes per level, e.g. "1x32 | 2x8 | 4x4 | 2x1"
  std::string summary() const;
};

// Places the problem's tasks on its torus machine; the merge phase minimizes the MCL under the
// problem's routing (the top-down cube placements use the even split over minimal paths of
// §III-D). Throws Error when the machine cannot be decomposed (not a torus, sizes not powers
// of two, too many equal dimensions) or the solver fails.
Mapping rahtm_map(const MappingProblem& problem, const RahtmOptions& options, RahtmStats* stats = nullptr);

// RAHTM as a mapper; its note gives the solver statistics and the MCL under the problem's routing.
std::unique_ptr<Mapper> make_rahtm_mapper(MapperLabel label, RahtmOptions options);

}  // namespace taskmap
