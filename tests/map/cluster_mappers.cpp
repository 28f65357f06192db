// Mappers on a job's scattered nodes: the launchers' defaults, the general mappers on nodes of
// different slot counts, the inside of nodes, up*/down*, launcher files with real names.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "taskmap/core/error.h"
#include "taskmap/eval/evaluator.h"
#include "taskmap/launch/placement.h"
#include "taskmap/map/node_order.h"
#include "taskmap/topology/allocation.h"
#include "taskmap/topology/fabric.h"
#include "test_support.h"

namespace taskmap {
namespace {
using test::run_mapper;
using test::run_mapper_on;

TEST(ClusterMappers, HostnameOrderFillsNodesInNameOrder) {
  const Machine m = test::four_named_nodes(2);
  const CommGraph g = build_pattern(parse_pattern_spec("halo2d:2x3"));
  // cn01 (slots 4-5), cn2 (2-3), cn10 (0-1): six ranks in that order.
  EXPECT_EQ(run_mapper("hostname-order", m, g).slot_of_task, (std::vector<SlotId>{4, 5, 2, 3, 0, 1}));
}

TEST(ClusterMappers, CyclicIsTheLaunchersRoundRobinOnUnevenNodes) {
  const Machine m = allocate(test::four_named_nodes(4), parse_nodes_argument("@" + test::instance("cluster/uneven.hosts")));
  // Nodes in fabric order: cn10 (not allocated), cn2 (3 slots: 0-2), cn01 (1 slot: 3), gpu1 (2
  // slots: 4-5). Round robin in name order cn01, cn2, gpu1, skipping full nodes.
  EXPECT_EQ(m.num_slots(), 6u);
  const CommGraph g = build_pattern(parse_pattern_spec("halo2d:2x3"));
  EXPECT_EQ(run_mapper("cyclic", m, g).slot_of_task, (std::vector<SlotId>{3, 0, 4, 1, 5, 2}));
}

TEST(ClusterMappers, GeneralMappersUseOnlyTheAllocatedSlots) {
  const Machine m = allocate(test::four_named_nodes(4), parse_nodes_argument("@" + test::instance("cluster/uneven.hosts")));
  const CommGraph g = build_pattern(parse_pattern_spec("halo2d:2x3"));
  for (const char* spec : {"scotch", "metis", "rb", "greedy", "scotch+refine-hb", "rb+refine-mcl:work=5"}) {
    SCOPED_TRACE(spec);
    const Mapping mapping = run_mapper(spec, m, g);
    std::vector<int> used(m.num_slots(), 0);
    for (SlotId s : mapping.slot_of_task) {
      ASSERT_LT(s, m.num_slots());
      ++used[s];
    }
    EXPECT_EQ(std::count(used.begin(), used.end(), 1), 6);  // one rank per allocated slot
  }
}

TEST(ClusterMappers, RanksInsideANodeShareTheDeepestLevelTheyCan) {
  // One node of 2 packages x 2 cores; heavy pairs (0, 2) and (1, 3).
  auto model = std::make_shared<NodeModel>();
  model->source = "hand-made";
  model->levels = {"package", "core"};
  model->path = {{0, 0}, {0, 1}, {1, 2}, {1, 3}};
  model->logical_index = {0, 1, 2, 3};
  model->os_cpu = {0, 2, 1, 3};
  Machine m = with_node_model(make_machine("torus:2"), model);
  const CommGraph g = CommGraph::from_edges(4, {{0, 2, 10.0}, {1, 3, 10.0}, {0, 1, 1.0}});
  const MappingProblem problem(m, g);
  Mapping mapping{{0, 1, 2, 3, }, {}};
  // Before: both heavy pairs across the packages (distance 2), the light pair in one (1).
  EXPECT_DOUBLE_EQ(Evaluator(problem).evaluate(g, mapping).node_hop_bytes, 10 * 2 + 10 * 2 + 1 * 1);
  order_within_nodes(problem, mapping);
  const Metrics after = Evaluator(problem).evaluate(g, mapping);
  EXPECT_DOUBLE_EQ(after.node_hop_bytes, 10 * 1 + 10 * 1 + 1 * 2);
  // Every optimizing mapper does it; the launchers' default keeps its order.
  EXPECT_DOUBLE_EQ(Evaluator(problem).evaluate(g, run_mapper_on(problem, "greedy")).node_hop_bytes, 22.0);
  EXPECT_DOUBLE_EQ(Evaluator(problem).evaluate(g, run_mapper_on(problem, "default")).node_hop_bytes, 41.0);
  // Launcher files name the core by its logical index, srun's map_cpu by its OS index.
  const std::string rankfile = format_placement(mapping, m, PlacementFormat::OpenMpiRankfile);
  EXPECT_NE(rankfile.find("rank 2=node0 slot=1\n"), std::string::npos) << rankfile;
}

TEST(ClusterMappers, SrunsOneCpuListGetsTheArrangementOfLeastNodeHopBytes) {
  // Two nodes of 2 packages x 2 cores (slots 0, 1 in package 0; OS CPUs 0, 2, 1, 3). Node 0
  // holds tasks 0-3 with heavy pairs (0, 2) and (1, 3) of volume 10, on slots 0, 2, 1, 3 (each
  // pair in one package); node 1 holds tasks 4-7 with pairs (4, 5) and (6, 7) of volume 20, on
  // slots 0-3 (each pair in one package). srun's map_cpu has one list for both: node 0's
  // arrangement costs node 1 20 x 2 x 2 = 80 (its pairs split) beside node 0's 20, node 1's
  // costs node 0 10 x 2 x 2 = 40 beside node 1's 40: node 1's is kept, 80 against 100.
  auto model = std::make_shared<NodeModel>();
  model->source = "hand-made";
  model->levels = {"package", "core"};
  model->path = {{0, 0}, {0, 1}, {1, 2}, {1, 3}};
  model->logical_index = {0, 1, 2, 3};
  model->os_cpu = {0, 2, 1, 3};
  Machine m = with_node_model(make_machine("torus:2"), model);
  const CommGraph g = CommGraph::from_edges(8, {{0, 2, 10.0}, {1, 3, 10.0}, {4, 5, 20.0}, {6, 7, 20.0}});
  const MappingProblem problem(m, g);
  Mapping mapping{{0, 2, 1, 3, 4, 5, 6, 7}, {}};
  EXPECT_DOUBLE_EQ(Evaluator(problem).evaluate(g, mapping).node_hop_bytes, 10 + 10 + 20 + 20);
  EXPECT_THROW(format_placement(mapping, m, PlacementFormat::SlurmMapCpu), Error);  // the nodes differ
  ASSERT_TRUE(share_one_layout_across_nodes(problem, mapping));
  EXPECT_EQ(mapping.slot_of_task, (std::vector<SlotId>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_DOUBLE_EQ(Evaluator(problem).evaluate(g, mapping).node_hop_bytes, 10 * 2 + 10 * 2 + 20 + 20);
  EXPECT_EQ(format_placement(mapping, m, PlacementFormat::SlurmMapCpu), "map_cpu:0,2,1,3\n");
  EXPECT_FALSE(share_one_layout_across_nodes(problem, mapping));  // alike already
  // With node 1 holding 3 tasks, the candidates are node 0's arrangement alone (the most tasks).
  Mapping fewer{{0, 2, 1, 3, 5, 4, 6}, {}};
  const CommGraph seven = CommGraph::from_edges(7, {{0, 2, 10.0}, {1, 3, 10.0}});
  const MappingProblem smaller(m, seven);
  ASSERT_TRUE(share_one_layout_across_nodes(smaller, fewer));
  EXPECT_EQ(fewer.slot_of_task, (std::vector<SlotId>{0, 2, 1, 3, 4, 6, 5}));
  // srun binds node 1's 3 ranks to the first 3 CPUs of the list.
  EXPECT_EQ(format_placement(fewer, m, PlacementFormat::SlurmMapCpu), "map_cpu:0,1,2,3\n");
}

// Switches A, B under the top switch S, and C below both: x on A, y on B. Shortest paths from
// A to B go through S (up, down) or through C (down, then up): ecmp splits over both, up*/down*
// takes only the first.
Machine diamond() {
  Fabric f;
  f.source = "diamond";
  f.switches = {"S", "A", "B", "C"};
  f.hosts = {"x", "y"};
  f.host_ports = {{0, 1, 0}, {1, 2, 0}};
  f.cables = {{0, 1, 0}, {0, 2, 0}, {1, 3, 0}, {2, 3, 0}};
  f.top_switches = {0};
  return build_fabric_machine(f, {.description = "diamond"});
}

TEST(ClusterMappers, UpDownRoutesTurnOnlyAtTheTop) {
  const Machine m = diamond();
  // Routers: x 0, y 1, S 2, A 3, B 4, C 5.
  auto channel = [&](RouterId u, RouterId v) {
    for (ChannelId c = 0; c < m.channels.size(); ++c)
      if (m.channels[c].src == u && m.channels[c].dst == v) return c;
    return kNoChannel;
  };
  const auto ecmp = test::route_loads(*make_routing(m, parse_routing_spec("ecmp")), 0, 1);
  EXPECT_DOUBLE_EQ(ecmp.at(channel(3, 2)), 0.5);
  EXPECT_DOUBLE_EQ(ecmp.at(channel(3, 5)), 0.5);
  const auto updn = test::route_loads(*make_routing(m, parse_routing_spec("updn")), 0, 1);
  EXPECT_DOUBLE_EQ(updn.at(channel(0, 3)), 1.0);
  EXPECT_DOUBLE_EQ(updn.at(channel(3, 2)), 1.0);
  EXPECT_DOUBLE_EQ(updn.at(channel(2, 4)), 1.0);
  EXPECT_DOUBLE_EQ(updn.at(channel(4, 1)), 1.0);
  EXPECT_EQ(updn.count(channel(3, 5)), 0u);
  EXPECT_THROW(make_routing(make_machine("torus:4"), parse_routing_spec("updn")), Error);
}

// Two top switches S1 over A and S2 over B, and C below A and B: no top switch is above both x
// (on A) and y (on B), and A -> C -> B goes down, then up. up*/down* has no route; it says
// which hosts and what to do.
TEST(ClusterMappers, UpDownWithoutACommonTopNamesTheHosts) {
  Fabric f;
  f.source = "split";
  f.switches = {"S1", "S2", "A", "B", "C"};
  f.hosts = {"x", "y"};
  f.host_ports = {{0, 2, 0}, {1, 3, 0}};
  f.cables = {{0, 2, 0}, {1, 3, 0}, {2, 4, 0}, {3, 4, 0}};
  f.top_switches = {0, 1};
  const Machine m = build_fabric_machine(f, {.description = "split"});
  try {
    test::route_loads(*make_routing(m, parse_routing_spec("updn")), 0, 1);
    FAIL() << "a route without a common top switch";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "split: up*/down* from the 2 top switches has no route from host 'x' to host 'y' (no top switch is "
                 "above both); use ecmp, or a job without one of them (--nodes)");
  }
  EXPECT_NO_THROW(test::route_loads(*make_routing(m, parse_routing_spec("ecmp")), 0, 1));
}

TEST(ClusterMappers, RbIntoAllLeavesAtOnceReachesTheLeastUplinkVolume) {
  // Leaves of 4, 2, 4 and 2 slots under one top switch: A (n1, n2), B (n3), C (n4, n5), D (n6),
  // two slots per node. Two rings of 6 tasks (4 units each way per edge) joined by one light
  // edge (1 each way). No leaf holds a ring, so each ring is cut at least twice (2 x 2 x 4 =
  // 16), and a leaf holding tasks of both rings cuts one of them more than that: the least
  // uplink volume is 16 + 16 + 2 = 34, each ring on a leaf of 4 and a leaf of 2 as two arcs.
  Fabric f;
  f.source = "four leaves";
  f.switches = {"S", "A", "B", "C", "D"};
  f.hosts = {"n1", "n2", "n3", "n4", "n5", "n6"};
  f.host_ports = {{0, 1, 0}, {1, 1, 0}, {2, 2, 0}, {3, 3, 0}, {4, 3, 0}, {5, 4, 0}};
  f.cables = {{0, 1, 0}, {0, 2, 0}, {0, 3, 0}, {0, 4, 0}};
  f.top_switches = {0};
  const Machine m = build_fabric_machine(f, {.slots_per_node = 2, .description = "four leaves"});
  std::vector<CommEdge> edges;
  for (TaskId ring : {0u, 6u}) {
    for (TaskId i = 0; i < 6; ++i) {
      edges.push_back({ring + i, ring + (i + 1) % 6, 4});
      edges.push_back({ring + (i + 1) % 6, ring + i, 4});
    }
  }
  edges.push_back({5, 6, 1});
  edges.push_back({6, 5, 1});
  const CommGraph g = CommGraph::from_edges(12, edges);
  const MappingProblem problem(m, g);
  const Mapping leaves = run_mapper_on(problem, "rb:split=leaves");
  validate_mapping(leaves, m, g.num_tasks(), "rb:split=leaves");
  EXPECT_DOUBLE_EQ(Evaluator(problem).evaluate(g, leaves).leaf_uplink_volume, 34.0);
  EXPECT_THROW(run_mapper_on(problem, "rb:split=pods"), Error);
}

TEST(ClusterMappers, RbIntoAllLeavesUsesTheFreeSlotsToKeepGroupsWhole) {
  // Two leaves of two nodes, 8 slots each at 4 per node; 12 tasks: a 7-clique (tasks 0, 2, 4,
  // 6, 8, 10, 11) and a 5-clique (the odd ones below 10), 1 unit each way per edge. Shared out
  // in proportion to the slots, each leaf takes 6 tasks and the 7-clique is cut at least 6
  // times (12 units leave the leaves). With the free slots, the 7-clique fits in one leaf and
  // the 5-clique in the other: nothing leaves a leaf.
  const Machine m = test::four_named_nodes(4);
  std::vector<CommEdge> edges;
  for (const std::vector<TaskId>& clique : {std::vector<TaskId>{0, 2, 4, 6, 8, 10, 11}, std::vector<TaskId>{1, 3, 5, 7, 9}}) {
    for (TaskId i : clique)
      for (TaskId j : clique)
        if (i != j) edges.push_back({i, j, 1});
  }
  const CommGraph g = CommGraph::from_edges(12, edges);
  const MappingProblem problem(m, g);
  for (const char* spec : {"rb:split=leaves", "rb:tries=16,split=leaves"}) {
    SCOPED_TRACE(spec);
    const Mapping mapping = run_mapper_on(problem, spec);
    validate_mapping(mapping, m, g.num_tasks(), spec);
    EXPECT_DOUBLE_EQ(Evaluator(problem).evaluate(g, mapping).leaf_uplink_volume, 0.0);
  }
}

TEST(ClusterMappers, RefineInjectRelievesTheBusiestNodeLinkAndKeepsTheUplinkBytes) {
  // Leaf A holds n1 and n2, leaf B n3, under a top switch S; 4 slots per node, links of one
  // bandwidth. P = tasks 0-3 and Q = 4-7 are cliques (1 unit each way per pair); each of them
  // sends 1 unit to task 8, on n3. Start: n1 = {0, 1, 4, 5}, n2 = {2, 3, 6, 7}, so each node
  // sends 4 units of P, 4 of Q and 4 to task 8: its injection link carries 12, as much as any
  // link (n3's ejection link takes 8). Split again, n1 = P and n2 = Q send 4 each: the
  // busiest link carries 8 (n3's), 2/3 of before. What leaves leaf A (8 units) stays.
  Fabric f;
  f.source = "two leaves";
  f.switches = {"S", "A", "B"};
  f.hosts = {"n1", "n2", "n3"};
  f.host_ports = {{0, 1, 0}, {1, 1, 0}, {2, 2, 0}};
  f.cables = {{0, 1, 0}, {0, 2, 0}};
  f.top_switches = {0};
  const Machine m = build_fabric_machine(f, {.slots_per_node = 4, .description = "two leaves"});
  std::vector<CommEdge> edges;
  for (TaskId base : {0u, 4u}) {
    for (TaskId i = 0; i < 4; ++i)
      for (TaskId j = 0; j < 4; ++j)
        if (i != j) edges.push_back({base + i, base + j, 1});
  }
  for (TaskId t = 0; t < 8; ++t) edges.push_back({t, 8, 1});
  const CommGraph g = CommGraph::from_edges(9, edges);
  const MappingProblem problem(m, g);
  const Mapping start{{0, 1, 4, 5, 2, 3, 6, 7, 8}, {}};
  const Mapping refined = make_mapper(parse_mapper_spec("refine-inject"))->improve(problem, start);
  validate_mapping(refined, m, g.num_tasks(), "refine-inject");
  std::vector<NodeId> node(9);
  for (TaskId t = 0; t < 9; ++t) node[t] = m.node_of_slot(refined.slot_of_task[t]);
  for (TaskId t = 1; t < 4; ++t) EXPECT_EQ(node[t], node[0]) << t;
  for (TaskId t = 5; t < 8; ++t) EXPECT_EQ(node[t], node[4]) << t;
  EXPECT_NE(node[0], node[4]);
  EXPECT_EQ(node[8], 2u);
  const Evaluator evaluator(problem);
  const Metrics before = evaluator.evaluate(g, start), after = evaluator.evaluate(g, refined);
  EXPECT_DOUBLE_EQ(after.mcl / before.mcl, 8.0 / 12.0);
  EXPECT_DOUBLE_EQ(before.leaf_uplink_volume, 8.0);
  EXPECT_DOUBLE_EQ(after.leaf_uplink_volume, 8.0);
  // Nothing to relieve on a torus: not applicable, with the reason.
  const Machine torus = make_machine("torus:2x2,ppn=4");
  EXPECT_EQ(why_not_applicable(parse_mapper_spec("refine-inject"), MappingProblem(torus, g)),
            "it needs a fabric with leaf switches and injection links (a Slurm or ibnetdiscover tree), not torus");
}

// Under work=N, refine-inject stops where its units run out: a METIS bisection costs
// kInjectUnitsPerBisectedEdge (5) per task of the pair and per (1 + task-graph edges per task).
// A periodic 27-point halo of 1,024 tasks (26 edges per task: 27) on 4 leaves of 16 full nodes
// of 16 slots: 1 million units buy 10^6 / (5 x 27) = 7,407.4 tasks bisected; a pair of full
// nodes is 32 tasks x 4 tries x one split (no free slot) = 128; the check before each pair lets
// the 58th start (57 x 128 = 7,296 within the budget) and stops there: 58 pairs tried.
TEST(ClusterMappers, RefineInjectStopsWhereItsWorkRunsOut) {
  Fabric f;
  f.source = "four leaves";
  f.switches = {"S", "A", "B", "C", "D"};
  for (std::uint32_t h = 0; h < 64; ++h) {
    f.hosts.push_back(fmt::format("n{:02}", h));
    f.host_ports.push_back({h, 1 + h / 16, 0});
  }
  f.cables = {{0, 1, 0}, {0, 2, 0}, {0, 3, 0}, {0, 4, 0}};
  f.top_switches = {0};
  const Machine m = build_fabric_machine(f, {.slots_per_node = 16, .description = "four leaves"});
  const CommGraph g = build_pattern(parse_pattern_spec("halo3d:16x8x8,points=27"));
  ASSERT_EQ(g.num_edges(), 1024u * 26);
  const MappingProblem problem(m, g);
  const Mapping start = make_mapper(parse_mapper_spec("default"))->run(problem);
  const Mapping limited = make_mapper(parse_mapper_spec("refine-inject:work=1"))->improve(problem, start);
  EXPECT_NE(limited.note.find(" of 58 tried; "), std::string::npos) << limited.note;
  EXPECT_NE(limited.note.find("(the work ran out)"), std::string::npos) << limited.note;
  const Mapping unlimited = make_mapper(parse_mapper_spec("refine-inject"))->improve(problem, start);
  EXPECT_EQ(unlimited.note.find("(the work ran out)"), std::string::npos) << unlimited.note;
}

TEST(ClusterMappers, RefineInjectMovesTasksOffASlowNodeIntoFreeSlotsUnderItsLeaf) {
  // Leaf A holds n1, whose link runs at 50 Gb/s, and n2 (100 Gb/s, no task); leaf B holds n3;
  // cables at 100 Gb/s (bandwidth 1). Tasks 0-3 on n1 each send 1 unit to task 4 on n3: n1's
  // injection link carries 4 / 0.5 = 8, the MCL. Two tasks to n2 would leave n1 at 2 / 0.5 = 4
  // and n2 at 2; all four to n2 leave it at 4 and n1 at 0, as busy and less in sum: refine-inject
  // keeps that. Then n3's ejection link and leaf A's uplink carry 4 each, the MCL; the 4 units
  // leaving leaf A stay.
  Fabric f;
  f.source = "slow node";
  f.switches = {"S", "A", "B"};
  f.hosts = {"n1", "n2", "n3"};
  f.host_ports = {{0, 1, 50}, {1, 1, 100}, {2, 2, 100}};
  f.cables = {{0, 1, 100}, {0, 2, 100}};
  f.rates_in_gbps = true;
  f.top_switches = {0};
  const Machine m = build_fabric_machine(f, {.slots_per_node = 4, .description = "slow node"});
  std::vector<CommEdge> edges;
  for (TaskId t = 0; t < 4; ++t) edges.push_back({t, 4, 1});
  const CommGraph g = CommGraph::from_edges(5, edges);
  const MappingProblem problem(m, g);
  const Mapping start{{0, 1, 2, 3, 8}, {}};
  const Mapping refined = make_mapper(parse_mapper_spec("refine-inject"))->improve(problem, start);
  validate_mapping(refined, m, g.num_tasks(), "refine-inject");
  for (TaskId t = 0; t < 4; ++t) EXPECT_EQ(m.node_of_slot(refined.slot_of_task[t]), 1u) << t;
  EXPECT_EQ(m.node_of_slot(refined.slot_of_task[4]), 2u);
  const Evaluator evaluator(problem);
  const Metrics before = evaluator.evaluate(g, start), after = evaluator.evaluate(g, refined);
  EXPECT_DOUBLE_EQ(before.mcl, 8.0);
  EXPECT_DOUBLE_EQ(after.mcl, 4.0);
  EXPECT_DOUBLE_EQ(after.leaf_uplink_volume, before.leaf_uplink_volume);
  EXPECT_DOUBLE_EQ(after.leaf_uplink_volume, 4.0);
}

// One leaf switch with n1 (its link at n1_speed Gb/s) and n2 (100 Gb/s), `slots` slots each.
Machine slow_node_pair(double n1_speed, std::uint32_t slots = 4) {
  Fabric f;
  f.source = "slow node";
  f.switches = {"A"};
  f.hosts = {"n1", "n2"};
  f.host_ports = {{0, 0, n1_speed}, {1, 0, 100}};
  f.rates_in_gbps = true;
  f.top_switches = {0};
  return build_fabric_machine(f, {.slots_per_node = slots, .description = "slow node"});
}

// Tasks {0, 2, 4} and {1, 3, 5} as two triangles, each edge volume 1 one way.
std::vector<CommEdge> two_triangles() {
  std::vector<CommEdge> edges;
  for (TaskId first : {0u, 1u})
    for (TaskId a = first; a < 6; a += 2)
      for (TaskId b = a + 2; b < 6; b += 2) edges.push_back({a, b, 1});
  return edges;
}

TEST(ClusterMappers, RbByLinkSpeedGivesANodeBehindASlowerLinkFewerTasksWhenSlotsAreFree) {
  // One leaf switch with n1 (50 Gb/s) and n2 (100 Gb/s), 4 slots each; 6 tasks in two
  // triangles, {0, 2, 4} and {1, 3, 5}. By slots, each node's share is 3 tasks: one triangle
  // each. By link speed, n1 carries as much per task as n2 with half as many: 2 and 4, which
  // the 6 tasks fill exactly (2 free slots), so n1 holds 2 tasks of one triangle. With both
  // nodes at 100 Gb/s the shares stay 3 and 3. With a 7th task joined to {1, 3, 5}, 2 and 4
  // cannot hold the job: each node goes halfway back to its slots (7 - 6 of the 8 - 6 free),
  // to 3 and 4, and n1 holds the triangle.
  auto tasks_on_n1 = [](const std::string& spec, double n1_speed, TaskId tasks) {
    const Machine m = slow_node_pair(n1_speed);
    std::vector<CommEdge> edges = two_triangles();
    if (tasks == 7)
      for (TaskId a : {1u, 3u, 5u}) edges.push_back({a, 6, 1});
    const Mapping mapping = run_mapper(spec, m, CommGraph::from_edges(tasks, edges));
    int count = 0;
    for (SlotId s : mapping.slot_of_task) count += m.node_of_slot(s) == 0;
    return count;
  };
  EXPECT_EQ(tasks_on_n1("rb:shares=link-speed", 50, 6), 2);
  EXPECT_EQ(tasks_on_n1("rb:shares=link-speed", 100, 6), 3);
  EXPECT_EQ(tasks_on_n1("rb", 50, 6), 3);
  EXPECT_EQ(tasks_on_n1("rb:shares=link-speed", 50, 7), 3);
}

TEST(ClusterMappers, RefineHbByLinkSpeedLeavesTheFreeSlotsBesideASlowerNodeFree) {
  // The machine of the test above (n1 at 50 or 100 Gb/s, n2 at 100 Gb/s, 4 slots each) and its
  // two triangles {0, 2, 4} and {1, 3, 5}. From n1 = {0, 2} and n2 = {4, 1, 3, 5}, task 4's two
  // edges leave its node: moving it into n1's free slots saves them, and refine-hb by slots
  // does. By link speed n1 has room for 4 x 0.5 = 2 tasks, which it holds: task 4 stays (a swap
  // with 0 or 2 saves nothing), n1 keeps 2 tasks, hop-bytes 2 edges x 2 hops. At 100 Gb/s its room is
  // its 4 slots. From n1 = {0, 2, 1}, more than its share of 2, its room is the 3 it holds, and
  // 1 and 4 trade places, joining both triangles (with a room of 2, the group moves would take
  // 1 off n1 first, and 4 could then not enter it).
  struct Outcome {
    int on_n1;
    double hop_bytes;
  };
  auto refine = [](const std::string& spec, double n1_speed, std::vector<SlotId> start) {
    const Machine m = slow_node_pair(n1_speed);
    const CommGraph g = CommGraph::from_edges(6, two_triangles());
    const MappingProblem problem(m, g);
    const Mapping refined = make_mapper(parse_mapper_spec(spec))->improve(problem, Mapping{std::move(start), {}});
    validate_mapping(refined, m, g.num_tasks(), spec);
    Outcome outcome{0, Evaluator(problem).evaluate(g, refined).hop_bytes};
    for (SlotId s : refined.slot_of_task) outcome.on_n1 += m.node_of_slot(s) == 0;
    return outcome;
  };
  // Slots 0-3 are n1's, 4-7 n2's; start[t] is task t's slot.
  const std::vector<SlotId> two_on_n1 = {0, 4, 1, 5, 6, 7}, three_on_n1 = {0, 2, 1, 5, 4, 6};
  EXPECT_EQ(refine("refine-hb", 50, two_on_n1).on_n1, 3);
  EXPECT_DOUBLE_EQ(refine("refine-hb", 50, two_on_n1).hop_bytes, 0);
  EXPECT_EQ(refine("refine-hb:room=link-speed", 50, two_on_n1).on_n1, 2);
  EXPECT_DOUBLE_EQ(refine("refine-hb:room=link-speed", 50, two_on_n1).hop_bytes, 2 * 2);  // 2 edges (volume 1) x 2 hops
  EXPECT_EQ(refine("refine-hb:room=link-speed", 100, two_on_n1).on_n1, 3);
  EXPECT_EQ(refine("refine-hb:room=link-speed", 50, three_on_n1).on_n1, 3);
  EXPECT_DOUBLE_EQ(refine("refine-hb:room=link-speed", 50, three_on_n1).hop_bytes, 0);
}

TEST(ClusterMappers, RefineHbByLinkSpeedGivesASlowerNodeItsShareOfTheJobToTheNearestTask) {
  // n1 behind a slower link and n2 at 100 Gb/s under one leaf switch, 8 slots each. The room
  // of n1 is its share of the job as rb:shares=link-speed gives it, not its slots by speed:
  // - at 50 Gb/s, slots by speed 4 and 8, 10 tasks (a 5-clique {0..4}, and a 5-clique {5..9}
  //   of volume 100 that no split pays for): n1's share is 4 x 10 / 12 = 3.33, 3 to the nearest
  //   task; from n1 = {0, 1, 2} and n2's one free slot, task 3 may not join them (it would with
  //   a room of 4, cutting 4 edges instead of 6), and no task of n1 gains by leaving alone;
  // - at 61.25 Gb/s, slots by speed 4.9 and 8, 12 tasks (a 5-clique {0..4} and a 7-clique
  //   {5..11}): n1's share is 4.9 x 12 / 12.9 = 4.56, 5 to the nearest task; from n1 = {0, 1,
  //   2, 3}, task 4 joins them (4 edges x 2 hops saved; a room of 4, the share rounded down,
  //   would keep it out: a swap with 0..3 saves nothing).
  auto refine = [](double n1_speed, const CommGraph& g, std::vector<SlotId> start) {
    const Machine m = slow_node_pair(n1_speed, 8);
    const MappingProblem problem(m, g);
    const Mapping refined =
        make_mapper(parse_mapper_spec("refine-hb:room=link-speed"))->improve(problem, Mapping{std::move(start), {}});
    validate_mapping(refined, m, g.num_tasks(), "refine-hb:room=link-speed");
    int on_n1 = 0;
    for (SlotId s : refined.slot_of_task) on_n1 += m.node_of_slot(s) == 0;
    return std::pair{on_n1, Evaluator(problem).evaluate(g, refined).hop_bytes};
  };
  auto cliques = [](TaskId tasks, double second_volume) {
    std::vector<CommEdge> edges;
    for (TaskId a = 0; a < tasks; ++a)
      for (TaskId b = a + 1; b < tasks; ++b)
        if ((a < 5) == (b < 5)) edges.push_back({a, b, a < 5 ? 1 : second_volume});
    return CommGraph::from_edges(tasks, edges);
  };
  // Slots 0-7 are n1's, 8-15 n2's; start[t] is task t's slot.
  const auto [share_on_n1, share_hop_bytes] = refine(50, cliques(10, 100), {0, 1, 2, 8, 9, 10, 11, 12, 13, 14});
  EXPECT_EQ(share_on_n1, 3);
  EXPECT_DOUBLE_EQ(share_hop_bytes, 6 * 2);  // 6 edges (volume 1) between {0, 1, 2} and {3, 4} x 2 hops

  const auto [cliques_on_n1, cliques_hop_bytes] = refine(61.25, cliques(12, 1), {0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15});
  EXPECT_EQ(cliques_on_n1, 5);
  EXPECT_DOUBLE_EQ(cliques_hop_bytes, 0);
}

TEST(ClusterMappers, LauncherFilesCarryTheMachinesHostNames) {
  const Machine m = allocate(test::four_named_nodes(2), parse_nodes_argument("cn2,gpu1"));
  const CommGraph g = build_pattern(parse_pattern_spec("halo2d:2x2"));
  const Mapping mapping = run_mapper("hostname-order", m, g);  // cn2 then gpu1
  EXPECT_EQ(format_placement(mapping, m, PlacementFormat::OpenMpiRankfile),
            "rank 0=cn2 slot=0\nrank 1=cn2 slot=1\nrank 2=gpu1 slot=0\nrank 3=gpu1 slot=1\n");
  EXPECT_EQ(format_placement(mapping, m, PlacementFormat::Hydra), "cn2:2\ngpu1:2\n");
  EXPECT_EQ(format_placement(mapping, m, PlacementFormat::Slurm), "cn2\ncn2\ngpu1\ngpu1\n");
  EXPECT_EQ(format_placement(mapping, m, PlacementFormat::SlurmMapCpu), "map_cpu:0,1\n");
  const Mapping crossed{{0, 3, 2, 1}, {}};  // cn2 gets cores 0 and 1 in another order than gpu1
  EXPECT_THROW(format_placement(crossed, m, PlacementFormat::SlurmMapCpu), Error);
}

}  // namespace
}  // namespace taskmap

namespace taskmap {
namespace {

// Scotch builds its target from the fabric with its global random state: two runs in one
// process gave different placements on this file (MCL 63.7, 69.7, 70.2) until it was reset.
TEST(ClusterMappers, ScotchOnAFabricIsTheSameEveryRun) {
  const std::string path = test::shared_data("topologies/slurm/hpctoolset_X5.topology.conf");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const Machine m = make_machine("slurm:" + path + ",ppn=32");
  const CommGraph g = build_pattern(parse_pattern_spec("halo3d:16x11x8,points=27"));
  const Mapping first = test::run_mapper("scotch", m, g);
  for (int run = 0; run < 2; ++run) EXPECT_EQ(test::run_mapper("scotch", m, g).slot_of_task, first.slot_of_task);
}


// bench/cluster.sh's contiguous half of the avakas fabric (the first 140 of its 281 hosts in
// name order, 32 slots each: 13 leaves of 1, 1, 1, 1, 2, 15, 16, 16, 16, 17, 18, 18 and 18 of
// the job's nodes) running 70 copies of the measured 64-rank CG trace joined by a ring (rank i
// of copy k and of copy k+1 exchange the trace's median flow each way; the replicate of
// bench/cluster_allocations.py). A leaf of 16 or 18 nodes holds 8 or 9 copies' worth of tasks,
// and the least traffic any such set sends off its leaf is that of whole consecutive copies: the
// ring's 64 flows at each end, 128 x the median (bench/ring_copies_leaf_bound.py's bound B(C)
// for C = 512 and 576). METIS's k-way over the leaves in the routers' order left one 16-node
// leaf at 191 x the median (6 rows of 4 copies and 5 whole ones); sharing its tasks out again
// with a neighbour leaf gives whole copies on every leaf of 16 and 18 nodes.
TEST(ClusterMappers, RbIntoAllLeavesPutsWholeCopiesOnTheLargeLeavesOfARealJob) {
  const std::string fabric = test::shared_data("topologies/ibnet/hwloc-netloc_avakas_ib-subnet-fe80_0000_0000_0000.txt.gz");
  const std::string trace = test::shared_data("apps/maplib-64/cg/comm_matrix.p2p.size.csv");
  TASKMAP_REQUIRE_SHARED_DATA(fabric);
  TASKMAP_REQUIRE_SHARED_DATA(trace);
  const Machine whole = make_machine("ibnet:" + fabric + ",ppn=32");
  ASSERT_EQ(whole.num_nodes(), 281u);
  std::string first_half;
  const std::vector<NodeId> by_name = nodes_in_name_order(whole);
  for (std::size_t i = 0; i < 140; ++i) first_half += (i ? "," : "") + whole.node_name(by_name[i]);
  const Machine m = allocate(whole, parse_nodes_argument(first_half));

  std::vector<CommEdge> flows;
  std::ifstream in(trace);
  std::string line;
  for (TaskId i = 0; std::getline(in, line); ++i) {
    std::istringstream cells(line);
    std::string cell;
    for (TaskId j = 0; std::getline(cells, cell, ','); ++j)
      if (i != j && std::stod(cell) > 0) flows.push_back({i, j, std::stod(cell)});
  }
  // 64 ranks: 3 partners in its row each (an 8-rank row exchanges along a 3-cube), and its
  // transpose for the 56 ranks off the diagonal.
  ASSERT_EQ(flows.size(), 248u);
  std::vector<double> volumes;
  for (const CommEdge& f : flows) volumes.push_back(f.volume);
  std::sort(volumes.begin(), volumes.end());
  const double median = (volumes[volumes.size() / 2 - 1] + volumes[volumes.size() / 2]) / 2;
  constexpr TaskId kCopies = 70, kRanks = 64;
  std::vector<CommEdge> edges;
  for (TaskId k = 0; k < kCopies; ++k) {
    for (const CommEdge& f : flows) edges.push_back({k * kRanks + f.src, k * kRanks + f.dst, f.volume});
    for (TaskId i = 0; i < kRanks; ++i) {
      edges.push_back({k * kRanks + i, (k + 1) % kCopies * kRanks + i, median});
      edges.push_back({(k + 1) % kCopies * kRanks + i, k * kRanks + i, median});
    }
  }
  const CommGraph g = CommGraph::from_edges(kCopies * kRanks, edges);
  const Mapping mapping = run_mapper("rb:tries=16,split=leaves", m, g);

  const std::vector<std::uint32_t> leaf = leaf_groups(m);
  std::map<std::uint32_t, double> leaving, slots;
  for (SlotId s = 0; s < m.num_slots(); ++s) slots[leaf[m.router_of_slot(s)]] += 1;
  auto leaf_of = [&](TaskId t) { return leaf[m.router_of_slot(mapping.slot_of_task[t])]; };
  for (const CommEdge& e : edges)
    if (leaf_of(e.src) != leaf_of(e.dst)) leaving[leaf_of(e.src)] += e.volume;
  int large = 0;
  for (const auto& [group, count] : slots) {
    if (count != 512 && count != 576) continue;
    ++large;
    SCOPED_TRACE("leaf of " + std::to_string(int(count) / 32) + " nodes");
    EXPECT_NEAR(leaving[group] / median, 128.0, 1e-6);
  }
  EXPECT_EQ(large, 6);  // three leaves of 16 nodes, three of 18
}
}  // namespace
}  // namespace taskmap
