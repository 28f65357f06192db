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

// Channel loads of a mapping with at most per_slot tasks per slot, kept up to date under
// moves, under the problem's routing: its oblivious routes (an adaptive routing contributes
// its oblivious split), from the problem's shared route cache.
class IncrementalLoads {
 public:
  IncrementalLoads(const MappingProblem& problem, Mapping start, std::uint32_t per_slot = 1);
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
