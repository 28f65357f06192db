#pragma once
// refine-mcl (taskmap's own): a local search that lowers the MCL under the machine's
// routing, then the number of channels at the MCL, then hop-bytes. Three phases: a descent
// over moves and swaps of single tasks, a region phase that moves whole routers' contents
// (RegionMoves: boxes turned or exchanged, routers exchanged), an iterated local search.
#include <cstdint>

#include "taskmap/map/refine/incremental_loads.h"
#include "taskmap/problem/problem.h"

namespace taskmap {

struct RefineOptions {
  double seconds = 10;           // wall-clock budget
  std::uint32_t candidates = 16; // tasks crossing the bottleneck tried per step
  std::uint32_t per_slot = 1;    // tasks a slot may hold (tasks_per_slot of the balance)
  std::uint32_t kicks = 200;     // iterated local search: perturbations after the first descent
  std::uint32_t region_steps = 200;  // region phase: steps without a new best before it ends (0: off)
  std::uint64_t seed = 1;        // of the perturbations
};

struct RefineStats {
  std::uint32_t region_steps = 0, region_best = 0;  // region phase: steps taken, and at the best
  std::uint32_t moves = 0;                  // in the descents whose result was kept
  std::uint32_t kicks = 0, kicks_kept = 0;  // perturbations tried, and those that led to a better optimum
  LoadScore before, after;
  bool via_default_routing = false;  // the result came from the search under the default routing
};

// Never returns a mapping with a worse score than `start`. Optimizes under the problem's
// routing (an adaptive one under its oblivious split); when that is not the machine's default
// routing, a search under the default joins in (MappingProblem::under_default_routing).
Mapping refine_mcl(const MappingProblem& problem, Mapping start, const RefineOptions& options,
                   RefineStats* stats = nullptr);

}  // namespace taskmap
