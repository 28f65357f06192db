// Routing flow models: hand-derived channel loads for every machine and routing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <queue>
#include <set>
#include <thread>
#include <unistd.h>

#include "taskmap/core/error.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/map/structured/coloring.h"
#include "taskmap/topology/distance.h"
#include "taskmap/topology/rect_torus_geometry.h"
#include "taskmap/workload/generators.h"
#include "test_support.h"

namespace taskmap {
namespace {

using test::route_loads;

std::unique_ptr<Routing> routing(const Machine& m, const std::string& name) {
  return make_routing(m, parse_routing_spec(name));
}

TEST(TorusRouting, MinimalSplitsEvenlyOverBothPathsOfADiagonalStep) {
  Machine m = make_machine("mesh:3x3");
  const TorusShape& t = *m.torus();
  // (0,0) -> (1,1): paths A+ then B+, or B+ then A+; each channel carries 1/2.
  auto loads = route_loads(*routing(m, "minimal"), 0, 4);
  EXPECT_EQ(loads, (std::map<ChannelId, double>{{t.channel(0, 0, 0), 0.5},
                                                {t.channel(3, 1, 0), 0.5},
                                                {t.channel(0, 1, 0), 0.5},
                                                {t.channel(1, 0, 0), 0.5}}));
  // Dimension order A then B: all on the first path; B then A: all on the second.
  EXPECT_EQ(route_loads(*routing(m, "dor"), 0, 4),
            (std::map<ChannelId, double>{{t.channel(0, 0, 0), 1.0}, {t.channel(3, 1, 0), 1.0}}));
  EXPECT_EQ(route_loads(*routing(m, "dor:BA"), 0, 4),
            (std::map<ChannelId, double>{{t.channel(0, 1, 0), 1.0}, {t.channel(1, 0, 0), 1.0}}));
}

TEST(TorusRouting, MinimalCountsPathsNotHops) {
  // (0,0) -> (2,1) on a 3x3 mesh: 3 minimal paths (B at step 1, 2 or 3). The first A+
  // channel from (0,0) carries the 2 paths that start with A: 2/3.
  Machine m = make_machine("mesh:3x3");
  const TorusShape& t = *m.torus();
  auto loads = route_loads(*routing(m, "minimal"), 0, 7);
  EXPECT_DOUBLE_EQ(loads[t.channel(0, 0, 0)], 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(loads[t.channel(0, 1, 0)], 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(loads[t.channel(3, 0, 0)], 1.0 / 3.0);  // (1,0) -> (2,0)
  EXPECT_DOUBLE_EQ(loads[t.channel(6, 1, 0)], 1.0 / 3.0);  // (2,0) -> (2,1)
  EXPECT_DOUBLE_EQ(loads[t.channel(3, 1, 0)], 1.0 / 3.0);  // (1,0) -> (1,1)
  EXPECT_DOUBLE_EQ(loads[t.channel(4, 0, 0)], 2.0 / 3.0);  // (1,1) -> (2,1)
}

TEST(TorusRouting, HalfwayOffsetsSplitBetweenDirections) {
  Machine m = make_machine("torus:4");
  const TorusShape& t = *m.torus();
  for (const char* r : {"minimal", "dor"}) {
    auto loads = route_loads(*routing(m, r), 0, 2);
    EXPECT_EQ(loads, (std::map<ChannelId, double>{{t.channel(0, 0, 0), 0.5},
                                                  {t.channel(1, 0, 0), 0.5},
                                                  {t.channel(0, 0, 1), 0.5},
                                                  {t.channel(3, 0, 1), 0.5}}))
        << r;
  }
  // Size-2 wrap: the two parallel channels share the flow.
  Machine two = make_machine("torus:2");
  EXPECT_EQ(route_loads(*routing(two, "minimal"), 0, 1),
            (std::map<ChannelId, double>{{two.torus()->channel(0, 0, 0), 0.5}, {two.torus()->channel(0, 0, 1), 0.5}}));
}

TEST(TorusRouting, HypercubeMinimalUsesEveryShortestPath) {
  Machine m = make_machine("hypercube:d=2");
  auto loads = route_loads(*routing(m, "minimal"), 0, 3);
  ASSERT_EQ(loads.size(), 4u);
  for (auto [c, f] : loads) EXPECT_DOUBLE_EQ(f, 0.5);
}

TEST(TorusRouting, MinimalEqualsShortestPathSplitOnEveryPair) {
  // Two independent implementations of the same flow model: the lattice walk and ECMP's
  // path counting on the channel graph (size-2 double links count as two paths there too).
  Machine m = make_machine("torus:4x3x2,mesh=B");
  auto minimal = routing(m, "minimal");
  auto ecmp = routing(m, "ecmp");
  for (RouterId a = 0; a < m.num_routers; ++a) {
    for (RouterId b = 0; b < m.num_routers; ++b) {
      if (a == b) continue;
      auto x = route_loads(*minimal, a, b), y = route_loads(*ecmp, a, b);
      ASSERT_EQ(x.size(), y.size()) << a << "->" << b;
      for (auto [c, f] : x) ASSERT_NEAR(f, y[c], 1e-12) << a << "->" << b << " channel " << c;
    }
  }
}

TEST(TorusRouting, DimensionOrderMustNameEveryDimension) {
  Machine m = make_machine("torus:4x4x4");
  EXPECT_THROW(routing(m, "dor:AB"), Error);
  EXPECT_THROW(routing(m, "dor:ABZ"), Error);
  EXPECT_NO_THROW(routing(m, "dor:CAB"));
  EXPECT_THROW(routing(m, "valiant"), Error);
}

TEST(RectTorusRouting, TwistedWrapIsOneHopInRtt2) {
  // RTT(2): (0,0) is adjacent to (2,1) through the twisted vertical wrap (Definition 2.1);
  // Algorithm 2 gives the record (0,-1).
  Machine m = make_machine("rtt:a=2");
  const auto& s = std::get<RectTorusShape>(m.shape);
  RectRecord r = rect_algorithm_record(s, 2, 1);
  EXPECT_EQ(r.x, 0);
  EXPECT_EQ(r.y, -1);
  const RouterId dst = rect_router(s, {2, 1});
  for (const char* name : {"minimal", "dor"}) {
    EXPECT_EQ(route_loads(*routing(m, name), 0, dst), (std::map<ChannelId, double>{{s.channel_of[0 * 4 + 3], 1.0}}));
  }
}

TEST(RectTorusRouting, TiedRecordsInRt2ShareTheFlow) {
  // RT(2) is a 4x2 torus: (0,0) -> (2,1) has records (+-2, +-1), all of length 3, each 1/4,
  // each spread over 3 orderings. First hop from (0,0): x+ 2 records x 2/3 x 1/4 = 1/3,
  // x- 1/3, y+ and y- 1 record... 2 records x 1/3 x 1/4 = 1/6 each.
  Machine m = make_machine("rt:a=2");
  const auto& s = std::get<RectTorusShape>(m.shape);
  auto loads = route_loads(*routing(m, "minimal"), 0, rect_router(s, {2, 1}));
  EXPECT_DOUBLE_EQ(loads[s.channel_of[0]], 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(loads[s.channel_of[1]], 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(loads[s.channel_of[2]], 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(loads[s.channel_of[3]], 1.0 / 6.0);
  double total = 0;
  for (auto [c, f] : loads) total += f;
  EXPECT_DOUBLE_EQ(total, 3.0);  // three hops per path
}

TEST(DragonflyRouting, MinimalAndValiantOnTheSmallestDragonfly) {
  // (p,a,h) = (2,2,1): 3 groups of 2 routers. Cables: 0-3 (groups 0-1), 1-4 (0-2), 2-5 (1-2).
  Machine m = make_machine("dragonfly:p=2,a=2,h=1");
  const auto& s = std::get<DragonflyShape>(m.shape);
  auto local = [&](RouterId x, RouterId y) { return s.local_of[x * 2 + y % 2]; };
  auto global = [&](std::uint32_t g, std::uint32_t h) { return s.global_of[g * 3 + h]; };
  EXPECT_EQ(m.channels[global(0, 1)].src, 0u);
  EXPECT_EQ(m.channels[global(0, 1)].dst, 3u);
  // Minimal 0 -> 2: global 0->3, local 3->2.
  EXPECT_EQ(route_loads(*routing(m, "minimal"), 0, 2),
            (std::map<ChannelId, double>{{global(0, 1), 1.0}, {local(3, 2), 1.0}}));
  // Valiant 0 -> 2 through group 2 (the only intermediate group): local 0->1, global 1->4,
  // local 4->5, global 5->2.
  EXPECT_EQ(route_loads(*routing(m, "valiant"), 0, 2),
            (std::map<ChannelId, double>{{local(0, 1), 1.0}, {global(0, 2), 1.0}, {local(4, 5), 1.0},
                                         {global(2, 1), 1.0}}));
  // Inside a group, minimal is the one local link.
  EXPECT_EQ(route_loads(*routing(m, "minimal"), 4, 5), (std::map<ChannelId, double>{{local(4, 5), 1.0}}));
  EXPECT_THROW(routing(m, "dor"), Error);
}

TEST(PercsRouting, DirectRouteOfSection41) {
  // Node 1 of supernode 2 to node 31 of supernode 11 on (32, 2): <2,1> -> <2,11> -> <11,2> ->
  // <11,31> and <2,1> -> <2,27> -> <11,18> -> <11,31>, half each.
  Machine m = make_machine("percs:ns=32,nd=2");
  const auto& s = std::get<PercsShape>(m.shape);
  auto loads = route_loads(*routing(m, "direct"), 2 * 32 + 1, 11 * 32 + 31);
  EXPECT_EQ(loads, (std::map<ChannelId, double>{{s.l_channel(2, 1, 11), 0.5},
                                                {s.d_channel(2, 0, 11), 0.5},
                                                {s.l_channel(11, 2, 31), 0.5},
                                                {s.l_channel(2, 1, 27), 0.5},
                                                {s.d_channel(2, 1, 11), 0.5},
                                                {s.l_channel(11, 18, 31), 0.5}}));
}

TEST(PercsRouting, IntraDrawerStripingUsesSelfLoops) {
  // Node 0 -> node 1 of one drawer: bounce nodes 0..7, 1/8 each; x = 0 uses the self-loop of
  // node 0, x = 1 the self-loop of node 1, so the direct 0->1 link carries 2/8.
  Machine m = make_machine("percs:ns=32,nd=4");
  const auto& s = std::get<PercsShape>(m.shape);
  auto loads = route_loads(*routing(m, "indirect"), 0, 1);
  EXPECT_DOUBLE_EQ(loads[s.l_channel(0, 0, 1)], 0.25);
  EXPECT_DOUBLE_EQ(loads[s.l_channel(0, 0, 0)], 0.125);
  EXPECT_DOUBLE_EQ(loads[s.l_channel(0, 1, 1)], 0.125);
  for (std::uint32_t x = 2; x < 8; ++x) {
    EXPECT_DOUBLE_EQ(loads[s.l_channel(0, 0, x)], 0.125);
    EXPECT_DOUBLE_EQ(loads[s.l_channel(0, x, 1)], 0.125);
  }
  EXPECT_EQ(loads.size(), 15u);
  // Across drawers (0 -> 8): L-LR paths through the source drawer.
  auto across = route_loads(*routing(m, "direct"), 0, 8);
  EXPECT_DOUBLE_EQ(across[s.l_channel(0, 0, 8)], 0.125);
  EXPECT_DOUBLE_EQ(across[s.l_channel(0, 3, 8)], 0.125);
  EXPECT_EQ(m.classes[m.channels[s.l_channel(0, 3, 8)].link_class].name, "LR");
}

TEST(PercsRouting, IndirectUsesEveryDLinkOfTheSourceSupernode) {
  // (32, 1): W = 32, one bucket. Node 5 of supernode 0 -> node 9 of supernode 3.
  Machine m = make_machine("percs:ns=32,nd=1");
  const auto& s = std::get<PercsShape>(m.shape);
  auto loads = route_loads(*routing(m, "indirect"), 0 * 32 + 5, 3 * 32 + 9);
  const double w = 1.0 / 32;
  // First D hop: each of the 32 links of supernode 0 once; D 0 -> 3 also as the second hop of
  // the path through c = 0 (the self-loop).
  for (std::uint32_t c = 0; c < 32; ++c) EXPECT_DOUBLE_EQ(loads[s.d_channel(0, 0, c)], c == 3 ? 2 * w : w) << c;
  // Via c = 7: lands on node 0 of supernode 7, middle hop 0 -> 3, D 7 -> 3, lands on node 7.
  EXPECT_DOUBLE_EQ(loads[s.l_channel(7, 0, 3)], w);
  EXPECT_DOUBLE_EQ(loads[s.d_channel(7, 0, 3)], w);
  // The last L hop from landing node c of supernode 3 to node 9: the self-loop when c = 9.
  EXPECT_DOUBLE_EQ(loads[s.l_channel(3, 9, 9)], w);
  // The first hop leaves node 5 to every port node c (the self-loop for c = 5).
  EXPECT_DOUBLE_EQ(loads[s.l_channel(0, 5, 5)], w);
  // Via c = 3 (the destination itself): D 0 -> 3 lands on node 0, middle hop 0 -> 3, then
  // the self-loop D link of supernode 3 at node 3, lands on node 3, last hop 3 -> 9.
  EXPECT_DOUBLE_EQ(loads[s.d_channel(3, 0, 3)], w);
  // The middle hop in supernode 3 (0 -> 3) is also used by c = 3 only.
  EXPECT_DOUBLE_EQ(loads[s.l_channel(3, 0, 3)], w);
}

TEST(EcmpRouting, SquareSplitsOverTwoPaths) {
  Machine m = make_machine("graph:" + test::instance("square.topo"));
  auto loads = route_loads(*routing(m, "ecmp"), 0, 2);
  ASSERT_EQ(loads.size(), 4u);
  for (auto [c, f] : loads) EXPECT_DOUBLE_EQ(f, 0.5);
  EXPECT_THROW(routing(m, "minimal"), Error);
}

// Leaves L1 (hosts h1, h3) and L2 (h2) under spines S1 and S2 (the top switches). h1 -> h2:
// its injection channel whole, half up to each spine, half down from each, the ejection whole;
// h1 -> h3: injection and ejection only; under ecmp and up*/down* alike. The shares come in the
// order of the routers they leave.
TEST(HostLinks, SplitOverTheirSwitchesPathsUnderEcmpAndUpDown) {
  const std::string conf = test::temp_path("ecmp_hosts", "topology.conf");
  // L2 first, so that its router comes before the spines and L1 in the order of the shares.
  std::ofstream(conf) << "SwitchName=L2 Nodes=h2\nSwitchName=S1 Switches=L[1-2]\n"
                         "SwitchName=S2 Switches=L[1-2]\nSwitchName=L1 Nodes=h1,h3\n";
  const Machine m = make_machine("slurm:" + conf);
  std::filesystem::remove(conf);
  const auto& fabric = std::get<FabricShape>(m.shape);
  const auto router = [&](const std::string& name) -> RouterId {
    for (NodeId n = 0; n < m.num_nodes(); ++n)
      if (m.node_name(n) == name) return m.router_of_node(n);
    for (std::size_t i = 0; i < fabric.switch_names.size(); ++i)
      if (fabric.switch_names[i] == name) return fabric.first_switch + static_cast<RouterId>(i);
    ADD_FAILURE() << "no router " << name;
    return 0;
  };
  const auto channel = [&](const std::string& a, const std::string& b) -> ChannelId {
    for (ChannelId c = 0; c < m.channels.size(); ++c)
      if (m.channels[c].src == router(a) && m.channels[c].dst == router(b)) return c;
    ADD_FAILURE() << "no channel " << a << " -> " << b;
    return 0;
  };
  for (const char* name : {"ecmp", "updn"}) {
    SCOPED_TRACE(name);
    const auto fabric_routing = routing(m, name);
    std::vector<ChannelShare> shares;
    fabric_routing->route(router("h1"), router("h2"), shares);
    const std::map<ChannelId, double> across(
        {{channel("h1", "L1"), 1.0}, {channel("L1", "S1"), 0.5}, {channel("L1", "S2"), 0.5},
         {channel("S1", "L2"), 0.5}, {channel("S2", "L2"), 0.5}, {channel("L2", "h2"), 1.0}});
    std::map<ChannelId, double> got;
    for (const ChannelShare& share : shares) got[share.channel] += share.fraction;
    EXPECT_EQ(got, across);
    EXPECT_TRUE(std::is_sorted(shares.begin(), shares.end(), [&](const ChannelShare& a, const ChannelShare& b) {
      return m.channels[a.channel].src < m.channels[b.channel].src;
    }));
    EXPECT_EQ(test::route_loads(*fabric_routing, router("h1"), router("h3")),
              (std::map<ChannelId, double>{{channel("h1", "L1"), 1.0}, {channel("L1", "h3"), 1.0}}));
  }
}

// One-way channels: router 0 has one channel out (to 2) and two in (from 2 and 3), router 1 a
// link to 3, router 2 a link to 3. A route 0 -> 1 starts on 0's single channel out and ends on
// 1's single channel in: 0->2, 2->3, 3->1, whole; HopDistance agrees (3 hops).
TEST(HostLinks, OneWayChannelsRouteAndMeasureAsTheSearchFinds) {
  const std::string topo = test::temp_path("one_way", "graph.topo");
  std::ofstream(topo) << "routers 4\nlink 1 3\nlink 2 3\nchannel 0 2\nchannel 2 0\nchannel 3 0\n";
  const Machine m = make_machine("graph:" + topo);
  std::filesystem::remove(topo);
  auto channel = [&](RouterId a, RouterId b) {
    for (ChannelId c = 0; c < m.channels.size(); ++c)
      if (m.channels[c].src == a && m.channels[c].dst == b) return c;
    ADD_FAILURE() << "no channel " << a << " -> " << b;
    return ChannelId{0};
  };
  const auto r = routing(m, "ecmp");
  for (int pass = 0; pass < 2; ++pass) {  // searched, then kept
    EXPECT_EQ(test::route_loads(*r, 0, 1),
              (std::map<ChannelId, double>{{channel(0, 2), 1.0}, {channel(2, 3), 1.0}, {channel(3, 1), 1.0}}));
    EXPECT_EQ(test::route_loads(*r, 1, 0), (std::map<ChannelId, double>{{channel(1, 3), 1.0}, {channel(3, 0), 1.0}}));
  }
  const HopDistance hops(m);
  EXPECT_EQ(hops(0, 1), 3u);
  EXPECT_EQ(hops(1, 0), 2u);
  EXPECT_EQ(hops(2, 1), 2u);
}

// The routes between hosts' switches are kept in a table read without a lock where the hosts
// hang on at most 1,024 switches, else in a map: a host on each of 1,100 leaves under one top
// switch routes up and down through it either way, the second time from what was kept; and
// threads routing at once get what one thread gets.
TEST(HostLinks, KeptRoutesAreTheSearchedOnesWithManySwitchesAndFromThreadsAtOnce) {
  const std::string conf = test::temp_path("many_leaves", "topology.conf");
  {
    std::ofstream out(conf);
    out << "SwitchName=top Switches=L[1-1100]\n";
    for (int i = 1; i <= 1100; ++i) out << "SwitchName=L" << i << " Nodes=n" << i << "\n";
  }
  const Machine wide = make_machine("slurm:" + conf);
  std::filesystem::remove(conf);
  const auto& fabric = std::get<FabricShape>(wide.shape);
  ASSERT_EQ(wide.num_routers, 2201u);
  const auto named_top = std::find(fabric.switch_names.begin(), fabric.switch_names.end(), "top");
  ASSERT_NE(named_top, fabric.switch_names.end());
  const RouterId top = fabric.first_switch + static_cast<RouterId>(named_top - fabric.switch_names.begin());
  for (const char* name : {"ecmp", "updn"}) {
    SCOPED_TRACE(name);
    const auto r = routing(wide, name);
    for (int pass = 0; pass < 2; ++pass) {
      const auto loads = test::route_loads(*r, 0, 1099);  // n1 -> n1100: up to the top and down
      ASSERT_EQ(loads.size(), 4u);
      std::set<RouterId> through;
      for (auto [c, f] : loads) {
        EXPECT_DOUBLE_EQ(f, 1.0);
        through.insert(wide.channels[c].src);
      }
      EXPECT_TRUE(through.count(top));
    }
  }
  // Threads at once on the table: every host pair of a two-leaf, two-spine fabric.
  const Machine m = test::four_named_nodes(1);
  std::vector<std::map<ChannelId, double>> alone;
  const auto first = routing(m, "ecmp");
  for (RouterId a = 0; a < 4; ++a)
    for (RouterId b = 0; b < 4; ++b) alone.push_back(test::route_loads(*first, a, b));
  const auto shared = routing(m, "ecmp");
  std::vector<std::map<ChannelId, double>> got[2];
  auto run = [&](int k) {
    for (int round = 0; round < 50; ++round)
      for (RouterId a = 0; a < 4; ++a)
        for (RouterId b = 0; b < 4; ++b) {
          auto loads = test::route_loads(*shared, (a + k) % 4, b);
          if (round == 0) got[k].push_back(std::move(loads));
        }
  };
  std::thread other(run, 1);
  run(0);
  other.join();
  for (RouterId a = 0; a < 4; ++a)
    for (RouterId b = 0; b < 4; ++b) {
      EXPECT_EQ(got[0][a * 4 + b], alone[a * 4 + b]);
      EXPECT_EQ(got[1][a * 4 + b], alone[((a + 1) % 4) * 4 + b]);
    }
}

TEST(RoutingNames, UnknownNamesAreRejected) {
  EXPECT_THROW(parse_routing_spec("adaptive"), Error);
  EXPECT_THROW(parse_routing_spec("minimal:ABC"), Error);
  EXPECT_EQ(parse_routing_spec("dor:BAC").dimension_order, "BAC");
}

// fattree:k=2,n=2: nodes 0..3 (routers 0..3), leaf switches 4 (nodes 0, 1) and 5 (nodes 2,
// 3), top switches 6 and 7. From node 0 to node 3 = digits (1, 1): up to leaf 4, then to the
// top switch whose digit 1 is digit 0 of the destination (1): switch 7; down to the leaf
// whose digit 1 is the destination's digit 1: leaf 5; then node 3.
TEST(FatTree, DModKRoutesByTheDestinationsDigits) {
  const Machine m = make_machine("fattree:k=2,n=2");
  EXPECT_EQ(m.num_routers, 8u);
  EXPECT_EQ(m.num_nodes(), 4u);
  EXPECT_EQ(m.channels.size(), 16u);  // 4 node links + 4 leaf-top links, both directions
  const auto routing = make_routing(m, default_routing(m));
  std::vector<ChannelShare> shares;
  routing->route(0, 3, shares);
  std::vector<std::pair<RouterId, RouterId>> hops;
  for (const ChannelShare& s : shares) {
    EXPECT_EQ(s.fraction, 1.0);
    hops.emplace_back(m.channels[s.channel].src, m.channels[s.channel].dst);
  }
  EXPECT_EQ(hops, (std::vector<std::pair<RouterId, RouterId>>{{0, 4}, {4, 7}, {7, 5}, {5, 3}}));
  // Towards node 2 (digit 0 = 0) the way goes over top switch 6; within a leaf, no higher.
  shares.clear();
  routing->route(1, 2, shares);
  EXPECT_EQ(m.channels[shares[1].channel].dst, 6u);
  shares.clear();
  routing->route(1, 0, shares);
  EXPECT_EQ(shares.size(), 2u);
}

TEST(FatTree, AllToAllLoadsEveryUpLinkEvenly) {
  // alltoall:16 on a 4-ary 2-tree: each node sends 1 unit (1/15 per peer). A leaf sends 4 x
  // 12/15 out of its subtree over 4 up links, d-mod-k spreading the destinations evenly: 0.8.
  const auto e = test::evaluate("fattree:k=4,n=2", "alltoall:16", "default");
  EXPECT_DOUBLE_EQ(e.metrics.mcl, 1.0);  // the node's own injection link
  EXPECT_NEAR(e.metrics.by_class[1].max_load, 0.8, 1e-12);
  EXPECT_EQ(e.metrics.by_class[1].name, "l2");
}

TEST(UgalRouting, SecondFlowAvoidsTheLoadedGlobalLink) {
  // dragonfly (1,2,1): 3 groups of 2 routers. Group 0's router 0 owns the cable to group 1,
  // router 1 the one to group 2; in group 1 router 3 holds the cable to group 0, in group 2
  // router 4 the one to group 0 and router 5 the one to group 1 (consecutive wiring).
  const Machine m = make_machine("dragonfly:p=1,a=2,h=1");
  const CommGraph g = CommGraph::from_edges(6, {{0, 2, 1.0}, {1, 3, 1.0}});
  Mapping identity{{0, 1, 2, 3, 4, 5}, {}};
  const auto& s = std::get<DragonflyShape>(m.shape);
  auto loads_of = [&](const char* routing) {
    auto r = make_routing(m, parse_routing_spec(routing));
    std::vector<double> loads;
    Evaluator(m, *r).evaluate(g, identity, &loads);
    return loads;
  };
  const auto minimal = loads_of("minimal");
  EXPECT_DOUBLE_EQ(minimal[s.global_of[0 * 3 + 1]], 2.0);
  // UGAL: 0 -> 2 goes minimally on an idle network; 1 -> 3 then sees hops x load 2 x 1 on
  // its minimal path against 5 x 0 through group 2, and takes group 2.
  const auto ugal = loads_of("ugal");
  EXPECT_DOUBLE_EQ(ugal[s.global_of[0 * 3 + 1]], 1.0);
  EXPECT_DOUBLE_EQ(ugal[s.global_of[0 * 3 + 2]], 1.0);
  EXPECT_DOUBLE_EQ(ugal[s.global_of[2 * 3 + 1]], 1.0);
  EXPECT_THROW(make_routing(make_machine("torus:4x4"), parse_routing_spec("ugal")), Error);
}

}  // namespace
}  // namespace taskmap
