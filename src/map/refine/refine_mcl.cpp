// refine-mcl: steepest descent over moves and swaps of the tasks whose flows cross the
// bottleneck channel, then a tabu search over router-content permutations (the region phase),
// then an iterated local search, all scored by IncrementalLoads.
#include "taskmap/map/refine/refine_mcl.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <unordered_map>

#include "taskmap/core/progress.h"
#include "taskmap/map/refine/region_moves.h"

namespace taskmap {

namespace {

constexpr TaskId kNoTask = UINT32_MAX;
constexpr double kTolerance = 1e-9;
constexpr std::uint64_t kWorkUnit = 1'000'000;  // RefineOptions::work counts millions

// What a search may spend: work units, counted by IncrementalLoads into `spent`,
// up to a limit, and when a time limit was asked for, a deadline as well.
class Budget {
 public:
  Budget(std::uint64_t work, double seconds) : limit_(work) {
    if (seconds > 0) {
      deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                         std::chrono::duration<double>(seconds));
    }
  }
  std::uint64_t* counter() { return spent_.get(); }
  std::uint64_t spent() const { return *spent_; }
  bool exhausted() const {
    return *spent_ >= limit_ || (deadline_ && std::chrono::steady_clock::now() > *deadline_);
  }
  // The first half of what is left, counted in the same counter.
  Budget first_half() const {
    Budget half = *this;
    half.limit_ = *spent_ + (limit_ - std::min(limit_, *spent_)) / 2;
    if (deadline_) {
      const auto now = std::chrono::steady_clock::now();
      half.deadline_ = now + (*deadline_ - now) / 2;
    }
    return half;
  }

