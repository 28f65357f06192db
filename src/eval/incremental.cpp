// IncrementalEvaluator: the mapping's bookkeeping (tasks per slot and per router), hop-bytes
// deltas from the moved tasks' edges, and channel loads re-routed for the moved tasks' flows
// only, with a max segment tree over the loads for the MCL and its multiplicity.
#include "taskmap/eval/incremental.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/routing/route_cache.h"
#include "taskmap/topology/distance.h"

namespace taskmap {

namespace {

constexpr double kTolerance = 1e-9;
constexpr TaskId kNoTask = UINT32_MAX;

using Share = ExactRouteCache::Share;

// Routes between routers with each share divided by its channel's bandwidth: from the
// problem's shared exact route cache; where the cache refuses the machine (its limit on
// routers, the memory cap), computed by the routing and kept here, up to a budget of memory
// (then all are dropped and computed again as needed). A range is valid until the next call.
// With the network's channels only, routes are computed here too, without the nodes' own links.
class RouteSource {
 public:
  RouteSource(const MappingProblem& problem, IncrementalEvaluator::Channels channels) : routing_(problem.routing()) {
    const bool network = channels == IncrementalEvaluator::Channels::Network;
    try {
      if (network) fail("routes without the nodes' own links are kept here");
      cache_ = &problem.exact_route_cache();
    } catch (const Error&) {
      const Machine& machine = problem.machine();
      inv_bandwidth_.reserve(machine.channels.size());
      for (const Channel& c : machine.channels) {
        const LinkClass& cls = machine.classes[c.link_class];
        inv_bandwidth_.push_back(network && cls.host_link ? 0.0 : 1.0 / cls.bandwidth);
      }
      max_kept_ = std::max<std::size_t>(1 << 16, std::min<std::uint64_t>(memory_limit() / 8, std::uint64_t{1} << 30) /
                                                     sizeof(Share));
    }
  }

  std::span<const Share> operator()(RouterId a, RouterId b) {
    if (cache_) {
      auto [first, last] = cache_->route(a, b);
      return {first, last};
    }
    const std::uint64_t key = (std::uint64_t{a} << 32) | b;
    if (auto it = index_.find(key); it != index_.end()) return {kept_.data() + it->second.first, it->second.second};
    computed_.clear();
    routing_.route(a, b, computed_);
    if (kept_.size() + computed_.size() > max_kept_) kept_.clear(), index_.clear();
    const std::size_t first = kept_.size();
    for (const ChannelShare& s : computed_) {
      if (inv_bandwidth_[s.channel] > 0) kept_.push_back({s.channel, s.fraction * inv_bandwidth_[s.channel]});
    }
    const std::size_t count = kept_.size() - first;
    index_.emplace(key, std::pair{first, count});
    return {kept_.data() + first, count};
  }

 private:
  const Routing& routing_;
  ExactRouteCache* cache_ = nullptr;
  std::vector<double> inv_bandwidth_;
  std::unordered_map<std::uint64_t, std::pair<std::size_t, std::size_t>> index_;
  std::vector<Share> kept_;
  std::vector<ChannelShare> computed_;
  std::size_t max_kept_ = 0;
};

// Router-to-router hops, as a table when it is small enough (refine-hb and TiMEr look distances
// up millions of times): over every router, or on a larger machine (a fabric whose switches are
// routers too) over the routers with slots, the only ones tasks sit on and moves go to.
class RouterHops {
 public:
  RouterHops(const Machine& machine, const HopDistance& hops, bool table) : hops_(hops) {
    if (!table) return;
    std::vector<RouterId> routers;
    for (RouterId r = 0; r < machine.num_routers; ++r) {
      if (machine.num_routers <= kMaxTable || machine.slots_of_router(r) > 0) routers.push_back(r);
    }
    if (routers.size() > kMaxTable) return;
    n_ = static_cast<std::uint32_t>(routers.size());
    index_.assign(machine.num_routers, kNotInTable);
    for (std::uint32_t i = 0; i < n_; ++i) index_[routers[i]] = i;
    table_.resize(std::size_t(n_) * n_);
    for (std::uint32_t a = 0; a < n_; ++a)
      for (std::uint32_t b = 0; b < n_; ++b)
        table_[std::size_t(a) * n_ + b] = static_cast<std::uint16_t>(hops_(routers[a], routers[b]));
  }
  std::uint32_t operator()(RouterId a, RouterId b) const {
    if (!table_.empty() && index_[a] != kNotInTable && index_[b] != kNotInTable) {
      return table_[std::size_t(index_[a]) * n_ + index_[b]];
    }
    return hops_(a, b);
  }

