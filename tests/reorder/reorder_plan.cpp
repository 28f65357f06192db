// plan_reorder without MPI: the weighted four-vertex graph of tests/mpi/dist_graph.c on two
// nodes of one leaf switch, fake host lists, and the refusals that make the MPI side keep the
// identity order.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"
#include "taskmap/reorder/reorder_plan.h"
#include "test_support.h"

namespace taskmap {
namespace {

ReorderRequest four_vertices() {
  ReorderRequest r;
  r.call = "MPI_Dist_graph_create_adjacent";
  std::vector<CommEdge> edges;
  for (TaskId v = 0; v < 4; ++v) edges.push_back({v, v ^ 1, 100}), edges.push_back({v, v ^ 2, 1});
  r.graph = CommGraph::from_edges(4, edges);
  r.hosts = {"cn01", "cn02", "cn01", "cn02"};
  r.cpus = {0, 0, 1, 1};
  r.machine = "slurm:" + test::instance("reorder/three_leaves.conf") + ",ppn=4";
  return r;
}

// Node, leaf, node: 2 hops. Identity crosses the four directed heavy edges: 800; the best
// order only the light ones: 8.
TEST(ReorderPlan, FindsTheHandDerivedOptimum) {
  const ReorderPlan plan = plan_reorder(four_vertices());
  EXPECT_EQ(plan.report["identity"]["hop_bytes"], 800.0);
  EXPECT_EQ(plan.report["mapper_result"]["hop_bytes"], 8.0);
  EXPECT_EQ(plan.report["kept"], "mapper");
  const auto& p = plan.process_of_vertex;
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0] % 2, p[1] % 2);  // hosts alternate with the process
  EXPECT_EQ(plan.report["nodes"], "cn01 slots=2\ncn02 slots=2\n");
  // The job's starting placement: cn01's slots 0 and 1 go to its processes 0 and 2 (CPUs 0 and
  // 1), cn02's slots 2 and 3 to processes 1 and 3; rank v starts on process v's slot.
  const std::string start = plan.report["identity_placement"];
  EXPECT_EQ(start.substr(start.find('\n') + 1), "0 0\n1 2\n2 1\n3 3\n");
  EXPECT_EQ(plan.report["process_slots"], "cpu-order");
  EXPECT_EQ(plan.report["process_slots_reason"], "no node model (TASKMAP_NODE_TOPOLOGY)");
}

// The line the library prints. The heavy pairs' 100 each way cross the cn01 -> leaf and
// leaf -> cn02 links twice in the identity order (MCL 200, unit bandwidth), only the light
// pairs' 1 each way in the optimum (MCL 2): both 99% lower.
TEST(ReorderPlan, SummaryLineSaysWhatTheCallDid) {
  const ReorderPlan plan = plan_reorder(four_vertices());
  EXPECT_EQ(reorder_summary(plan.report, "r.json"),
            "taskmap reorder: MPI_Dist_graph_create_adjacent: 4 ranks on 2 nodes, reordered by auto:work=140: "
            "MCL 200 -> 2 (99% lower), hop-bytes 800 -> 8 (99% lower) (report: r.json)");
  // Heavy partners already on one host: the identity order is the optimum, and stays.
  ReorderRequest r = four_vertices();
  r.hosts = {"cn01", "cn01", "cn02", "cn02"};
  const ReorderPlan kept = plan_reorder(r);
  EXPECT_EQ(kept.report["kept"], "identity");
  EXPECT_EQ(reorder_summary(kept.report, ""),
            "taskmap reorder: MPI_Dist_graph_create_adjacent: 4 ranks on 2 nodes, keeps the identity order, auto:work=140's is "
            "no better: MCL 2 -> 2 (same), hop-bytes 8 -> 8 (same)");
}

