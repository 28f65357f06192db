// hier: KaHIP's process-mapping hierarchy as a tree of switches: its routers and channels, its
// distances, the tree routing, J and hop-bytes on it, and its Scotch tleaf equivalent.
#include <gtest/gtest.h>

#include "taskmap/core/error.h"
#include "taskmap/routing/routing.h"
#include "taskmap/topology/distance.h"
#include "taskmap/topology/scotch_target.h"
#include "test_support.h"

namespace taskmap {
namespace {

// hier:2:2:2,dist=1:10:100: 8 slots (routers 0-7), level-1 switches 8-11 (slots 0-1, 2-3, 4-5,
// 6-7), level-2 switches 12 (slots 0-3) and 13 (slots 4-7), the root 14.
TEST(Hier, TwoByTwoByTwoHasAGroupSwitchPerGroup) {
  const Machine m = make_machine("hier:2:2:2,dist=1:10:100");
  EXPECT_EQ(m.num_routers, 15u);
  EXPECT_EQ(m.num_slots(), 8u);
  EXPECT_EQ(m.num_host_routers(), 8u);
  for (SlotId s = 0; s < 8; ++s) EXPECT_EQ(m.router_of_slot(s), s);
  // Each router below the root has one channel up and one down: 8 + 4 + 2 of them.
  EXPECT_EQ(m.channels.size(), 28u);
  EXPECT_EQ(test::class_counts(m), (std::map<std::string, int>{{"l1", 16}, {"l2", 8}, {"l3", 4}}));
  const HierShape& h = std::get<HierShape>(m.shape);
  EXPECT_EQ(m.channels[h.up_of[5]].dst, 10u);
  EXPECT_EQ(m.channels[h.up_of[10]].dst, 13u);
  EXPECT_EQ(m.channels[h.up_of[13]].dst, 14u);
  EXPECT_EQ(m.channels[h.down_of[9]].src, 12u);
  // The outline counts the same channels in closed form.
  const Machine outline = build_machine(parse_machine_spec("hier:2:2:2,dist=1:10:100"), {}, BuildDetail::Outline);
  EXPECT_EQ(channels_per_class(outline), (std::vector<std::uint64_t>{16, 8, 4}));
}

TEST(Hier, DistanceIsThatOfTheLevelWhereTheGroupsMeet) {
  const Machine m = make_machine("hier:2:2:2,dist=1:10:100");
  const HopDistance d(m);
  EXPECT_EQ(d(0, 0), 0u);
  EXPECT_EQ(d(0, 1), 1u);    // one processor
  EXPECT_EQ(d(0, 2), 10u);   // one node, two processors
  EXPECT_EQ(d(1, 3), 10u);
  EXPECT_EQ(d(0, 4), 100u);  // two nodes
  EXPECT_EQ(d(7, 2), 100u);
  EXPECT_EQ(d(5, 7), 10u);
  // A slot has 1 other at 1, 2 at 10 and 4 at 100: the mean over the 7 others is 421 / 7.
  const TopologyStats stats = topology_stats(m);
  EXPECT_EQ(stats.diameter, 100u);
  EXPECT_NEAR(stats.avg_distance, 421.0 / 7, 1e-12);
  EXPECT_FALSE(stats.estimated);
  // KaHIP's example machine: 4 x 16 x 8 = 512 slots; a slot has 3 others at 1, 60 at 10 and
  // 448 at 100: (3 + 600 + 44800) / 511.
  EXPECT_NEAR(topology_stats(make_machine("hier:4:16:8,dist=1:10:100")).avg_distance, 45403.0 / 511, 1e-9);
}

TEST(Hier, TreeRoutingGoesUpToTheCommonGroupAndDown) {
  const Machine m = make_machine("hier:2:2:2,dist=1:10:100");
  const HierShape& h = std::get<HierShape>(m.shape);
  const auto routing = make_routing(m, default_routing(m));
  EXPECT_EQ(default_routing(m).text, "tree");
  // 0 -> 5: up 0-8-12-14, down 14-13-10-5, in path order (an exported route lists its links so).
  std::vector<ChannelShare> shares;
  routing->route(0, 5, shares);
  std::vector<ChannelId> path;
  for (const ChannelShare& s : shares) {
    EXPECT_EQ(s.fraction, 1.0);
    path.push_back(s.channel);
  }
  EXPECT_EQ(path, (std::vector<ChannelId>{h.up_of[0], h.up_of[8], h.up_of[12], h.down_of[13], h.down_of[10],
                                          h.down_of[5]}));
  // 2 -> 3: through their processor's switch only.
  EXPECT_EQ(test::route_loads(*routing, 2, 3), (std::map<ChannelId, double>{{h.up_of[2], 1.0}, {h.down_of[3], 1.0}}));
}

// A hand-derived case: tasks 0-1-2-3 in a chain with symmetric weights 5, 3, 2.
CommGraph chain() {
  return CommGraph::from_edges(4, {{0, 1, 5}, {1, 0, 5}, {1, 2, 3}, {2, 1, 3}, {2, 3, 2}, {3, 2, 2}});
}

TEST(Hier, HopBytesWeighTrafficByTheHierarchysDistances) {
  const Machine m = make_machine("hier:2:2:2,dist=1:10:100");
  const CommGraph g = chain();
  const MappingProblem problem(m, g);
  const Evaluator evaluator(problem);
  // Task i on slot i: 0-1 share a processor (1), 1-2 a node (10), 2-3 a processor (1).
  // J = 5*1 + 3*10 + 2*1 = 37, counted once; hop-bytes counts both directions.
  const Metrics in_order = evaluator.evaluate(g, Mapping{{0, 1, 2, 3}, {}});
  EXPECT_DOUBLE_EQ(in_order.j, 37);
  EXPECT_DOUBLE_EQ(in_order.hop_bytes, 74);
  // Slots 0, 4, 1, 2: 0-1 across nodes (100), 1-2 across nodes (100), 2-3 in a node (10):
  // J = 500 + 300 + 20.
  const Metrics spread = evaluator.evaluate(g, Mapping{{0, 4, 1, 2}, {}});
  EXPECT_DOUBLE_EQ(spread.j, 820);
  EXPECT_DOUBLE_EQ(spread.hop_bytes, 1640);
  EXPECT_EQ(spread.max_dilation, 100u);
}

TEST(Hier, JOfAnAsymmetricPairIsTheMeanOfItsDirections) {
  // 0 -> 1 sends 4, 1 -> 0 sends 2, on slots 0 and 2 (10 apart): J = (4 + 2) / 2 * 10.
  const Machine m = make_machine("hier:2:2:2,dist=1:10:100");
  const CommGraph g = CommGraph::from_edges(2, {{0, 1, 4}, {1, 0, 2}});
  const MappingProblem problem(m, g);
  std::vector<double> loads;
  const Metrics x = Evaluator(problem).evaluate(g, Mapping{{0, 2}, {}}, &loads);
  EXPECT_DOUBLE_EQ(x.j, 30);
  EXPECT_DOUBLE_EQ(x.hop_bytes, 60);
  // The tree routes 4 over 0-8-12-9-2 and 2 back: the MCL is 4, on l1 and l2 alike.
  EXPECT_DOUBLE_EQ(x.mcl, 4);
  EXPECT_EQ(x.bottleneck_class, (std::vector<std::string>{"l1", "l2"}));
  EXPECT_EQ(x.channels_used, 8u);
}

TEST(Hier, SpecErrorsNameTheProblem) {
  auto message = [](const std::string& spec) { return test::error_message([&] { make_machine(spec); }); };
  EXPECT_EQ(message("hier:4:16,dist=1:10:100"),
            "--machine 'hier:4:16,dist=1:10:100': hier: 2 levels but 3 distances (dist=); give one distance per level");
  EXPECT_EQ(message("hier:4:4,dist=10:1"),
            "--machine 'hier:4:4,dist=10:1': hier: distances must not decrease going up, but level 2 has 1 and level "
            "1 has 10");
  EXPECT_EQ(message("hier:4:4"), "--machine 'hier:4:4': hier: missing dist=, e.g. hier:4:16:8,dist=1:10:100");
  EXPECT_EQ(message("hier:4:0,dist=1:2"), "--machine 'hier:4:0,dist=1:2': hier: sizes value 0 must be at least 1");
  EXPECT_EQ(message("hier:4:4,dist=1:x"), "--machine 'hier:4:4,dist=1:x': hier: 'x' is not a size");
  EXPECT_NE(message("hier:4096:4096,dist=1:2").find("more than taskmap supports"), std::string::npos);
}

// Scotch adds the link costs on the way up: tleaf 3 4 90 16 9 4 1 has leaves 1, 1 + 9 and
// 1 + 9 + 90 apart, hier:4:16:4,dist=1:10:100's distances.
TEST(Hier, TleafLevelsAreTheDistancesDifferences) {
  auto tleaf = [](const std::string& spec) {
    return tleaf_levels(std::get<HierShape>(make_machine(spec).shape)).text();
  };
  EXPECT_EQ(tleaf("hier:4:16:4,dist=1:10:100"), "tleaf 3 4 90 16 9 4 1");
  EXPECT_EQ(tleaf("hier:2:2:2,dist=1:10:100"), "tleaf 3 2 90 2 9 2 1");
  // Levels of one group add no pair; levels of equal distance are one level of their product.
  EXPECT_EQ(tleaf("hier:4:1:8,dist=1:5:20"), "tleaf 2 8 19 4 1");
  EXPECT_EQ(tleaf("hier:4:2:8,dist=2:2:20"), "tleaf 2 8 18 8 2");
}

}  // namespace
}  // namespace taskmap