 private:
  static constexpr std::uint32_t kMaxTable = 4096;
  static constexpr std::uint32_t kNotInTable = UINT32_MAX;
  const HopDistance& hops_;
  std::uint32_t n_ = 0;
  std::vector<std::uint32_t> index_;  // router -> its row in the table
  std::vector<std::uint16_t> table_;
};

double spread_term(double x) {
  const double s = x * x;
  return s * s;
}

}  // namespace

bool LoadScore::better_than(const LoadScore& o) const {
  const double tol = kTolerance * std::max(1.0, o.mcl);
  if (mcl < o.mcl - tol) return true;
  if (mcl > o.mcl + tol) return false;
  if (at_mcl != o.at_mcl) return at_mcl < o.at_mcl;
  const double spread_tol = kTolerance * std::max(1.0, o.spread);
  if (spread < o.spread - spread_tol) return true;
  if (spread > o.spread + spread_tol) return false;
  return hop_bytes < o.hop_bytes - kTolerance * std::max(1.0, o.hop_bytes);
}

struct IncrementalEvaluator::Impl {
  // Keeps a copy of the problem: the route cache lives as long as a copy does.
  Impl(const MappingProblem& p, std::uint32_t slot_room, Track t)
      : problem(p), machine(p.machine()), per_slot(slot_room), track(t),
        hops(p.machine(), p.hop_distance(), t == Track::HopBytes) {}

  MappingProblem problem;
  const Machine& machine;
  std::uint32_t per_slot;
  Track track;
  RouterHops hops;

  // The undirected task graph: partners sorted, weights = both directions; with loads, each
  // direction's volume too (out: task -> partner).
  std::vector<std::uint64_t> offsets;
  std::vector<TaskId> partner;
  std::vector<double> weight, out, in;

  // The mapping.
  std::vector<RouterId> router_of_task;
  std::vector<TaskId> slot_tasks;          // per_slot entries per slot, the first slot_count[s] used
  std::vector<std::uint32_t> slot_count;
  std::vector<std::vector<TaskId>> on_router;
  std::vector<std::uint32_t> position;     // of a task in its router's list
  double hop_bytes = 0;

  // gather()'s volume per partner router.
  std::vector<double> weight_to;
  std::vector<RouterId> gathered;

  // Staging of a relocation.
  std::uint32_t stamp = 0;
  std::vector<std::uint32_t> moved_at, done_at;
  std::vector<RouterId> new_router;

  // Loads (Track::Loads).
  std::unique_ptr<RouteSource> routes;
  std::vector<double> load, delta;
  std::vector<char> marked;
  std::vector<ChannelId> touched;
  struct Top {
    double max = 0;
    std::uint32_t count = 0;
  };
  std::size_t leaves = 1;
  std::vector<Top> tree;
  double spread = 0, inv_scale = 1;
  // The tasks crossing the channels that were within kIndexShare of the bottleneck at the last
  // scan, with their contributions, kept up to date by every relocation made.
  static constexpr double kIndexShare = 0.9;
  std::vector<std::uint32_t> index_of_channel;  // channel -> crossing's row, or UINT32_MAX
  std::vector<std::unordered_map<TaskId, double>> crossing;

  std::vector<Relocation> scratch;
  std::uint64_t own_work = 0;
  std::uint64_t* work = &own_work;

