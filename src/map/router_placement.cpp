#include "taskmap/map/router_placement.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "taskmap/core/error.h"
#include "taskmap/map/mapper_support.h"
#include "taskmap/topology/distance.h"

namespace taskmap::detail {

UndirectedGraph undirected_graph(const CommGraph& graph) {
  const std::uint32_t n = graph.num_tasks();
  std::vector<std::vector<std::pair<TaskId, double>>> adj(n);
  for (TaskId a = 0; a < n; ++a) {
    auto targets = graph.targets(a);
    auto volumes = graph.volumes(a);
    for (std::size_t e = 0; e < targets.size(); ++e) {
      if (targets[e] == a) continue;
      adj[a].push_back({targets[e], volumes[e]});
      adj[targets[e]].push_back({a, volumes[e]});
    }
  }
  UndirectedGraph g;
  for (auto& list : adj) {
    std::sort(list.begin(), list.end());
    for (std::size_t i = 0; i < list.size();) {
      const TaskId b = list[i].first;
      double sum = 0;
      for (; i < list.size() && list[i].first == b; ++i) sum += list[i].second;
      g.targets.push_back(b);
      g.weights.push_back(sum);
    }
    g.offsets.push_back(g.targets.size());
  }
  return g;
}

IntegerGraph integer_graph(const CommGraph& graph, double max_cost) { return integer_graph(undirected_graph(graph), max_cost); }

IntegerGraph integer_graph(const UndirectedGraph& u, double max_cost) {
  constexpr double kMaxWeight = 1 << 20, kMaxSum = double(1 << 30);
  // The offsets below are 32-bit, as Debian's METIS (idx_t) and Scotch (SCOTCH_Num) take them.
  constexpr std::uint64_t kMaxEntries = std::numeric_limits<std::int32_t>::max();
  if (u.offsets.back() > kMaxEntries) {
    fail("the task graph has {} communicating task pairs (counted in both directions); METIS and Scotch take at "
         "most {}",
         u.offsets.back(), kMaxEntries);
  }
  double heaviest = 0;
  for (double v : u.weights) heaviest = std::max(heaviest, v);
  double relative_sum = 0;  // over both directions, of volume / heaviest
  for (double v : u.weights) relative_sum += v / heaviest;
  const double scale = std::clamp(kMaxSum / (std::max(relative_sum, 1.0) * std::max(max_cost, 1.0)), 1.0, kMaxWeight);
  IntegerGraph g;
  g.targets.assign(u.targets.begin(), u.targets.end());
  for (double v : u.weights) g.weights.push_back(static_cast<std::int32_t>(std::max(1.0, std::round(v / heaviest * scale))));
  for (std::size_t i = 1; i < u.offsets.size(); ++i) g.offsets.push_back(static_cast<std::int32_t>(u.offsets[i]));
  return g;
}

RouterAdjacency router_adjacency(const Machine& machine) {
  std::vector<std::vector<RouterId>> lists(machine.num_routers);
  for (const Channel& c : machine.channels) {
    if (c.src == c.dst) continue;
    lists[c.src].push_back(c.dst);
    lists[c.dst].push_back(c.src);
  }
  RouterAdjacency a;
  a.offsets.reserve(lists.size() + 1);
  a.offsets.push_back(0);
  for (auto& list : lists) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    a.neighbours.insert(a.neighbours.end(), list.begin(), list.end());
    a.offsets.push_back(a.neighbours.size());
  }
  return a;
}

IntegerGraph router_graph(const RouterAdjacency& adjacency, const std::vector<RouterId>& routers,
                          std::vector<std::int32_t>& index) {
  for (std::size_t i = 0; i < routers.size(); ++i) index[routers[i]] = static_cast<std::int32_t>(i);
  IntegerGraph g;
  std::vector<std::int32_t> list;
  for (RouterId r : routers) {
    list.clear();
    for (std::uint64_t e = adjacency.offsets[r]; e < adjacency.offsets[r + 1]; ++e)
      if (const std::int32_t j = index[adjacency.neighbours[e]]; j >= 0) list.push_back(j);
    std::sort(list.begin(), list.end());
    g.targets.insert(g.targets.end(), list.begin(), list.end());
    g.weights.insert(g.weights.end(), list.size(), 1);
    g.offsets.push_back(static_cast<std::int32_t>(g.targets.size()));
  }
  for (RouterId r : routers) index[r] = -1;
  return g;
}

IntegerGraph router_graph(const Machine& machine, const std::vector<RouterId>& routers) {
  std::vector<std::int32_t> index(machine.num_routers, -1);
  return router_graph(router_adjacency(machine), routers, index);
}

