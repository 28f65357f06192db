// refine-mcl: steepest descent over moves and swaps of the tasks whose flows cross the
// bottleneck channel, each candidate scored incrementally (only the moved tasks' flows are
// re-routed; a max segment tree over the channel loads gives the new MCL and its multiplicity).
#include "taskmap/map/refine_mcl.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "route_cache.h"
#include "taskmap/io/error.h"
#include "taskmap/io/progress.h"
#include "taskmap/topology/distance.h"

namespace taskmap {

namespace {
constexpr TaskId kNoTask = UINT32_MAX;
constexpr double kTolerance = 1e-9;
}  // namespace

bool LoadScore::better_than(const LoadScore& o) const {
  const double tol = kTolerance * std::max(1.0, o.mcl);
  if (mcl < o.mcl - tol) return true;
  if (mcl > o.mcl + tol) return false;
  if (at_mcl != o.at_mcl) return at_mcl < o.at_mcl;
  return hop_bytes < o.hop_bytes - kTolerance * std::max(1.0, o.hop_bytes);
}

struct IncrementalLoads::Impl {
  Impl(const Machine& m, const Routing& r, const CommGraph& g) : machine(m), routes(m, r), hops(m), graph(g) {}

  struct Top {
    double max = 0;
    std::uint32_t count = 0;
  };
  static Top combine(Top a, Top b) {
    const double tol = kTolerance * std::max(a.max, b.max);
    if (a.max > b.max + tol) return a;
    if (b.max > a.max + tol) return b;
    return {std::max(a.max, b.max), a.count + b.count};
  }
  void set_load(ChannelId c, double value) {
    std::size_t i = leaves + c;
    tree[i] = {value, 1};
    for (i /= 2; i >= 1; i /= 2) tree[i] = combine(tree[2 * i], tree[2 * i + 1]);
  }
  // Calls f(a, b, volume) once for every flow with an end at task t or u (u may be kNoTask);
  // flows between t and u are taken with t, self-flows never leave their router.
  template <typename F>
  void for_each_flow_of(TaskId t, TaskId u, F&& f) const {
    for (TaskId x : {t, u}) {
      if (x == kNoTask) continue;
      auto skip = [&](TaskId other) { return other == x || (x == u && other == t); };
      auto targets = graph.targets(x);
      auto volumes = graph.volumes(x);
      for (std::size_t e = 0; e < targets.size(); ++e)
        if (!skip(targets[e])) f(x, targets[e], volumes[e]);
      for (std::uint64_t e = in_offsets[x]; e < in_offsets[x + 1]; ++e) {
        const auto [source, volume] = in_edges[e];
        if (!skip(source)) f(source, x, volume);
      }
    }
  }
  // Load and hop-byte changes of moving t to slot s; fills delta/touched.
  // The task t swaps with when moving to slot s: none while s has room (or holds t).
  TaskId partner(TaskId t, SlotId s) const {
    const auto& here = on_slot[s];
    if (here.size() < per_slot || std::find(here.begin(), here.end(), t) != here.end()) return kNoTask;
    return here.front();
  }
  double stage(TaskId t, SlotId s) {
    const TaskId u = partner(t, s);
    const RouterId from = router_of_task[t], to = machine.router_of_slot(s);
    double hop_delta = 0;
    if (from == to) return 0;
    auto moved = [&](TaskId x) { return x == t ? to : x == u ? from : router_of_task[x]; };
    auto add = [&](RouterId a, RouterId b, double volume) {
      if (a == b) return;
      auto [first, last] = routes.route(a, b);
      for (auto* p = first; p != last; ++p) {
        if (delta[p->channel] == 0) touched.push_back(p->channel);
        delta[p->channel] += volume * p->load;
      }
    };
    for_each_flow_of(t, u, [&](TaskId a, TaskId b, double volume) {
      const RouterId old_a = router_of_task[a], old_b = router_of_task[b];
      const RouterId new_a = moved(a), new_b = moved(b);
      if (old_a == new_a && old_b == new_b) return;
      add(old_a, old_b, -volume);
      add(new_a, new_b, volume);
      hop_delta += volume * (double(hops(new_a, new_b)) - double(hops(old_a, old_b)));
    });
    return hop_delta;
  }

