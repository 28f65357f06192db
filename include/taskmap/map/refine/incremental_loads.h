#pragma once
// Channel loads of a mapping kept up to date under moves of tasks, for refine-mcl: a candidate
// move is scored by re-routing only the flows of the tasks it moves.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "taskmap/problem/problem.h"

namespace taskmap {

// The objective, compared lexicographically.
struct LoadScore {
  double mcl = 0;               // max over channels of load / bandwidth
  std::uint32_t at_mcl = 0;     // channels within 1e-9 (relative) of it
  double hop_bytes = 0;
  // Not part of the order: sum over channels of (load / the start's MCL)^4, a smooth stand-in
  // for the MCL that also sees the channels just below it (the region phase descends on it).
  double spread = 0;
  bool better_than(const LoadScore& o) const;
};

struct Relocation {
  TaskId task;
  SlotId slot;
};

// Work units, the measure of IncrementalLoads' work: per flow routed (to build the loads, to
// score or make a move, to list the tasks crossing a channel), and per channel whose load a
// scored or made move changes. Calibrated so that a unit takes about the same time on tori,
// meshes, Dragonflies and fat trees, sparse and dense patterns (within a factor of 2).
constexpr std::uint64_t kWorkPerFlow = 4, kWorkPerChannel = 1;

// Channel loads of a mapping with at most per_slot tasks per slot, kept up to date under
// moves, under the problem's routing: its oblivious routes (an adaptive routing contributes
// its oblivious split), from the problem's shared route cache. The work units it spends are
// added to *work when given: a count proportional to the time taken, the same on every run.
class IncrementalLoads {
 public:
  IncrementalLoads(const MappingProblem& problem, Mapping start, std::uint32_t per_slot = 1,
                   std::uint64_t* work = nullptr);
  ~IncrementalLoads();

  LoadScore score() const;
  // Score after moving task t to slot s (swapping with the first task there when s is full);
  // nothing changes. Its spread is left at the current one (the descent does not use it).
  LoadScore try_move(TaskId t, SlotId s);
  void move(TaskId t, SlotId s);
  // The same for several tasks at once (each task at most once); the slots must not end up
  // over their room (a permutation of slot contents never does).
  LoadScore try_relocate(std::span<const Relocation> moves, bool with_spread = true);
  void relocate(std::span<const Relocation> moves);
  // Only the spread after the relocation (cheaper: the MCL is not updated).
  double try_spread(std::span<const Relocation> moves);
  const Mapping& mapping() const { return mapping_; }
  const std::vector<TaskId>& tasks_on(SlotId s) const;
  // The channel with the highest load (the first, on ties), and the tasks whose flows cross
  // it, heaviest contribution first.
  ChannelId bottleneck() const;
  std::vector<TaskId> tasks_crossing(ChannelId channel);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Mapping mapping_;
};

}  // namespace taskmap