void require_nodes_on_every_router(const Machine& machine, const std::string& mapper) {
  if (machine.num_host_routers() != machine.num_routers) {
    fail("--mapper '{}': machine '{}' has routers without nodes (switches); use default, random, cyclic or "
         "refine-mcl there",
         mapper, machine.description);
  }
}

std::vector<RouterId> routers_with_slots(const Machine& machine) {
  std::vector<RouterId> out;
  for (RouterId r = 0; r < machine.num_routers; ++r)
    if (machine.slots_of_router(r) > 0) out.push_back(r);
  return out;
}

bool routers_alike(const Machine& machine) {
  return machine.uniform() && machine.num_host_routers() == machine.num_routers;
}

std::uint64_t router_capacity(const Machine& machine, RouterId r, std::size_t tasks, double imbalance) {
  return std::uint64_t(machine.slots_of_router(r)) * tasks_per_slot(tasks, machine.num_slots(), imbalance);
}

Mapping place_on_routers(const Machine& machine, const CommGraph& graph, std::vector<RouterId> router_of_task,
                         double imbalance) {
  const std::size_t n = graph.num_tasks();
  auto capacity = [&](RouterId r) { return router_capacity(machine, r, n, imbalance); };
  std::vector<std::vector<TaskId>> on(machine.num_routers);
  for (TaskId t = 0; t < graph.num_tasks(); ++t) on[router_of_task[t]].push_back(t);
  const HopDistance hops(machine);
  for (RouterId r = 0; r < machine.num_routers; ++r) {
    if (on[r].size() <= capacity(r)) continue;
    std::vector<double> local(graph.num_tasks(), 0.0);
    for (TaskId t : on[r]) {
      auto targets = graph.targets(t);
      auto volumes = graph.volumes(t);
      for (std::size_t e = 0; e < targets.size(); ++e)
        if (router_of_task[targets[e]] == r) local[t] += volumes[e];
    }
    std::stable_sort(on[r].begin(), on[r].end(), [&](TaskId a, TaskId b) { return local[a] > local[b]; });
    while (on[r].size() > capacity(r)) {
      const TaskId t = on[r].back();
      on[r].pop_back();
      RouterId best = r;
      for (RouterId q = 0; q < machine.num_routers; ++q)
        if (on[q].size() < capacity(q) && (best == r || hops(r, q) < hops(r, best))) best = q;
      if (best == r) fail("the machine's {} slots cannot hold {} tasks", machine.num_slots(), n);
      on[best].push_back(t);
      router_of_task[t] = best;
    }
  }
  Mapping m;
  m.slot_of_task.resize(graph.num_tasks());
  for (RouterId r = 0; r < machine.num_routers; ++r) {
    std::sort(on[r].begin(), on[r].end());
    const SlotId first = machine.first_slot_of_router(r);
    const std::uint32_t slots = machine.slots_of_router(r);
    for (std::uint32_t i = 0; i < on[r].size(); ++i) m.slot_of_task[on[r][i]] = first + i % slots;
  }
  return m;
}

double placement_hop_bytes(const MappingProblem& problem, const Mapping& mapping) {
  const Machine& machine = problem.machine();
  const CommGraph& graph = problem.graph();
  const HopDistance& hops = problem.hop_distance();
  double sum = 0;
  for (TaskId a = 0; a < graph.num_tasks(); ++a) {
    const RouterId from = machine.router_of_slot(mapping.slot_of_task[a]);
    auto targets = graph.targets(a);
    auto volumes = graph.volumes(a);
    for (std::size_t e = 0; e < targets.size(); ++e) {
      sum += volumes[e] * hops(from, machine.router_of_slot(mapping.slot_of_task[targets[e]]));
    }
  }
  return sum;
}

Mapping keep_default_unless_better(const MappingProblem& problem, Mapping mapping, const std::string& mapper) {
  Mapping fallback = default_order(problem.machine(), problem.graph().num_tasks());
  const double own = placement_hop_bytes(problem, mapping), order = placement_hop_bytes(problem, fallback);
  // Equal within rounding counts as no better: sums of the same terms in another order.
  if (own < order * (1 - 1e-9)) return mapping;
  fallback.note = fmt::format("{}{}{}: its placement ({:.6g} hop-bytes) is no better than the default order ({:.6g}), "
                              "which it keeps",
                              mapping.note, mapping.note.empty() ? "" : "\n", mapper, own, order);
  return fallback;
}

}  // namespace taskmap::detail
