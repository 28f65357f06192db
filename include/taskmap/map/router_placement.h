#pragma once
// Shared by the mappers built on graph partitioners (scotch, metis): the task graph in the
// symmetric integer form they take, and the placement of per-router task sets on slots.
#include <cstdint>
#include <vector>

#include "taskmap/problem/mapping.h"
#include "taskmap/problem/problem.h"
#include "taskmap/workload/comm_graph.h"

namespace taskmap::detail {

// The task graph made undirected: CSR without self-loops, both directions of a pair summed
// into one weight stored on each side.
struct UndirectedGraph {
  std::vector<std::uint64_t> offsets{0};
  std::vector<TaskId> targets;
  std::vector<double> weights;
  std::uint32_t vertices() const { return static_cast<std::uint32_t>(offsets.size() - 1); }
};
UndirectedGraph undirected_graph(const CommGraph& graph);

// The same with 32-bit integer weights; partitioners sum weight x cost over all edges, so volumes are
// scaled for that sum to stay below 2^30 given the largest cost per unit (e.g. the machine's
// diameter; 1 for a plain edge cut). The heaviest pair gets at most 2^20, every pair >= 1.
struct IntegerGraph {
  std::vector<std::int32_t> offsets{0}, targets, weights;
  std::uint32_t vertices() const { return static_cast<std::uint32_t>(offsets.size() - 1); }
};
IntegerGraph integer_graph(const CommGraph& graph, double max_cost);
IntegerGraph integer_graph(const UndirectedGraph& graph, double max_cost);

// The routers' graph induced on `routers` (vertex i = routers[i]): a unit-weight edge per
// router pair joined by a channel in either direction.
// Throws naming the mapper when some routers hold no nodes (a fat-tree's switches): the
// router-level mappers below place tasks on every router.
void require_nodes_on_every_router(const Machine& machine, const std::string& mapper);

IntegerGraph router_graph(const Machine& machine, const std::vector<RouterId>& routers);

// Each router's neighbours by a channel either way, in id order, once each (compressed rows):
// what router_graph reads, built once for the many subsets a recursive bisection induces (its
// cost then follows the subset, not the whole machine).
struct RouterAdjacency {
  std::vector<std::uint64_t> offsets;  // num_routers + 1
  std::vector<RouterId> neighbours;
};
RouterAdjacency router_adjacency(const Machine& machine);
// router_graph's graph from the adjacency; `index` is scratch of num_routers entries, all -1 on
// entry and again on return.
IntegerGraph router_graph(const RouterAdjacency& adjacency, const std::vector<RouterId>& routers,
                          std::vector<std::int32_t>& index);

// The routers that hold slots of the job (all host routers of a full machine; on a fabric,
// the allocated nodes' own routers), in id order.
std::vector<RouterId> routers_with_slots(const Machine& machine);
// True when every router holds as many slots (the papers' machines): the router-level
// mappers then keep their plain, unweighted formulation.
bool routers_alike(const Machine& machine);

// Tasks router r may hold: its slots x the balance's tasks per slot.
std::uint64_t router_capacity(const Machine& machine, RouterId r, std::size_t tasks, double imbalance);

// Places tasks on the slots of the routers given (routers with slots): a router takes up to its slots x the
// balance's tasks per slot (tasks_per_slot); beyond that it hands its least attached tasks
// to the nearest routers with room. Inside a router, tasks go to its slots in task order,
// round robin.
Mapping place_on_routers(const Machine& machine, const CommGraph& graph, std::vector<RouterId> router_of_task,
                         double imbalance);

// Hop-bytes of a placement on the machine's minimal routes (the evaluator's hop_bytes), from the
// problem's shared hop distances.
double placement_hop_bytes(const MappingProblem& problem, const Mapping& mapping);

// The last step of the partition-based mappers (scotch, metis, greedy, rb, ml): the default order
// (default_order: task i on slot i, or blocks of tasks per slot) keeps whatever locality the task
// numbering has inside nodes and switches, and a mapper's placement replaces it only with
// strictly fewer hop-bytes. Returns `mapping`, or the default order with a note saying why.
Mapping keep_default_unless_better(const MappingProblem& problem, Mapping mapping, const std::string& mapper);

}  // namespace taskmap::detail
