#pragma once
// refine-mcl (taskmap's own): a local search that lowers the MCL under the machine's
// routing, then the number of channels at the MCL, then the spread of the loads below it, then
// hop-bytes (LoadScore). Phases: a descent over moves and swaps of single tasks crossing the
// bottleneck; annealing on hop-bytes (the job's structure, routing aside); a region phase that
// moves whole routers' contents (RegionMoves); annealing on the spread; a last descent. On
// machines of more than 4,096 routers with slots (jobs of a million ranks) a task is tried only
// near its partners and its own router.
#include <cstdint>

#include "taskmap/eval/incremental.h"
#include "taskmap/problem/problem.h"

namespace taskmap {

struct RefineOptions {
  // The budget, in millions of the IncrementalEvaluator's work units: proportional to time, and the
  // same on every run whatever the machine's speed and load.
  std::uint64_t work = 600;
  double seconds = 0;            // a wall-clock limit on top of the work (0: none); not reproducible
  std::uint32_t candidates = 16; // tasks crossing the bottleneck tried per step
  std::uint32_t per_slot = 1;    // tasks a slot may hold (tasks_per_slot of the balance)
  bool anneal = true;            // the two annealing phases (false: descents and region phase only)
  std::uint32_t region_steps = 200;  // region phase: steps without a new best before it ends (0: off)
  std::uint64_t seed = 1;        // of the annealing and the region phase's samples
  // Tasks move only among the hosts under their own leaf switches (leaf_groups): the
  // leaf-uplink volume stays as it was. Only on fabrics with leaf switches.
  bool within_leaf = false;
  // The MCL searched: over every channel, or over the network's only (the switch links: the
  // nodes' own links left out, as Metrics::mcl_network does).
  IncrementalEvaluator::Channels channels = IncrementalEvaluator::Channels::All;
  // Tasks move only with all the tasks of their router, exchanged with the contents of another
  // router of as many slots and the same own links (exchangeable_routers): every node link
  // then carries a load some node link of its speed carried before, so their highest load
  // stays, and only the network's loads change. With `channels` Network, the MCL over every
  // channel never rises.
  bool whole_routers = false;
};

// Per router: a class such that two host routers of one class hold as many slots and have own
// links (class host_link, out and in) of the same bandwidths, link by link in channel order (a
// node's traffic is split over them in that order); UINT32_MAX for routers
// without slots and for those that hold part of a node's slots (a node's GPUs, each a router of
// its own). Classes are numbered in router order.
std::vector<std::uint32_t> exchangeable_routers(const Machine& machine);

struct RefineStats {
  std::uint32_t region_steps = 0, region_best = 0;  // region phase: steps taken, and at the best
  std::uint32_t moves = 0;                  // made by the descents
  std::uint64_t annealed = 0;               // moves the annealing phases made
  std::uint64_t work = 0;                   // work units spent
  bool out_of_budget = false;               // the work (or the time limit) ran out before the phases ended
  LoadScore before, after;
  bool via_default_routing = false;  // the result came from the search under the default routing
};

// Never returns a mapping with a worse score than `start`. Optimizes under the problem's
// routing (an adaptive one under its oblivious split); when that is not the machine's default
// routing, a search under the default joins in (MappingProblem::under_default_routing).
Mapping refine_mcl(const MappingProblem& problem, Mapping start, const RefineOptions& options,
                   RefineStats* stats = nullptr);

}  // namespace taskmap