// A GPU job: a node's processes drive its GPUs in rank order (local rank k on GPU k), whatever
// their CPUs: cn01's processes 0 and 2 on its GPUs 0 and 1 (slots 0, 1), cn02's 1 and 3 on
// slots 2 and 3, though their CPUs are in the other order.
TEST(ReorderPlan, GpuProcessesTakeTheirNodesGpusInRankOrder) {
  ReorderRequest r = four_vertices();
  r.machine = "slurm:" + test::instance("reorder/three_leaves.conf");
  r.node_topology = "gpus:2";
  r.cpus = {1, 1, 0, 0};
  const ReorderPlan plan = plan_reorder(r);
  EXPECT_EQ(plan.report["process_slots"], "gpus");
  const std::string start = plan.report["identity_placement"];
  EXPECT_EQ(start.substr(start.find('\n') + 1), "0 0\n1 2\n2 1\n3 3\n");
  // The heavy pairs end on one node each, as without GPUs (over NVLink, not the network).
  const auto& p = plan.process_of_vertex;
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0] % 2, p[1] % 2);
  EXPECT_EQ(plan.report["kept"], "mapper");
}

// With a node model, a process sits on the core its CPU belongs to. two-packages.xml is
// lstopo's synthetic "pack:2 core:4 pu:2": core c holds CPUs 2c and 2c+1, cores 0-3 are package
// 0. Four processes of one node on CPUs 0, 8, 2, 10: cores 0, 4, 1, 5, packages 0, 1, 0, 1.
// Heavy pairs {0,1} and {2,3} (100 each way) cross the packages in the identity order, the
// light pair {1,2} (1 each way) too: node hop-bytes 2 x (2 x 100 x 2) + 2 x 1 x 2 = 804. A heavy
// pair per package leaves only the light pair across: 2 x (2 x 100 x 1) + 2 x 1 x 2 = 404. The
// network carries nothing either way, so the node's inside decides.
TEST(ReorderPlan, ProcessesSitOnTheCoresOfTheirCpus) {
  ReorderRequest r;
  r.call = "MPI_Graph_create";
  std::vector<CommEdge> edges;
  for (auto [a, b, w] : {std::tuple{0u, 1u, 100.0}, {2u, 3u, 100.0}, {1u, 2u, 1.0}}) {
    edges.push_back({a, b, w}), edges.push_back({b, a, w});
  }
  r.graph = CommGraph::from_edges(4, edges);
  r.hosts = {"cn01", "cn01", "cn01", "cn01"};
  r.cpus = {0, 8, 2, 10};
  r.machine = "slurm:" + test::instance("reorder/three_leaves.conf");
  r.node_topology = "hwloc:" + test::instance("hwloc/two-packages.xml");
  const ReorderPlan plan = plan_reorder(r);
  EXPECT_EQ(plan.report["process_slots"], "cores");
  EXPECT_EQ(plan.report["process_slots_reason"], "every process on a core of its own, the same cores on every node");
  EXPECT_EQ(plan.report["identity"]["node_hop_bytes"], 804.0);
  EXPECT_EQ(plan.report["mapper_result"]["node_hop_bytes"], 404.0);
  EXPECT_EQ(plan.report["kept"], "mapper");
  const auto& p = plan.process_of_vertex;
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0] % 2, p[1] % 2);  // processes 0 and 2 share package 0, 1 and 3 package 1
  EXPECT_EQ(p[2] % 2, p[3] % 2);
  // Bindings the model cannot express: slots in CPU order, and why. Two processes on one core
  // (CPUs 0 and 1 are core 0); a CPU the model does not have (it has 16); an unknown CPU; two
  // nodes on different cores (cn02's process on core 6, CPU 12; cn01's on cores 0, 4, 1).
  auto reason = [&](std::vector<int> cpus, std::vector<std::string> hosts) {
    r.cpus = std::move(cpus), r.hosts = std::move(hosts);
    const nlohmann::json report = plan_reorder(r).report;
    EXPECT_EQ(report["process_slots"], "cpu-order");
    return report["process_slots_reason"].get<std::string>();
  };
  const std::vector<std::string> one_node(4, "cn01");
  EXPECT_EQ(reason({0, 1, 2, 10}, one_node), "processes 0 and 1 share core 0 of cn01 (CPUs 0 and 1)");
  EXPECT_EQ(reason({0, 8, 2, 16}, one_node), "process 3's CPU 16 is not in the node model");
  EXPECT_EQ(reason({0, -1, 2, 10}, one_node), "process 1's CPU is unknown (sched_getcpu failed)");
  EXPECT_EQ(reason({0, 8, 2, 12}, {"cn01", "cn01", "cn01", "cn02"}), "cn01 and cn02 use different cores");
}