  const Machine& machine;
  ExactRouteCache routes;
  HopDistance hops;
  const CommGraph& graph;
  std::vector<std::uint64_t> in_offsets;
  std::vector<std::pair<TaskId, double>> in_edges;
  std::vector<RouterId> router_of_task;
  std::uint32_t per_slot = 1;
  std::vector<std::vector<TaskId>> on_slot;
  std::vector<double> load, delta;
  std::vector<ChannelId> touched;
  std::size_t leaves = 1;
  std::vector<Top> tree;
  double hop_bytes = 0;
};

IncrementalLoads::IncrementalLoads(const Machine& machine, const Routing& routing, const CommGraph& graph, Mapping start,
                                   std::uint32_t per_slot)
    : impl_(std::make_unique<Impl>(machine, routing, graph)), mapping_(std::move(start)) {
  validate_mapping(mapping_, machine, graph.num_tasks(), "refine-mcl", per_slot);
  Impl& m = *impl_;
  m.per_slot = per_slot;
  const std::uint32_t n = graph.num_tasks();
  m.in_offsets.assign(n + 1, 0);
  for (TaskId a = 0; a < n; ++a)
    for (TaskId b : graph.targets(a)) ++m.in_offsets[b + 1];
  for (TaskId a = 0; a < n; ++a) m.in_offsets[a + 1] += m.in_offsets[a];
  m.in_edges.resize(m.in_offsets.back());
  std::vector<std::uint64_t> next(m.in_offsets.begin(), m.in_offsets.end() - 1);
  for (TaskId a = 0; a < n; ++a) {
    auto targets = graph.targets(a);
    auto volumes = graph.volumes(a);
    for (std::size_t e = 0; e < targets.size(); ++e) m.in_edges[next[targets[e]]++] = {a, volumes[e]};
  }
  m.on_slot.assign(machine.num_slots(), {});
  for (TaskId t = 0; t < n; ++t) {
    m.router_of_task.push_back(machine.router_of_slot(mapping_.slot_of_task[t]));
    m.on_slot[mapping_.slot_of_task[t]].push_back(t);
  }
  const std::size_t channels = m.routes.num_channels();
  m.load.assign(channels, 0.0);
  m.delta.assign(channels, 0.0);
  for (TaskId a = 0; a < n; ++a) {
    auto targets = graph.targets(a);
    auto volumes = graph.volumes(a);
    for (std::size_t e = 0; e < targets.size(); ++e) {
      const RouterId ra = m.router_of_task[a], rb = m.router_of_task[targets[e]];
      m.hop_bytes += volumes[e] * m.hops(ra, rb);
      if (ra == rb) continue;
      auto [first, last] = m.routes.route(ra, rb);
      for (auto* p = first; p != last; ++p) m.load[p->channel] += volumes[e] * p->load;
    }
  }
  while (m.leaves < std::max<std::size_t>(channels, 1)) m.leaves *= 2;
  m.tree.assign(2 * m.leaves, Impl::Top{});
  for (std::size_t c = 0; c < channels; ++c) m.tree[m.leaves + c] = {m.load[c], 1};
  for (std::size_t i = m.leaves - 1; i >= 1; --i) m.tree[i] = Impl::combine(m.tree[2 * i], m.tree[2 * i + 1]);
}

IncrementalLoads::~IncrementalLoads() = default;

LoadScore IncrementalLoads::score() const {
  return {impl_->tree[1].max, impl_->tree[1].count, impl_->hop_bytes};
}

LoadScore IncrementalLoads::try_move(TaskId t, SlotId s) {
  Impl& m = *impl_;
  const double hop_delta = m.stage(t, s);
  for (ChannelId c : m.touched) m.set_load(c, m.load[c] + m.delta[c]);
  const LoadScore result{m.tree[1].max, m.tree[1].count, m.hop_bytes + hop_delta};
  for (ChannelId c : m.touched) m.set_load(c, m.load[c]), m.delta[c] = 0;
  m.touched.clear();
  return result;
}

void IncrementalLoads::move(TaskId t, SlotId s) {
  Impl& m = *impl_;
  const TaskId u = m.partner(t, s);
  const double hop_delta = m.stage(t, s);
  for (ChannelId c : m.touched) {
    m.load[c] = std::max(0.0, m.load[c] + m.delta[c]);  // rounding must not leave -0.0000001
    m.set_load(c, m.load[c]);
    m.delta[c] = 0;
  }
  m.touched.clear();
  m.hop_bytes += hop_delta;
  const SlotId from = mapping_.slot_of_task[t];
  if (from == s) return;
  auto take = [&](SlotId slot, TaskId x) {
    auto& list = m.on_slot[slot];
    list.erase(std::find(list.begin(), list.end(), x));
  };
  take(from, t);
  m.on_slot[s].push_back(t);
  if (u != kNoTask) take(s, u), m.on_slot[from].push_back(u);
  mapping_.slot_of_task[t] = s;
  m.router_of_task[t] = m.machine.router_of_slot(s);
  if (u != kNoTask) {
    mapping_.slot_of_task[u] = from;
    m.router_of_task[u] = m.machine.router_of_slot(from);
  }
}

ChannelId IncrementalLoads::bottleneck() const {
  const Impl& m = *impl_;
  std::size_t i = 1;
  const double top = m.tree[1].max, tol = kTolerance * top;
  while (i < m.leaves) i = m.tree[2 * i].max >= top - tol ? 2 * i : 2 * i + 1;
  return static_cast<ChannelId>(i - m.leaves);
}

std::vector<TaskId> IncrementalLoads::tasks_crossing(ChannelId channel) {
  Impl& m = *impl_;
  std::vector<double> share(m.graph.num_tasks(), 0.0);
  for (TaskId a = 0; a < m.graph.num_tasks(); ++a) {
    auto targets = m.graph.targets(a);
    auto volumes = m.graph.volumes(a);
    for (std::size_t e = 0; e < targets.size(); ++e) {
      const RouterId ra = m.router_of_task[a], rb = m.router_of_task[targets[e]];
      if (ra == rb) continue;
      auto [first, last] = m.routes.route(ra, rb);
      for (auto* p = first; p != last; ++p)
        if (p->channel == channel) share[a] += volumes[e] * p->load, share[targets[e]] += volumes[e] * p->load;
    }
  }
  std::vector<TaskId> tasks;
  for (TaskId t = 0; t < share.size(); ++t)
    if (share[t] > 0) tasks.push_back(t);
  std::stable_sort(tasks.begin(), tasks.end(), [&](TaskId a, TaskId b) { return share[a] > share[b]; });
  return tasks;
}

namespace {

// Steepest descent from the current mapping of `loads` to a local optimum (or the deadline);
// returns whether the deadline was reached.
bool descend(const Machine& machine, IncrementalLoads& loads, std::uint32_t candidates, bool widen,
             std::chrono::steady_clock::time_point deadline, std::uint32_t& moves) {
  const std::uint32_t per_router = machine.nodes_per_router * machine.slots_per_node;
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
        if (r == home) continue;
        const std::uint32_t step = std::max(1u, per_router / kPartners);
        for (std::uint32_t k = 0; k < per_router; k += step) {
          const SlotId slot = r * per_router + k;
          const LoadScore score = loads.try_move(t, slot);
          if (score.better_than(best)) best = score, best_task = t, best_slot = slot;
        }
        out_of_time = std::chrono::steady_clock::now() > deadline;
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

}  // namespace

Mapping refine_mcl(const Machine& machine, const Routing& routing, const CommGraph& graph, Mapping start,
                   const RefineOptions& options, RefineStats* stats) {
  RefineStats local;
  RefineStats& s = stats ? *stats : local;
  s = RefineStats{};
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(options.seconds));
  auto loads = std::make_unique<IncrementalLoads>(machine, routing, graph, std::move(start), options.per_slot);
  s.before = loads->score();
  bool out_of_time = descend(machine, *loads, options.candidates, true, deadline, s.moves);
  // Iterated local search: from the best local optimum, a kick of random moves of tasks that
  // cross the bottleneck, then descent again; the result replaces the best only if better.
  Mapping best = loads->mapping();
  LoadScore best_score = loads->score();
  std::mt19937_64 rng(options.seed);
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
    out_of_time = descend(machine, *loads, options.candidates, false, deadline, moves);
    if (loads->score().better_than(best_score)) {
      best = loads->mapping();
      best_score = loads->score();
      s.moves += moves;
      ++s.kicks_kept;
    } else {
      loads = std::make_unique<IncrementalLoads>(machine, routing, graph, best, options.per_slot);
    }
  }
  s.after = best_score;
  return best;
}

}  // namespace taskmap