  static Top combine(Top a, Top b) {
    const double tol = kTolerance * std::max(a.max, b.max);
    if (a.max > b.max + tol) return a;
    if (b.max > a.max + tol) return b;
    return {std::max(a.max, b.max), a.count + b.count};
  }
  // Sets the tree's leaves of `channels` (distinct) to load_of(channel) and then every node
  // above them once, a level at a time, so that a node over many of them is combined once, not
  // once per channel (a move on a Dragonfly under ecmp touches hundreds of channels and near-ties
  // at the top are common). With `saved`, each node's value before is kept there for
  // restore_tree. Each node ends as the combination of its children: the tree is the one the
  // channels' loads give, whatever their order.
  template <class LoadOf>
  void update_tree(const std::vector<ChannelId>& channels, const LoadOf& load_of, bool save) {
    if (save) saved.clear();
    if (channels.empty()) return;
    level.clear();
    for (ChannelId c : channels) {
      const std::size_t i = leaves + c;
      if (save) saved.push_back({i, tree[i]});
      tree[i] = {load_of(c), 1};
      level.push_back(i);
    }
    std::sort(level.begin(), level.end());
    while (level.front() > 1) {  // the leaves are all at one depth: so is each level
      std::size_t parents = 0;
      for (const std::size_t i : level) {
        if (parents == 0 || level[parents - 1] != i / 2) level[parents++] = i / 2;
      }
      level.resize(parents);
      for (const std::size_t i : level) {
        if (save) saved.push_back({i, tree[i]});
        tree[i] = combine(tree[2 * i], tree[2 * i + 1]);
      }
    }
  }
  void restore_tree() {
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) tree[it->first] = it->second;
  }
  std::vector<std::size_t> level;                  // update_tree's nodes of one level
  std::vector<std::pair<std::size_t, Top>> saved;  // update_tree's nodes as they were

  void build_graph(const CommGraph& graph) {
    const std::uint32_t n = graph.num_tasks();
    // Both directions of every pair, then sorted and merged per task.
    std::vector<std::uint64_t> degree(n + 1, 0);
    for (TaskId a = 0; a < n; ++a)
      for (TaskId b : graph.targets(a))
        if (b != a) ++degree[a + 1], ++degree[b + 1];
    for (TaskId a = 0; a < n; ++a) degree[a + 1] += degree[a];
    struct Half {
      TaskId other;
      double out, in;
    };
    std::vector<Half> halves(degree.back());
    std::vector<std::uint64_t> fill(degree.begin(), degree.end() - 1);
    for (TaskId a = 0; a < n; ++a) {
      auto targets = graph.targets(a);
      auto volumes = graph.volumes(a);
      for (std::size_t e = 0; e < targets.size(); ++e) {
        if (targets[e] == a) continue;
        halves[fill[a]++] = {targets[e], volumes[e], 0.0};
        halves[fill[targets[e]]++] = {a, 0.0, volumes[e]};
      }
    }
    const bool directions = track == Track::Loads;
    offsets.assign(1, 0);
    offsets.reserve(n + 1);
    for (TaskId a = 0; a < n; ++a) {
      auto first = halves.begin() + std::ptrdiff_t(degree[a]), last = halves.begin() + std::ptrdiff_t(degree[a + 1]);
      std::sort(first, last, [](const Half& x, const Half& y) { return x.other < y.other; });
      for (auto it = first; it != last;) {
        const TaskId b = it->other;
        double o = 0, i = 0;
        for (; it != last && it->other == b; ++it) o += it->out, i += it->in;
        partner.push_back(b);
        // At most one volume each way: the sum is the undirected graph's weight, exactly.
        weight.push_back(o + i);
        if (directions) out.push_back(o), in.push_back(i);
      }
      offsets.push_back(partner.size());
    }
  }

  void place_all(const Mapping& mapping) {
    const std::uint32_t n = static_cast<std::uint32_t>(mapping.slot_of_task.size());
    router_of_task.resize(n);
    position.resize(n);
    slot_count.assign(machine.num_slots(), 0);
    slot_tasks.assign(std::size_t(machine.num_slots()) * per_slot, kNoTask);
    on_router.assign(machine.num_routers, {});
    for (TaskId t = 0; t < n; ++t) {
      const SlotId s = mapping.slot_of_task[t];
      const RouterId r = machine.router_of_slot(s);
      router_of_task[t] = r;
      slot_tasks[std::size_t(s) * per_slot + slot_count[s]++] = t;
      position[t] = static_cast<std::uint32_t>(on_router[r].size());
      on_router[r].push_back(t);
    }
  }

