// refine-hb: rounds of (1) a group phase, moving and exchanging groups of tasks between
// routers, from whole routers' task sets down to 1/32 of them, and (2) a first-improvement
// pass of single-task moves and swaps. A task's cost at router x is the sum over its partners
// of volume x hops(x, partner's router); its candidate routers are its partners' routers and
// the neighbours of its own.
#include "taskmap/map/refine/refine_hop_bytes.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <queue>

#include "taskmap/core/progress.h"
#include "taskmap/eval/incremental.h"
#include "taskmap/map/mapper_support.h"
#include "taskmap/map/refine/node_assignment.h"
#include "taskmap/topology/distance.h"

namespace taskmap {
namespace {

constexpr std::uint32_t kMostGroupsPerRouter = 32;
constexpr std::uint64_t kWorkUnitsPerMillion = 1'000'000;
// The search's own work units, on the scale of the IncrementalEvaluator's (kWorkUnitsPerSecond
// in auto_mapper.h, about 50 ns each), measured on a 16,384-task 27-point halo on Edison: the
// group phase's cost-table entries written or read take about 1 ns each, a partner term or
// candidate router scored in the task phase about 12 ns.
constexpr std::uint64_t kTableEntriesPerUnit = 48;
constexpr std::uint64_t kUnitsPerTerm = 4;

class HopBytesSearch {
 public:
  HopBytesSearch(const MappingProblem& problem, Mapping start, std::uint32_t per_slot, bool room_by_link_speed,
                 std::uint64_t work_limit)
      : problem_(problem), machine_(problem.machine()),
        eval_(problem, std::move(start), per_slot, IncrementalEvaluator::Track::HopBytes, &work_),
        adjacency_(machine_, false), per_slot_(per_slot), work_limit_(work_limit) {
    capacity_.resize(machine_.num_routers);
    for (RouterId r = 0; r < machine_.num_routers; ++r) capacity_[r] = std::uint64_t(machine_.slots_of_router(r)) * per_slot;
    if (room_by_link_speed) keep_shares_by_link_speed(problem.graph().num_tasks());
  }

  // A node behind a slower link than the fastest takes at most its share of the job by link
  // speed (rb's shares), to the nearest task, or what it holds at the start when more.
  void keep_shares_by_link_speed(std::uint32_t tasks) {
    const std::vector<double> capacity = link_speed_capacities(machine_, tasks);
    if (capacity.empty()) return;
    const double all = std::accumulate(capacity.begin(), capacity.end(), 0.0);
    std::vector<double> room(machine_.num_routers, 0);
    std::vector<bool> slower(machine_.num_routers, false);
    for (NodeId n = 0; n < machine_.num_nodes(); ++n) {
      const RouterId r = machine_.router_of_node(n);
      const double slots = machine_.slots_of_node(n);
      slower[r] = slower[r] || capacity[n] < slots * (1 - 1e-9);
      room[r] += capacity[n] < slots * (1 - 1e-9) ? std::round(capacity[n] * tasks / all) : slots * per_slot_;
    }
    for (RouterId r = 0; r < machine_.num_routers; ++r) {
      if (!slower[r]) continue;
      const auto holds = static_cast<std::uint64_t>(eval_.tasks_on_router(r).size());
      capacity_[r] = std::min(capacity_[r], std::max(static_cast<std::uint64_t>(room[r]), holds));
    }
  }

  // Summed over every pair again (no drift from the running sum between rounds).
  double hop_bytes() { return eval_.recompute_hop_bytes(); }

  // One pass over the tasks in `order` (or until the work runs out); returns whether anything
  // moved.
  bool pass(const std::vector<TaskId>& order, HopBytesRefineStats& stats) {
    bool changed = false;
    for (TaskId t : order) {
      if (out_of_work()) break;
      changed |= improve(t, stats);
    }
    return changed;
  }

