#include "taskmap/map/refine/node_assignment.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace taskmap {

std::vector<std::uint32_t> least_cost_assignment(const std::vector<double>& cost, std::uint32_t n) {
  // Rows and columns 1..n; column 0 is the free start of each augmenting path.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> row_potential(n + 1, 0), column_potential(n + 1, 0);
  std::vector<std::uint32_t> row_of_column(n + 1, 0), way(n + 1, 0);
  for (std::uint32_t row = 1; row <= n; ++row) {
    row_of_column[0] = row;
    std::uint32_t column = 0;
    std::vector<double> least(n + 1, kInf);
    std::vector<char> used(n + 1, 0);
    do {
      used[column] = 1;
      const std::uint32_t r = row_of_column[column];
      double delta = kInf;
      std::uint32_t next = 0;
      for (std::uint32_t c = 1; c <= n; ++c) {
        if (used[c]) continue;
        const double reduced = cost[std::size_t{r - 1} * n + (c - 1)] - row_potential[r] - column_potential[c];
        if (reduced < least[c]) least[c] = reduced, way[c] = column;
        if (least[c] < delta) delta = least[c], next = c;
      }
      for (std::uint32_t c = 0; c <= n; ++c) {
        if (used[c]) {
          row_potential[row_of_column[c]] += delta;
          column_potential[c] -= delta;
        } else {
          least[c] -= delta;
        }
      }
      column = next;
    } while (row_of_column[column] != 0);
    do {  // the augmenting path, back to its start
      const std::uint32_t previous = way[column];
      row_of_column[column] = row_of_column[previous];
      column = previous;
    } while (column != 0);
  }
  std::vector<std::uint32_t> column_of_row(n);
  for (std::uint32_t c = 1; c <= n; ++c) column_of_row[row_of_column[c] - 1] = c - 1;
  return column_of_row;
}

namespace {

constexpr std::uint32_t kMostSlotsPerNode = 256;  // the assignment is cubic in them

}  // namespace

Mapping assign_within_nodes(const MappingProblem& problem, Mapping mapping, std::uint32_t passes,
                            NodeAssignmentStats* stats) {
  const Machine& machine = problem.machine();
  NodeAssignmentStats s;
  if (!machine.gpu_links) {
    if (stats) *stats = s;
    return mapping;
  }
  const CommGraph& graph = problem.graph();
  const HopDistance& hops = problem.hop_distance();
  const TaskId tasks = graph.num_tasks();
  // Each task's partners both ways, with the volume both ways (the graph holds out-edges).
  std::vector<std::vector<std::pair<TaskId, double>>> partners(tasks);
  for (TaskId t = 0; t < tasks; ++t) {
    const auto targets = graph.targets(t);
    const auto volumes = graph.volumes(t);
    for (std::size_t i = 0; i < targets.size(); ++i) {
      if (targets[i] == t || !(volumes[i] > 0)) continue;
      partners[t].emplace_back(targets[i], volumes[i]);
      partners[targets[i]].emplace_back(t, volumes[i]);
    }
  }
  auto router_of = [&](TaskId t) { return machine.router_of_slot(mapping.slot_of_task[t]); };
  auto hop_bytes = [&] {
    double sum = 0;
    for (TaskId t = 0; t < tasks; ++t)
      for (const auto& [u, v] : partners[t]) sum += v * hops(router_of(t), router_of(u));
    return sum / 2;
  };
  s.before = hop_bytes();
  // The tasks of each node, in task order.
  std::vector<std::vector<TaskId>> on_node(machine.num_nodes());
  for (TaskId t = 0; t < tasks; ++t) on_node[machine.node_of_slot(mapping.slot_of_task[t])].push_back(t);
  for (s.passes = 0; s.passes < passes;) {
    ++s.passes;
    bool changed = false;
    for (NodeId n = 0; n < machine.num_nodes(); ++n) {
      problem.stop_if_cancelled();
      const std::uint32_t slots = machine.slots_of_node(n);
      auto& held = on_node[n];
      if (held.size() < 2 || slots > kMostSlotsPerNode || held.size() > slots) continue;
      std::vector<char> one_each(slots, 0);
      bool shared = false;
      for (TaskId t : held) shared |= std::exchange(one_each[machine.slot_in_node(mapping.slot_of_task[t])], 1) != 0;
      if (shared) continue;
      const SlotId first = machine.first_slot_of_node(n);
      // Rows: the node's tasks, then empty places; columns: its slots. A task's cost on a slot:
      // its hop-bytes to partners on other nodes (those inside are counted after).
      std::vector<double> cost(std::size_t{slots} * slots, 0.0);
      for (std::size_t i = 0; i < held.size(); ++i) {
        for (const auto& [u, v] : partners[held[i]]) {
          if (machine.node_of_slot(mapping.slot_of_task[u]) == n) continue;
          const RouterId ru = router_of(u);
          for (std::uint32_t j = 0; j < slots; ++j) cost[i * slots + j] += v * hops(machine.router_of_slot(first + j), ru);
        }
      }
      auto node_cost = [&](const std::vector<SlotId>& slot_of) {  // the node's whole hop-bytes
        double sum = 0;
        for (std::size_t i = 0; i < held.size(); ++i) {
          const RouterId r = machine.router_of_slot(slot_of[i]);
          for (const auto& [u, v] : partners[held[i]]) {
            const auto inside = std::find(held.begin(), held.end(), u);
            sum += v * hops(r, inside == held.end() ? router_of(u)
                                                    : machine.router_of_slot(slot_of[std::size_t(inside - held.begin())]));
          }
        }
        return sum;
      };
      std::vector<SlotId> now(held.size()), proposed(held.size());
      for (std::size_t i = 0; i < held.size(); ++i) now[i] = mapping.slot_of_task[held[i]];
      const auto column = least_cost_assignment(cost, slots);
      for (std::size_t i = 0; i < held.size(); ++i) proposed[i] = first + column[i];
      if (proposed == now || !(node_cost(proposed) < node_cost(now) * (1 - 1e-12))) continue;
      for (std::size_t i = 0; i < held.size(); ++i) mapping.slot_of_task[held[i]] = proposed[i];
      ++s.reassigned;
      changed = true;
    }
    if (!changed) break;
  }
  s.after = hop_bytes();
  if (stats) *stats = s;
  return mapping;
}

}  // namespace taskmap
