// Dragonfly routings (minimal, valiant, ugal) on Dragonflies read from files: hand-made ones in
// the plain format and the Aries port-list format (tests/instances/aries), Edison's and Theta's
// Aries wiring, and the balanced dragonfly written out as a plain file.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "taskmap/eval/evaluator.h"
#include "taskmap/routing/routing.h"
#include "taskmap/routing/routing_catalog.h"
#include "taskmap/topology/machine_spec.h"
#include "test_support.h"

namespace taskmap {
namespace {

using RouterPair = std::pair<RouterId, RouterId>;
// Channel loads of one flow of unit volume, summed per (source router, destination router):
// parallel cables add up.
using PairLoads = std::map<RouterPair, double>;

const std::string kThreeGroups = test::instance("aries/three-groups.dragonfly");
const std::string kThreeGroupsAries = test::instance("aries/three-groups.links");
const std::string kEdison = test::shared_data("topologies/dragonfly/codes_links-edison.txt.gz");
const std::string kTheta = test::shared_data("topologies/dragonfly/codes_theta.interconnect.gz");

Machine aries(const std::string& path) { return make_machine("aries:" + path); }

std::unique_ptr<Routing> routing(const Machine& m, const char* name) {
  return make_routing(m, parse_routing_spec(name));
}

// Router of a fabric switch, by name.
RouterId router(const Machine& m, const std::string& name) {
  const auto& fabric = std::get<FabricShape>(m.shape);
  const auto it = std::find(fabric.switch_names.begin(), fabric.switch_names.end(), name);
  EXPECT_NE(it, fabric.switch_names.end()) << name;
  return fabric.first_switch + static_cast<RouterId>(it - fabric.switch_names.begin());
}

PairLoads pair_loads(const Machine& m, const Routing& r, RouterId src, RouterId dst) {
  PairLoads loads;
  for (const auto& [channel, fraction] : test::route_loads(r, src, dst)) {
    loads[{m.channels[channel].src, m.channels[channel].dst}] += fraction;
  }
  return loads;
}

// The same channels (by their routers) with the same loads, to rounding.
void expect_loads(const PairLoads& actual, const PairLoads& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (auto a = actual.begin(), e = expected.begin(); a != actual.end(); ++a, ++e) {
    EXPECT_EQ(a->first, e->first);
    EXPECT_NEAR(a->second, e->second, 1e-12) << a->first.first << " -> " << a->first.second;
  }
}

// The plain file's routers by name: a00 a01 a10 a11 (group A), b0 b1 (B), c0 (C).
struct ThreeGroups {
  Machine m = aries(kThreeGroups);
  RouterId a00 = router(m, "a00"), a01 = router(m, "a01"), a10 = router(m, "a10"), a11 = router(m, "a11");
  RouterId b0 = router(m, "b0"), b1 = router(m, "b1"), c0 = router(m, "c0");
};

TEST(DragonflyFiles, PlainFileGroupsAndTheirCables) {
  const ThreeGroups t;
  const DragonflyGroups* groups = t.m.dragonfly_groups();
  ASSERT_NE(groups, nullptr);
  EXPECT_EQ(groups->names, (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_EQ(groups->group_of, (std::vector<std::uint32_t>{0, 0, 0, 0, 1, 1, 2}));
  EXPECT_EQ(groups->unroutable, "");
  auto count = [&](std::uint32_t from, std::uint32_t to) {
    const auto [begin, end] = groups->cables(from, to);
    return end - begin;
  };
  // The file's global links: a01-b0 and a10-b1 (A-B), a11-c0 (A-C), b0-c0 (B-C).
  EXPECT_EQ(count(0, 1), 2);
  EXPECT_EQ(count(1, 0), 2);
  EXPECT_EQ(count(0, 2), 1);
  EXPECT_EQ(count(2, 1), 1);
  const auto [begin, end] = groups->cables(0, 1);
  EXPECT_EQ(t.m.channels[begin[0]].src, t.a01);
  EXPECT_EQ(t.m.channels[begin[0]].dst, t.b0);
  EXPECT_EQ(t.m.channels[begin[1]].src, t.a10);
  EXPECT_EQ(t.m.channels[begin[1]].dst, t.b1);
  // Every Dragonfly routing applies; the fabric's default stays ecmp.
  EXPECT_EQ(routings_for(t.m), (std::vector<std::string>{"minimal", "valiant", "ugal", "ecmp", "updn"}));
  EXPECT_EQ(default_routing(t.m).text, "ecmp");
}

TEST(DragonflyFiles, MinimalSplitsOverTheCablesAndTheShortestLocalPaths) {
  const ThreeGroups t;
  const auto minimal = routing(t.m, "minimal");
  // a00 -> b0: half over cable a01-b0 (local a00->a01 first), half over a10-b1 (local a00->a10
  // first, local b1->b0 after): 2 and 3 hops, 2.5 on average.
  expect_loads(pair_loads(t.m, *minimal, t.a00, t.b0), (PairLoads{{{t.a00, t.a01}, 0.5},
                                                                {{t.a01, t.b0}, 0.5},
                                                                {{t.a00, t.a10}, 0.5},
                                                                {{t.a10, t.b1}, 0.5},
                                                                {{t.b1, t.b0}, 0.5}}));
  // ecmp takes the one shortest router path, a00 -> a01 -> b0.
  expect_loads(pair_loads(t.m, *routing(t.m, "ecmp"), t.a00, t.b0),
            (PairLoads{{{t.a00, t.a01}, 1.0}, {{t.a01, t.b0}, 1.0}}));
  // Inside group A, a00 and a11 are two hops apart by two paths (row then column, column then
  // row): half each.
  expect_loads(pair_loads(t.m, *minimal, t.a00, t.a11), (PairLoads{{{t.a00, t.a01}, 0.5},
                                                                {{t.a01, t.a11}, 0.5},
                                                                {{t.a00, t.a10}, 0.5},
                                                                {{t.a10, t.a11}, 0.5}}));
  // a01 -> c0: the one A-C cable leaves from a11, one local hop away. ecmp also takes
  // a01 -> b0 -> c0, as short, through group B; Dragonfly minimal never crosses a third group.
  expect_loads(pair_loads(t.m, *minimal, t.a01, t.c0), (PairLoads{{{t.a01, t.a11}, 1.0}, {{t.a11, t.c0}, 1.0}}));
  expect_loads(pair_loads(t.m, *routing(t.m, "ecmp"), t.a01, t.c0),
            (PairLoads{{{t.a01, t.a11}, 0.5}, {{t.a11, t.c0}, 0.5}, {{t.a01, t.b0}, 0.5}, {{t.b0, t.c0}, 0.5}}));
}

TEST(DragonflyFiles, ValiantGoesThroughEveryIntermediateGroupOverEachCable) {
  const ThreeGroups t;
  const auto valiant = routing(t.m, "valiant");
  // a00 -> b0: C is the only intermediate group, its one cable from A leaves a11 (two local
  // paths from a00, half each), then c0 -> b0.
  expect_loads(pair_loads(t.m, *valiant, t.a00, t.b0), (PairLoads{{{t.a00, t.a01}, 0.5},
                                                                {{t.a01, t.a11}, 0.5},
                                                                {{t.a00, t.a10}, 0.5},
                                                                {{t.a10, t.a11}, 0.5},
                                                                {{t.a11, t.c0}, 1.0},
                                                                {{t.c0, t.b0}, 1.0}}));
  // a00 -> a11 (inside A): half through B, half through C.
  // Through B, a quarter over each A-B cable: a00->a01->b0 and a00->a10->b1; from each landing
  // router minimal back to a11, an eighth over each B-A cable: b0->a01->a11 and b1->a10->a11,
  // with the local hop b0->b1 or b1->b0 before the cable that does not leave from there.
  // Through C: the local paths to a11 (a quarter each), a11->c0 and c0->a11 (half each).
  const PairLoads expected{{{t.a00, t.a01}, 0.25 + 0.25}, {{t.a00, t.a10}, 0.25 + 0.25},
                           {{t.a01, t.a11}, 0.125 + 0.125 + 0.25}, {{t.a10, t.a11}, 0.125 + 0.125 + 0.25},
                           {{t.a01, t.b0}, 0.25}, {{t.a10, t.b1}, 0.25},
                           {{t.b0, t.a01}, 0.125 + 0.125}, {{t.b1, t.a10}, 0.125 + 0.125},
                           {{t.b0, t.b1}, 0.125}, {{t.b1, t.b0}, 0.125},
                           {{t.a11, t.c0}, 0.5}, {{t.c0, t.a11}, 0.5}};
  expect_loads(pair_loads(t.m, *valiant, t.a00, t.a11), expected);
  // The mean hop count: through B, paths of 4, 5, 5 and 4 hops (an eighth of the flow each),
  // through C 2 + 1 + 1 hops (half): 4.5 / 2 + 4 / 2 = 4.25.
  double hops = 0;
  for (const auto& [pair, fraction] : expected) hops += fraction;
  EXPECT_DOUBLE_EQ(hops, 4.25);
}

TEST(DragonflyFiles, MclOfTwoFlowsUnderEachRouting) {
  // One slot per router (one node each, ppn 1), task i on router i: flows a00 -> b0 and
  // a01 -> b0 of volume 1; every link has the same rate (bandwidth 1).
  const ThreeGroups t;
  const CommGraph g = CommGraph::from_edges(7, {{t.a00, t.b0, 1.0}, {t.a01, t.b0, 1.0}});
  const Mapping identity{{0, 1, 2, 3, 4, 5, 6}, {}};
  auto mcl = [&](const char* name) {
    const MappingProblem problem(t.m, g, name);
    return Evaluator(problem).evaluate(g, identity).mcl;
  };
  // minimal: a00 -> b0 as above (a half on a01->b0, a10->b1, b1->b0); a01 -> b0 half direct,
  // half over a10-b1 (a01 -> a00 -> a10 or a01 -> a11 -> a10, a quarter each, then a10->b1,
  // b1->b0 a half each): a01->b0, a10->b1 and b1->b0 carry 1.
  EXPECT_DOUBLE_EQ(mcl("minimal"), 1.0);
  // ecmp: both flows take a01 -> b0, its one shortest path: 2.
  EXPECT_DOUBLE_EQ(mcl("ecmp"), 2.0);
  // valiant: both through C, whose cables a11->c0 and c0->b0 carry both flows whole: 2.
  EXPECT_DOUBLE_EQ(mcl("valiant"), 2.0);
  // ugal takes the first flow minimally (an idle network); the second then sees 2.5 hops (1 over
  // a01-b0, 4 over a10-b1) x 0.5 (a01->b0) minimally against 3 hops x 0 through C, and takes C:
  // a01->a11, a11->c0, c0->b0 carry 1, the first flow's channels 0.5 (a00->a10 0.5 too): MCL 1.
  EXPECT_DOUBLE_EQ(mcl("ugal"), 1.0);
}

TEST(DragonflyFiles, AriesGroupsSkipAMissingGroupNumber) {
  const Machine m = aries(kThreeGroupsAries);
  const DragonflyGroups* groups = m.dragonfly_groups();
  ASSERT_NE(groups, nullptr);
  // The file's groups are 0, 1 and 3: group 2 has no router, so it is no group.
  EXPECT_EQ(groups->names, (std::vector<std::string>{"0", "1", "3"}));
  const RouterId r0 = router(m, "c0-0c0s0a0"), r1 = router(m, "c0-0c0s1a0"), r2 = router(m, "c1-0c0s0a0");
  const RouterId r3 = router(m, "c1-0c0s1a0"), r4 = router(m, "c3-0c0s0a0"), r5 = router(m, "c3-0c0s1a0");
  // Minimal (0:0:0) -> (1:0:1): half over the blue cable r0-r2 then green r2->r3, half green
  // r0->r1 then blue r1-r3.
  expect_loads(pair_loads(m, *routing(m, "minimal"), r0, r3),
            (PairLoads{{{r0, r2}, 0.5}, {{r2, r3}, 0.5}, {{r0, r1}, 0.5}, {{r1, r3}, 0.5}}));
  // Valiant: group 3 is the only intermediate group (not 2 and 3): its one cable from group 0
  // leaves r1 and lands on r4; from there, group 3's one cable to group 1 leaves r5 to r2.
  expect_loads(pair_loads(m, *routing(m, "valiant"), r0, r3),
            (PairLoads{{{r0, r1}, 1.0}, {{r1, r4}, 1.0}, {{r4, r5}, 1.0}, {{r5, r2}, 1.0}, {{r2, r3}, 1.0}}));
}

TEST(DragonflyFiles, DragonflyRoutingRefusesGroupsItCannotRoute) {
  const Machine no_cable = aries(test::instance("aries/no-cable.dragonfly"));
  EXPECT_EQ(test::error_message([&] { routing(no_cable, "minimal"); }),
            "--routing 'minimal' does not apply to aries machines (no global link leads from group 'A' to group "
            "'C'; use ecmp or updn)");
  EXPECT_EQ(default_routing(no_cable).text, "ecmp");
  const Machine split = aries(test::instance("aries/split-group.dragonfly"));
  EXPECT_EQ(test::error_message([&] { routing(split, "valiant"); }),
            "--routing 'valiant' does not apply to aries machines (group 'A' is in pieces: its local links do not "
            "join router 'a0' to router 'a1'; use ecmp or updn)");
  // Fabrics without groups: the Dragonfly routings do not apply.
  EXPECT_EQ(test::error_message([] { routing(make_machine("slurm:" + test::instance("slurm/forest.conf")), "ugal"); }),
            "--routing 'ugal' does not apply to slurm machines (it routes through Dragonfly groups; use ecmp or updn)");
}

// The balanced dragonfly (p, a, h) = (2, 4, 2) written as a plain file by the consecutive rule
// of [Dragonfly-BAC] (DESIGN.md): port l of group G (router l / h) leads to group G + 1 + l mod g.
std::string balanced_as_file() {
  const std::uint32_t p = 2, a = 4, h = 2, g = a * h + 1;
  std::string text;
  for (std::uint32_t r = 0; r < g * a; ++r) text += fmt::format("router r{} g{}\n", r, r / a);
  for (std::uint32_t G = 0; G < g; ++G)
    for (std::uint32_t i = 0; i < a; ++i)
      for (std::uint32_t j = i + 1; j < a; ++j) text += fmt::format("link r{} r{} local\n", G * a + i, G * a + j);
  auto owner = [&](std::uint32_t G, std::uint32_t H) {  // the router of G holding the cable to H
    for (std::uint32_t l = 0; l < a * h; ++l)
      if ((G + 1 + l) % g == H) return G * a + l / h;
    return UINT32_MAX;
  };
  for (std::uint32_t G = 0; G < g; ++G)
    for (std::uint32_t H = G + 1; H < g; ++H) text += fmt::format("link r{} r{} global\n", owner(G, H), owner(H, G));
  for (std::uint32_t r = 0; r < g * a; ++r) text += fmt::format("nodes r{} {}\n", r, p);
  const auto path = std::filesystem::temp_directory_path() / fmt::format("taskmap-balanced-{}.dragonfly", ::getpid());
  std::ofstream(path) << text;
  return path.string();
}

TEST(DragonflyFiles, TheBalancedDragonflyAsAFileLoadsItsChannelsAlike) {
  const std::string file = balanced_as_file();
  const Machine from_file = aries(file);
  std::filesystem::remove(file);
  const Machine balanced = make_machine("dragonfly:p=2,a=4,h=2");
  ASSERT_EQ(from_file.num_routers, balanced.num_routers);
  ASSERT_EQ(from_file.num_slots(), balanced.num_slots());  // 36 routers x 2 nodes x 1 slot
  // A random placement of an all-to-all and of a 2D halo: the same slot is on the same router in
  // both machines (nodes router by router), so every channel (src, dst) must carry the same load.
  for (const char* pattern : {"alltoall:72", "halo2d:8x9"}) {
    const CommGraph graph = build_pattern(parse_pattern_spec(pattern));
    const MappingProblem on_balanced(balanced, graph);
    const Mapping placement = test::run_mapper_on(on_balanced, "random:seed=3");
    for (const char* name : {"minimal", "valiant", "ugal"}) {
      auto loads = [&](const Machine& m) {
        const MappingProblem problem(m, graph, name);
        std::vector<double> per_channel;
        const Metrics metrics = Evaluator(problem).evaluate(graph, placement, &per_channel);
        PairLoads by_pair;
        for (ChannelId c = 0; c < m.channels.size(); ++c) by_pair[{m.channels[c].src, m.channels[c].dst}] += per_channel[c];
        return std::pair(metrics.mcl, by_pair);
      };
      const auto [mcl_balanced, by_pair_balanced] = loads(balanced);
      const auto [mcl_file, by_pair_file] = loads(from_file);
      EXPECT_GT(mcl_balanced, 0.0);
      EXPECT_EQ(mcl_file, mcl_balanced) << pattern << ", " << name;
      EXPECT_EQ(by_pair_file, by_pair_balanced) << pattern << ", " << name;
    }
  }
}

// Per router, flow in minus flow out of a unit flow src -> dst: -1 at src, +1 at dst, 0 elsewhere.
void expect_conserved(const Machine& m, const Routing& r, RouterId src, RouterId dst) {
  std::map<RouterId, double> net;
  for (const auto& [pair, fraction] : pair_loads(m, r, src, dst)) net[pair.first] -= fraction, net[pair.second] += fraction;
  for (const auto& [router, value] : net) {
    const double expected = router == src ? -1.0 : router == dst ? 1.0 : 0.0;
    EXPECT_NEAR(value, expected, 1e-12) << "router " << router << " of the flow " << src << " -> " << dst;
  }
}

// The fractions a route puts on global channels (between two groups).
double global_hops(const Machine& m, const Routing& r, RouterId src, RouterId dst) {
  const DragonflyGroups& groups = *m.dragonfly_groups();
  double sum = 0;
  for (const auto& [pair, fraction] : pair_loads(m, r, src, dst))
    if (groups.group_of[pair.first] != groups.group_of[pair.second]) sum += fraction;
  return sum;
}

TEST(DragonflyFiles, EdisonsGroupsCablesAndRoutes) {
  TASKMAP_REQUIRE_SHARED_DATA(kEdison);
  const Machine m = aries(kEdison);
  const DragonflyGroups* groups = m.dragonfly_groups();
  ASSERT_NE(groups, nullptr);
  // zcat codes_links-edison.txt.gz | awk '{ split($1, a, /[(:)]/); g[a[2]] = 1 } END { for (k in g) n++; print n }'
  // prints 15: groups 0-11 and 13-15 (SOURCES.md: no group 12).
  ASSERT_EQ(groups->num_groups(), 15u);
  EXPECT_EQ(groups->names[11], "11");
  EXPECT_EQ(groups->names[12], "13");
  // zcat ... | awk '$2 == "blue" && $4 != "unused" { split($1, a, /[(:)]/); split($4, b, /[(:)]/);
  //   p[a[2] " " b[2]]++ } END { print p["0 1"], p["3 7"] }' prints 24 24; the same count for
  // each of the 210 ordered pairs of groups.
  const auto [begin, end] = groups->cables(0, 1);
  EXPECT_EQ(end - begin, 24);
  for (std::uint32_t G = 0; G < 15; ++G)
    for (std::uint32_t H = 0; H < 15; ++H)
      if (G != H) {
        EXPECT_EQ(groups->cables(G, H).second - groups->cables(G, H).first, 24) << G << " -> " << H;
      }
  EXPECT_EQ(groups->unroutable, "");

  const auto minimal = routing(m, "minimal");
  const auto valiant = routing(m, "valiant");
  // c0-0c0s0a0 (0:0:0) to c0-0c1s1a0 (0:1:1): neither row nor column in common, two local hops:
  // green to c0-0c0s1a0 (0:0:1) then one of its 3 black cables to (0:1:1), or one of 3 black
  // cables to c0-0c1s0a0 (0:1:0) then green. 6 paths: each green hop 3/6, each black cable 1/6
  // (the file: "c0-0c0s0a0l23(0:0:0) green -> c0-0c0s1a0l20(0:0:1)", "c0-0c0s1a0l37 black ->
  // c0-0c1s1a0l45", l46 -> l36, l47 -> l35; the same from (0:0:0) to (0:1:0) and green
  // (0:1:0) -> (0:1:1)).
  const RouterId s = router(m, "c0-0c0s0a0"), t = router(m, "c0-0c1s1a0");
  const RouterId via_row = router(m, "c0-0c0s1a0"), via_column = router(m, "c0-0c1s0a0");
  expect_loads(pair_loads(m, *minimal, s, t), (PairLoads{{{s, via_row}, 0.5},
                                                      {{via_row, t}, 0.5},
                                                      {{s, via_column}, 0.5},
                                                      {{via_column, t}, 0.5}}));
  std::vector<ChannelShare> shares;
  minimal->route(s, t, shares);
  EXPECT_EQ(shares.size(), 8u);  // 2 green + 3 + 3 black channels
  for (const ChannelShare& share : shares) {
    const bool green = m.channels[share.channel].src == s ? m.channels[share.channel].dst == via_row
                                                          : m.channels[share.channel].src == via_column;
    EXPECT_DOUBLE_EQ(share.fraction, green ? 0.5 : 1.0 / 6) << share.channel;
  }
  // Between groups: a minimal route crosses exactly one global channel, Valiant's exactly two;
  // every route conserves its flow router by router.
  // The first router of group 0 to one of group 7, the last of group 14 to the first of group 2,
  // a router of group 3 to one of group 12 (the file's group 13).
  auto in_group = [&](std::uint32_t group, std::size_t k) {
    std::vector<RouterId> routers;
    for (RouterId r = 0; r < m.num_routers; ++r)
      if (groups->group_of[r] == group) routers.push_back(r);
    return routers.at(k % routers.size());
  };
  for (auto [a, b] : {std::pair{in_group(0, 0), in_group(7, 40)}, std::pair{in_group(14, 95), in_group(2, 0)},
                      std::pair{in_group(3, 17), in_group(12, 63)}}) {
    ASSERT_NE(groups->group_of[a], groups->group_of[b]);
    EXPECT_NEAR(global_hops(m, *minimal, a, b), 1.0, 1e-12);
    EXPECT_NEAR(global_hops(m, *valiant, a, b), 2.0, 1e-12);
    expect_conserved(m, *minimal, a, b);
    expect_conserved(m, *valiant, a, b);
  }
  expect_conserved(m, *minimal, s, t);
  expect_conserved(m, *valiant, s, t);
  EXPECT_NEAR(global_hops(m, *valiant, s, t), 2.0, 1e-12);
}

TEST(DragonflyFiles, ThetasGroupsAndCables) {
  TASKMAP_REQUIRE_SHARED_DATA(kTheta);
  const Machine m = aries(kTheta);
  const DragonflyGroups* groups = m.dragonfly_groups();
  ASSERT_NE(groups, nullptr);
  // The awk counts of the Edison test on codes_theta.interconnect.gz: 9 groups, 48 blue cables
  // for every one of the 72 ordered pairs of groups.
  ASSERT_EQ(groups->num_groups(), 9u);
  for (std::uint32_t G = 0; G < 9; ++G)
    for (std::uint32_t H = 0; H < 9; ++H)
      if (G != H) {
        EXPECT_EQ(groups->cables(G, H).second - groups->cables(G, H).first, 48) << G << " -> " << H;
      }
  const auto minimal = routing(m, "minimal");
  EXPECT_NEAR(global_hops(m, *minimal, 0, 863), 1.0, 1e-12);
  expect_conserved(m, *minimal, 0, 863);
}

}  // namespace
}  // namespace taskmap
