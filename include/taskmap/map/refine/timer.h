#pragma once
// TiMEr [TiMEr §4-6]: improves the hop-bytes of a mapping onto a partial cube by swapping
// the labels of tasks along many random hierarchies of the label digits.
//
// Every task gets the label l_p(router) . l_e, its router's partial-cube label followed by an
// extension that numbers the tasks of one router (so labels are unique and the set of labels
// fixes how many tasks each router, and each slot, holds). Hop-bytes is the weighted Hamming
// distance on the l_p digits. A hierarchy is a random order of all digits; at level i, two
// groups of tasks whose labels agree on every digit after the i-th (in that order) and differ
// only in the i-th exchange labels when that lowers the combined objective Coco+ (§5).
#include <cstdint>

#include "taskmap/problem/problem.h"
#include "taskmap/topology/partial_cube.h"

namespace taskmap {

struct TimerOptions {
  std::uint32_t hierarchies = 50;  // N_H of the paper
  std::uint64_t seed = 1;          // digit orders and the initial extension labels
};

struct TimerStats {
  double hop_bytes_before = 0, hop_bytes_after = 0;  // on shortest paths of the router graph
  std::uint32_t hierarchies_kept = 0;                // hierarchies whose result was kept
  std::uint32_t swaps = 0;                           // group exchanges accepted in kept hierarchies
  std::uint32_t label_digits = 0, extension_digits = 0;
};

// `cube` labels the machine's routers (PartialCube::of_machine). The result keeps every slot's
// task count of `start` (so its balance) and never has higher hop-bytes than `start`.
Mapping timer_enhance(const MappingProblem& problem, const PartialCube& cube, Mapping start, const TimerOptions& options,
                      TimerStats* stats = nullptr);

}  // namespace taskmap
