// refine-mcl: steepest descent over moves and swaps of the tasks whose flows cross the
// bottleneck channel, annealing on hop-bytes, a tabu search over router-content permutations
// (the region phase), annealing on the spread and a last descent, all scored by the
// IncrementalEvaluator. A journal of the moves made takes the search back to its best point
// without evaluating the job again.
#include "taskmap/map/refine/refine_mcl.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <unordered_map>

#include "taskmap/core/progress.h"
#include "taskmap/map/refine/region_moves.h"
#include "taskmap/topology/distance.h"

namespace taskmap {

namespace {

constexpr TaskId kNoTask = UINT32_MAX;
constexpr double kTolerance = 1e-9;
constexpr std::uint64_t kWorkUnit = 1'000'000;  // RefineOptions::work counts millions

// What a search may spend: work units, counted by the evaluator into `spent`, up to a limit,
// and when a time limit was asked for, a deadline as well.
class Budget {
 public:
  Budget(std::uint64_t work, double seconds, const MappingProblem& problem) : problem_(&problem), limit_(work) {
    if (seconds > 0) {
      deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                         std::chrono::duration<double>(seconds));
    }
  }
  std::uint64_t* counter() { return spent_.get(); }
  std::uint64_t spent() const { return *spent_; }
  std::uint64_t limit() const { return limit_; }
  // Also where the steps check for cancellation (MappingProblem::cancel), which throws.
  bool exhausted() const {
    problem_->stop_if_cancelled();
    return *spent_ >= limit_ || (deadline_ && std::chrono::steady_clock::now() > *deadline_);
  }
  // The first half of what is left, counted in the same counter.
  Budget first_half() const { return share(0.5); }
  // That fraction of what is left, counted in the same counter.
  Budget share(double fraction) const {
    Budget part = *this;
    part.limit_ = *spent_ + static_cast<std::uint64_t>(double(limit_ - std::min(limit_, *spent_)) * fraction);
    if (deadline_) {
      const auto now = std::chrono::steady_clock::now();
      part.deadline_ = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>((*deadline_ - now) * fraction);
    }
    return part;
  }

 private:
  const MappingProblem* problem_;
  std::shared_ptr<std::uint64_t> spent_ = std::make_shared<std::uint64_t>(0);
  std::uint64_t limit_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

// The evaluator and the moves made on it since a point the search may return to: each entry
// group is the inverse of one relocation.
class Journal {
 public:
  explicit Journal(IncrementalEvaluator& loads) : loads_(loads) {}
  void relocate(std::span<const Relocation> moves) {
    starts_.push_back(undo_.size());
    for (const Relocation& r : moves) undo_.push_back({r.task, loads_.mapping().slot_of_task[r.task]});
    loads_.relocate(moves);
  }
  void move(TaskId t, SlotId s) {
    relocations(t, s, scratch_);
    relocate(scratch_);
  }
  // Task t to slot s; when s is full, its first task to t's slot.
  void relocations(TaskId t, SlotId s, std::vector<Relocation>& out) const {
    out = {{t, s}};
    const auto here = loads_.tasks_on(s);
    if (here.size() >= per_slot_ && std::find(here.begin(), here.end(), t) == here.end()) {
      out.push_back({here.front(), loads_.mapping().slot_of_task[t]});
    }
  }
  void set_per_slot(std::uint32_t per_slot) { per_slot_ = per_slot; }
  std::size_t mark() const { return starts_.size(); }
  void undo_to(std::size_t mark) {
    while (starts_.size() > mark) {
      const std::size_t first = starts_.back();
      loads_.relocate(std::span(undo_).subspan(first));
      undo_.resize(first);
      starts_.pop_back();
    }
  }
  void forget() { undo_.clear(), starts_.clear(); }

