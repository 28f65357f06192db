#pragma once
// RAHTM [RAHTM]: routing-aware hierarchical mapping on tori. Tasks are clustered by tiling
// (concentration first), clusters are placed top-down onto 2-ary n-cubes (an exact search for
// the least even-split MCL, or the MILP of the paper's Table II solved with COIN-OR CBC; see
// cube.h), and the resulting blocks are merged bottom-up over all their rotations and
// reflections with a beam of the best N partial mappings.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "taskmap/map/mapper.h"
#include "taskmap/map/rahtm/cube.h"
#include "taskmap/problem/problem.h"

namespace taskmap {

// How a cube sub-problem is solved: the exact search (then the MILP where its budget ran
// out), the paper's MILP (the greedy placement kept where better), or the greedy placement.
enum class RahtmLeafSolver { Exact, Milp, Greedy };

struct RahtmOptions {
  std::uint32_t beam = 64;         // N of §III-D
  // Per sub-problem, the exact search's partial placements: a count, so the same result on every run.
  std::uint64_t search_nodes = 2'000'000;
  // Per sub-problem, CBC's simplex iterations (checked between branch-and-bound nodes; the
  // best placement found is used when they run out): a count, so the same result on every
  // run. With leaf = Exact, 0 skips the MILP after a search that ran out of nodes.
  std::uint32_t milp_iterations = 2000;
  double milp_seconds = 0;         // a wall-clock limit per sub-problem on top (0: none); not reproducible
  RahtmLeafSolver leaf = RahtmLeafSolver::Exact;
  unsigned threads = 0;            // for sub-problems and merge candidates; 0: one per core
  bool progress = true;            // progress lines on stderr (only when it is a terminal)
};

struct RahtmStats {
  std::uint32_t subproblems = 0;   // cube placements needed (top-down phase)
  std::uint32_t solved = 0;        // of those, solved (the rest had the canonical form of one solved before)
  std::uint32_t labelling_incomplete = 0;  // of the sub-problems, those whose labelling search hit its budget
  std::uint32_t search_optimal = 0;  // of the solved, proven optimal (even split) by the exact search
  std::uint64_t search_nodes = 0;  // partial placements the exact search visited, in all
  std::uint32_t milp_runs = 0;     // of the solved, given to the MILP
  std::uint32_t optimal = 0;       // of those, proven optimal by the MILP
  std::uint32_t greedy_kept = 0;   // of those (leaf = milp), where the greedy placement beat the MILP's
  std::uint32_t merges = 0;        // merge steps (blocks added to a beam)
  std::uint32_t merges_reused = 0; // tree nodes whose merge was copied from an identical node
  double merge_improvement = 0;    // MCL of the pseudo-pinned mapping minus the merged one's
  double pinned_mcl = 0;           // MCL (the problem's routing) of the top-down placement
  double rank_order_mcl = 0;       // MCL (the problem's routing) of the clusters in rank order, merged
  double layout_mcl = 0;           // MCL of the clusters' grid laid onto the torus, merged (0: no grid)
  double final_mcl = 0;            // MCL (the problem's routing) of the returned mapping
  std::string kept = "top-down";   // the placement returned: "top-down", "rank order" or "grid layout" (merged)
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
