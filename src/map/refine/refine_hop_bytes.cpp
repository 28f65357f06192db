// refine-hb: rounds of (1) a group phase, moving and exchanging groups of tasks between
// routers, from whole routers' task sets down to 1/32 of them, and (2) a first-improvement
// pass of single-task moves and swaps. A task's cost at router x is the sum over its partners
// of volume x hops(x, partner's router); its candidate routers are its partners' routers and
// the neighbours of its own.
#include "taskmap/map/refine/refine_hop_bytes.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <queue>

#include "taskmap/map/mapper_support.h"
#include "taskmap/map/router_placement.h"
#include "taskmap/core/progress.h"
#include "taskmap/topology/distance.h"

namespace taskmap {
namespace {

constexpr std::uint32_t kMostGroupsPerRouter = 32;

// Router-to-router hops, as a table when it is small enough: over every router, or on a larger
// machine (a fabric whose switches are routers too) over the routers with slots, the only ones
// tasks sit on and moves go to.
class RouterHops {
 public:
  // `shared`: the problem's distances (their rows shared with every other user); null: its own.
  RouterHops(const Machine& machine, const HopDistance* shared)
      : own_(shared ? nullptr : std::make_unique<HopDistance>(machine)), hops_(shared ? *shared : *own_) {
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
  std::unique_ptr<HopDistance> own_;
  const HopDistance& hops_;
  std::uint32_t n_ = 0;
  std::vector<std::uint32_t> index_;  // router -> its row in the table
  std::vector<std::uint16_t> table_;
};

class HopBytesSearch {
 public:
  HopBytesSearch(const Machine& machine, const CommGraph& graph, Mapping start, std::uint32_t per_slot,
                 const HopDistance* distance)
      : machine_(machine), graph_(detail::undirected_graph(graph)), hops_(machine, distance), adjacency_(machine, false),
        per_slot_(per_slot), mapping_(std::move(start)) {
    const std::uint32_t n = graph.num_tasks();
    slot_count_.assign(machine.num_slots(), 0);
    on_.resize(machine.num_routers);
    router_.resize(n);
    position_.resize(n);
    for (TaskId t = 0; t < n; ++t) {
      const SlotId s = mapping_.slot_of_task[t];
      ++slot_count_[s];
      router_[t] = machine.router_of_slot(s);
      position_[t] = static_cast<std::uint32_t>(on_[router_[t]].size());
      on_[router_[t]].push_back(t);
    }
    weight_to_.assign(machine.num_routers, 0.0);
    capacity_.resize(machine.num_routers);
    for (RouterId r = 0; r < machine.num_routers; ++r) capacity_[r] = std::uint64_t(machine.slots_of_router(r)) * per_slot;
  }

  double hop_bytes() const {
    double sum = 0;
    for (TaskId t = 0; t < graph_.vertices(); ++t)
      for (std::uint64_t e = graph_.offsets[t]; e < graph_.offsets[t + 1]; ++e)
        if (graph_.targets[e] > t) sum += graph_.weights[e] * hops_(router_[t], router_[graph_.targets[e]]);
    return sum;
  }

  // One pass over the tasks in `order`; returns whether anything moved.
  bool pass(const std::vector<TaskId>& order, HopBytesRefineStats& stats) {
    bool changed = false;
    for (TaskId t : order) changed |= improve(t, stats);
    return changed;
  }