 private:
  IncrementalEvaluator& loads_;
  std::uint32_t per_slot_ = 1;
  std::vector<Relocation> undo_, scratch_;
  std::vector<std::size_t> starts_;
};

// Beyond this many routers with slots, the incremental mode for large jobs: a task is tried
// on its partners' routers and their neighbours (and its own router's) instead of on every
// router, the annealing moves tasks there too, and no second search runs under the default
// routing (its split routes of a million flows would cost more than the whole budget).
constexpr std::uint32_t kWholeMachineRouters = 4096;
// About as many routers as Destinations lists for a task of a sparse job in that mode.
constexpr std::uint64_t kNearRouters = 32;

// The routers a task may move to.
class Destinations {
 public:
  Destinations(const Machine& machine, const IncrementalEvaluator& loads)
      : machine_(machine), loads_(loads), whole_(machine.num_host_routers() <= kWholeMachineRouters) {
    if (whole_) return;
    adjacency_.emplace(machine, false);
    seen_.assign(machine.num_routers, 0);
  }
  bool whole_machine() const { return whole_; }
  // Routers other than t's own that hold slots, in a fixed order.
  const std::vector<RouterId>& of(TaskId t) {
    list_.clear();
    const RouterId home = loads_.router_of(t);
    if (whole_) {
      for (RouterId r = 0; r < machine_.num_host_routers(); ++r)
        if (r != home && machine_.slots_of_router(r) > 0) list_.push_back(r);
      return list_;
    }
    ++stamp_;
    seen_[home] = stamp_;
    auto add = [&](RouterId r) {
      if (seen_[r] == stamp_) return;
      seen_[r] = stamp_;
      if (r < machine_.num_host_routers() && machine_.slots_of_router(r) > 0) list_.push_back(r);
    };
    auto add_around = [&](RouterId r) {
      for (std::uint32_t i = adjacency_->offsets[r]; i < adjacency_->offsets[r + 1]; ++i)
        add(machine_.channels[adjacency_->channels[i]].dst);
    };
    add_around(home);
    for (TaskId u : loads_.partners(t)) add(loads_.router_of(u));
    const std::size_t partner_routers = list_.size();
    for (std::size_t i = 0; i < partner_routers; ++i) add_around(list_[i]);
    return list_;
  }

 private:
  const Machine& machine_;
  const IncrementalEvaluator& loads_;
  bool whole_;
  std::optional<ChannelAdjacency> adjacency_;
  std::vector<std::uint32_t> seen_;
  std::uint32_t stamp_ = 0;
  std::vector<RouterId> list_;
};

enum class Energy { HopBytes, Spread };

class Search {
 public:
  // `anneal`: the annealing phases run (options.anneal and a search from a start mapping, not
  // the polish of another search's result).
  Search(const MappingProblem& problem, Mapping start, const RefineOptions& options, Budget budget, bool anneal)
      : machine_(problem.machine()), options_(options), anneal_(anneal && options.anneal), budget_(std::move(budget)),
        loads_(problem, std::move(start), options.per_slot, IncrementalEvaluator::Track::Loads, budget_.counter(),
               options.channels),
        journal_(loads_), destinations_(machine_, loads_), rng_(options.seed) {
    journal_.set_per_slot(options.per_slot);
    if (options.within_leaf) {
      leaf_ = leaf_groups(machine_);
      for (RouterId r = 0; r < machine_.num_host_routers(); ++r) {
        if (leaf_[r] == UINT32_MAX || machine_.slots_of_router(r) == 0) continue;
        if (leaf_[r] >= leaf_routers_.size()) leaf_routers_.resize(leaf_[r] + 1);
        leaf_routers_[leaf_[r]].push_back(r);
      }
    }
    if (options.whole_routers) {
      // Classes of exchangeable routers; within leaves, one class per class and leaf.
      class_ = exchangeable_routers(machine_);
      std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> renumbered;
      for (RouterId r = 0; r < machine_.num_host_routers(); ++r) {
        if (class_[r] == UINT32_MAX) continue;
        const std::uint32_t leaf = leaf_.empty() ? 0 : leaf_[r];
        const auto [it, added] = renumbered.emplace(std::pair{class_[r], leaf}, static_cast<std::uint32_t>(renumbered.size()));
        class_[r] = it->second;
        if (added) class_routers_.emplace_back();
        class_routers_[class_[r]].push_back(r);
      }
      seen_.assign(machine_.num_routers, 0);
    }
  }

