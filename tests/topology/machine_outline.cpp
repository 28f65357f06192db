// Outlines and closed forms: for every structured family, the channel counts, diameter and
// average distance `info` computes without building channels must equal what a breadth-first
// search over the built machine's channels (or, on Dragonfly and PERCS, the hop distance of
// their minimal routes, pair by pair) counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>

#include "taskmap/core/error.h"
#include "taskmap/topology/distance.h"
#include "taskmap/topology/fabric.h"
#include "taskmap/topology/machine_spec.h"
#include "taskmap/topology/partial_cube.h"
#include "taskmap/routing/routing.h"
#include "test_support.h"

namespace taskmap {
namespace {

// Hops from `a` to every router by a breadth-first search over the channels (UINT32_MAX: unreached).
std::vector<std::uint32_t> search_from(const Machine& m, RouterId a) {
  std::vector<std::uint32_t> dist(m.num_routers, UINT32_MAX);
  std::deque<RouterId> queue{a};
  dist[a] = 0;
  while (!queue.empty()) {
    const RouterId u = queue.front();
    queue.pop_front();
    for (const Channel& c : m.channels) {
      if (c.src == u && dist[c.dst] == UINT32_MAX) dist[c.dst] = dist[u] + 1, queue.push_back(c.dst);
    }
  }
  return dist;
}

// All-pairs distances by BFS over the channels, or by HopDistance where minimal routes are not
// shortest paths.
TopologyStats brute_force(const Machine& m, bool by_route) {
  TopologyStats s;
  const HopDistance hop(m);
  long double sum = 0;
  for (RouterId a = 0; a < m.num_routers; ++a) {
    std::vector<std::uint32_t> dist(m.num_routers, UINT32_MAX);
    if (by_route) {
      for (RouterId b = 0; b < m.num_routers; ++b) dist[b] = hop(a, b);
    } else {
      dist = search_from(m, a);
    }
    for (RouterId b = 0; b < m.num_routers; ++b) sum += dist[b], s.diameter = std::max(s.diameter, dist[b]);
  }
  s.avg_distance = static_cast<double>(sum / (static_cast<long double>(m.num_routers) * (m.num_routers - 1)));
  return s;
}

void expect_outline_matches(const std::string& text) {
  SCOPED_TRACE(text);
  const MachineSpec spec = parse_machine_spec(text);
  const Machine full = build_machine(spec);
  const Machine outline = build_machine(spec, {}, BuildDetail::Outline);
  ASSERT_TRUE(outline.outline);
  EXPECT_TRUE(outline.channels.empty());
  EXPECT_EQ(outline.num_routers, full.num_routers);
  EXPECT_EQ(outline.num_slots(), full.num_slots());
  ASSERT_EQ(outline.classes.size(), full.classes.size());
  EXPECT_EQ(channels_per_class(outline), channels_per_class(full));
  const bool by_route = spec.kind == MachineKind::Dragonfly || spec.kind == MachineKind::Percs;
  const TopologyStats expected = brute_force(full, by_route);
  const TopologyStats closed = topology_stats(outline);
  EXPECT_FALSE(closed.estimated);
  EXPECT_EQ(closed.diameter, expected.diameter);
  EXPECT_EQ(closed.diameter_upper, expected.diameter);
  EXPECT_NEAR(closed.avg_distance, expected.avg_distance, 1e-12 * expected.avg_distance);
  EXPECT_EQ(topology_stats(full).avg_distance, closed.avg_distance);
}

// A host hung on one cable takes its switch's distances plus one; a host on two switches, a
// switch with a single host, and the two routers of a one-cable fabric do not: every pair by
// HopDistance must still equal a breadth-first search over the channels.
TEST(HopDistances, OnFabricsEqualSearchForEveryPair) {
  Fabric rails;  // h0 on s0 and s1 (two rails), h1 on s0, h2 on s2 (alone there), s0-s1-s2 a chain
  rails.source = "rails";
  rails.switches = {"s0", "s1", "s2"};
  rails.hosts = {"h0", "h1", "h2"};
  rails.host_ports = {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {2, 2, 0}};
  rails.cables = {{0, 1, 0}, {1, 2, 0}};
  Fabric pair;  // one host on one switch: each has one cable to the other only
  pair.source = "pair";
  pair.switches = {"s"};
  pair.hosts = {"h"};
  pair.host_ports = {{0, 0, 0}};
  for (const Machine& m : {test::four_named_nodes(2), build_fabric_machine(rails, {.slots_per_node = 1, .description = "rails"}),
                           build_fabric_machine(pair, {.slots_per_node = 1, .description = "pair"})}) {
    SCOPED_TRACE(m.description);
    const HopDistance hop(m);
    for (RouterId a = 0; a < m.num_routers; ++a) {
      const std::vector<std::uint32_t> dist = search_from(m, a);
      for (RouterId b = 0; b < m.num_routers; ++b) EXPECT_EQ(hop(a, b), dist[b]) << a << " -> " << b;
    }
  }
}

TEST(MachineOutline, ClosedFormsMatchSearchOnTori) {
  for (const char* m : {"torus:4", "torus:5", "torus:2", "mesh:3x4", "torus:2x3x4,mesh=B", "torus:4x4x2",
                        "hypercube:d=3", "torus:1x3x2,mesh=C", "mesh:6,wrap=A"}) {
    expect_outline_matches(m);
  }
}

TEST(MachineOutline, ClosedFormsMatchSearchOnRectangularTori) {
  for (int a = 2; a <= 6; ++a) {
    expect_outline_matches("rt:a=" + std::to_string(a));
    expect_outline_matches("rtt:a=" + std::to_string(a));
  }
}

TEST(MachineOutline, ClosedFormsMatchRoutesOnDragonflies) {
  for (int a = 1; a <= 4; ++a) {
    for (int h = 1; h <= 3; ++h) {
      expect_outline_matches("dragonfly:p=1,a=" + std::to_string(a) + ",h=" + std::to_string(h));
    }
  }
  expect_outline_matches("dragonfly:p=2,a=3,h=2,wiring=palmtree");
}

TEST(MachineOutline, ClosedFormsMatchRoutesOnPercs) {
  for (const char* m : {"percs:ns=1,nd=32", "percs:ns=2,nd=16", "percs:ns=4,nd=8", "percs:ns=8,nd=4",
                        "percs:ns=32,nd=1", "percs:ns=2,nd=32"}) {
    expect_outline_matches(m);
  }
}

TEST(MachineOutline, ClosedFormsMatchSearchOnFatTrees) {
  for (int k = 2; k <= 4; ++k) {
    for (int n = 1; n <= 3; ++n) expect_outline_matches("fattree:k=" + std::to_string(k) + ",n=" + std::to_string(n));
  }
}

// The counts of a machine of millions of routers, by hand: 2048 x 2048 ring pairs have 4
// channels per router; the average distance of a ring of 2048 is 2048/4 over all pairs.
TEST(MachineOutline, DescribesLargeMachinesWithoutChannels) {
  const Machine torus = build_machine(parse_machine_spec("torus:2048x2048"), {}, BuildDetail::Outline);
  const auto counts = channels_per_class(torus);
  ASSERT_EQ(counts.size(), 4u);
  for (auto c : counts) EXPECT_EQ(c, 2048u * 2048u);
  const TopologyStats s = topology_stats(torus);
  EXPECT_EQ(s.diameter, 2048u);
  const double n = 2048.0 * 2048.0;
  EXPECT_DOUBLE_EQ(s.avg_distance, 2 * 512.0 * n / (n - 1));
  // Dragonfly (100, 100, 100): 10,001 groups; a^2 + 2a(a-1) hops between two groups.
  const Machine df = build_machine(parse_machine_spec("dragonfly:p=100,a=100,h=100"), {}, BuildDetail::Outline);
  EXPECT_EQ(df.num_routers, 1000100u);
  EXPECT_EQ(channels_per_class(df), (std::vector<std::uint64_t>{10001ull * 100 * 99, 10001ull * 10000}));
  const long double g = 10001, a = 100, routers = g * a;
  const long double sum = g * a * (a - 1) + g * (g - 1) * (a * a + 2 * a * (a - 1));
  EXPECT_NEAR(topology_stats(df).avg_distance, static_cast<double>(sum / (routers * (routers - 1))), 1e-12);
  EXPECT_THROW(make_routing(df, parse_routing_spec("minimal")), Error);  // nothing to route on
}

// Ring of k: k/2 classes when k is even, k-1 on a line (Ovchinnikov, Partial cubes: structures,
// characterizations and constructions); products add up. Checked against the Djoković test.
TEST(MachineOutline, TorusPartialCubeAnswerAgreesWithTheTest) {
  for (const char* m : {"torus:4", "torus:6x2", "mesh:3x5", "torus:4x3,mesh=B", "torus:5", "torus:4x3", "torus:2x2x2",
                        "hypercube:d=4", "torus:1x4"}) {
    SCOPED_TRACE(m);
    const Machine machine = make_machine(m);
    const PartialCubeAnswer answer = partial_cube_answer(machine);
    try {
      const PartialCube pc = PartialCube::of_machine(machine);
      EXPECT_EQ(answer.verdict, PartialCubeAnswer::Verdict::Yes) << answer.reason;
      EXPECT_EQ(answer.dims, pc.dims());
    } catch (const Error&) {
      EXPECT_EQ(answer.verdict, PartialCubeAnswer::Verdict::No);
    }
  }
  EXPECT_EQ(partial_cube_answer(build_machine(parse_machine_spec("torus:2048x2048"), {}, BuildDetail::Outline)).dims,
            2048u);
}

// A graph too large for every row is sampled: the 99% interval must hold the exact average and
// the diameter bounds the exact diameter (a 40 x 40 mesh given as a plain graph; its exact
// values come from the mesh's closed form).
TEST(MachineOutline, SampledDistanceBoundsHoldTheExactValues) {
  Machine mesh = make_machine("mesh:40x40");
  const TopologyStats exact = topology_stats(mesh);
  mesh.shape = GraphShape{};
  const TopologyStats all_rows = topology_stats(mesh);
  EXPECT_FALSE(all_rows.estimated);
  EXPECT_EQ(all_rows.diameter, exact.diameter);
  EXPECT_NEAR(all_rows.avg_distance, exact.avg_distance, 1e-12);
  const std::uint64_t per_row = mesh.num_routers + mesh.channels.size();
  const TopologyStats sampled = topology_stats(mesh, 100 * per_row);
  EXPECT_TRUE(sampled.estimated);
  EXPECT_EQ(sampled.sources, 100u);
  EXPECT_GT(sampled.avg_error, 0);
  EXPECT_LE(std::abs(sampled.avg_distance - exact.avg_distance), sampled.avg_error);
  EXPECT_LE(sampled.diameter, exact.diameter);
  EXPECT_GE(sampled.diameter_upper, exact.diameter);
  // Same seed, same numbers.
  EXPECT_EQ(topology_stats(mesh, 100 * per_row).avg_distance, sampled.avg_distance);
}

}  // namespace
}  // namespace taskmap