  // Group phase: the tasks of each router are cut into `per_router` groups of tasks that are
  // close in the task graph, and whole groups move to routers with room or exchange routers
  // with other groups when that lowers hop-bytes. Groups move what single tasks cannot: a
  // well-connected set whose members would each lose their internal edges by moving alone.
  // With W the volume between groups and D the hops, M[g][b] = sum_h W[g][h] D(b, router(h))
  // is group g's cost at router b, so a step's gain is O(1) and a step updates M in
  // O(partners x routers). Returns whether anything moved.
  bool exchange_groups(std::uint32_t per_router, HopBytesRefineStats& stats) {
    const std::uint32_t R = machine_.num_routers;
    form_groups(per_router);
    const std::uint32_t G = static_cast<std::uint32_t>(group_router_.size());
    // Sparse symmetric W between groups.
    std::vector<std::vector<std::pair<std::uint32_t, double>>> w(G);
    {
      std::vector<double> row(G, 0.0);
      std::vector<std::uint32_t> touched;
      for (std::uint32_t g = 0; g < G; ++g) {
        for (TaskId t : members_[g])
          for (std::uint64_t e = graph_.offsets[t]; e < graph_.offsets[t + 1]; ++e) {
            const std::uint32_t h = group_of_[graph_.targets[e]];
            if (h == g) continue;
            if (row[h] == 0) touched.push_back(h);
            row[h] += graph_.weights[e];
          }
        for (std::uint32_t h : touched) w[g].push_back({h, row[h]}), row[h] = 0;
        touched.clear();
      }
    }
    if (hops_to_.empty()) {  // row `at`: hops(b, at) for every b; built once per search
      hops_to_.resize(std::size_t(R) * R);
      for (RouterId at = 0; at < R; ++at)
        for (RouterId b = 0; b < R; ++b) hops_to_[std::size_t(at) * R + b] = hops_(b, at);
    }
    const std::vector<double>& hops_to = hops_to_;
    std::vector<double> m(std::size_t(G) * R, 0.0);
    for (std::uint32_t g = 0; g < G; ++g) {
      double* mg = &m[std::size_t(g) * R];
      for (const auto& [h, v] : w[g]) {
        const double* d = &hops_to[std::size_t(group_router_[h]) * R];
        for (RouterId b = 0; b < R; ++b) mg[b] += v * d[b];
      }
    }
    std::vector<std::uint64_t> load(R, 0);
    for (std::uint32_t g = 0; g < G; ++g) load[group_router_[g]] += members_[g].size();
    std::vector<std::vector<std::uint32_t>> groups_on(R);
    for (std::uint32_t g = 0; g < G; ++g) groups_on[group_router_[g]].push_back(g);
    // A group is evaluated again only after its cost row changed (a partner group moved).
    std::vector<char> dirty(G, 1);
    auto relocate = [&](std::uint32_t g, RouterId to) {
      const RouterId from = group_router_[g];
      const double *d_from = &hops_to[std::size_t(from) * R], *d_to = &hops_to[std::size_t(to) * R];
      for (const auto& [h, v] : w[g]) {
        double* mh = &m[std::size_t(h) * R];
        for (RouterId b = 0; b < R; ++b) mh[b] += v * (d_to[b] - d_from[b]);
        dirty[h] = 1;
      }
      auto& list = groups_on[from];
      list.erase(std::find(list.begin(), list.end(), g));
      groups_on[to].push_back(g);
      load[from] -= members_[g].size();
      load[to] += members_[g].size();
      group_router_[g] = to;
    };
    std::vector<double> w_row(G, 0.0);
    bool any = false;
    for (bool improved = true; improved;) {
      improved = false;
      for (std::uint32_t g = 0; g < G; ++g) {
        if (!dirty[g]) continue;
        dirty[g] = 0;
        const RouterId r = group_router_[g];
        const double* mg = &m[std::size_t(g) * R];
        const double here = mg[r], size = double(members_[g].size());
        if (here == 0) continue;
        for (const auto& [h, v] : w[g]) w_row[h] = v;
        double best = -1e-9 * here;
        std::uint32_t best_partner = UINT32_MAX;
        RouterId best_router = r;
        // Only routers where g itself would cost less are tried: an exchange that mainly
        // helps the partner is found from the partner's side.
        for (RouterId x = 0; x < R; ++x) {
          if (x == r || mg[x] >= here) continue;
          const double gain_g = mg[x] - here;
          if (load[x] + members_[g].size() <= capacity_[x] && gain_g < best) {
            best = gain_g, best_partner = UINT32_MAX, best_router = x;
          }
          const double across = hops_(r, x);
          for (std::uint32_t h : groups_on[x]) {
            const double hs = double(members_[h].size());
            if (double(load[x]) - hs + size > double(capacity_[x]) || double(load[r]) - size + hs > double(capacity_[r])) {
              continue;
            }
            const double* mh = &m[std::size_t(h) * R];
            const double delta = gain_g + mh[r] - mh[x] + 2 * w_row[h] * across;
            if (delta < best) best = delta, best_partner = h, best_router = x;
          }
        }
        for (const auto& [h, v] : w[g]) w_row[h] = 0;
        if (best_router == r) continue;
        if (best_partner != UINT32_MAX) relocate(best_partner, r), dirty[best_partner] = 1;
        relocate(g, best_router);
        dirty[g] = 1;
        ++(best_partner != UINT32_MAX ? stats.group_exchanges : stats.group_moves);
        improved = any = true;
      }
    }
    if (any) apply_group_routers();
    return any;
  }

  const Mapping& mapping() const { return mapping_; }