 private:
  std::shared_ptr<std::uint64_t> spent_ = std::make_shared<std::uint64_t>(0);
  std::uint64_t limit_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

// Steepest descent from the current mapping of `loads` to a local optimum (or the end of the
// budget); returns whether the budget ran out.
bool descend(const Machine& machine, IncrementalLoads& loads, std::uint32_t candidates, bool widen,
             const Budget& budget, std::uint32_t& moves) {
  // Swap partners tried per router: all of them up to this many slots, else a spread.
  constexpr std::uint32_t kPartners = 8;
  bool out_of_time = false;
  std::uint32_t width = candidates;
  while (!out_of_time) {
    std::vector<TaskId> tasks = loads.tasks_crossing(loads.bottleneck());
    const bool all = tasks.size() <= width;
    if (!all) tasks.resize(width);
    LoadScore best = loads.score();
    TaskId best_task = kNoTask;
    SlotId best_slot = 0;
    for (TaskId t : tasks) {
      const RouterId home = machine.router_of_slot(loads.mapping().slot_of_task[t]);
      for (RouterId r = 0; r < machine.num_host_routers() && !out_of_time; ++r) {
        const std::uint32_t per_router = machine.slots_of_router(r);
        if (r == home || per_router == 0) continue;
        const std::uint32_t step = std::max(1u, per_router / kPartners);
        for (std::uint32_t k = 0; k < per_router; k += step) {
          const SlotId slot = machine.first_slot_of_router(r) + k;
          const LoadScore score = loads.try_move(t, slot);
          if (score.better_than(best)) best = score, best_task = t, best_slot = slot;
        }
        out_of_time = budget.exhausted();
      }
    }
    if (best_task == kNoTask) {
      if (all || out_of_time || !widen) break;
      width = UINT32_MAX;  // no gain among the heaviest: widen to every task crossing it
      continue;
    }
    loads.move(best_task, best_slot);
    width = candidates;
    ++moves;
  }
  return out_of_time;
}

// Candidates scored per region step: every move up to twice this many indices, else a sample.
constexpr std::uint64_t kRegionSample = 4096;

// The region phase: a tabu search over router-content permutations (RegionMoves) that
// descends on the spread, keeping the best mapping by the LoadScore order in best/best_score.
// Each step makes the candidate with the lowest spread that is not tabu (a tabu one only if
// it lowers the spread); a move made is tabu for 5 to 24 steps. Ends after `patience` steps
// without a new best, or when the budget runs out.
void region_search(const Machine& machine, IncrementalLoads& loads, std::uint32_t patience,
                   const Budget& budget, std::mt19937_64& rng, Mapping& best,
                   LoadScore& best_score, RefineStats& s) {
  const RegionMoves region(machine);
  std::unordered_map<std::uint64_t, std::uint32_t> tabu_until;
  std::vector<std::pair<RouterId, RouterId>> pairs;
  std::vector<Relocation> moves;
  auto relocations = [&](std::uint64_t index) {
    moves.clear();
    if (!region.get(index, pairs)) return false;
    for (auto [from, to] : pairs) {
      // Router contents move as a whole: only between routers of as many slots.
      const std::uint32_t per_router = machine.slots_of_router(from);
      if (machine.slots_of_router(to) != per_router) return false;
      const SlotId from_slot = machine.first_slot_of_router(from), to_slot = machine.first_slot_of_router(to);
      for (std::uint32_t k = 0; k < per_router; ++k)
        for (TaskId t : loads.tasks_on(from_slot + k)) moves.push_back({t, to_slot + k});
    }
    return !moves.empty();
  };
  const bool scan_all = region.size() <= 2 * kRegionSample;
  io::Progress progress("refine-mcl regions", patience);
  for (std::uint32_t step = 0, since_best = 0; since_best < patience; ++step, ++since_best, ++s.region_steps) {
    const double current = loads.score().spread;
    double chosen_spread = std::numeric_limits<double>::infinity();
    std::uint64_t chosen = 0;
    const std::uint64_t candidates = scan_all ? region.size() : kRegionSample;
    for (std::uint64_t c = 0; c < candidates; ++c) {
      if (budget.exhausted()) return;  // a step scores thousands of moves: checked between them
      const std::uint64_t index = scan_all ? c : rng() % region.size();
      if (!relocations(index)) continue;
      const double spread = loads.try_spread(moves);
      const auto tabu = tabu_until.find(index);
      if (tabu != tabu_until.end() && tabu->second > step && !(spread < current * (1 - kTolerance))) continue;
      if (spread < chosen_spread) chosen_spread = spread, chosen = index;
    }
    if (chosen_spread == std::numeric_limits<double>::infinity()) return;  // no move applies
    relocations(chosen);
    loads.relocate(moves);
    tabu_until[chosen] = step + 5 + static_cast<std::uint32_t>(rng() % 20);
    if (loads.score().better_than(best_score)) {
      best = loads.mapping();
      best_score = loads.score();
      s.region_best = step + 1;
      since_best = 0;
    }
    progress.set(since_best);
  }
}

// The search under one routing: descent, region phase, iterated local search, within `work`
// work units and `seconds` (0: no time limit).
Mapping search(const MappingProblem& problem, Mapping start, const RefineOptions& options, std::uint64_t work,
               double seconds, RefineStats* stats) {
  const Machine& machine = problem.machine();
  const CommGraph& graph = problem.graph();
  RefineStats local;
  RefineStats& s = stats ? *stats : local;
  s = RefineStats{};
  Budget budget(work, seconds);
  auto fresh_loads = [&](Mapping from) {
    return std::make_unique<IncrementalLoads>(problem, std::move(from), options.per_slot, budget.counter());
  };
  auto loads = fresh_loads(std::move(start));
  s.before = loads->score();
  bool out_of_time = descend(machine, *loads, options.candidates, true, budget, s.moves);
  Mapping best = loads->mapping();
  LoadScore best_score = loads->score();
  std::mt19937_64 rng(options.seed);
  if (options.region_steps > 0 && !out_of_time && graph.num_tasks() > 1) {
    // Half of the budget left when kicks follow, all of it otherwise.
    region_search(machine, *loads, options.region_steps, options.kicks > 0 ? budget.first_half() : budget, rng, best,
                  best_score, s);
    loads = fresh_loads(best);
    out_of_time = budget.exhausted();
    if (s.region_best > 0 && !out_of_time) {
      out_of_time = descend(machine, *loads, options.candidates, true, budget, s.moves);
      best = loads->mapping();
      best_score = loads->score();
    }
  }
  // Iterated local search: from the best local optimum, a kick of random moves of tasks that
  // cross the bottleneck, then descent again; the result replaces the best only if better.
  const std::uint32_t n = graph.num_tasks(), slots = machine.num_slots();
  io::Progress progress("refine-mcl kicks", options.kicks);
  for (; s.kicks < options.kicks && !out_of_time && n > 1; ++s.kicks, progress.set(s.kicks)) {
    const std::uint32_t size = 2 + s.kicks % 3;  // 2, 3 or 4 moves per kick
    for (std::uint32_t i = 0; i < size; ++i) {
      std::vector<TaskId> crossing = loads->tasks_crossing(loads->bottleneck());
      const TaskId t = crossing.empty() ? TaskId(rng() % n) : crossing[rng() % crossing.size()];
      loads->move(t, SlotId(rng() % slots));  // a full slot swaps with its first task
    }
    std::uint32_t moves = 0;
    // Without widening: the kicks explore, a full scan per kick would cost most of the time.
    out_of_time = descend(machine, *loads, options.candidates, false, budget, moves);
    if (loads->score().better_than(best_score)) {
      best = loads->mapping();
      best_score = loads->score();
      s.moves += moves;
      ++s.kicks_kept;
    } else {
      loads = fresh_loads(best);
    }
  }
  s.after = best_score;
  s.work = budget.spent();
  s.out_of_budget = out_of_time;
  return best;
}

}  // namespace

Mapping refine_mcl(const MappingProblem& problem, Mapping start, const RefineOptions& options, RefineStats* stats) {
  const std::uint64_t work = options.work * kWorkUnit;
  const std::optional<MappingProblem> smooth = problem.under_default_routing();
  if (!smooth) return search(problem, std::move(start), options, work, options.seconds, stats);
  // Under a single-path routing (DOR, D-mod-k) one move changes a few channels by whole flows,
  // and the search stalls where the machine's default routing, which splits flows (on tori
  // evenly over the minimal paths), still sees its way down. So half the budget (work, and
  // time when limited) searches under the run's routing, a quarter under the default, a
  // quarter polishes that result under the run's routing, and the better of the two results
  // under the run's routing is returned.
  RefineStats direct, smoothed, polished;
  Mapping a = search(problem, start, options, work / 2, options.seconds / 2, &direct);
  Mapping b = search(problem, search(*smooth, std::move(start), options, work / 4, options.seconds / 4, &smoothed),
                     options, work / 4, options.seconds / 4, &polished);
  const bool polished_better = polished.after.better_than(direct.after);
  RefineStats& best = polished_better ? polished : direct;
  if (stats) {
    *stats = best;
    stats->before = direct.before;
    stats->moves = direct.moves + smoothed.moves + polished.moves;
    stats->region_steps = direct.region_steps + smoothed.region_steps + polished.region_steps;
    stats->kicks = direct.kicks + smoothed.kicks + polished.kicks;
    stats->kicks_kept = direct.kicks_kept + smoothed.kicks_kept + polished.kicks_kept;
    stats->work = direct.work + smoothed.work + polished.work;
    stats->out_of_budget = direct.out_of_budget || smoothed.out_of_budget || polished.out_of_budget;
    stats->via_default_routing = polished_better;
  }
  return polished_better ? std::move(b) : std::move(a);
}

}  // namespace taskmap