  double total_hop_bytes() const {
    double sum = 0;
    for (TaskId t = 0; t + 1 < offsets.size(); ++t)
      for (std::uint64_t e = offsets[t]; e < offsets[t + 1]; ++e)
        if (partner[e] > t) sum += weight[e] * hops(router_of_task[t], router_of_task[partner[e]]);
    return sum;
  }

  // Every flow routed: the loads from scratch, and the crossing index when `index` (the
  // contributions to the indexed channels).
  void route_all(bool index) {
    if (!index) std::fill(load.begin(), load.end(), 0.0);
    for (TaskId a = 0; a + 1 < offsets.size(); ++a) {
      for (std::uint64_t e = offsets[a]; e < offsets[a + 1]; ++e) {
        const TaskId b = partner[e];
        const RouterId ra = router_of_task[a], rb = router_of_task[b];
        if (out[e] == 0 || ra == rb) continue;
        *work += kWorkPerFlow;
        for (const Share& s : (*routes)(ra, rb)) {
          const double amount = out[e] * s.load;
          if (index) {
            if (index_of_channel[s.channel] != UINT32_MAX) {
              auto& row = crossing[index_of_channel[s.channel]];
              row[a] += amount, row[b] += amount;
            }
          } else {
            load[s.channel] += amount;
          }
        }
      }
    }
  }

  void build_loads() {
    const std::size_t channels = machine.channels.size();
    load.assign(channels, 0.0);
    delta.assign(channels, 0.0);
    marked.assign(channels, 0);
    index_of_channel.assign(channels, UINT32_MAX);
    crossing.clear();
    route_all(false);
    *work += kWorkPerChannel * channels;
    leaves = 1;
    while (leaves < std::max<std::size_t>(channels, 1)) leaves *= 2;
    tree.assign(2 * leaves, Top{});
    for (std::size_t c = 0; c < channels; ++c) tree[leaves + c] = {load[c], 1};
    for (std::size_t i = leaves - 1; i >= 1; --i) tree[i] = combine(tree[2 * i], tree[2 * i + 1]);
    spread = 0;
    for (double l : load) spread += spread_term(l * inv_scale);
  }

  // The hop-bytes change and cut volume of a relocation; with loads, the load changes in
  // delta/touched (and the spread's change in *spread_change), and with `index` the crossing
  // index updated as if it were made. Each pair with a moved end is counted once.
  IncrementalEvaluator::HopDelta stage(std::span<const Relocation> moves, bool with_loads, double* spread_change,
                                       bool index) {
    ++stamp;
    for (const Relocation& r : moves) moved_at[r.task] = stamp, new_router[r.task] = machine.router_of_slot(r.slot);
    auto after = [&](TaskId x) { return moved_at[x] == stamp ? new_router[x] : router_of_task[x]; };
    std::uint64_t routed = 0;
    auto add = [&](TaskId a, TaskId b, RouterId ra, RouterId rb, double volume) {
      if (ra == rb) return;
      ++routed;
      for (const Share& s : (*routes)(ra, rb)) {
        const double amount = volume * s.load;
        if (!marked[s.channel]) marked[s.channel] = 1, touched.push_back(s.channel);
        delta[s.channel] += amount;
        if (index && index_of_channel[s.channel] != UINT32_MAX) {
          auto& row = crossing[index_of_channel[s.channel]];
          row[a] += amount, row[b] += amount;
        }
      }
    };
    IncrementalEvaluator::HopDelta result;
    std::uint64_t edges = 0;
    for (const Relocation& r : moves) {
      const TaskId x = r.task;
      edges += offsets[x + 1] - offsets[x];
      for (std::uint64_t e = offsets[x]; e < offsets[x + 1]; ++e) {
        const TaskId u = partner[e];
        if (done_at[u] == stamp) continue;  // counted with u
        const double w = weight[e];
        if (moved_at[u] != stamp) result.cut_volume += w;
        const RouterId old_x = router_of_task[x], old_u = router_of_task[u], new_x = after(x), new_u = after(u);
        if (old_x == new_x && old_u == new_u) continue;
        result.change += w * (double(hops(new_x, new_u)) - double(hops(old_x, old_u)));
        if (!with_loads) continue;
        if (out[e] != 0) add(x, u, old_x, old_u, -out[e]), add(x, u, new_x, new_u, out[e]);
        if (in[e] != 0) add(u, x, old_u, old_x, -in[e]), add(u, x, new_u, new_x, in[e]);
      }
      done_at[x] = stamp;
    }
    *work += kWorkPerEdge * edges;
    if (with_loads) {
      *work += kWorkPerFlow * routed + kWorkPerChannel * touched.size();
      double change = 0;
      for (ChannelId c : touched) change += spread_term((load[c] + delta[c]) * inv_scale) - spread_term(load[c] * inv_scale);
      *spread_change = change;
    }
    return result;
  }
  void unstage() {
    for (ChannelId c : touched) delta[c] = 0, marked[c] = 0;
    touched.clear();
  }

