#pragma once
// The refinement of the multilevel mapper (ml) on one level: vertices (clusters of tasks) move
// between blocks (routers) to lower J = sum over edges of volume x hop distance between their
// blocks, each block holding at most its capacity of tasks.
//   rebalance  moves vertices out of blocks over capacity, the cheapest per task of the excess;
//   anneal     simulated annealing: random moves to a partner's block or a block next to it, or
//              exchanges with a vertex there when it is full, accepted by the Metropolis rule
//              under a geometrically cooling temperature; ends at the best placement seen;
//   greedy     passes of label propagation: each vertex to the block that lowers J most where it
//              fits, or exchanged with a vertex of a block where it does not, when that lowers J
//              more;
//   fm         localized Fiduccia-Mattheyses searches: from a seed vertex, the best move of the
//              vertices around the moved ones, negative gains allowed, back to the best prefix.
// A vertex's gain is computed from its own edges: its volume to each block, and the cost at a
// candidate block (its partners' blocks, the heaviest first, and the blocks nearest its own).
// No step moves a vertex into a block beyond its capacity, so a level's excess never grows.
#include <cstdint>
#include <random>
#include <vector>

#include "block_machine.h"
#include "coarsening.h"

namespace taskmap::detail {

struct RefinementOptions {
  std::uint32_t greedy_passes = 2;    // label propagation passes at most
  std::uint32_t fm_rounds = 1;        // rounds of FM searches at most
  std::uint32_t fm_patience = 50;     // moves without a new best before a search stops
  std::uint32_t most_partner_blocks = 16;  // the heaviest partner blocks tried per vertex
  std::uint32_t most_swap_blocks = 8;      // full blocks searched for an exchange partner, the best first
  std::uint32_t anneal_steps = 0;          // simulated annealing steps per vertex
  std::uint64_t least_anneal_steps = 0;    // in all, at least (small levels are cheap to anneal well)
  std::uint64_t seed = 1;
};

class MappingRefiner {
 public:
  // part: the block of each vertex of `level`. `work` counts adjacency entries scanned and block
  // costs evaluated.
  MappingRefiner(const LevelGraph& level, const BlockMachine& machine, std::vector<std::uint32_t> part,
                 const RefinementOptions& options, std::uint64_t& work);

  // J: each edge's volume x the distance between its blocks, each edge once.
  double cost() const;
  // Tasks above capacity, summed over blocks.
  std::uint64_t overload() const;

  // Moves vertices out of blocks holding more than their capacity + slack.
  void rebalance(std::uint64_t slack = 0);
  // Annealing (when options.anneal_steps), greedy passes, FM rounds, greedy passes again; J
  // never rises.
  void refine();

  const std::vector<std::uint32_t>& part() const { return part_; }

 private:
  struct Move {
    std::uint32_t to = UINT32_MAX;
    double gain = 0;
  };
  void gather(std::uint32_t v);
  double cost_at(std::uint32_t block) const;
  void collect_candidates(std::uint32_t v);
  bool fits(std::uint32_t v, std::uint32_t to) const;
  std::uint64_t capacity(std::uint32_t block) const { return machine_.capacity(block); }
  // The best block where v fits (to == UINT32_MAX: none); `blocked`, if given, receives the
  // blocks where v does not fit and would cost less. must_leave: also when every partner is in
  // v's block, and also the nearest block with room.
  Move best_move(std::uint32_t v, std::vector<Move>* blocked = nullptr, bool must_leave = false);
  void move(std::uint32_t v, std::uint32_t to);
  double edge_between(std::uint32_t v, std::uint32_t u) const;
  bool greedy_pass(std::vector<std::uint32_t>& order);
  // The best exchange of v with a vertex of one of the blocks in `targets` (v's gains there):
  // made when its gain exceeds `least`; returns whether it was.
  bool try_swap(std::uint32_t v, std::vector<Move>& targets, double least);
  double fm_round();
  // The change of J when v moves to block x.
  double move_delta(std::uint32_t v, std::uint32_t x);
  // Simulated annealing over moves and exchanges: returns to the best placement seen.
  void anneal();
  double fm_search(std::uint32_t seed_vertex, std::uint32_t round);

  const LevelGraph& level_;
  const UndirectedGraph& g_;
  const BlockMachine& machine_;
  RefinementOptions options_;
  std::uint64_t& work_;
  std::vector<std::uint32_t> part_;
  std::vector<std::uint64_t> load_;
  std::vector<std::vector<std::uint32_t>> on_;  // vertices of each block
  std::vector<std::uint32_t> position_;         // in on_[part_[v]]
  std::mt19937_64 rng_;
  double tolerance_ = 0;  // gains below it are rounding
  // gather(): volume to each block, the blocks touched.
  std::vector<double> volume_to_;
  std::vector<std::uint32_t> touched_;
  // collect_candidates(): blocks tried, without repeats.
  std::vector<std::uint32_t> candidates_, candidate_stamp_;
  std::vector<Move> blocked_;
  std::uint32_t stamp_ = 0;
  // FM: the round in which a vertex moved, heap versions, the moves of a search.
  std::vector<std::uint32_t> moved_in_round_, version_;
  std::uint32_t rounds_ = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> log_;  // vertex, block it left
};

}  // namespace taskmap::detail
