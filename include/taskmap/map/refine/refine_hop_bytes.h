#pragma once
// refine-hb (taskmap's own): a local search on hop-bytes for many-to-one mappings, on any
// machine. Groups of well-connected tasks of one router (from the whole router's set down to
// small groups) move to other routers or exchange routers with other groups; then each task
// in turn moves to the router that minimises its volume x hop distance to its partners (or
// swaps with a task there when that router is full). Every step lowers hop-bytes; gains are
// exact, computed from the moved tasks' terms only (IncrementalEvaluator).
#include <cstdint>

#include "taskmap/problem/problem.h"

namespace taskmap {

struct HopBytesRefineOptions {
  std::uint32_t rounds = 20;     // passes over all tasks at most
  std::uint32_t per_slot = 1;    // tasks a slot may hold (tasks_per_slot of the balance)
  std::uint64_t seed = 1;        // the order tasks are visited in
  // Millions of work units at most (0: no limit): the search stops where they run out, with
  // what it reached, the same on every run (the units count steps, not time).
  std::uint64_t work = 0;
  // A node behind slower links than the fastest takes at most its share of the job by link
  // speed (link_speed_capacities: rb's shares), to the nearest task, or what it holds at the
  // start when that is more: hop-bytes, blind to link speeds, would fill the free slots such a
  // start leaves beside it.
  bool room_by_link_speed = false;
};

struct HopBytesRefineStats {
  double before = 0, after = 0;  // hop-bytes on minimal routes
  std::uint32_t moves = 0, swaps = 0, rounds = 0;
  std::uint32_t group_moves = 0, group_exchanges = 0;  // of the group phase
  std::uint64_t work = 0;                              // work units spent
  bool out_of_work = false;                            // the work ran out before the search converged
};

// Never returns higher hop-bytes than `start`; keeps at most per_slot tasks per slot. Hop
// distances are the problem's (MappingProblem::hop_distance).
Mapping refine_hop_bytes(const MappingProblem& problem, Mapping start, const HopBytesRefineOptions& options,
                         HopBytesRefineStats* stats = nullptr);

}  // namespace taskmap
