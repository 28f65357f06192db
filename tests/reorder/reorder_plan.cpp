// plan_reorder without MPI: the weighted four-vertex graph of tests/mpi/dist_graph.c on two
// nodes of one leaf switch, fake host lists, and the refusals that make the MPI side keep the
// identity order.
#include <gtest/gtest.h>

#include "taskmap/core/error.h"
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

TEST(ReorderPlan, FakeHostLists) {
  EXPECT_EQ(fake_hosts("cn01:0-1,cn02:2,cn03:3", 4), (std::vector<std::string>{"cn01", "cn01", "cn02", "cn03"}));
  EXPECT_EQ(test::error_message([] { fake_hosts("cn01:0-1", 3); }), "TASKMAP_FAKE_HOST 'cn01:0-1' names no host for rank 2");
  EXPECT_EQ(test::error_message([] { fake_hosts("cn01", 1); }),
            "TASKMAP_FAKE_HOST 'cn01': item 'cn01' is not host:rank or host:first-last");
  EXPECT_EQ(test::error_message([] { fake_hosts("cn01:x", 1); }), "TASKMAP_FAKE_HOST 'cn01:x': 'x' is not a rank");
}

}  // namespace
}  // namespace taskmap
