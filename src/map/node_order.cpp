#include "taskmap/map/node_order.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "taskmap/topology/node_model.h"

namespace taskmap {
namespace {

// One node's tasks and the volumes between them (both directions summed).
struct NodeTasks {
  std::vector<TaskId> tasks;
  std::vector<SlotId> slots;                // the occupied slots, ascending
  std::vector<std::vector<double>> volume;  // [i][j] between tasks[i] and tasks[j]
};

double cost(const NodeTasks& nt, const NodeModel& model, const Machine& machine, const std::vector<SlotId>& slot_of) {
  double c = 0;
  for (std::size_t i = 0; i < nt.tasks.size(); ++i)
    for (std::size_t j = i + 1; j < nt.tasks.size(); ++j)
      if (nt.volume[i][j] > 0) {
        c += nt.volume[i][j] * model.distance(machine.slot_in_node(slot_of[i]), machine.slot_in_node(slot_of[j]));
      }
  return c;
}

// Assigns the tasks `members` (indices into nt) to the slots `slots` (|members| == |slots|),
// splitting the slots by their index at `level` and the tasks into groups of those sizes.
void arrange(const NodeTasks& nt, const NodeModel& model, const Machine& machine, std::size_t level,
             std::vector<std::size_t> members, const std::vector<SlotId>& slots, std::vector<SlotId>& slot_of) {
  if (level >= model.levels.size() || members.size() <= 1) {
    for (std::size_t i = 0; i < members.size(); ++i) slot_of[members[i]] = slots[i];
    return;
  }
  std::map<std::uint32_t, std::vector<SlotId>> groups;  // index at this level -> slots
  for (SlotId s : slots) groups[model.path[machine.slot_in_node(s)][level]].push_back(s);
  if (groups.size() == 1) return arrange(nt, model, machine, level + 1, std::move(members), slots, slot_of);
  std::vector<char> taken(nt.tasks.size(), 0);
  for (auto& [index, group_slots] : groups) {
    std::vector<std::size_t> group;
    std::vector<double> pull(nt.tasks.size(), 0.0);
    while (group.size() < group_slots.size()) {
      // The first member: the task with the most volume to the tasks still free; then the
      // task most attached to the group. Ties: the lower task index.
      std::size_t best = SIZE_MAX;
      double best_score = -1;
      for (std::size_t m : members) {
        if (taken[m]) continue;
        double score = pull[m];
        if (group.empty()) {
          score = 0;
          for (std::size_t o : members)
            if (!taken[o] && o != m) score += nt.volume[m][o];
        }
        if (score > best_score) best_score = score, best = m;
      }
      taken[best] = 1;
      group.push_back(best);
      for (std::size_t m : members) pull[m] += nt.volume[best][m];
    }
    arrange(nt, model, machine, level + 1, std::move(group), group_slots, slot_of);
  }
}

}  // namespace

void order_within_nodes(const MappingProblem& problem, Mapping& mapping) {
  const Machine& machine = problem.machine();
  const NodeModel* model = machine.node_model.get();
  if (model == nullptr || model->levels.empty()) return;
  const CommGraph& graph = problem.graph();
  std::vector<std::vector<TaskId>> on_node(machine.num_nodes());
  for (TaskId t = 0; t < mapping.num_tasks(); ++t) on_node[machine.node_of_slot(mapping.slot_of_task[t])].push_back(t);
  for (const auto& tasks : on_node) {
    if (tasks.size() < 2) continue;
    NodeTasks nt;
    nt.tasks = tasks;
    for (TaskId t : tasks) nt.slots.push_back(mapping.slot_of_task[t]);
    std::sort(nt.slots.begin(), nt.slots.end());
    if (std::adjacent_find(nt.slots.begin(), nt.slots.end()) != nt.slots.end()) continue;  // several per slot
    std::map<TaskId, std::size_t> index;
    for (std::size_t i = 0; i < tasks.size(); ++i) index[tasks[i]] = i;
    nt.volume.assign(tasks.size(), std::vector<double>(tasks.size(), 0.0));
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      auto targets = graph.targets(tasks[i]);
      auto volumes = graph.volumes(tasks[i]);
      for (std::size_t e = 0; e < targets.size(); ++e) {
        auto it = index.find(targets[e]);
        if (it == index.end() || it->second == i) continue;
        nt.volume[i][it->second] += volumes[e];
        nt.volume[it->second][i] += volumes[e];
      }
    }
    std::vector<SlotId> before(tasks.size()), after(tasks.size());
    for (std::size_t i = 0; i < tasks.size(); ++i) before[i] = mapping.slot_of_task[tasks[i]];
    std::vector<std::size_t> all(tasks.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    arrange(nt, *model, machine, 0, std::move(all), nt.slots, after);
    if (cost(nt, *model, machine, after) < cost(nt, *model, machine, before)) {
      for (std::size_t i = 0; i < tasks.size(); ++i) mapping.slot_of_task[tasks[i]] = after[i];
    }
  }
}

bool share_one_layout_across_nodes(const MappingProblem& problem, Mapping& mapping) {
  const Machine& machine = problem.machine();
  std::vector<std::vector<TaskId>> on_node(machine.num_nodes());  // in task order
  for (TaskId t = 0; t < mapping.num_tasks(); ++t) on_node[machine.node_of_slot(mapping.slot_of_task[t])].push_back(t);
  std::vector<std::vector<std::uint32_t>> layout(machine.num_nodes());  // per node: the slot in node of each task
  std::size_t most = 0;
  for (NodeId n = 0; n < machine.num_nodes(); ++n) {
    for (TaskId t : on_node[n]) layout[n].push_back(machine.slot_in_node(mapping.slot_of_task[t]));
    std::vector<std::uint32_t> sorted = layout[n];
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return false;  // several per slot
    most = std::max(most, layout[n].size());
  }
  // A node holding fewer tasks takes the first slots of the list.
  auto fits = [&](const std::vector<std::uint32_t>& candidate) {
    for (NodeId n = 0; n < machine.num_nodes(); ++n)
      for (std::size_t i = 0; i < layout[n].size(); ++i)
        if (candidate[i] >= machine.slots_of_node(n)) return false;
    return true;
  };
  constexpr std::size_t kMostCandidates = 64;
  std::vector<std::vector<std::uint32_t>> candidates;
  for (NodeId n = 0; n < machine.num_nodes() && candidates.size() < kMostCandidates; ++n) {
    if (layout[n].size() == most && std::find(candidates.begin(), candidates.end(), layout[n]) == candidates.end() &&
        fits(layout[n])) {
      candidates.push_back(layout[n]);
    }
  }
  // And the slots in their order, which every node holding as many tasks as slots fits.
  std::vector<std::uint32_t> in_order(most);
  std::iota(in_order.begin(), in_order.end(), 0u);
  if (std::find(candidates.begin(), candidates.end(), in_order) == candidates.end() && fits(in_order)) {
    candidates.push_back(std::move(in_order));
  }
  if (candidates.empty()) return false;
  bool alike = true;
  for (NodeId n = 0; n < machine.num_nodes() && alike; ++n)
    alike = std::equal(layout[n].begin(), layout[n].end(), candidates.front().begin());
  if (alike) return false;
  // node_hop_bytes under a candidate: the volume between two tasks of a node times the
  // distance of the two slots the candidate gives them (without a node model, all alike).
  const NodeModel* model = machine.node_model.get();
  const CommGraph& graph = problem.graph();
  std::vector<std::uint32_t> index_in_node(mapping.num_tasks(), 0);
  for (NodeId n = 0; n < machine.num_nodes(); ++n)
    for (std::size_t i = 0; i < on_node[n].size(); ++i) index_in_node[on_node[n][i]] = static_cast<std::uint32_t>(i);
  auto cost = [&](const std::vector<std::uint32_t>& candidate) {
    double c = 0;
    if (model == nullptr || model->levels.empty()) return c;
    for (TaskId t = 0; t < mapping.num_tasks(); ++t) {
      const NodeId n = machine.node_of_slot(mapping.slot_of_task[t]);
      auto targets = graph.targets(t);
      auto volumes = graph.volumes(t);
      for (std::size_t e = 0; e < targets.size(); ++e) {
        const TaskId u = targets[e];
        if (u == t || machine.node_of_slot(mapping.slot_of_task[u]) != n) continue;
        c += volumes[e] * model->distance(candidate[index_in_node[t]], candidate[index_in_node[u]]);
      }
    }
    return c;
  };
  std::size_t best = 0;
  double best_cost = cost(candidates[0]);
  for (std::size_t k = 1; k < candidates.size(); ++k) {
    if (const double c = cost(candidates[k]); c < best_cost) best = k, best_cost = c;
  }
  for (NodeId n = 0; n < machine.num_nodes(); ++n)
    for (std::size_t i = 0; i < on_node[n].size(); ++i)
      mapping.slot_of_task[on_node[n][i]] = machine.first_slot_of_node(n) + candidates[best][i];
  return true;
}

}  // namespace taskmap