TEST(ReorderPlan, RefusesWhatItCannotPlace) {
  ReorderRequest r = four_vertices();
  r.machine.clear();
  EXPECT_EQ(test::error_message([&] { plan_reorder(r); }),
            "no machine: set TASKMAP_MACHINE (e.g. slurm:/etc/slurm/topology.conf)");
  r = four_vertices();
  r.hosts[3] = "login1";
  EXPECT_NE(test::error_message([&] { plan_reorder(r); }).find("login1"), std::string::npos);
  r = four_vertices();
  r.hosts.pop_back(), r.cpus.pop_back();
  EXPECT_EQ(test::error_message([&] { plan_reorder(r); }),
            "MPI_Dist_graph_create_adjacent describes 4 ranks, but the communicator has 3 processes");
}

// The default mapper's work: 70% of the limit at kWorkUnitsPerSecond (20 million a second),
// in millions, at least one: 10 s x 0.7 x 20 = 140, 2.5 s: 35, 3 s: 42.
TEST(ReorderPlan, TheDefaultMapperGetsTheWorkOf70PercentOfTheLimit) {
  EXPECT_EQ(reorder_mapper(10), "auto:work=140");
  EXPECT_EQ(reorder_mapper(2.5), "auto:work=35");
  EXPECT_EQ(reorder_mapper(0.01), "auto:work=1");
  ReorderRequest r = four_vertices();
  r.seconds = 3;
  EXPECT_EQ(plan_reorder(r).report["mapper"], "auto:work=42");
}

// A plan cancelled from outside stops with Cancelled, not an Error the library would report
// as the input's fault.
TEST(ReorderPlan, ACancelledPlanStops) {
  ReorderRequest r = four_vertices();
  r.cancel = std::make_shared<std::atomic<bool>>(true);
  EXPECT_THROW(plan_reorder(r), Cancelled);
}

// MPI_Cart_create's graph, counted by hand: on a 2 x 3 grid without wraparound, 3 vertical
// pairs and 4 horizontal ones, each both ways: 14 edges of 1. Periodic, a rank's two
// neighbours along the dimension of 2 are one rank (one edge of 2), and each row of 3 is a
// ring (2 edges of 1 per rank): 6 edges of 2 and 12 of 1.
TEST(ReorderPlan, CartesianGraphsAreMpisGrids) {
  const int dims[] = {2, 3}, open[] = {0, 0}, wrapped[] = {1, 1};
  const CommGraph g = cart_graph(dims, open);
  EXPECT_EQ(g.num_tasks(), 6u);
  EXPECT_EQ(g.num_edges(), 14u);
  EXPECT_DOUBLE_EQ(g.total_volume(), 14.0);
  const auto targets = g.targets(4);  // (1, 1): (0, 1), (1, 0), (1, 2)
  EXPECT_EQ(std::vector<TaskId>(targets.begin(), targets.end()), (std::vector<TaskId>{1, 3, 5}));
  const CommGraph p = cart_graph(dims, wrapped);
  std::size_t twos = 0, ones = 0;
  for (TaskId t = 0; t < 6; ++t)
    for (double v : p.volumes(t)) (v == 2.0 ? twos : ones) += 1;
  EXPECT_EQ(twos, 6u);
  EXPECT_EQ(ones, 12u);
}