  Mapping run(RefineStats& s) {
    s = RefineStats{};
    s.before = loads_.score();
    const bool several = loads_.num_tasks() > 1, regions = options_.region_steps > 0 && several;
    descend(true, s.moves);
    journal_.forget();
    if (!anneal_ || !several || budget_.exhausted()) {
      if (regions && !budget_.exhausted()) region_search(budget_, s);
      return finish(s);
    }
    // The annealing on hop-bytes may end worse by the objective than it started: the descent's
    // optimum is kept aside.
    const Mapping kept = loads_.mapping();
    const LoadScore kept_score = loads_.score();
    anneal(budget_.share(kHopBytesShare), Energy::HopBytes, s);
    if (!budget_.exhausted()) descend(true, s.moves);
    journal_.forget();
    if (regions && !budget_.exhausted()) region_search(budget_.share(kRegionShare), s);
    if (!budget_.exhausted()) anneal(budget_, Energy::Spread, s);
    finish(s);
    if (kept_score.better_than(s.after)) {
      s.after = kept_score;
      return kept;
    }
    return loads_.mapping();
  }

 private:
  // Budget shares of the phases after the first descent, each of what is left then: the
  // annealing on hop-bytes a quarter, the region phase a third (it usually ends sooner, by its
  // step count), the annealing on the spread the rest.
  static constexpr double kHopBytesShare = 0.25, kRegionShare = 1.0 / 3;

  // The last descent, and the statistics.
  Mapping finish(RefineStats& s) {
    if (!budget_.exhausted()) descend(true, s.moves);
    journal_.forget();
    s.work = budget_.spent();
    s.out_of_budget = budget_.exhausted();
    s.after = loads_.score();
    return loads_.mapping();
  }

  // Steepest descent from the current mapping to a local optimum (or the end of the budget);
  // returns whether the budget ran out.
  bool descend(bool widen, std::uint32_t& moves) {
    if (options_.whole_routers) return descend_by_routers(widen, moves);
    // Swap partners tried per router: all of them up to this many slots, else a spread.
    constexpr std::uint32_t kPartners = 8;
    bool out_of_time = false;
    std::uint32_t width = options_.candidates;
    while (!out_of_time) {
      std::vector<TaskId> tasks = loads_.tasks_crossing(loads_.bottleneck());
      const bool all = tasks.size() <= width;
      if (!all) tasks.resize(width);
      LoadScore best = loads_.score();
      TaskId best_task = kNoTask;
      SlotId best_slot = 0;
      for (TaskId t : tasks) {
        for (RouterId r : destinations_.of(t)) {
          if (!allowed(t, r)) continue;
          const std::uint32_t per_router = machine_.slots_of_router(r);
          const std::uint32_t step = std::max(1u, per_router / kPartners);
          for (std::uint32_t k = 0; k < per_router; k += step) {
            const SlotId slot = machine_.first_slot_of_router(r) + k;
            const LoadScore score = loads_.try_move(t, slot);
            if (score.better_than(best)) best = score, best_task = t, best_slot = slot;
          }
          if ((out_of_time = budget_.exhausted())) break;
        }
        if (out_of_time) break;
      }
      if (best_task == kNoTask) {
        if (all || out_of_time || !widen) break;
        width = UINT32_MAX;  // no gain among the heaviest: widen to every task crossing it
        continue;
      }
      journal_.move(best_task, best_slot);
      width = options_.candidates;
      ++moves;
    }
    return out_of_time;
  }