  // Moving task t to slot s: to it, and when s is full, its first task to t's slot.
  void relocations_of(TaskId t, SlotId s, SlotId from, std::vector<Relocation>& moves) const {
    moves = {{t, s}};
    if (slot_count[s] < per_slot) return;
    const TaskId* here = &slot_tasks[std::size_t(s) * per_slot];
    if (std::find(here, here + slot_count[s], t) != here + slot_count[s]) return;
    moves.push_back({here[0], from});
  }

  void remove_from_slot(TaskId t, SlotId s) {
    TaskId* here = &slot_tasks[std::size_t(s) * per_slot];
    TaskId* last = here + slot_count[s];
    std::copy(std::find(here, last, t) + 1, last, std::find(here, last, t));
    --slot_count[s];
    here[slot_count[s]] = kNoTask;
  }

  // Rebuilds the index with the channels loaded at least `threshold` (positive).
  void scan_crossing(double threshold) {
    for (auto& row : crossing) row.clear();
    crossing.clear();
    std::fill(index_of_channel.begin(), index_of_channel.end(), UINT32_MAX);
    for (ChannelId c = 0; c < load.size(); ++c) {
      if (load[c] >= threshold) {
        index_of_channel[c] = static_cast<std::uint32_t>(crossing.size());
        crossing.emplace_back();
      }
    }
    route_all(true);
  }
};

IncrementalEvaluator::IncrementalEvaluator(const MappingProblem& problem, Mapping start, std::uint32_t per_slot,
                                           Track track, std::uint64_t* work, Channels channels)
    : impl_(std::make_unique<Impl>(problem, per_slot, track)), mapping_(std::move(start)) {
  const Machine& machine = problem.machine();
  const CommGraph& graph = problem.graph();
  validate_mapping(mapping_, machine, graph.num_tasks(), "incremental evaluation", per_slot);
  Impl& m = *impl_;
  if (work) m.work = work;
  m.build_graph(graph);
  const std::uint32_t n = graph.num_tasks();
  m.moved_at.assign(n, 0);
  m.done_at.assign(n, 0);
  m.new_router.assign(n, 0);
  m.weight_to.assign(machine.num_routers, 0.0);
  m.place_all(mapping_);
  m.hop_bytes = m.total_hop_bytes();
  if (track == Track::Loads) {
    // The spread's unit: the heaviest flow's load on a channel of the widest class, a constant
    // of the problem, so spreads compare across evaluators of one problem.
    double heaviest = 0, widest = 0;
    for (double v : m.out) heaviest = std::max(heaviest, v);
    for (const LinkClass& c : machine.classes) widest = std::max(widest, c.bandwidth);
    if (heaviest > 0 && widest > 0) m.inv_scale = widest / heaviest;
    m.routes = std::make_unique<RouteSource>(problem, channels);
    m.build_loads();
  }
}

IncrementalEvaluator::~IncrementalEvaluator() = default;