  // The work units spent (IncrementalEvaluator's, and this search's own: partner terms and
  // candidate routers scored, cost-table entries of the group phase), and whether
  // they reached the limit (0: none). Checks for cancellation too, being called between steps.
  std::uint64_t work() const { return work_; }
  bool out_of_work() const {
    problem_.stop_if_cancelled();
    return work_limit_ > 0 && work_ >= work_limit_;
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
        for (TaskId t : members_[g]) {
          const auto partners = eval_.partners(t);
          const auto weights = eval_.weights(t);
          for (std::size_t e = 0; e < partners.size(); ++e) {
            const std::uint32_t h = group_of_[partners[e]];
            if (h == g) continue;
            if (row[h] == 0) touched.push_back(h);
            row[h] += weights[e];
          }
        }
        for (std::uint32_t h : touched) w[g].push_back({h, row[h]}), row[h] = 0;
        touched.clear();
      }
    }
    if (hops_to_.empty()) {  // row `at`: hops(b, at) for every b; built once per search
      hops_to_.resize(std::size_t(R) * R);
      for (RouterId at = 0; at < R; ++at)
        for (RouterId b = 0; b < R; ++b) hops_to_[std::size_t(at) * R + b] = eval_.hops(b, at);
    }
    const std::vector<double>& hops_to = hops_to_;
    std::vector<double> m(std::size_t(G) * R, 0.0);
    for (std::uint32_t g = 0; g < G; ++g) {
      work_ += (w[g].size() + 1) * R / kTableEntriesPerUnit;
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
      work_ += w[g].size() * R / kTableEntriesPerUnit;
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
      for (std::uint32_t g = 0; g < G && !out_of_work(); ++g) {
        if (!dirty[g]) continue;
        dirty[g] = 0;
        work_ += (R + w[g].size()) / kTableEntriesPerUnit + 1;
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
          const double across = eval_.hops(r, x);
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

  const Mapping& mapping() const { return eval_.mapping(); }

 private:
  // Cuts each router's tasks into min(per_router, tasks) groups: contiguous pieces of a
  // greedy order that always appends the task most connected to those taken (Prim-like), so
  // a piece is a well-connected set.
  void form_groups(std::uint32_t per_router) {
    members_.clear();
    group_router_.clear();
    const std::uint32_t n = eval_.num_tasks();
    group_of_.assign(n, 0);
    std::vector<double> pull(n, 0.0);
    std::vector<std::uint32_t> slot_in_list(n, 0);  // 1 + position in the router's list; 0 = elsewhere
    std::vector<char> taken(n, 0);
    std::vector<TaskId> order;
    // Max-heap on (pull, -position): the most pulled task, the first in the list on ties.
    // Pulls only grow, so an entry is current iff its pull equals the task's.
    std::priority_queue<std::pair<double, std::int64_t>> heap;
    for (RouterId r = 0; r < machine_.num_routers; ++r) {
      const std::vector<TaskId>& tasks = eval_.tasks_on_router(r);
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
        const auto partners = eval_.partners(next);
        const auto weights = eval_.weights(next);
        for (std::size_t e = 0; e < partners.size(); ++e) {
          const TaskId u = partners[e];
          if (slot_in_list[u] == 0 || taken[u]) continue;
          pull[u] += weights[e];
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

  // Moves the tasks of relocated groups to the first slots with room of their new routers (group
  // by group); a task that stays on its router keeps its slot.
  void apply_group_routers() {
    std::vector<std::uint32_t> count(machine_.num_slots());
    for (SlotId s = 0; s < count.size(); ++s) count[s] = static_cast<std::uint32_t>(eval_.tasks_on(s).size());
    Mapping next = eval_.mapping();
    std::vector<std::pair<TaskId, RouterId>> moved;
    for (std::uint32_t g = 0; g < members_.size(); ++g)
      for (TaskId t : members_[g])
        if (eval_.router_of(t) != group_router_[g]) --count[next.slot_of_task[t]], moved.push_back({t, group_router_[g]});
    for (const auto& [t, r] : moved) {
      SlotId s = machine_.first_slot_of_router(r);
      while (count[s] >= per_slot_) ++s;  // the group phase kept every router within its room
      ++count[s];
      next.slot_of_task[t] = s;
    }
    eval_.reset(std::move(next));
  }

  bool improve(TaskId t, HopBytesRefineStats& stats) {
    eval_.gather(t);
    const RouterId r = eval_.router_of(t);
    const double here = eval_.cost_at(r);
    if (here == 0) return false;
    candidates_.clear();
    work_ += kUnitsPerTerm * (eval_.partners(t).size() + eval_.gathered_routers().size());
    for (RouterId q : eval_.gathered_routers())
      if (q != r) candidates_.push_back({eval_.cost_at(q) - here, q});
    for (std::uint32_t i = adjacency_.offsets[r]; i < adjacency_.offsets[r + 1]; ++i) {
      const RouterId q = machine_.channels[adjacency_.channels[i]].dst;
      // A neighbour without slots (a fabric's switch) can take no task.
      if (q != r && eval_.gathered_volume(q) == 0 && capacity_[q] > 0) candidates_.push_back({eval_.cost_at(q) - here, q});
    }
    std::sort(candidates_.begin(), candidates_.end());
    const double tolerance = 1e-12 * here;
    // Targets best first: a move where there is room, else the best swap there.
    for (const auto& [delta, x] : candidates_) {
      if (delta >= -tolerance) break;
      if (const SlotId s = eval_.tasks_on_router(x).size() < capacity_[x] ? eval_.free_slot(x) : UINT32_MAX; s != UINT32_MAX) {
        const Relocation move{t, s};
        eval_.relocate({&move, 1});
        ++stats.moves;
        return true;
      }
      double best = -tolerance;
      TaskId partner = UINT32_MAX;
      const double across = eval_.hops(r, x);
      work_ += kUnitsPerTerm * eval_.tasks_on_router(x).size();
      for (TaskId u : eval_.tasks_on_router(x)) {
        const double total =
            delta + eval_.task_cost(u, r) - eval_.task_cost(u, x) + 2 * eval_.volume_between(t, u) * across;
        if (total < best) best = total, partner = u;
      }
      if (partner != UINT32_MAX) {
        const SlotId mine = eval_.mapping().slot_of_task[t], theirs = eval_.mapping().slot_of_task[partner];
        const Relocation swap[2] = {{t, theirs}, {partner, mine}};
        eval_.relocate(swap);
        ++stats.swaps;
        return true;
      }
    }
    return false;
  }

  const MappingProblem& problem_;
  const Machine& machine_;
  std::uint64_t work_ = 0;  // before eval_, which adds to it from its construction on
  IncrementalEvaluator eval_;
  ChannelAdjacency adjacency_;
  std::uint32_t per_slot_;
  std::uint64_t work_limit_;
  std::vector<std::pair<double, RouterId>> candidates_;
  std::vector<std::uint64_t> capacity_;  // tasks a router may hold
  // Group phase.
  std::vector<std::vector<TaskId>> members_;
  std::vector<RouterId> group_router_;
  std::vector<std::uint32_t> group_of_;
  std::vector<double> hops_to_;
};

}  // namespace

Mapping refine_hop_bytes(const MappingProblem& problem, Mapping start, const HopBytesRefineOptions& options,
                         HopBytesRefineStats* stats) {
  const Machine& machine = problem.machine();
  const CommGraph& graph = problem.graph();
  validate_mapping(start, machine, graph.num_tasks(), "refine-hb start", options.per_slot);
  Mapping start_copy = start;
  HopBytesSearch search(problem, std::move(start), options.per_slot, options.room_by_link_speed,
                        options.work * kWorkUnitsPerMillion);
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
        if (!search.out_of_work()) moved |= search.exchange_groups(per_router, s);
    moved |= search.pass(order, s);
    if (!moved || search.out_of_work()) break;
    const double now = search.hop_bytes();
    if (now > last * (1 - 1e-4)) break;  // under 0.01% per pass: converged
    last = now;
  }
  s.work = search.work();
  s.out_of_work = search.out_of_work();
  s.after = search.hop_bytes();
  Mapping result = search.mapping();
  if (s.after > s.before) {  // only rounding in the group phase's running sums could do this
    result = std::move(start_copy);
    s.after = s.before;
  }
  // On GPU nodes, each node's tasks re-assigned to its GPUs at once: rails that single moves
  // and swaps leave crossed.
  if (machine.gpu_links && !search.out_of_work()) {
    NodeAssignmentStats assigned;
    result = assign_within_nodes(problem, std::move(result), 4, &assigned);
    if (assigned.reassigned > 0) s.after = assigned.after;
  }
  if (stats) *stats = s;
  return result;
}

}  // namespace taskmap