  // The same descent by exchanges of whole routers' contents (RefineOptions::whole_routers):
  // each router holding tasks that cross the bottleneck, heaviest first, with every router it
  // may exchange with.
  bool descend_by_routers(bool widen, std::uint32_t& moves) {
    bool out_of_time = false;
    std::uint32_t width = options_.candidates;
    std::vector<Relocation> trial;
    while (!out_of_time) {
      std::vector<RouterId> routers;
      ++stamp_;
      for (TaskId t : loads_.tasks_crossing(loads_.bottleneck())) {
        const RouterId r = loads_.router_of(t);
        if (seen_[r] != stamp_) seen_[r] = stamp_, routers.push_back(r);
      }
      const bool all = routers.size() <= width;
      if (!all) routers.resize(width);
      LoadScore best = loads_.score();
      std::optional<std::pair<RouterId, RouterId>> best_pair;
      for (RouterId a : routers) {
        for (RouterId b : exchange_partners(a)) {
          if (!exchangeable(a, b) || !exchange(a, b, trial)) continue;
          const LoadScore score = loads_.try_relocate(trial);
          if (score.better_than(best)) best = score, best_pair = {a, b};
          if ((out_of_time = budget_.exhausted())) break;
        }
        if (out_of_time) break;
      }
      if (!best_pair) {
        if (all || out_of_time || !widen) break;
        width = UINT32_MAX;
        continue;
      }
      exchange(best_pair->first, best_pair->second, trial);
      journal_.relocate(trial);
      width = options_.candidates;
      ++moves;
    }
    return out_of_time;
  }

  // Whole routers' contents (RefineOptions::whole_routers): the routers router a may exchange
  // with (its class: within_leaf, of its leaf too), and whether a and b may.
  const std::vector<RouterId>& exchange_partners(RouterId a) const {
    static const std::vector<RouterId> none;
    return class_[a] == UINT32_MAX ? none : class_routers_[class_[a]];
  }
  bool exchangeable(RouterId a, RouterId b) const { return a != b && class_[a] != UINT32_MAX && class_[a] == class_[b]; }
  // The relocations exchanging the contents of routers a and b (slot k to slot k); false when
  // both are empty.
  bool exchange(RouterId a, RouterId b, std::vector<Relocation>& out) const {
    out.clear();
    const SlotId first_a = machine_.first_slot_of_router(a), first_b = machine_.first_slot_of_router(b);
    for (std::uint32_t k = 0; k < machine_.slots_of_router(a); ++k) {
      for (TaskId t : loads_.tasks_on(first_a + k)) out.push_back({t, first_b + k});
      for (TaskId t : loads_.tasks_on(first_b + k)) out.push_back({t, first_a + k});
    }
    return !out.empty();
  }