void IncrementalEvaluator::reset(Mapping mapping) {
  Impl& m = *impl_;
  validate_mapping(mapping, m.machine, m.router_of_task.size(), "incremental evaluation", m.per_slot);
  mapping_ = std::move(mapping);
  m.place_all(mapping_);
  m.hop_bytes = m.total_hop_bytes();
  if (m.track == Track::Loads) m.build_loads();
}

RouterId IncrementalEvaluator::router_of(TaskId t) const { return impl_->router_of_task[t]; }

std::span<const TaskId> IncrementalEvaluator::tasks_on(SlotId s) const {
  const Impl& m = *impl_;
  return {m.slot_tasks.data() + std::size_t(s) * m.per_slot, m.slot_count[s]};
}

const std::vector<TaskId>& IncrementalEvaluator::tasks_on_router(RouterId r) const { return impl_->on_router[r]; }

SlotId IncrementalEvaluator::free_slot(RouterId r) const {
  const Impl& m = *impl_;
  for (SlotId s = m.machine.first_slot_of_router(r); s < m.machine.first_slot_of_router(r + 1); ++s)
    if (m.slot_count[s] < m.per_slot) return s;
  return UINT32_MAX;
}

std::uint32_t IncrementalEvaluator::num_tasks() const { return static_cast<std::uint32_t>(impl_->router_of_task.size()); }

std::span<const TaskId> IncrementalEvaluator::partners(TaskId t) const {
  const Impl& m = *impl_;
  return {m.partner.data() + m.offsets[t], m.partner.data() + m.offsets[t + 1]};
}

std::span<const double> IncrementalEvaluator::weights(TaskId t) const {
  const Impl& m = *impl_;
  return {m.weight.data() + m.offsets[t], m.weight.data() + m.offsets[t + 1]};
}

double IncrementalEvaluator::volume_between(TaskId a, TaskId b) const {
  const Impl& m = *impl_;
  auto begin = m.partner.begin() + std::ptrdiff_t(m.offsets[a]), end = m.partner.begin() + std::ptrdiff_t(m.offsets[a + 1]);
  auto it = std::lower_bound(begin, end, b);
  return it != end && *it == b ? m.weight[std::size_t(it - m.partner.begin())] : 0.0;
}

std::uint32_t IncrementalEvaluator::hops(RouterId a, RouterId b) const { return impl_->hops(a, b); }

double IncrementalEvaluator::hop_bytes() const { return impl_->hop_bytes; }

double IncrementalEvaluator::recompute_hop_bytes() { return impl_->hop_bytes = impl_->total_hop_bytes(); }

double IncrementalEvaluator::task_cost(TaskId t, RouterId x) const {
  const Impl& m = *impl_;
  double c = 0;
  for (std::uint64_t e = m.offsets[t]; e < m.offsets[t + 1]; ++e)
    c += m.weight[e] * m.hops(x, m.router_of_task[m.partner[e]]);
  return c;
}

void IncrementalEvaluator::gather(TaskId t) {
  Impl& m = *impl_;
  for (RouterId q : m.gathered) m.weight_to[q] = 0;
  m.gathered.clear();
  for (std::uint64_t e = m.offsets[t]; e < m.offsets[t + 1]; ++e) {
    const RouterId q = m.router_of_task[m.partner[e]];
    if (m.weight_to[q] == 0) m.gathered.push_back(q);
    m.weight_to[q] += m.weight[e];
  }
}

const std::vector<RouterId>& IncrementalEvaluator::gathered_routers() const { return impl_->gathered; }

double IncrementalEvaluator::gathered_volume(RouterId r) const { return impl_->weight_to[r]; }

double IncrementalEvaluator::cost_at(RouterId x) const {
  const Impl& m = *impl_;
  double c = 0;
  for (RouterId q : m.gathered) c += m.weight_to[q] * m.hops(x, q);
  return c;
}

IncrementalEvaluator::HopDelta IncrementalEvaluator::hop_delta(std::span<const Relocation> moves) {
  return impl_->stage(moves, false, nullptr, false);
}

