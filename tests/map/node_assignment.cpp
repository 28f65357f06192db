// Re-assigning a GPU node's tasks to its GPUs at once (assign_within_nodes) and the assignment
// method under it, on cases derived by hand.
#include <gtest/gtest.h>

#include "taskmap/map/refine/node_assignment.h"
#include "taskmap/map/refine/refine_hop_bytes.h"
#include "taskmap/topology/fabric.h"
#include "taskmap/topology/node_topology.h"

namespace taskmap {
namespace {

// Rows 0, 1, 2 cost least on columns 2, 0, 1 together (1 + 2 + 3 = 6); every other assignment
// costs at least 9 (checked by hand over the six).
TEST(NodeAssignment, LeastCostAssignmentOfThree) {
  const std::vector<double> cost = {7, 5, 1,  //
                                    2, 8, 6,  //
                                    4, 3, 9};
  // Sums: (0,1,2) 7+8+9=24, (0,2,1) 7+6+3=16, (1,0,2) 5+2+9=16, (1,2,0) 5+6+4=15,
  // (2,0,1) 1+2+3=6, (2,1,0) 1+8+4=13.
  EXPECT_EQ(least_cost_assignment(cost, 3), (std::vector<std::uint32_t>{2, 0, 1}));
  EXPECT_EQ(least_cost_assignment({5}, 1), (std::vector<std::uint32_t>{0}));
}

// Two hosts with NICs on rails leaf0, leaf1, leaf2 under one spine, 3 GPUs each (GPU k on rail
// k). Task i (GPU i of a) talks to task 3 + (i + 1) mod 3 (GPU i + 1 of b): every pair changes
// rails, 6 hops (GPU, NIC, leaf, spine, leaf, NIC, GPU). A swap of two of a's tasks aligns one
// pair and leaves the others crossed; rotating all three aligns every pair: 4 hops each (GPU,
// NIC, leaf, NIC, GPU). Hop-bytes 3 pairs x 2 ways x 10 x 6 = 360 -> 240.
TEST(NodeAssignment, RotatesANodesTasksOntoTheirPartnersRails) {
  Fabric f;
  f.source = "three-rails";
  f.switches = {"leaf0", "leaf1", "leaf2", "spine"};
  f.hosts = {"a", "b"};
  for (std::uint32_t h = 0; h < 2; ++h)
    for (std::uint32_t k = 0; k < 3; ++k) f.host_ports.push_back({h, k, 400, "mlx5_" + std::to_string(k)});
  f.cables = {{0, 3, 400}, {1, 3, 400}, {2, 3, 400}};
  f.rates_in_gbps = true;
  const Machine m = build_fabric_machine(f, {.slots_per_node = 1,
                                             .gpu_model = read_node_topology("gpus:3,nics=3", SlotUnit::Core),
                                             .description = "three-rails"});
  std::vector<CommEdge> edges;
  for (TaskId i = 0; i < 3; ++i) {
    edges.push_back({i, 3 + (i + 1) % 3, 10});
    edges.push_back({3 + (i + 1) % 3, i, 10});
  }
  const CommGraph graph = CommGraph::from_edges(6, edges);
  const MappingProblem problem(m, graph);
  NodeAssignmentStats stats;
  const Mapping result = assign_within_nodes(problem, Mapping{{0, 1, 2, 3, 4, 5}, ""}, 4, &stats);
  EXPECT_DOUBLE_EQ(stats.before, 360.0);
  EXPECT_DOUBLE_EQ(stats.after, 240.0);
  EXPECT_EQ(stats.reassigned, 1u);  // node a; then b is already best
  EXPECT_EQ(result.slot_of_task, (std::vector<SlotId>{1, 2, 0, 3, 4, 5}));
  // refine-hb, free to move tasks between the nodes too, reaches the optimum: a pair inside
  // each node (2 hops through the NVSwitches) and the third on one rail: (2 + 2 + 4) x 2 x 10.
  HopBytesRefineStats hb;
  refine_hop_bytes(problem, Mapping{{0, 1, 2, 3, 4, 5}, ""}, {}, &hb);
  EXPECT_DOUBLE_EQ(hb.after, 160.0);
  // On a machine whose nodes are one router each, nothing to do.
  const Machine flat = build_fabric_machine(f, {.slots_per_node = 3, .description = "three-rails"});
  const MappingProblem flat_problem(flat, graph);
  NodeAssignmentStats none;
  EXPECT_EQ(assign_within_nodes(flat_problem, Mapping{{0, 1, 2, 3, 4, 5}, ""}, 4, &none).slot_of_task,
            (std::vector<SlotId>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(none.reassigned, 0u);
}

}  // namespace
}  // namespace taskmap
