#pragma once
// IncrementalEvaluator: a mapping kept up to date under moves and swaps of tasks, with its
// hop-bytes and, when asked for, its channel loads under the problem's routing. The refiners
// (refine-mcl, refine-hb, TiMEr) score candidate moves with it: a move or a swap re-evaluates
// only the moved tasks' flows, never the whole job.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "taskmap/problem/problem.h"

namespace taskmap {

// refine-mcl's objective, compared lexicographically: the MCL, the channels at it, then the
// spread, then hop-bytes.
struct LoadScore {
  double mcl = 0;            // max over channels of load / bandwidth
  std::uint32_t at_mcl = 0;  // channels within 1e-9 (relative) of it
  // Sum over channels of (load / the start's MCL)^4: a smooth stand-in for the MCL that also
  // sees the channels just below it. At an equal MCL and count it breaks ties, so a search can
  // cross a plateau of the MCL by draining the channels next to the top.
  double spread = 0;
  double hop_bytes = 0;
  bool better_than(const LoadScore& o) const;
};

struct Relocation {
  TaskId task;
  SlotId slot;
};

// Work units, the measure of the evaluator's work: per flow routed (to build the loads, to
// score or make a move, to list the tasks crossing channels), per channel whose load a scored
// or made move changes, and per task-graph edge a relocation visits. Calibrated so that a
// unit takes about the same time on tori, meshes, Dragonflies and fat trees, sparse and dense
// patterns (within a factor of 2).
constexpr std::uint64_t kWorkPerFlow = 4, kWorkPerChannel = 1, kWorkPerEdge = 1;

class IncrementalEvaluator {
 public:
  enum class Track {
    HopBytes,  // the mapping and its hop-bytes
    Loads,     // and the channel loads (MCL, spread, bottleneck, the tasks crossing a channel)
  };
  // Which channels the loads count: all, or the network's only (not the nodes' own links,
  // classes `host_link`: their load does not depend on the routes, and when one of them is the
  // bottleneck a search on all channels cannot see the switch links below it).
  enum class Channels { All, Network };
  // A mapping with at most per_slot tasks per slot. Loads are taken under the problem's
  // routing: its oblivious routes (an adaptive routing contributes its oblivious split). The
  // work units spent are added to *work when given: a count proportional to the time taken,
  // the same on every run.
  IncrementalEvaluator(const MappingProblem& problem, Mapping start, std::uint32_t per_slot, Track track,
                       std::uint64_t* work = nullptr, Channels channels = Channels::All);
  ~IncrementalEvaluator();
  IncrementalEvaluator(const IncrementalEvaluator&) = delete;
  IncrementalEvaluator& operator=(const IncrementalEvaluator&) = delete;

  // --- The mapping.
  const Mapping& mapping() const { return mapping_; }
  RouterId router_of(TaskId t) const;
  // Tasks on a slot, in the order they came.
  std::span<const TaskId> tasks_on(SlotId s) const;
  // Tasks on a router; removing a task moves the router's last one into its place.
  const std::vector<TaskId>& tasks_on_router(RouterId r) const;
  // The first slot of router r with room for a task, or UINT32_MAX.
  SlotId free_slot(RouterId r) const;
  // Starts over from another mapping (the lists of tasks per router in task order).
  void reset(Mapping mapping);

  // --- The task graph, undirected: each pair once per side, sorted by partner, with the
  // volumes of both directions summed (detail::undirected_graph's weights, exactly).
  std::uint32_t num_tasks() const;
  std::span<const TaskId> partners(TaskId t) const;
  std::span<const double> weights(TaskId t) const;
  // Volume between two tasks, both directions (0 if none); O(log degree).
  double volume_between(TaskId a, TaskId b) const;

  // --- Hop-bytes: volume x hop distance (MappingProblem::hop_distance) over directed flows.
  std::uint32_t hops(RouterId a, RouterId b) const;
  double hop_bytes() const;
  // Computed again over every pair, in task order (resets the running sum's rounding).
  double recompute_hop_bytes();
  // Cost of task t at router x: sum over its partners of volume x hops(x, partner's router).
  double task_cost(TaskId t, RouterId x) const;
  // The same for many routers x: gather(t) sums t's volume per partner router once, cost_at(x)
  // then costs O(partner routers). The routers are listed in the order first met.
  void gather(TaskId t);
  const std::vector<RouterId>& gathered_routers() const;
  double gathered_volume(RouterId r) const;
  double cost_at(RouterId x) const;
  // Change of hop-bytes, and volume between moved and unmoved tasks, if the relocation were
  // made; nothing changes, nothing is routed.
  struct HopDelta {
    double change = 0;
    double cut_volume = 0;
  };
  HopDelta hop_delta(std::span<const Relocation> moves);

  // --- Changes. Each task at most once in a relocation; the slots must not end up over their
  // room (a permutation of slot contents never does).
  void relocate(std::span<const Relocation> moves);
  // Task t to slot s; when s is full, its first task goes to t's slot (a swap).
  void move(TaskId t, SlotId s);

  // --- Channel loads (Track::Loads only).
  LoadScore score() const;
  // Score after the relocation, or the move; nothing changes.
  LoadScore try_relocate(std::span<const Relocation> moves);
  LoadScore try_move(TaskId t, SlotId s);
  // Only the spread after the relocation (cheaper: the MCL is not looked for).
  double try_spread(std::span<const Relocation> moves);
  // The channel with the highest load (the first, on ties), and the tasks whose flows cross
  // it, heaviest contribution first (ties: lower task id first).
  ChannelId bottleneck() const;
  std::vector<TaskId> tasks_crossing(ChannelId channel);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Mapping mapping_;
};

}  // namespace taskmap