void IncrementalEvaluator::relocate(std::span<const Relocation> moves) {
  Impl& m = *impl_;
  const bool loads = m.track == Track::Loads;
  double spread_change = 0;
  const HopDelta d = m.stage(moves, loads, &spread_change, loads && !m.crossing.empty());
  if (loads) {
    for (ChannelId c : m.touched) m.load[c] = std::max(0.0, m.load[c] + m.delta[c]);  // rounding must not leave -0.0000001
    m.update_tree(m.touched, [&m](ChannelId c) { return m.load[c]; }, false);
    m.unstage();
    m.spread += spread_change;
  }
  m.hop_bytes += d.change;
  for (const Relocation& r : moves) m.remove_from_slot(r.task, mapping_.slot_of_task[r.task]);
  for (const Relocation& r : moves) {
    if (m.slot_count[r.slot] >= m.per_slot) throw std::logic_error("incremental evaluation: a relocation overfills a slot");
    m.slot_tasks[std::size_t(r.slot) * m.per_slot + m.slot_count[r.slot]++] = r.task;
  }
  for (const Relocation& r : moves) {
    mapping_.slot_of_task[r.task] = r.slot;
    const RouterId from = m.router_of_task[r.task], to = m.machine.router_of_slot(r.slot);
    if (from == to) continue;
    auto& list = m.on_router[from];
    list[m.position[r.task]] = list.back();
    m.position[list.back()] = m.position[r.task];
    list.pop_back();
    m.position[r.task] = static_cast<std::uint32_t>(m.on_router[to].size());
    m.on_router[to].push_back(r.task);
    m.router_of_task[r.task] = to;
  }
}

void IncrementalEvaluator::move(TaskId t, SlotId s) {
  Impl& m = *impl_;
  m.relocations_of(t, s, mapping_.slot_of_task[t], m.scratch);
  relocate(m.scratch);
}

LoadScore IncrementalEvaluator::score() const {
  const Impl& m = *impl_;
  return {m.tree[1].max, m.tree[1].count, m.spread, m.hop_bytes};
}

LoadScore IncrementalEvaluator::try_relocate(std::span<const Relocation> moves) {
  Impl& m = *impl_;
  double spread_change = 0;
  const HopDelta d = m.stage(moves, true, &spread_change, false);
  LoadScore result{0, 0, m.spread + spread_change, m.hop_bytes + d.change};
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
    m.update_tree(m.touched, [&m](ChannelId c) { return m.load[c] + m.delta[c]; }, true);
    result.mcl = m.tree[1].max, result.at_mcl = m.tree[1].count;
    m.restore_tree();
  }
  m.unstage();
  return result;
}

double IncrementalEvaluator::try_spread(std::span<const Relocation> moves) {
  Impl& m = *impl_;
  double spread_change = 0;
  m.stage(moves, true, &spread_change, false);
  m.unstage();
  return m.spread + spread_change;
}

LoadScore IncrementalEvaluator::try_move(TaskId t, SlotId s) {
  Impl& m = *impl_;
  m.relocations_of(t, s, mapping_.slot_of_task[t], m.scratch);
  return try_relocate(m.scratch);
}

ChannelId IncrementalEvaluator::bottleneck() const {
  const Impl& m = *impl_;
  std::size_t i = 1;
  const double top = m.tree[1].max, tol = kTolerance * top;
  while (i < m.leaves) i = m.tree[2 * i].max >= top - tol ? 2 * i : 2 * i + 1;
  return static_cast<ChannelId>(i - m.leaves);
}

std::vector<TaskId> IncrementalEvaluator::tasks_crossing(ChannelId channel) {
  Impl& m = *impl_;
  const double load = m.load[channel];
  if (load <= 0) return {};
  if (m.index_of_channel[channel] == UINT32_MAX) m.scan_crossing(Impl::kIndexShare * load);
  std::vector<std::pair<double, TaskId>> found;
  for (const auto& [task, share] : m.crossing[m.index_of_channel[channel]])
    if (share > kTolerance * load) found.push_back({share, task});
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::vector<TaskId> tasks;
  tasks.reserve(found.size());
  for (const auto& f : found) tasks.push_back(f.second);
  return tasks;
}

}  // namespace taskmap
