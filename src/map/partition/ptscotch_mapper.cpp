// ptscotch: the task graph cut by PT-Scotch's distributed mapping, every process of an MPI
// launch holding a slice of the tasks, into one part per router that holds slots, each part
// sized by its router's slots. PT-Scotch 7 maps distributed graphs onto complete graphs only
// (its recursive bipartitioning onto other targets is not implemented), so the parts are then
// placed on the routers by Scotch on the leader, as the graph of the traffic between parts
// mapped onto the machine with one slot per router; tasks then fill their part's router.
// Processes without PT-Scotch (the serial program, MPICH's launcher), and jobs of fewer tasks
// than processes, run scotch on the leader.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "taskmap/core/memory.h"
#include "taskmap/map/mapper_support.h"
#include "taskmap/map/partition/partition_mappers.h"
#include "taskmap/map/router_placement.h"

namespace taskmap {
namespace detail {
namespace {

// The machine with one node of one slot on every router that has slots: a part of the task
// graph per slot.
Machine one_slot_per_router(const Machine& machine) {
  Machine routers = machine;
  routers.node_model = nullptr;
  if (machine.uniform()) {
    routers.nodes_per_router = 1;
    routers.slots_per_node = 1;
    return routers;
  }
  NodeTable table;
  table.router = routers_with_slots(machine);
  table.first_slot.resize(table.router.size() + 1);
  std::iota(table.first_slot.begin(), table.first_slot.end(), SlotId{0});
  routers.slots_per_node = 1;
  routers.set_nodes(std::move(table));
  return routers;
}

class PtScotchMapper final : public ConfiguredMapper<> {
 public:
  using ConfiguredMapper::ConfiguredMapper;

  Mapping run(const MappingProblem& problem) const override {
    const dist::Processes& processes = problem.processes();
    const dist::Processes& alone = processes.alone();
    Mapping mapping;
    // With fewer tasks than processes some slices would be empty: too small to distribute.
    if (!processes.distributed_partition() || problem.graph().num_tasks() < static_cast<std::uint32_t>(processes.size())) {
      on_leader(processes, [&] { mapping = make_scotch_mapper({"scotch", {}})->run(problem.on_processes(alone)); });
      broadcast_mapping(mapping, processes, 0);
      return mapping;
    }
    const Machine& machine = problem.machine();
    const CommGraph& graph = problem.graph();
    const std::vector<RouterId> routers = routers_with_slots(machine);
    std::vector<std::int32_t> part_weights;
    for (RouterId r : routers) part_weights.push_back(static_cast<std::int32_t>(machine.slots_of_router(r)));
    const std::vector<std::int32_t> part_of_task = distributed_parts(problem, part_weights);
    on_leader(processes, [&] {
      const std::vector<RouterId> router_of_part = routers_of_parts(problem, routers, part_of_task);
      std::vector<RouterId> router_of_task(graph.num_tasks());
      for (TaskId t = 0; t < graph.num_tasks(); ++t) router_of_task[t] = router_of_part[part_of_task[t]];
      mapping = place_on_routers(machine, graph, std::move(router_of_task), problem.imbalance());
      mapping.note = fmt::format("ptscotch: {} parts cut by PT-Scotch on {} processes", routers.size(),
                                 processes.size());
    });
    broadcast_mapping(mapping, processes, 0);
    return mapping;
  }

 private:
  // The part of every task: each process hands PT-Scotch its slice of the symmetric task graph
  // (edge weights: the volumes scaled to integers), then every process gets every slice's parts.
  std::vector<std::int32_t> distributed_parts(const MappingProblem& problem,
                                              const std::vector<std::int32_t>& part_weights) const {
    const dist::Processes& processes = problem.processes();
    const std::uint32_t n = problem.graph().num_tasks();
    // The cut is the cost: one unit per unit of volume between parts.
    const IntegerGraph whole = integer_graph(problem.graph(), 1);
    const dist::Slice mine = dist::slice_of(n, processes.rank(), processes.size());
    dist::GraphSlice slice;
    slice.first = mine.begin;
    const auto first_arc = static_cast<std::size_t>(whole.offsets[mine.begin]);
    const auto end_arc = static_cast<std::size_t>(whole.offsets[mine.end]);
    for (std::uint64_t v = mine.begin; v < mine.end; ++v) {
      slice.offsets.push_back(whole.offsets[v + 1] - static_cast<std::int32_t>(first_arc));
    }
    slice.targets.assign(whole.targets.begin() + first_arc, whole.targets.begin() + end_arc);
    slice.weights.assign(whole.weights.begin() + first_arc, whole.weights.begin() + end_arc);
    const std::vector<std::int32_t> own = processes.partition(slice, part_weights, problem.imbalance());
    std::vector<std::int32_t> part_of_task(n);
    std::copy(own.begin(), own.end(), part_of_task.begin() + static_cast<std::ptrdiff_t>(mine.begin));
    for (int root = 0; root < processes.size(); ++root) {
      const dist::Slice s = dist::slice_of(n, root, processes.size());
      processes.broadcast(part_of_task.data() + s.begin, (s.end - s.begin) * sizeof(std::int32_t), root);
    }
    const auto parts = static_cast<std::int32_t>(part_weights.size());
    for (std::int32_t p : part_of_task) {
      if (p < 0 || p >= parts) refuse(label_, "PT-Scotch returned part {} of {}", p, parts);
    }
    return part_of_task;
  }

  // The router of every part: Scotch maps the graph of the traffic between parts onto the
  // machine with one slot per router.
  std::vector<RouterId> routers_of_parts(const MappingProblem& problem, const std::vector<RouterId>& routers,
                                         const std::vector<std::int32_t>& part_of_task) const {
    const CommGraph& graph = problem.graph();
    std::vector<CommEdge> between;
    for (TaskId t = 0; t < graph.num_tasks(); ++t) {
      auto targets = graph.targets(t);
      auto volumes = graph.volumes(t);
      for (std::size_t e = 0; e < targets.size(); ++e) {
        const std::int32_t a = part_of_task[t], b = part_of_task[targets[e]];
        if (a != b) between.push_back({static_cast<TaskId>(a), static_cast<TaskId>(b), volumes[e]});
      }
    }
    const CommGraph parts = CommGraph::from_edges(static_cast<std::uint32_t>(routers.size()), std::move(between));
    const Machine one_slot = one_slot_per_router(problem.machine());
    const MappingProblem placement(one_slot, parts, problem.routing_name(), 0);
    const Mapping m = make_scotch_mapper({"scotch", {}})->run(placement);
    std::vector<RouterId> router_of_part(routers.size());
    for (std::size_t p = 0; p < routers.size(); ++p) router_of_part[p] = one_slot.router_of_slot(m.slot_of_task[p]);
    return router_of_part;
  }
};

}  // namespace
}  // namespace detail

std::unique_ptr<Mapper> make_ptscotch_mapper(MapperLabel label) {
  return std::make_unique<detail::PtScotchMapper>(std::move(label));
}

}  // namespace taskmap
