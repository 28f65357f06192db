// IncrementalLoads: channel loads under moves, scored by re-routing only the moved tasks'
// flows; a max segment tree over the loads gives the MCL and its multiplicity.
#include "taskmap/map/refine/incremental_loads.h"

#include <algorithm>
#include <stdexcept>

#include "taskmap/routing/route_cache.h"
#include "taskmap/topology/distance.h"

namespace taskmap {

namespace {
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
  // Keeps a copy of the problem: the route cache lives as long as a copy does.
  explicit Impl(const MappingProblem& p)
      : problem(p), machine(p.machine()), routes(p.exact_route_cache()), hops(p.machine()), graph(p.graph()) {}

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
  // Relocations of moving task t to slot s: to it, and when s is full, its first task to t's slot.
  void relocations_of(TaskId t, SlotId s, SlotId from, std::vector<Relocation>& out) const {
    out = {{t, s}};
    const auto& here = on_slot[s];
    if (here.size() < per_slot || std::find(here.begin(), here.end(), t) != here.end()) return;
    out.push_back({here.front(), from});
  }
  static double spread_term(double load) {
    const double x = load * load;
    return x * x;
  }
  // Load and hop-byte changes of the relocation, and the spread's when spread_delta is given;
  // fills delta/touched. Every flow with a moved end is re-routed once (a flow between two
  // moved tasks with the first of them).
  double stage(std::span<const Relocation> moves, double* spread_delta) {
    ++stamp;
    for (const Relocation& r : moves) moved_at[r.task] = stamp, new_router[r.task] = machine.router_of_slot(r.slot);
    auto after = [&](TaskId x) { return moved_at[x] == stamp ? new_router[x] : router_of_task[x]; };
    std::uint64_t routed = 0;
    auto add = [&](RouterId a, RouterId b, double volume) {
      if (a == b) return;
      ++routed;
      auto [first, last] = routes.route(a, b);
      for (auto* p = first; p != last; ++p) {
        if (!marked[p->channel]) marked[p->channel] = 1, touched.push_back(p->channel);
        delta[p->channel] += volume * p->load;
      }
    };
    double hop_delta = 0;
    auto flow = [&](TaskId a, TaskId b, double volume) {
      const RouterId old_a = router_of_task[a], old_b = router_of_task[b], new_a = after(a), new_b = after(b);
      if (old_a == new_a && old_b == new_b) return;
      add(old_a, old_b, -volume);
      add(new_a, new_b, volume);
      hop_delta += volume * (double(hops(new_a, new_b)) - double(hops(old_a, old_b)));
    };
    for (const Relocation& r : moves) {
      const TaskId x = r.task;
      auto counted = [&](TaskId other) { return other == x || done_at[other] == stamp; };
      auto targets = graph.targets(x);
      auto volumes = graph.volumes(x);
      for (std::size_t e = 0; e < targets.size(); ++e)
        if (!counted(targets[e])) flow(x, targets[e], volumes[e]);
      for (std::uint64_t e = in_offsets[x]; e < in_offsets[x + 1]; ++e) {
        const auto [source, volume] = in_edges[e];
        if (!counted(source)) flow(source, x, volume);
      }
      done_at[x] = stamp;
    }
    *work += kWorkPerFlow * routed + kWorkPerChannel * touched.size();
    if (spread_delta) {
      double change = 0;
      for (ChannelId c : touched) change += spread_term((load[c] + delta[c]) * inv_scale) - spread_term(load[c] * inv_scale);
      *spread_delta = change;
    }
    return hop_delta;
  }
  void unstage() {
    for (ChannelId c : touched) delta[c] = 0, marked[c] = 0;
    touched.clear();
  }

