// Seed mappings of seeds 000 (PERCS), 003 (RT/RTT) and 004 (Dragonfly): the colourings'
// proven properties, where each mapper puts tasks, and the paper formulas they must meet.
#include <gtest/gtest.h>

#include <algorithm>
#include <queue>
#include <set>
#include <unistd.h>

#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/core/error.h"
#include "taskmap/map/structured/coloring.h"
#include "taskmap/workload/generators.h"
#include "test_support.h"

namespace taskmap {
namespace {

using test::run_mapper;

Mapping run_mapper(const Machine& m, const CommGraph& g, const std::string& mapper) {
  return run_mapper(mapper, m, g);
}

// ---- colourings ----

TEST(ModColoring, SecondRowIsThePapersNicePermutation) {
  // Appendix A, Figure 4: sigma2 = 2 7 4 1 6 3 0 5 for q = 8.
  const Coloring c = mod_coloring(4, 8);
  EXPECT_EQ(std::vector<std::uint32_t>(c.begin() + 8, c.begin() + 16), (std::vector<std::uint32_t>{2, 7, 4, 1, 6, 3, 0, 5}));
  EXPECT_EQ(std::vector<std::uint32_t>(c.begin(), c.begin() + 8), (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(ModColoring, IsPerfectOnEveryGridLemma41Allows) {
  for (auto [p, q] : {std::pair{4u, 8u}, {8u, 8u}, {4u, 16u}, {12u, 16u}, {16u, 16u}, {8u, 64u}}) {
    SCOPED_TRACE(fmt::format("{}x{}", p, q));
    const Coloring c = mod_coloring(p, q);
    const auto check = check_perfect_coloring(c, p, q);
    EXPECT_TRUE(check.ok) << check.problem;
    for (std::uint32_t color = 0; color < p * q / 2; ++color) EXPECT_EQ(std::count(c.begin(), c.end(), color), 2);
  }
}

TEST(ModColoring, RefusesGridsOutsideTheLemma) {
  EXPECT_THROW(mod_coloring(6, 8), Error);
  EXPECT_THROW(mod_coloring(4, 12), Error);
  EXPECT_THROW(mod_coloring(4, 4), Error);
}

TEST(PerfectColoringCheck, CatchesARepeatedNeighbour) {
  Coloring c = mod_coloring(4, 8);
  std::swap(c[0], c[9]);  // two cells of different colour groups trade places
  EXPECT_FALSE(check_perfect_coloring(c, 4, 8).ok);
  // Stripes: colour = column; every colour sees its left neighbour once per row.
  Coloring stripes(32);
  for (std::size_t i = 0; i < stripes.size(); ++i) stripes[i] = i % 8;
  EXPECT_FALSE(check_perfect_coloring(stripes, 4, 8).ok);
}

TEST(BalancedAdjacency, NColoursMeetEveryPairExactlyFourTimes) {
  // Lemma 1 (even n) and the one-line odd variant.
  for (std::uint32_t n = 2; n <= 21; ++n) {
    SCOPED_TRACE(n);
    const Coloring c = balanced_adjacency_coloring(n, n);
    const auto check = check_balanced_adjacency(c, {n, n}, n);
    EXPECT_TRUE(check.ok) << check.problem;
    std::uint32_t meet01 = 0;  // hand count for the pair (0, 1)
    for (std::uint32_t r = 0; r < n; ++r)
      for (std::uint32_t col = 0; col < n; ++col) {
        const std::uint32_t a = c[r * n + col];
        if (col + 1 < n && std::set<std::uint32_t>{a, c[r * n + col + 1]} == std::set<std::uint32_t>{0, 1}) ++meet01;
        if (r + 1 < n && std::set<std::uint32_t>{a, c[(r + 1) * n + col]} == std::set<std::uint32_t>{0, 1}) ++meet01;
      }
    EXPECT_EQ(meet01, 4u);
  }
}

TEST(BalancedAdjacency, FigureThreeMeshesAreBalanced) {
  // The full n x n meshes of Figure 3 with n colours, and their B-BAC unit meshes
  // (n/2 x n/2 with n colours, the 2n-colour generalisation).
  for (std::uint32_t n : {8u, 32u, 72u, 128u, 200u}) {
    SCOPED_TRACE(n);
    auto full = check_balanced_adjacency(balanced_adjacency_coloring(n, n), {n, n}, n);
    EXPECT_TRUE(full.ok) << full.problem;
    auto units = check_balanced_adjacency(balanced_adjacency_coloring(n / 2, n), {n / 2, n / 2}, n);
    EXPECT_TRUE(units.ok) << units.problem;
  }
}

TEST(BalancedAdjacency, ThreeDimensionalSlicesAreBalanced) {
  for (std::uint32_t n = 2; n <= 9; ++n) {
    SCOPED_TRACE(n);
    auto check = check_balanced_adjacency(balanced_adjacency_coloring_3d(n), {n, n, n}, n);
    EXPECT_TRUE(check.ok) << check.problem;
  }
}

TEST(BalancedAdjacency, CheckerRejectsBlockedAndStripedColourings) {
  Coloring stripes(64);
  for (std::size_t i = 0; i < 64; ++i) stripes[i] = i % 8;  // colour = column: only neighbours meet
  EXPECT_FALSE(check_balanced_adjacency(stripes, {8, 8}, 8).ok);
  Coloring uneven = balanced_adjacency_coloring(8, 8);
  uneven[0] = uneven[1];
  EXPECT_FALSE(check_balanced_adjacency(uneven, {8, 8}, 8).ok);
  EXPECT_THROW(balanced_adjacency_coloring(5, 10), Error);  // 2n colours need an even side
}

// ---- PERCS mappers ----

TEST(PercsBlock, EveryBlockStaysOnOneProcessorBlock) {
  const Machine m = make_machine("percs:ns=32,nd=4");
  const CommGraph g = make_halo2d(64, 64, 5, true);
  struct Level {
    const char* name;
    std::uint32_t rows, cols, nodes;
  };
  for (Level lv : {Level{"node", 2, 2, 1}, Level{"drawer", 4, 8, 8}, Level{"supernode", 8, 16, 32}}) {
    for (const char* order : {"seq", "random"}) {
      SCOPED_TRACE(fmt::format("{} {}", lv.name, order));
      const Mapping map = run_mapper(m, g, fmt::format("percs-block:level={},order={},seed=7", lv.name, order));
      validate_mapping(map, m, g.num_tasks(), "test");
      std::set<std::uint32_t> used;
      for (std::uint32_t br = 0; br < 64 / lv.rows; ++br)
        for (std::uint32_t bc = 0; bc < 64 / lv.cols; ++bc) {
          std::set<std::uint32_t> blocks;
          for (std::uint32_t r = 0; r < lv.rows; ++r)
            for (std::uint32_t c = 0; c < lv.cols; ++c) {
              blocks.insert(map.slot_of_task[(br * lv.rows + r) * 64 + bc * lv.cols + c] / 4 / lv.nodes);
            }
          ASSERT_EQ(blocks.size(), 1u);
          EXPECT_TRUE(used.insert(*blocks.begin()).second) << "two task blocks on one processor block";
        }
    }
  }
  // Sequential supernode blocking puts block j on supernode j.
  const Mapping seq = run_mapper(m, g, "percs-block:level=supernode");
  EXPECT_EQ(seq.slot_of_task[0 * 64 + 16] / 128, 1u);
  EXPECT_EQ(seq.slot_of_task[8 * 64 + 0] / 128, 4u);
}

TEST(PercsModColor, BlocksFollowThePerfectColouring) {
  const Machine m = make_machine("percs:ns=32,nd=4");
  const CommGraph g = make_halo2d(64, 64, 5, true);
  const Mapping map = run_mapper(m, g, "percs-modcolor");
  validate_mapping(map, m, g.num_tasks(), "test");
  Coloring blocks(64);
  for (std::uint32_t b = 0; b < 64; ++b) {
    std::set<std::uint32_t> sn;
    for (std::uint32_t r = 0; r < 8; ++r)
      for (std::uint32_t c = 0; c < 8; ++c) sn.insert(map.slot_of_task[((b / 8) * 8 + r) * 64 + (b % 8) * 8 + c] / 128);
    ASSERT_EQ(sn.size(), 1u);
    blocks[b] = *sn.begin();
  }
  EXPECT_EQ(blocks, mod_coloring(8, 8));
  EXPECT_TRUE(check_perfect_coloring(blocks, 8, 8).ok);
  // A quad (2x2) shares one node.
  EXPECT_EQ(map.slot_of_task[0] / 4, map.slot_of_task[65] / 4);
}

TEST(PercsTranspose, HybridPicksTheLayoutOfAppendixC) {
  const Machine m = make_machine("percs:ns=16,nd=4");
  const CommGraph g = make_transpose(32, 64);  // rows of 64 span two drawers: go column-wise
  const Mapping hybrid = run_mapper(m, g, "percs-transpose:layout=hybrid");
  const Mapping column = run_mapper(m, g, "percs-transpose:layout=column");
  EXPECT_EQ(hybrid.slot_of_task, column.slot_of_task);
  EXPECT_EQ(column.slot_of_task[1 * 64 + 5], 5u * 32 + 1);  // task (1, 5) at slot 5P + 1
  const CommGraph square = make_transpose(64, 64);
  const Machine m32 = make_machine("percs:ns=32,nd=4");
  const Mapping row = run_mapper(m32, square, "percs-transpose:layout=hybrid");
  for (TaskId t = 0; t < square.num_tasks(); ++t) ASSERT_EQ(row.slot_of_task[t], t);
}

// ---- RT / RTT mappers ----

TEST(RttMap, DiagonalShiftIsThePapersFormula) {
  // f^d(x, y) = (x + y mod m, y) on RTT(2): 4 x 2 routers, logical 4 x 2 grid.
  const Machine m = make_machine("rtt:a=2");
  const CommGraph g = make_localmix(4, 2, 1.0);
  const Mapping map = run_mapper(m, g, "rtt-map:f=diag");
  for (std::uint32_t x = 0; x < 4; ++x)
    for (std::uint32_t y = 0; y < 2; ++y) EXPECT_EQ(map.slot_of_task[x * 2 + y], (x + y) % 4 + 4 * y);
}

TEST(RttMap, TwistedConcentrationIsThePapersFormula) {
  // f_2^t(x, y) = (x + floor(y/n) m/2 mod m, y mod n) from 4 x 4 onto 4 x 2 (m = 4, n = 2).
  const Machine m = make_machine("rtt:a=2,ppn=2");
  const CommGraph g = make_localmix(4, 4, 1.0);
  const Mapping map = run_mapper(m, g, "rtt-map:f=id,conc=t2");
  for (std::uint32_t x = 0; x < 4; ++x)
    for (std::uint32_t y = 0; y < 4; ++y) {
      const std::uint32_t rx = (x + (y / 2) * 2) % 4, ry = y % 2;
      EXPECT_EQ(map.slot_of_task[x * 4 + y] / 2, rx + 4 * ry) << x << "," << y;
    }
  // f_2^v then f^d: (x, y) -> (x + floor(y/2) mod 4, floor(y/2)).
  const Mapping dv = run_mapper(m, g, "rtt-map:f=diag,conc=v2");
  EXPECT_EQ(dv.slot_of_task[3 * 4 + 3] / 2, (3 + 1) % 4 + 4 * 1);
  // f_2^h then f_2^t: 8 x 4 onto 4 x 2 with 4 tasks per router.
  const Machine m4 = make_machine("rtt:a=2,ppn=4");
  const Mapping ht = run_mapper(m4, make_localmix(8, 4, 1.0), "rtt-map:conc=h2t2");
  EXPECT_EQ(ht.slot_of_task[5 * 4 + 3] / 4, (5 / 2 + (3 / 2) * 2) % 4 + 4 * (3 % 2));
}

TEST(RttMap, IdThroughputOnRtIsTheClosedForm) {
  // Section 3.3.1: max throughput 4 / (alpha + a (1 - alpha)), exactly, for a = 4, 8, 16.
  for (int a : {4, 8, 16}) {
    for (double alpha : {0.0, 0.3, 0.65, 1.0}) {
      auto e = test::evaluate(fmt::format("rt:a={}", a), fmt::format("localmix:{}x{},alpha={}", 2 * a, a, alpha),
                              "rtt-map:f=id", "minimal");
      EXPECT_NEAR(e.metrics.throughput, 4 / (alpha + a * (1 - alpha)), 1e-9) << "a=" << a << " alpha=" << alpha;
    }
  }
}

TEST(RttMap, RefusesGridsItCannotConcentrate) {
  const Machine m = make_machine("rtt:a=4");
  EXPECT_THROW(run_mapper(m, make_localmix(8, 8, 1), "rtt-map:f=id"), Error);  // 8x8 onto 8x4 without conc
  EXPECT_THROW(run_mapper(make_machine("rtt:a=4,ppn=2"), make_localmix(8, 6, 1), "rtt-map:conc=v2"), Error);
  EXPECT_THROW(parse_mapper_spec("rtt-map:conc=x2"), Error);
}

// ---- Dragonfly mappers and UGAL ----

std::vector<std::uint32_t> group_of_tasks(const Machine& m, const Mapping& map) {
  const auto& s = std::get<DragonflyShape>(m.shape);
  std::vector<std::uint32_t> groups;
  for (SlotId slot : map.slot_of_task) groups.push_back(m.router_of_node(m.node_of_slot(slot)) / s.a);
  return groups;
}

TEST(DragonflyBbac, FigureThreeSystemsUseAllButOneGroupEvenly) {
  for (auto [p, n] : {std::pair{2u, 8u}, {4u, 32u}, {6u, 72u}, {8u, 128u}, {10u, 200u}}) {
    SCOPED_TRACE(n);
    const Machine m = make_machine(fmt::format("dragonfly:p={},a={},h={}", p, 2 * p, p));
    const CommGraph g = make_halo2d(n, n, 5, false);
    const Mapping map = run_mapper(m, g, "dragonfly-bbac");
    validate_mapping(map, m, g.num_tasks(), "test");
    const auto groups = group_of_tasks(m, map);
    const auto& s = std::get<DragonflyShape>(m.shape);
    std::vector<std::uint32_t> count(s.g, 0);
    for (std::uint32_t grp : groups) ++count[grp];
    EXPECT_EQ(std::count(count.begin(), count.end(), 0), 1);  // all but one group
    EXPECT_EQ(*std::max_element(count.begin(), count.end()), n);
    // Every 2x2 unit stays in one group, and the groups of the units form a balanced colouring.
    Coloring units((n / 2) * (n / 2));
    for (std::uint32_t r = 0; r < n; r += 2)
      for (std::uint32_t c = 0; c < n; c += 2) {
        const std::uint32_t grp = groups[r * n + c];
        ASSERT_EQ(groups[r * n + c + 1], grp);
        ASSERT_EQ(groups[(r + 1) * n + c + 1], grp);
        units[(r / 2) * (n / 2) + c / 2] = grp;
      }
    auto check = check_balanced_adjacency(units, {n / 2, n / 2}, n);
    EXPECT_TRUE(check.ok) << check.problem;
  }
}

TEST(DragonflyBsm, BlocksAndSubBlocksAreContiguous) {
  const Machine m = make_machine("dragonfly:p=2,a=4,h=2");  // 8 slots per group, 2 per router
  const CommGraph g = make_halo2d(8, 8, 5, false);
  const Mapping map = run_mapper(m, g, "dragonfly-bsm");
  const auto groups = group_of_tasks(m, map);
  // 2 x 4 blocks: group = (r / 2) * 2 + c / 4; routers get 1 x 2 sub-blocks.
  for (std::uint32_t r = 0; r < 8; ++r)
    for (std::uint32_t c = 0; c < 8; ++c) EXPECT_EQ(groups[r * 8 + c], (r / 2) * 2 + c / 4);
  EXPECT_EQ(map.slot_of_task[0] / 2, map.slot_of_task[1] / 2);
  EXPECT_NE(map.slot_of_task[0] / 2, map.slot_of_task[8] / 2);
}

TEST(DragonflyBbac, RefusesNonSquareAndOddGrids) {
  const Machine m = make_machine("dragonfly:p=4,a=8,h=4");
  EXPECT_THROW(run_mapper(m, make_halo2d(16, 32, 5, false), "dragonfly-bbac"), Error);
  EXPECT_THROW(run_mapper(m, make_halo2d(15, 15, 5, false), "dragonfly-bbac"), Error);
  EXPECT_THROW(run_mapper(m, make_halo2d(6, 6, 5, false), "dragonfly-bbac"), Error);  // 3x3 units, 2n colours
  EXPECT_NO_THROW(run_mapper(m, make_halo2d(6, 6, 5, false), "dragonfly-bbac:colors=n"));
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

// ---- patterns ----

TEST(LocalMix, VolumesFollowSeed003) {
  const CommGraph g = make_localmix(4, 4, 0.4);
  EXPECT_DOUBLE_EQ(g.volume(0, 1), 0.4 / 4 + 0.6 / 16);
  EXPECT_DOUBLE_EQ(g.volume(0, 12), 0.4 / 4 + 0.6 / 16);  // periodic: row 3 is row 0's neighbour
  EXPECT_DOUBLE_EQ(g.volume(0, 0), 0.6 / 16);
  EXPECT_DOUBLE_EQ(g.volume(0, 10), 0.6 / 16);
  EXPECT_NEAR(g.total_volume(), 16.0, 1e-12);
  const CommGraph two = make_localmix(2, 4, 1.0);  // both vertical neighbours are the same task
  EXPECT_DOUBLE_EQ(two.volume(0, 4), 0.5);
  EXPECT_EQ(g.grid(), (std::vector<std::uint32_t>{4, 4}));
  EXPECT_THROW(parse_pattern_spec("localmix:4x4"), Error);
  EXPECT_THROW(parse_pattern_spec("localmix:4x4,alpha=1.5"), Error);
}

TEST(SeedMapperCli, ImpossibleGridsGetOneLineNamingTheConstraint) {
  auto mod = test::run_taskmap("eval --machine percs:ns=32,nd=4 --pattern halo2d:128x32 --mapper percs-modcolor");
  EXPECT_EQ(mod.exit_code, 1);
  EXPECT_EQ(mod.err,
            "taskmap: error: --mapper 'percs-modcolor': mod-colouring needs P a multiple of 32 and Q a power of two "
            ">= 64, not 128x32\n");
  const auto out = std::filesystem::temp_directory_path() / ("taskmap_bbac_" + std::to_string(::getpid()));
  auto bbac = test::run_taskmap("map --machine dragonfly:p=4,a=8,h=4 --pattern halo2d:16x32 --mapper dragonfly-bbac --out " +
                                out.string());
  EXPECT_EQ(bbac.exit_code, 1);
  EXPECT_NE(bbac.err.find("B-BAC needs a square (or cubic) task grid, not 16x32"), std::string::npos) << bbac.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  auto nogrid = test::run_taskmap("eval --machine rt:a=2 --pattern alltoall:8 --mapper rtt-map:f=diag");
  EXPECT_NE(nogrid.err.find("the pattern has no task grid; give one with grid=PxQ"), std::string::npos) << nogrid.err;
  auto withgrid = test::run_taskmap("eval --machine rt:a=2 --pattern alltoall:8 --mapper rtt-map:f=diag,grid=4x2");
  EXPECT_EQ(withgrid.exit_code, 0) << withgrid.err;
  auto level = test::run_taskmap("eval --machine percs:ns=16,nd=4 --pattern halo2d:32x64 --mapper percs-block:level=rack");
  EXPECT_NE(level.err.find("unknown level 'rack'; known: node, drawer, supernode"), std::string::npos) << level.err;
}

}  // namespace
}  // namespace taskmap