 private:
  // Cuts each router's tasks into min(per_router, tasks) groups: contiguous pieces of a
  // greedy order that always appends the task most connected to those taken (Prim-like), so
  // a piece is a well-connected set.
  void form_groups(std::uint32_t per_router) {
    members_.clear();
    group_router_.clear();
    group_of_.assign(graph_.vertices(), 0);
    std::vector<double> pull(graph_.vertices(), 0.0);
    std::vector<std::uint32_t> slot_in_list(graph_.vertices(), 0);  // 1 + position in the router's list; 0 = elsewhere
    std::vector<char> taken(graph_.vertices(), 0);
    std::vector<TaskId> order;
    // Max-heap on (pull, -position): the most pulled task, the first in the list on ties.
    // Pulls only grow, so an entry is current iff its pull equals the task's.
    std::priority_queue<std::pair<double, std::int64_t>> heap;
    for (RouterId r = 0; r < machine_.num_routers; ++r) {
      const std::vector<TaskId>& tasks = on_[r];
      if (tasks.empty()) continue;
      order.clear();
      for (std::uint32_t i = 0; i < tasks.size(); ++i) {
        slot_in_list[tasks[i]] = i + 1;
        heap.push({0.0, -std::int64_t(i)});
      }
      while (!heap.empty()) {
        const auto [value, minus_position] = heap.top();
        heap.pop();
        const TaskId next = tasks[std::size_t(-minus_position)];
        if (taken[next] || value != pull[next]) continue;
        taken[next] = 1;
        order.push_back(next);
        for (std::uint64_t e = graph_.offsets[next]; e < graph_.offsets[next + 1]; ++e) {
          const TaskId u = graph_.targets[e];
          if (slot_in_list[u] == 0 || taken[u]) continue;
          pull[u] += graph_.weights[e];
          heap.push({pull[u], -std::int64_t(slot_in_list[u] - 1)});
        }
      }
      const std::size_t k = std::min<std::size_t>(per_router, tasks.size());
      for (std::size_t piece = 0; piece < k; ++piece) {
        members_.emplace_back(order.begin() + std::ptrdiff_t(piece * tasks.size() / k),
                              order.begin() + std::ptrdiff_t((piece + 1) * tasks.size() / k));
        group_router_.push_back(r);
        for (TaskId t : members_.back()) group_of_[t] = static_cast<std::uint32_t>(members_.size() - 1);
      }
      for (TaskId t : tasks) slot_in_list[t] = 0, taken[t] = 0, pull[t] = 0;
    }
  }

  // Moves the tasks of relocated groups; a task that stays on its router keeps its slot.
  void apply_group_routers() {
    std::vector<TaskId> moved;
    for (std::uint32_t g = 0; g < members_.size(); ++g)
      for (TaskId t : members_[g])
        if (router_[t] != group_router_[g]) --slot_count_[mapping_.slot_of_task[t]], moved.push_back(t);
    for (std::uint32_t g = 0; g < members_.size(); ++g)
      for (TaskId t : members_[g]) router_[t] = group_router_[g];
    for (TaskId t : moved) {
      const SlotId s = free_slot(router_[t]);
      ++slot_count_[s];
      mapping_.slot_of_task[t] = s;
    }
    for (auto& list : on_) list.clear();
    for (TaskId t = 0; t < graph_.vertices(); ++t) {
      position_[t] = static_cast<std::uint32_t>(on_[router_[t]].size());
      on_[router_[t]].push_back(t);
    }
  }

  // The volume from t to each router its partners are on (in weight_to_, listed in partners_).
  void gather(TaskId t) {
    for (RouterId q : partners_) weight_to_[q] = 0;
    partners_.clear();
    for (std::uint64_t e = graph_.offsets[t]; e < graph_.offsets[t + 1]; ++e) {
      const RouterId q = router_[graph_.targets[e]];
      if (weight_to_[q] == 0) partners_.push_back(q);
      weight_to_[q] += graph_.weights[e];
    }
  }
  double cost_at(RouterId x) const {
    double c = 0;
    for (RouterId q : partners_) c += weight_to_[q] * hops_(x, q);
    return c;
  }
  // Cost of task u at router x, computed from its own edges.
  double task_cost(TaskId u, RouterId x) const {
    double c = 0;
    for (std::uint64_t e = graph_.offsets[u]; e < graph_.offsets[u + 1]; ++e)
      c += graph_.weights[e] * hops_(x, router_[graph_.targets[e]]);
    return c;
  }
  double volume_between(TaskId t, TaskId u) const {
    auto begin = graph_.targets.begin() + std::ptrdiff_t(graph_.offsets[t]);
    auto end = graph_.targets.begin() + std::ptrdiff_t(graph_.offsets[t + 1]);
    auto it = std::lower_bound(begin, end, u);
    return it != end && *it == u ? graph_.weights[std::size_t(it - graph_.targets.begin())] : 0.0;
  }
  SlotId free_slot(RouterId x) const {
    for (SlotId s = machine_.first_slot_of_router(x); s < machine_.first_slot_of_router(x + 1); ++s)
      if (slot_count_[s] < per_slot_) return s;
    return UINT32_MAX;
  }
  void place(TaskId t, SlotId s) {
    const RouterId from = router_[t], to = machine_.router_of_slot(s);
    --slot_count_[mapping_.slot_of_task[t]];
    ++slot_count_[s];
    mapping_.slot_of_task[t] = s;
    if (from == to) return;
    auto& list = on_[from];
    list[position_[t]] = list.back();
    position_[list.back()] = position_[t];
    list.pop_back();
    position_[t] = static_cast<std::uint32_t>(on_[to].size());
    on_[to].push_back(t);
    router_[t] = to;
  }