  // Simulated annealing within `budget`, and at most kProposals x tasks x destinations moves
  // proposed (a tiny job needs few): a random task (on the spread, every other one among those
  // crossing the bottleneck) to a random slot (near it on large machines), a full slot's first
  // task swapped back. A move that lowers the energy is made; one that raises it by d with
  // probability exp(-d / T), T falling geometrically from a tenth of the average rise of 200
  // sampled moves to a thousandth of that, with the budget or the proposals spent, whichever
  // runs out first. On hop-bytes the moves are scored without routing. Ends at the best point
  // passed: by hop-bytes, or by the LoadScore order.
  void anneal(const Budget& budget, Energy energy, RefineStats& s) {
    constexpr int kSamples = 200;
    constexpr double kStart = 0.1, kCooling = 1e-3;
    constexpr std::uint64_t kProposals = 2000;
    const bool on_hops = energy == Energy::HopBytes;
    const std::uint32_t n = loads_.num_tasks(), slots = machine_.num_slots();
    std::vector<Relocation> moves;
    std::vector<TaskId> crossing;
    std::uint64_t proposals = 0;
    auto propose = [&]() {
      TaskId t = TaskId(rng_() % n);
      if (!on_hops) {
        if (proposals++ % 64 == 0) crossing = loads_.tasks_crossing(loads_.bottleneck());
        if (rng_() % 2 == 0 && !crossing.empty()) t = crossing[rng_() % crossing.size()];
      }
      if (options_.whole_routers) {  // t's router with another of its class
        const RouterId a = loads_.router_of(t);
        const std::vector<RouterId>& partners = exchange_partners(a);
        if (partners.empty()) return false;
        const RouterId b = partners[rng_() % partners.size()];
        return exchangeable(a, b) && exchange(a, b, moves);
      }
      SlotId slot;
      if (!leaf_.empty()) {  // a router of t's leaf, a slot of it
        const std::vector<RouterId>& routers = leaf_routers_[leaf_[loads_.router_of(t)]];
        const RouterId r = routers[rng_() % routers.size()];
        slot = machine_.first_slot_of_router(r) + SlotId(rng_() % machine_.slots_of_router(r));
      } else if (destinations_.whole_machine()) {
        slot = SlotId(rng_() % slots);
      } else {
        const std::vector<RouterId>& near = destinations_.of(t);
        if (near.empty()) return false;
        const RouterId r = near[rng_() % near.size()];
        slot = machine_.first_slot_of_router(r) + SlotId(rng_() % machine_.slots_of_router(r));
      }
      if (loads_.mapping().slot_of_task[t] == slot) return false;
      journal_.relocations(t, slot, moves);
      return true;
    };
    auto change = [&]() {
      return on_hops ? loads_.hop_delta(moves).change : loads_.try_spread(moves) - loads_.score().spread;
    };
    double rises = 0;
    int rose = 0;
    for (int i = 0; i < kSamples && !budget.exhausted(); ++i) {
      if (!propose()) continue;
      if (const double d = change(); d > 0) rises += d, ++rose;
    }
    if (rose == 0) return;
    const double t0 = kStart * rises / rose;
    const std::uint64_t first = budget_.spent(), span = std::max<std::uint64_t>(1, budget.limit() - std::min(budget.limit(), first));
    const std::uint64_t destinations = destinations_.whole_machine() ? machine_.num_host_routers() : kNearRouters;
    const std::uint64_t most = kProposals * n * std::max<std::uint64_t>(1, destinations - 1);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    LoadScore best = loads_.score();
    journal_.forget();
    io::Progress progress(on_hops ? "refine-mcl annealing (hop-bytes)" : "refine-mcl annealing (spread)", 1000);
    double temperature = t0;
    for (std::uint64_t step = 0; step < most && !budget.exhausted(); ++step) {
      if (step % 256 == 0) {
        const double fraction =
            std::min(1.0, std::max(double(budget_.spent() - first) / double(span), double(step) / double(most)));
        temperature = t0 * std::pow(kCooling, fraction);
        progress.set(static_cast<std::uint64_t>(fraction * 1000));
      }
      if (!propose()) continue;
      const double d = change();
      if (d > 0 && uniform(rng_) >= std::exp(-d / temperature)) continue;
      journal_.relocate(moves);
      ++s.annealed;
      const LoadScore now = loads_.score();
      if (on_hops ? now.hop_bytes < best.hop_bytes * (1 - kTolerance) : now.better_than(best)) {
        best = now;
        journal_.forget();
      }
    }
    journal_.undo_to(0);
  }

  // Candidates scored per region step: every move up to twice this many indices, else a sample.
  static constexpr std::uint64_t kRegionSample = 4096;

