// Machines: channel structure, the wiring rules of each family, distances, machine files.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "taskmap/core/error.h"
#include "taskmap/topology/distance.h"
#include "taskmap/topology/partial_cube.h"
#include "taskmap/topology/rect_torus_geometry.h"
#include "test_support.h"

namespace taskmap {
namespace {

TEST(Torus, FourByFourHasFourChannelsPerRouter) {
  Machine m = make_machine("torus:4x4");
  EXPECT_EQ(m.num_routers, 16u);
  EXPECT_EQ(m.channels.size(), 64u);
  EXPECT_EQ(test::class_counts(m), (std::map<std::string, int>{{"A+", 16}, {"A-", 16}, {"B+", 16}, {"B-", 16}}));
}

TEST(Torus, SizeTwoWrapDimensionHasTwoParallelChannelsPerDirection) {
  Machine m = make_machine("torus:2x3");
  const TorusShape& t = *m.torus();
  // Router 0 = (A0,B0); its A neighbour is router 3 = (A1,B0), reached by both A+ and A-.
  const Channel& plus = m.channels[t.channel(0, 0, 0)];
  const Channel& minus = m.channels[t.channel(0, 0, 1)];
  EXPECT_EQ(plus.dst, 3u);
  EXPECT_EQ(minus.dst, 3u);
  EXPECT_NE(t.channel(0, 0, 0), t.channel(0, 0, 1));
  EXPECT_EQ(m.channels.size(), 24u);
}

TEST(Torus, MeshDimensionsHaveNoWraparound) {
  Machine m = make_machine("torus:4x4x4x8x2,mesh=D,ppn=16");
  const TorusShape& t = *m.torus();
  EXPECT_EQ(m.num_slots(), 16384u);
  EXPECT_FALSE(t.wrap[3]);
  EXPECT_TRUE(t.wrap[4]);
  // A router at D = 7 has no D+ channel, one at D = 0 no D- channel.
  RouterId d7 = 7 * t.strides[3], d0 = 0;
  EXPECT_EQ(t.channel(d7, 3, 0), kNoChannel);
  EXPECT_EQ(t.channel(d0, 3, 1), kNoChannel);
  // 4 wrap dims x 2 directions x 1024 routers + D: 2 directions x 7 links x 128 lines.
  EXPECT_EQ(m.channels.size(), 4u * 2 * 1024 + 2 * 7 * 128);
}

TEST(Torus, HypercubeHasOneChannelPerDirection) {
  Machine m = make_machine("hypercube:d=3");
  EXPECT_EQ(m.num_routers, 8u);
  EXPECT_EQ(m.channels.size(), 24u);
  HopDistance dist(m);
  EXPECT_EQ(dist(0, 7), 3u);
  EXPECT_EQ(dist(5, 6), 2u);
}

TEST(Torus, TopologyStatsOfSmallTori) {
  // Ring of 4: distances 1, 2, 1 from any node.
  TopologyStats ring = topology_stats(make_machine("torus:4"));
  EXPECT_EQ(ring.diameter, 2u);
  EXPECT_DOUBLE_EQ(ring.avg_distance, 4.0 / 3.0);
  // 4x4 torus: the distances from one node add up to 32 over 15 others.
  TopologyStats t = topology_stats(make_machine("torus:4x4"));
  EXPECT_EQ(t.diameter, 4u);
  EXPECT_DOUBLE_EQ(t.avg_distance, 32.0 / 15.0);
  // 3-node line: pairs (0,1),(1,2) at 1 and (0,2) at 2, both directions.
  TopologyStats line = topology_stats(make_machine("mesh:3"));
  EXPECT_EQ(line.diameter, 2u);
  EXPECT_DOUBLE_EQ(line.avg_distance, 4.0 / 3.0);
}

TEST(RectTorus, TwistedWraparoundFollowsDefinition21) {
  Machine m = make_machine("rtt:a=4");
  const auto& s = std::get<RectTorusShape>(m.shape);
  auto id = [&](std::uint32_t x, std::uint32_t y) { return rect_router(s, {x, y}); };
  auto neighbour = [&](RouterId r, int k) { return m.channels[s.channel_of[r * 4 + k]].dst; };
  // (x, 0) ~ (x + a, a - 1) for x < a, (x, 0) ~ (x - a, a - 1) for x >= a, (0, y) ~ (2a - 1, y).
  EXPECT_EQ(neighbour(id(1, 0), 3), id(5, 3));
  EXPECT_EQ(neighbour(id(5, 3), 2), id(1, 0));
  EXPECT_EQ(neighbour(id(5, 0), 3), id(1, 3));
  EXPECT_EQ(neighbour(id(0, 2), 1), id(7, 2));
  EXPECT_EQ(neighbour(id(7, 2), 0), id(0, 2));
  // Inner links form the mesh.
  EXPECT_EQ(neighbour(id(2, 1), 2), id(2, 2));
}

TEST(RectTorus, AlgorithmRecordsAreMinimalAndReachTheDestination) {
  for (const char* spec : {"rt:a=4", "rtt:a=4", "rt:a=5", "rtt:a=8", "rtt:a=3"}) {
    Machine m = make_machine(spec);
    const auto& s = std::get<RectTorusShape>(m.shape);
    for (RouterId a = 0; a < m.num_routers; ++a) {
      for (RouterId b = 0; b < m.num_routers; ++b) {
        RectPoint pa = rect_point(s, a), pb = rect_point(s, b);
        std::int64_t dx = std::int64_t(pb.x) - pa.x, dy = std::int64_t(pb.y) - pa.y;
        RectRecord alg = rect_algorithm_record(s, dx, dy);
        auto minimal = rect_minimal_records(s, dx, dy);
        ASSERT_EQ(std::llabs(alg.x) + std::llabs(alg.y), std::llabs(minimal[0].x) + std::llabs(minimal[0].y))
            << spec << " " << a << "->" << b;
        RectPoint end = rect_reduce(s, pa.x + alg.x, pa.y + alg.y);
        ASSERT_EQ(rect_router(s, end), b) << spec;
      }
    }
  }
}

TEST(RectTorus, DiametersOfRttTable1) {
  // [RTT-map Table 1]: k = 3a/2 for RT(a), k = a for RTT(a).
  for (std::uint32_t a : {4u, 8u}) {
    EXPECT_EQ(topology_stats(make_machine(fmt::format("rt:a={}", a))).diameter, 3 * a / 2);
    EXPECT_EQ(topology_stats(make_machine(fmt::format("rtt:a={}", a))).diameter, a);
  }
}

TEST(Dragonfly, ConsecutiveWiringGivesOneCablePerGroupPair) {
  Machine m = make_machine("dragonfly:p=2,a=4,h=2");
  const auto& s = std::get<DragonflyShape>(m.shape);
  EXPECT_EQ(s.g, 9u);
  EXPECT_EQ(m.num_routers, 36u);
  EXPECT_EQ(m.num_nodes(), 72u);
  EXPECT_EQ(test::class_counts(m), (std::map<std::string, int>{{"local", 9 * 4 * 3}, {"global", 9 * 8}}));
  // Router 1 of group 0 owns ports 2 and 3, which lead to groups 3 and 4.
  EXPECT_EQ(m.channels[s.global_of[0 * 9 + 3]].src, s.router(0, 1));
  EXPECT_EQ(m.channels[s.global_of[0 * 9 + 4]].src, s.router(0, 1));
  // Group 3 reaches group 0 through its port (0 - 3 - 1) mod 9 = 5, owned by router 2.
  EXPECT_EQ(m.channels[s.global_of[0 * 9 + 3]].dst, s.router(3, 2));
  // Every router holds exactly h = 2 global channels.
  std::vector<int> per_router(m.num_routers, 0);
  for (const auto& c : m.channels) per_router[c.src] += m.classes[c.link_class].name == "global";
  for (int n : per_router) EXPECT_EQ(n, 2);
}

TEST(Dragonfly, PalmTreeWiringMirrorsTheGroups) {
  Machine m = make_machine("dragonfly:p=1,a=4,h=2,wiring=palmtree");
  const auto& s = std::get<DragonflyShape>(m.shape);
  // Port 2 of group 0 (router 1) leads to group (0 - 1 - 2) mod 9 = 6.
  EXPECT_EQ(m.channels[s.global_of[0 * 9 + 6]].src, s.router(0, 1));
}

TEST(Percs, WiringOfFigure1b) {
  // (32, 2): bucket 0 links node 11 of supernode 2 with node 2 of supernode 11; bucket 1
  // links node 27 of supernode 2 with node 18 of supernode 11.
  Machine m = make_machine("percs:ns=32,nd=2");
  const auto& s = std::get<PercsShape>(m.shape);
  EXPECT_EQ(s.h, 2u);
  EXPECT_EQ(m.channels[s.d_channel(2, 0, 11)].src, 2u * 32 + 11);
  EXPECT_EQ(m.channels[s.d_channel(2, 0, 11)].dst, 11u * 32 + 2);
  EXPECT_EQ(m.channels[s.d_channel(2, 1, 11)].src, 2u * 32 + 27);
  EXPECT_EQ(m.channels[s.d_channel(2, 1, 11)].dst, 11u * 32 + 18);
  // Self-loop D link of bucket 0 of supernode 1: on node 1.
  EXPECT_EQ(m.channels[s.d_channel(1, 0, 1)].src, 1u * 32 + 1);
  EXPECT_EQ(m.channels[s.d_channel(1, 0, 1)].dst, 1u * 32 + 1);
  EXPECT_EQ(test::class_counts(m), (std::map<std::string, int>{{"LL", 32 * 4 * 64}, {"LR", 32 * (1024 - 256)},
                                                          {"D", 32 * 2 * 32}}));
  EXPECT_EQ(m.num_slots(), 32u * 32 * 4);
  EXPECT_EQ(m.classes[0].bandwidth, 21.0);
  EXPECT_EQ(m.classes[1].bandwidth, 5.0);
  EXPECT_EQ(m.classes[2].bandwidth, 10.0);
}

TEST(Percs, DistancesCountRealHops) {
  Machine m = make_machine("percs:ns=32,nd=2");
  HopDistance dist(m);
  EXPECT_EQ(dist(2 * 32 + 1, 2 * 32 + 30), 1u);   // same supernode: one L hop
  EXPECT_EQ(dist(2 * 32 + 11, 11 * 32 + 2), 1u);  // the D link's two ends
  EXPECT_EQ(dist(2 * 32 + 1, 11 * 32 + 31), 3u);  // L-D-L
  EXPECT_EQ(dist(2 * 32 + 11, 11 * 32 + 31), 2u); // D-L
}

TEST(Machines, ImpossibleMachinesAreRejectedWithTheReason) {
  auto message = [](const std::string& spec) {
    try {
      make_machine(spec);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("percs:ns=32,nd=3").find("nd=3 does not divide 32"), std::string::npos);
  EXPECT_NE(message("percs:ns=1024,nd=32").find("exceeds the 16 D ports"), std::string::npos);
  EXPECT_NE(message("percs:ns=16,nd=1").find("is not an integer"), std::string::npos);
  EXPECT_NE(message("torus:4x0x4").find("dimension size 0"), std::string::npos);
  EXPECT_NE(message("torus:4x4,mesh=E").find("'E' is not a dimension letter"), std::string::npos);
  EXPECT_NE(message("cube:4").find("unknown machine 'cube'"), std::string::npos);
  EXPECT_NE(message("dragonfly:p=2,a=4").find("missing h="), std::string::npos);
  EXPECT_NE(message("torus:4x4,speed=9").find("torus: unknown parameter 'speed'"), std::string::npos);
  EXPECT_NE(message("rtt:a=1").find("a must be at least 2"), std::string::npos);
  EXPECT_NE(message("torus:65536x65536").find("more than taskmap supports"), std::string::npos);
}

TEST(GraphMachine, ReadsTheDocumentedFormat) {
  Machine m = make_machine("graph:" + test::instance("square.topo") + ",ppn=2");
  EXPECT_EQ(m.num_routers, 4u);
  EXPECT_EQ(m.channels.size(), 8u);
  EXPECT_EQ(m.classes.at(0).name, "wire");
  EXPECT_EQ(m.classes.at(0).bandwidth, 2.0);
  EXPECT_EQ(m.num_slots(), 8u);
  HopDistance dist(m);
  EXPECT_EQ(dist(0, 2), 2u);
  TopologyStats s = topology_stats(m);
  EXPECT_EQ(s.diameter, 2u);
  EXPECT_DOUBLE_EQ(s.avg_distance, 4.0 / 3.0);
}

TEST(GraphMachine, MalformedFilesNameFileAndLine) {
  auto message = [](const std::string& file) {
    try {
      make_machine("graph:" + test::instance("bad/" + file));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("bad_router.topo"), test::instance("bad/bad_router.topo") + ":3: router id 5 is out of range [0, 3)");
  EXPECT_EQ(message("no_routers.topo"), test::instance("bad/no_routers.topo") + ":1: expected 'routers N' as the first line");
  EXPECT_NE(message("missing.topo").find("cannot open"), std::string::npos);
}

// Channel::link_class has 16 bits: the 65,536th class is the last one a file may define, and
// one more is refused with its line rather than wrapped to class 0.
TEST(GraphMachine, RefusesMoreLinkClassesThanTheIdHolds) {
  const auto path = std::filesystem::temp_directory_path() / ("taskmap_classes_" + std::to_string(::getpid()) + ".topo");
  auto write = [&](std::size_t classes) {
    std::ofstream out(path);
    out << "routers 2\n";
    for (std::size_t c = 0; c < classes; ++c) out << "class c" << c << " 1\n";
    out << "link 0 1 c" << classes - 1 << "\n";
  };
  write(65536);
  const Machine last = make_machine("graph:" + path.string());
  ASSERT_EQ(last.classes.size(), 65536u);
  ASSERT_EQ(last.channels.size(), 2u);
  EXPECT_EQ(last.channels[0].link_class, 65535u);
  EXPECT_EQ(last.classes[last.channels[0].link_class].name, "c65535");

  write(65537);
  std::string message = "no error";
  try {
    make_machine("graph:" + path.string());
  } catch (const Error& e) {
    message = e.what();
  }
  // "routers" is line 1, class c65536 line 65538.
  EXPECT_EQ(message, path.string() + ":65538: class 'c65536': a machine has at most 65536 link classes");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace taskmap