  bool improve(TaskId t, HopBytesRefineStats& stats) {
    gather(t);
    const RouterId r = router_[t];
    const double here = cost_at(r);
    if (here == 0) return false;
    candidates_.clear();
    for (RouterId q : partners_)
      if (q != r) candidates_.push_back({cost_at(q) - here, q});
    for (std::uint32_t i = adjacency_.offsets[r]; i < adjacency_.offsets[r + 1]; ++i) {
      const RouterId q = machine_.channels[adjacency_.channels[i]].dst;
      // A neighbour without slots (a fabric's switch) can take no task.
      if (q != r && weight_to_[q] == 0 && capacity_[q] > 0) candidates_.push_back({cost_at(q) - here, q});
    }
    std::sort(candidates_.begin(), candidates_.end());
    const double tolerance = 1e-12 * here;
    // Targets best first: a move where there is room, else the best swap there.
    for (const auto& [delta, x] : candidates_) {
      if (delta >= -tolerance) break;
      if (const SlotId s = free_slot(x); s != UINT32_MAX) {
        place(t, s);
        ++stats.moves;
        return true;
      }
      double best = -tolerance;
      TaskId partner = UINT32_MAX;
      const double across = hops_(r, x);
      for (TaskId u : on_[x]) {
        const double total = delta + task_cost(u, r) - task_cost(u, x) + 2 * volume_between(t, u) * across;
        if (total < best) best = total, partner = u;
      }
      if (partner != UINT32_MAX) {
        const SlotId mine = mapping_.slot_of_task[t], theirs = mapping_.slot_of_task[partner];
        place(t, theirs);
        place(partner, mine);
        ++stats.swaps;
        return true;
      }
    }
    return false;
  }

  const Machine& machine_;
  detail::UndirectedGraph graph_;
  RouterHops hops_;
  ChannelAdjacency adjacency_;
  std::uint32_t per_slot_;
  Mapping mapping_;
  std::vector<std::uint32_t> slot_count_;
  std::vector<std::vector<TaskId>> on_;
  std::vector<RouterId> router_;
  std::vector<std::uint32_t> position_;
  std::vector<double> weight_to_;
  std::vector<RouterId> partners_;
  std::vector<std::pair<double, RouterId>> candidates_;
  std::vector<std::uint64_t> capacity_;  // tasks a router may hold
  // Group phase.
  std::vector<std::vector<TaskId>> members_;
  std::vector<RouterId> group_router_;
  std::vector<std::uint32_t> group_of_;
  std::vector<double> hops_to_;
};

}  // namespace

Mapping refine_hop_bytes(const Machine& machine, const CommGraph& graph, Mapping start,
                         const HopBytesRefineOptions& options, HopBytesRefineStats* stats,
                         const HopDistance* distance) {
  validate_mapping(start, machine, graph.num_tasks(), "refine-hb start", options.per_slot);
  Mapping start_copy = start;
  HopBytesSearch search(machine, graph, std::move(start), options.per_slot, distance);
  HopBytesRefineStats s;
  s.before = search.hop_bytes();
  std::vector<TaskId> order(graph.num_tasks());
  std::iota(order.begin(), order.end(), TaskId{0});
  double last = s.before;
  io::Progress progress("refine-hb rounds", options.rounds);
  for (s.rounds = 0; s.rounds < options.rounds; progress.set(s.rounds)) {
    detail::seeded_shuffle(order, options.seed + s.rounds);
    ++s.rounds;
    bool moved = false;
    // Groups of a router's whole task set, halves, quarters, ... down to 1/32, while the group
    // phase's cost table (groups x routers) stays under 2^24 entries.
    for (std::uint32_t per_router = 1; per_router <= kMostGroupsPerRouter; per_router *= 2)
      if (std::uint64_t(machine.num_routers) * machine.num_routers * per_router <= (1u << 24))
        moved |= search.exchange_groups(per_router, s);
    moved |= search.pass(order, s);
    if (!moved) break;
    const double now = search.hop_bytes();
    if (now > last * (1 - 1e-4)) break;  // under 0.01% per pass: converged
    last = now;
  }
  s.after = search.hop_bytes();
  Mapping result = search.mapping();
  if (s.after > s.before) {  // only rounding in the group phase's running sums could do this
    result = std::move(start_copy);
    s.after = s.before;
  }
  if (stats) *stats = s;
  return result;
}

}  // namespace taskmap