  // The region phase: a tabu search over router-content permutations (RegionMoves) that
  // descends on the spread, ending at the best point it passed by the LoadScore order. Each
  // step makes the candidate with the lowest spread that is not tabu (a tabu one only if it
  // lowers the spread); a move made is tabu for 5 to 24 steps. Ends after `regions` steps
  // without a new best, or when the budget runs out.
  void region_search(const Budget& budget, RefineStats& s) {
    const RegionMoves region(machine_);
    std::unordered_map<std::uint64_t, std::uint32_t> tabu_until;
    std::vector<std::pair<RouterId, RouterId>> pairs;
    std::vector<Relocation> moves;
    auto relocations = [&](std::uint64_t index) {
      moves.clear();
      if (!region.get(index, pairs)) return false;
      for (auto [from, to] : pairs) {
        if (!leaf_.empty() && leaf_[from] != leaf_[to]) return false;
        if (options_.whole_routers && from != to && !exchangeable(from, to)) return false;
        // Router contents move as a whole: only between routers of as many slots.
        const std::uint32_t per_router = machine_.slots_of_router(from);
        if (machine_.slots_of_router(to) != per_router) return false;
        const SlotId from_slot = machine_.first_slot_of_router(from), to_slot = machine_.first_slot_of_router(to);
        for (std::uint32_t k = 0; k < per_router; ++k)
          for (TaskId t : loads_.tasks_on(from_slot + k)) moves.push_back({t, to_slot + k});
      }
      return !moves.empty();
    };
    const bool scan_all = region.size() <= 2 * kRegionSample;
    LoadScore best = loads_.score();
    journal_.forget();
    io::Progress progress("refine-mcl regions", options_.region_steps);
    for (std::uint32_t step = 0, since_best = 0; since_best < options_.region_steps;
         ++step, ++since_best, ++s.region_steps) {
      const double current = loads_.score().spread;
      double chosen_spread = std::numeric_limits<double>::infinity();
      std::uint64_t chosen = 0;
      const std::uint64_t candidates = scan_all ? region.size() : kRegionSample;
      bool stop = false;
      for (std::uint64_t c = 0; c < candidates; ++c) {
        if ((stop = budget.exhausted())) break;  // a step scores thousands of moves: checked between them
        const std::uint64_t index = scan_all ? c : rng_() % region.size();
        if (!relocations(index)) continue;
        const double spread = loads_.try_spread(moves);
        const auto tabu = tabu_until.find(index);
        if (tabu != tabu_until.end() && tabu->second > step && !(spread < current * (1 - kTolerance))) continue;
        if (spread < chosen_spread) chosen_spread = spread, chosen = index;
      }
      if (stop || chosen_spread == std::numeric_limits<double>::infinity()) break;  // out of budget, or no move applies
      relocations(chosen);
      journal_.relocate(moves);
      tabu_until[chosen] = step + 5 + static_cast<std::uint32_t>(rng_() % 20);
      if (loads_.score().better_than(best)) {
        best = loads_.score();
        journal_.forget();
        s.region_best = step + 1;
        since_best = 0;
      }
      progress.set(since_best);
    }
    journal_.undo_to(0);
  }

  // Whether task t may move to router r (within_leaf: only under its own leaf switches).
  bool allowed(TaskId t, RouterId r) const { return leaf_.empty() || leaf_[r] == leaf_[loads_.router_of(t)]; }