// taskmap reorder-plan runs plan_reorder on the job it describes: the processes of --nodes in
// block order, the graph of --pattern; its permutation is the library's. The heavy pairs
// {0, 2} and {1, 3} cross between the nodes in the identity order: the plan reorders.
TEST(ReorderPlan, TheOfflinePlannerGivesTheLibrarysPlan) {
  const std::string dir = test::temp_path("reorder", "offline");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/nodes.txt") << "cn01 slots=2\ncn02 slots=2\n";
  std::ofstream(dir + "/graph.txt") << "0 2 100\n2 0 100\n1 3 100\n3 1 100\n0 1 1\n1 0 1\n2 3 1\n3 2 1\n";
  // The same job for the library: cn01's two processes, then cn02's, CPUs unknown.
  ReorderRequest r = four_vertices();
  r.hosts = {"cn01", "cn01", "cn02", "cn02"};
  r.cpus.assign(4, -1);
  r.graph = CommGraph::from_edges(4, {{0, 2, 100}, {2, 0, 100}, {1, 3, 100}, {3, 1, 100}, {0, 1, 1}, {1, 0, 1}, {2, 3, 1}, {3, 2, 1}});
  const std::string args = "reorder-plan --machine " + r.machine + " --pattern file:" + dir +
                           "/graph.txt,format=edges --out " + dir + "/plan.txt --report " + dir + "/report.json --nodes ";
  const auto result = test::run_taskmap(args + "@" + dir + "/nodes.txt");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const ReorderPlan plan = plan_reorder(r);
  std::string expected;
  for (int p : plan.process_of_vertex) expected += std::to_string(p) + "\n";
  EXPECT_EQ(plan.report["kept"], "mapper");
  EXPECT_EQ(io::read_text_file(dir + "/plan.txt"), expected);
  EXPECT_EQ(nlohmann::json::parse(io::read_text_file(dir + "/report.json"))["permutation"], plan.report["permutation"]);
  EXPECT_NE(result.err.find("planned in "), std::string::npos) << result.err;
  // --nodes all: every node of the machine (nine of 4 slots), in its order.
  const auto all = test::run_taskmap(args + "all");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const std::string all_nodes = nlohmann::json::parse(io::read_text_file(dir + "/report.json"))["nodes"];
  EXPECT_EQ(all_nodes.substr(0, 26), "cn01 slots=4\ncn02 slots=4\n");
  EXPECT_EQ(std::count(all_nodes.begin(), all_nodes.end(), '\n'), 9);
  // Misuse and bad input: one line each, no plan written.
  std::filesystem::remove(dir + "/plan.txt");
  const auto both = test::run_taskmap(args + "@" + dir + "/nodes.txt --cart 2x2");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.err, "taskmap: error: reorder-plan: give --pattern or --cart (one of them) (see taskmap --help)\n");
  const auto zero = test::run_taskmap("reorder-plan --machine " + r.machine + " --nodes @" + dir + "/nodes.txt --cart 2x0");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_EQ(zero.err, "taskmap: error: --cart '2x0': a dimension of size 0 (see taskmap --help)\n");
  const auto big = test::run_taskmap("reorder-plan --machine " + r.machine + " --nodes @" + dir + "/nodes.txt --cart 2x3 --out " + dir + "/plan.txt");
  EXPECT_EQ(big.exit_code, 1);
  EXPECT_EQ(big.err, "taskmap: error: the graph has 6 ranks, but --nodes gives 4 processes\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/plan.txt"));
  std::filesystem::remove_all(dir);
}

TEST(ReorderPlan, FakeHostLists) {
  EXPECT_EQ(fake_hosts("cn01:0-1,cn02:2,cn03:3", 4), (std::vector<std::string>{"cn01", "cn01", "cn02", "cn03"}));
  EXPECT_EQ(test::error_message([] { fake_hosts("cn01:0-1", 3); }), "TASKMAP_FAKE_HOST 'cn01:0-1' names no host for rank 2");
  EXPECT_EQ(test::error_message([] { fake_hosts("cn01", 1); }),
            "TASKMAP_FAKE_HOST 'cn01': item 'cn01' is not host:rank or host:first-last");
  EXPECT_EQ(test::error_message([] { fake_hosts("cn01:x", 1); }), "TASKMAP_FAKE_HOST 'cn01:x': 'x' is not a rank");
}

}  // namespace
}  // namespace taskmap