  MappingProblem problem;
  const Machine& machine;
  ExactRouteCache& routes;
  HopDistance hops;
  const CommGraph& graph;
  std::vector<std::uint64_t> in_offsets;
  std::vector<std::pair<TaskId, double>> in_edges;
  std::vector<RouterId> router_of_task;
  std::uint32_t per_slot = 1;
  std::vector<std::vector<TaskId>> on_slot;
  std::vector<double> load, delta;
  std::vector<char> marked;
  std::vector<ChannelId> touched;
  std::uint32_t stamp = 0;
  std::vector<std::uint32_t> moved_at, done_at;
  std::vector<RouterId> new_router;
  std::size_t leaves = 1;
  std::vector<Top> tree;
  double hop_bytes = 0, spread = 0, inv_scale = 1;
  std::vector<Relocation> scratch;
  std::uint64_t own_work = 0;
  std::uint64_t* work = &own_work;  // where the work units are counted
};

IncrementalLoads::IncrementalLoads(const MappingProblem& problem, Mapping start, std::uint32_t per_slot,
                                   std::uint64_t* work)
    : impl_(std::make_unique<Impl>(problem)), mapping_(std::move(start)) {
  const Machine& machine = problem.machine();
  const CommGraph& graph = problem.graph();
  validate_mapping(mapping_, machine, graph.num_tasks(), "refine-mcl", per_slot);
  Impl& m = *impl_;
  if (work) m.work = work;
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
  m.marked.assign(channels, 0);
  m.moved_at.assign(n, 0);
  m.done_at.assign(n, 0);
  m.new_router.assign(n, 0);
  for (TaskId a = 0; a < n; ++a) {
    auto targets = graph.targets(a);
    auto volumes = graph.volumes(a);
    for (std::size_t e = 0; e < targets.size(); ++e) {
      const RouterId ra = m.router_of_task[a], rb = m.router_of_task[targets[e]];
      m.hop_bytes += volumes[e] * m.hops(ra, rb);
      if (ra == rb) continue;
      *m.work += kWorkPerFlow;
      auto [first, last] = m.routes.route(ra, rb);
      for (auto* p = first; p != last; ++p) m.load[p->channel] += volumes[e] * p->load;
    }
  }
  *m.work += kWorkPerChannel * channels;
  while (m.leaves < std::max<std::size_t>(channels, 1)) m.leaves *= 2;
  m.tree.assign(2 * m.leaves, Impl::Top{});
  for (std::size_t c = 0; c < channels; ++c) m.tree[m.leaves + c] = {m.load[c], 1};
  for (std::size_t i = m.leaves - 1; i >= 1; --i) m.tree[i] = Impl::combine(m.tree[2 * i], m.tree[2 * i + 1]);
  if (m.tree[1].max > 0) m.inv_scale = 1 / m.tree[1].max;
  for (double l : m.load) m.spread += Impl::spread_term(l * m.inv_scale);
}

IncrementalLoads::~IncrementalLoads() = default;

LoadScore IncrementalLoads::score() const {
  return {impl_->tree[1].max, impl_->tree[1].count, impl_->hop_bytes, impl_->spread};
}

const std::vector<TaskId>& IncrementalLoads::tasks_on(SlotId s) const { return impl_->on_slot[s]; }

LoadScore IncrementalLoads::try_move(TaskId t, SlotId s) {
  Impl& m = *impl_;
  m.relocations_of(t, s, mapping_.slot_of_task[t], m.scratch);
  return try_relocate(m.scratch, false);
}

void IncrementalLoads::move(TaskId t, SlotId s) {
  Impl& m = *impl_;
  m.relocations_of(t, s, mapping_.slot_of_task[t], m.scratch);
  relocate(m.scratch);
}

LoadScore IncrementalLoads::try_relocate(std::span<const Relocation> moves, bool with_spread) {
  Impl& m = *impl_;
  double spread_delta = 0;
  const double hop_delta = m.stage(moves, with_spread ? &spread_delta : nullptr);
  LoadScore result{0, 0, m.hop_bytes + hop_delta, m.spread + spread_delta};
  // Usually the new top is clear from the touched channels and the channels at the current
  // top that the move leaves alone; only near-ties go through the tree (updated and undone).
  const Impl::Top top = m.tree[1];
  Impl::Top touched;
  std::uint32_t top_touched = 0;
  for (ChannelId c : m.touched) {
    touched = Impl::combine(touched, {m.load[c] + m.delta[c], 1});
    if (m.load[c] >= top.max * (1 - kTolerance)) ++top_touched;
  }
  const std::uint32_t top_untouched = top.count - std::min(top.count, top_touched);
  if (touched.max > top.max * (1 + 2 * kTolerance)) {
    result.mcl = touched.max, result.at_mcl = touched.count;
  } else if (top_untouched > 0 && touched.max < top.max * (1 - 2 * kTolerance)) {
    result.mcl = top.max, result.at_mcl = top_untouched;
  } else {
    for (ChannelId c : m.touched) m.set_load(c, m.load[c] + m.delta[c]);
    result.mcl = m.tree[1].max, result.at_mcl = m.tree[1].count;
    for (ChannelId c : m.touched) m.set_load(c, m.load[c]);
  }
  m.unstage();
  return result;
}

double IncrementalLoads::try_spread(std::span<const Relocation> moves) {
  Impl& m = *impl_;
  double spread_delta = 0;
  m.stage(moves, &spread_delta);
  m.unstage();
  return m.spread + spread_delta;
}

void IncrementalLoads::relocate(std::span<const Relocation> moves) {
  Impl& m = *impl_;
  double spread_delta = 0;
  const double hop_delta = m.stage(moves, &spread_delta);
  for (ChannelId c : m.touched) {
    m.load[c] = std::max(0.0, m.load[c] + m.delta[c]);  // rounding must not leave -0.0000001
    m.set_load(c, m.load[c]);
  }
  m.unstage();
  m.hop_bytes += hop_delta;
  m.spread += spread_delta;
  for (const Relocation& r : moves) {
    auto& list = m.on_slot[mapping_.slot_of_task[r.task]];
    list.erase(std::find(list.begin(), list.end(), r.task));
  }
  for (const Relocation& r : moves) {
    m.on_slot[r.slot].push_back(r.task);
    if (m.on_slot[r.slot].size() > m.per_slot) throw std::logic_error("refine-mcl: a relocation overfills a slot");
    mapping_.slot_of_task[r.task] = r.slot;
    m.router_of_task[r.task] = m.machine.router_of_slot(r.slot);
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
      *m.work += kWorkPerFlow;
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

}  // namespace taskmap