  const Machine& machine_;
  const RefineOptions& options_;
  bool anneal_;
  std::vector<std::uint32_t> leaf_;                 // within_leaf: leaf_groups(machine)
  std::vector<std::vector<RouterId>> leaf_routers_;  // per leaf group, its routers with slots
  std::vector<std::uint32_t> class_;                 // whole_routers: exchangeable_routers(machine)
  std::vector<std::vector<RouterId>> class_routers_;  // per class, its routers
  std::vector<std::uint32_t> seen_;                   // per router, the stamp it was last listed at
  std::uint32_t stamp_ = 0;
  Budget budget_;
  IncrementalEvaluator loads_;
  Journal journal_;
  Destinations destinations_;
  std::mt19937_64 rng_;
};

// The search under one routing, within `work` work units and `seconds` (0: no time limit).
Mapping search(const MappingProblem& problem, Mapping start, const RefineOptions& options, std::uint64_t work,
               double seconds, bool anneal, RefineStats* stats) {
  RefineStats local;
  Search search(problem, std::move(start), options, Budget(work, seconds, problem), anneal);
  return search.run(stats ? *stats : local);
}

}  // namespace

std::vector<std::uint32_t> exchangeable_routers(const Machine& machine) {
  // A router's own links, out and in, their bandwidths in channel order: a node's traffic is
  // split over its links in that order, so two nodes exchange loads link for link.
  struct Signature {
    std::uint32_t slots = 0;
    std::vector<double> out, in;
  };
  std::vector<Signature> signature(machine.num_routers);
  for (const Channel& c : machine.channels) {
    const LinkClass& cls = machine.classes[c.link_class];
    if (!cls.host_link) continue;
    signature[c.src].out.push_back(cls.bandwidth);
    signature[c.dst].in.push_back(cls.bandwidth);
  }
  auto same = [](const std::vector<double>& x, const std::vector<double>& y) {
    return std::equal(x.begin(), x.end(), y.begin(), y.end(), [](double a, double b) {
      return std::abs(a - b) <= kTolerance * std::max(std::abs(a), std::abs(b));
    });
  };
  std::vector<std::uint32_t> class_of(machine.num_routers, UINT32_MAX);
  std::vector<RouterId> first_of_class;
  for (RouterId r = 0; r < machine.num_host_routers(); ++r) {
    Signature& sig = signature[r];
    sig.slots = machine.slots_of_router(r);
    // Only a router that is a whole node (not one GPU of several): its own links carry the
    // traffic of its tasks alone.
    if (sig.slots == 0 || machine.slots_of_node(machine.node_of_slot(machine.first_slot_of_router(r))) != sig.slots) continue;
    for (std::uint32_t k = 0; k < first_of_class.size(); ++k) {
      const Signature& o = signature[first_of_class[k]];
      if (o.slots == sig.slots && same(o.out, sig.out) && same(o.in, sig.in)) {
        class_of[r] = k;
        break;
      }
    }
    if (class_of[r] == UINT32_MAX) {
      class_of[r] = static_cast<std::uint32_t>(first_of_class.size());
      first_of_class.push_back(r);
    }
  }
  return class_of;
}

Mapping refine_mcl(const MappingProblem& problem, Mapping start, const RefineOptions& options, RefineStats* stats) {
  const std::uint64_t work = options.work * kWorkUnit;
  const bool large = problem.machine().num_host_routers() > kWholeMachineRouters;
  const std::optional<MappingProblem> smooth = large ? std::nullopt : problem.under_default_routing();
  if (!smooth) return search(problem, std::move(start), options, work, options.seconds, true, stats);
  // Under a single-path routing (DOR, D-mod-k) one move changes a few channels by whole flows,
  // and the search stalls where the machine's default routing, which splits flows (on tori
  // evenly over the minimal paths), still sees its way down. So half the budget (work, and
  // time when limited) searches under the run's routing, a quarter under the default, a
  // quarter polishes that result under the run's routing, and the better of the two results
  // under the run's routing is returned. Only the first search anneals: the second follows
  // its start's structure down under the split routes (descents and region moves), which is
  // how NAS CG on a mesh reaches its optimum under DOR, and the polish keeps what it found.
  RefineStats direct, smoothed, polished;
  Mapping a = search(problem, start, options, work / 2, options.seconds / 2, true, &direct);
  Mapping b = search(problem, search(*smooth, std::move(start), options, work / 4, options.seconds / 4, false, &smoothed),
                     options, work / 4, options.seconds / 4, false, &polished);
  const bool polished_better = polished.after.better_than(direct.after);
  RefineStats& best = polished_better ? polished : direct;
  if (stats) {
    *stats = best;
    stats->before = direct.before;
    stats->moves = direct.moves + smoothed.moves + polished.moves;
    stats->region_steps = direct.region_steps + smoothed.region_steps + polished.region_steps;
    stats->annealed = direct.annealed + smoothed.annealed + polished.annealed;
    stats->work = direct.work + smoothed.work + polished.work;
    stats->out_of_budget = direct.out_of_budget || smoothed.out_of_budget || polished.out_of_budget;
    stats->via_default_routing = polished_better;
  }
  return polished_better ? std::move(b) : std::move(a);
}

}  // namespace taskmap
