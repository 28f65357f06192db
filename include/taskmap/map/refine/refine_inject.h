#pragma once
// refine-inject (taskmap's own): lowers the load of the busiest nodes' own links (injection
// and ejection) on a fabric with leaf switches, where the job's traffic often loads a node's
// link more than any cable of the network. Two nodes cabled to the same switches share their
// tasks out again: METIS bisects the pair's tasks, balancing their count and their traffic
// with the rest of the job (which loads a node's links wherever in the pair a task sits), and
// the split is kept when the busier node of the two gets less load (or as much, and the two
// less in sum). When the partner has free slots, the busy node may also give it some of its
// tasks (a node behind a slow link, or whose tasks talk most with the rest of the job, then
// holds fewer). A task moved between such nodes keeps every route to tasks outside the pair
// but for the node's own link, so the network's cables keep their loads: the leaf-uplink
// volume stays. Moves of whole groups of tasks, which a search by single moves and swaps
// cannot make one step at a time without raising a node's load first.
#include <cstdint>
#include <string>

#include "taskmap/problem/problem.h"

namespace taskmap {

struct InjectRefineOptions {
  std::uint32_t tries = 4;   // METIS bisections per pair, each with its own seed
  std::uint32_t passes = 8;  // passes over the nodes at most (a pass that keeps nothing ends it)
  // Millions of work units at most (0: no limit beyond its own, 128 tasks bisected per task of
  // the job): auto's unit, a bisection counted as kInjectUnitsPerBisectedEdge per task and
  // task-graph edge of the pair, per try and per split tried.
  std::uint64_t work = 0;
  std::uint64_t seed = 1;    // of the first bisection; the others count up from it
};

// The work units of one METIS bisection per task of the pair times (1 + the job's task-graph
// edges per task): 5, measured (a 16,384-task 27-point halo on a 1,024-host tree: 10 s for its
// 2.1 million tasks bisected on one quiet core, x 1.4 for a busy one).
inline constexpr double kInjectUnitsPerBisectedEdge = 5;

struct InjectRefineStats {
  double before = 0, after = 0;  // the highest load / bandwidth of a node's own links
  std::uint32_t passes = 0, pairs_tried = 0, pairs_kept = 0;
  bool out_of_work = false;  // it stopped where options.work ran out
};

// True when the machine has leaf switches and injection links (what refine-inject works on).
bool has_injection_links(const Machine& machine);
// Why refine-inject cannot work on the machine ("" when it can).
std::string why_no_injection_links(const Machine& machine);

// Never returns a placement whose busiest node link is busier than `start`'s; no task changes
// leaf switch; a node holds more tasks than before only in slots that were free (one task per
// slot), and with more tasks than slots every node keeps its count. Throws Error when the
// machine has no leaf switches with injection links.
Mapping refine_injection(const MappingProblem& problem, Mapping start, const InjectRefineOptions& options,
                         InjectRefineStats* stats = nullptr);

}  // namespace taskmap
