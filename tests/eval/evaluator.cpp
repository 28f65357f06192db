// Evaluator metrics on hand-derived cases.
#include <gtest/gtest.h>

#include "taskmap/eval/max_min.h"
#include "test_support.h"

namespace taskmap {
namespace {

TEST(Evaluator, FourByFourTorusHaloLoadsEveryChannelByAQuarter) {
  // Each task sends 1/4 to each neighbour, one hop away: every channel carries exactly 1/4.
  auto e = test::evaluate("torus:4x4", "halo2d:4x4", "default", "minimal");
  for (double l : e.loads) EXPECT_DOUBLE_EQ(l, 0.25);
  EXPECT_DOUBLE_EQ(e.metrics.mcl, 0.25);
  EXPECT_DOUBLE_EQ(e.metrics.throughput, 4.0);
  EXPECT_DOUBLE_EQ(e.metrics.hop_bytes, 16.0);
  EXPECT_DOUBLE_EQ(e.metrics.avg_dilation, 1.0);
  EXPECT_EQ(e.metrics.max_dilation, 1u);
  EXPECT_EQ(e.metrics.channels_used, 64u);
  EXPECT_DOUBLE_EQ(e.metrics.load_imbalance, 1.0);
  EXPECT_EQ(e.metrics.bottleneck_class, (std::vector<std::string>{"A+", "A-", "B+", "B-"}));
  ASSERT_EQ(e.metrics.by_class.size(), 4u);
  EXPECT_DOUBLE_EQ(e.metrics.by_class[0].mcl, 0.25);
}

TEST(Evaluator, StridedRingPlacementTriplesEveryHop) {
  // A periodic ring of 8 tasks on torus:8 placed with stride 3: every neighbour is 3 hops away.
  Machine m = make_machine("torus:8");
  CommGraph g = build_pattern(parse_pattern_spec("halo2d:1x8"));
  Mapping map;
  for (TaskId t = 0; t < 8; ++t) map.slot_of_task.push_back((3 * t) % 8);
  auto r = make_routing(m, parse_routing_spec("minimal"));
  std::vector<double> loads;
  Metrics metrics = Evaluator(m, *r).evaluate(g, map, &loads);
  // A 1-row halo has two neighbours per task (no north/south in a flat dimension), 1/4 each.
  EXPECT_DOUBLE_EQ(metrics.hop_bytes, 8 * 2 * 0.25 * 3);
  EXPECT_EQ(metrics.max_dilation, 3u);
  EXPECT_DOUBLE_EQ(metrics.avg_dilation, 3.0);
  // 16 flows of 1/4 over 3 hops each, spread evenly over the 16 channels: 3/4 per channel.
  for (double l : loads) EXPECT_DOUBLE_EQ(l, 0.75);
}

// Throughput is per task, whatever slots the nodes declare. mesh:2 (routers 0 and 1, one
// channel each way, bandwidth 1); tasks 0-3 on node 0 and 4-7 on node 1, task t exchanging 1
// unit with task t + 4 each way. Each channel carries the 4 units of its direction: MCL 4,
// so every task can send its unit 1/4 times per time unit. The same placement on nodes of 4
// and of 16 slots gives 1/4 both times (it was slots per node / MCL: 1 and 4).
TEST(Evaluator, ThroughputIsPerTaskWhateverTheSlotsPerNode) {
  std::vector<CommEdge> edges;
  for (TaskId t = 0; t < 4; ++t) edges.insert(edges.end(), {CommEdge{t, t + 4, 1.0}, CommEdge{t + 4, t, 1.0}});
  const CommGraph g = CommGraph::from_edges(8, edges);
  for (std::uint32_t ppn : {4u, 16u}) {
    SCOPED_TRACE(ppn);
    const Machine m = make_machine(fmt::format("mesh:2,ppn={}", ppn));
    Mapping map;
    for (TaskId t = 0; t < 8; ++t) map.slot_of_task.push_back((t / 4) * ppn + t % 4);
    const auto routing = make_routing(m, default_routing(m));
    const Metrics metrics = Evaluator(m, *routing).evaluate(g, map);
    EXPECT_DOUBLE_EQ(metrics.mcl, 4.0);
    EXPECT_DOUBLE_EQ(metrics.throughput, 0.25);
    for (const ClassMetrics& c : metrics.by_class) EXPECT_DOUBLE_EQ(c.throughput, c.mcl > 0 ? 1 / c.mcl : 0) << c.name;
  }
}

TEST(Evaluator, TrafficInsideANodeOrRouterIsFree) {
  // 4 tasks on one node of a 2-router machine: nothing crosses the network.
  auto e = test::evaluate("torus:2,ppn=4", "alltoall:4", "default");
  EXPECT_DOUBLE_EQ(e.metrics.mcl, 0.0);
  EXPECT_DOUBLE_EQ(e.metrics.hop_bytes, 0.0);
  EXPECT_EQ(e.metrics.channels_used, 0u);
  EXPECT_TRUE(e.metrics.bottleneck_class.empty());
  // Two nodes on one router (conc=2): free as well.
  auto c = test::evaluate("torus:2,conc=2", "alltoall:2", "default");
  EXPECT_DOUBLE_EQ(c.metrics.network_volume, 0.0);
}

TEST(Evaluator, DragonflyClassesAndValiantHops) {
  // alltoall over the 6 routers of (1,2,1): minimal has avg routed hops equal to the mean
  // distance; Valiant is longer.
  auto minimal = test::evaluate("dragonfly:p=1,a=2,h=1", "alltoall:6", "default", "minimal");
  auto valiant = test::evaluate("dragonfly:p=1,a=2,h=1", "alltoall:6", "default", "valiant");
  EXPECT_NEAR(minimal.metrics.avg_routed_hops, minimal.metrics.avg_dilation, 1e-12);
  EXPECT_GT(valiant.metrics.avg_routed_hops, minimal.metrics.avg_routed_hops);
  EXPECT_EQ(minimal.metrics.by_class.size(), 2u);
  EXPECT_EQ(minimal.metrics.by_class[1].name, "global");
}

// Weighted max-min sharing, by hand. mesh:4 (a line 0-1-2-3), identity: F = 0->2 and
// G = 1->3 (1 unit each, 2 hops) share channel 1->2, the busiest (2 units: MCL 2); H = 0->1
// and K = 2->3 (0.9 each, 1 hop) load 0->1 and 2->3 to 1.9. A flow's share goes as 1/hops, so
// at level L the rates are F = G = L/2, H = K = L: channels 0->1 and 2->3 fill at L = 2/3,
// leaving 1->2 a third idle. H and K end at 1.35, when F and G have 0.55 left; alone on 1->2
// they get 1/2 each and end at 1.35 + 1.1 = 2.45, later than the MCL bound.
TEST(MaxMin, BottleneckIdlesWhileItsFlowsWaitElsewhere) {
  const Machine m = make_machine("mesh:4");
  const CommGraph g = CommGraph::from_edges(4, {{0, 2, 1.0}, {1, 3, 1.0}, {0, 1, 0.9}, {2, 3, 0.9}});
  const Mapping identity{{0, 1, 2, 3}, {}};
  const auto routing = make_routing(m, default_routing(m));
  EXPECT_DOUBLE_EQ(Evaluator(m, *routing).evaluate(g, identity).mcl, 2.0);
  EXPECT_NEAR(*max_min_completion_time(m, *routing, g, identity), 2.45, 1e-9);
  EXPECT_FALSE(max_min_completion_time(m, *routing, g, identity, 3).has_value());  // 4 flows > 3
  // One flow alone takes volume / bandwidth.
  const CommGraph one = CommGraph::from_edges(4, {{0, 3, 3.0}});
  EXPECT_NEAR(*max_min_completion_time(m, *routing, one, identity), 3.0, 1e-12);
}

}  // namespace
}  // namespace taskmap
