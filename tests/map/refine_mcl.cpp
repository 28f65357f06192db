// refine-mcl: its moves, its iterated local search and region phase, its budget, and the
// pipelines it ends (its evaluator: tests/eval/incremental.cpp).
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "taskmap/core/error.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/map/refine/refine_hop_bytes.h"
#include "taskmap/map/refine/refine_mcl.h"
#include "taskmap/map/refine/region_moves.h"
#include "taskmap/map/refine/timer.h"
#include "taskmap/topology/distance.h"
#include "taskmap/workload/generators.h"
#include "taskmap/workload/readers.h"
#include "test_support.h"

namespace taskmap {
namespace {

using test::run_mapper;

TEST(RefineMcl, MovesTwoTasksNextToEachOtherOnALine) {
  // mesh:4, one flow 0 -> 1 of volume 1, tasks on routers 0 and 3: three channels carry 1.
  // No placement on two routers has a lower MCL; adjacent, one channel carries it and the
  // hop-bytes are 1 (hand-derived).
  const Machine m = make_machine("mesh:4");
  const CommGraph g = CommGraph::from_edges(2, {{0, 1, 1.0}});
  auto routing = make_routing(m, parse_routing_spec("minimal"));
  Mapping start;
  start.slot_of_task = {0, 3};
  RefineStats stats;
  const Mapping out = refine_mcl(MappingProblem(m, g, "minimal"), start, RefineOptions{}, &stats);
  EXPECT_DOUBLE_EQ(stats.before.mcl, 1.0);
  EXPECT_EQ(stats.before.at_mcl, 3u);
  EXPECT_DOUBLE_EQ(stats.after.mcl, 1.0);
  EXPECT_EQ(stats.after.at_mcl, 1u);
  EXPECT_DOUBLE_EQ(stats.after.hop_bytes, 1.0);
  const int a = static_cast<int>(out.slot_of_task[0]), b = static_cast<int>(out.slot_of_task[1]);
  EXPECT_EQ(std::abs(a - b), 1);
}

TEST(RefineMcl, NeverWorseThanItsInputOnMeasuredMatrices) {
  const std::string path = test::shared_data("apps/maplib-64/amg/comm_matrix.p2p.size.csv");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const CommGraph g = read_pattern_file(path, PatternFormat::Dense);
  for (const char* spec : {"torus:4x4x4", "mesh:4x4x4"}) {
    const Machine m = make_machine(spec);
    auto routing = make_routing(m, default_routing(m));
    const Evaluator evaluator(m, *routing);
    for (const char* first : {"default", "random:seed=5"}) {
      const Mapping start = run_mapper(first, m, g);
      RefineOptions o;
      o.work = 20;
      o.region_steps = 10;
      const Mapping out = refine_mcl(MappingProblem(m, g), start, o);
      validate_mapping(out, m, g.num_tasks(), "refine-mcl");
      const Metrics before = evaluator.evaluate(g, start), after = evaluator.evaluate(g, out);
      EXPECT_LE(after.mcl, before.mcl * (1 + 1e-12)) << spec << " from " << first;
    }
  }
}

TEST(RefineMcl, AnnealingNeverEndsWorseThanTheDescent) {
  // The annealing phases start from the first descent's optimum, and the search keeps that
  // optimum when they end worse, so with them the score is never worse than the descent's.
  const Machine m = make_machine("torus:4x4x2");
  const CommGraph g = make_halo2d(8, 4, 9, true);
  auto routing = make_routing(m, parse_routing_spec("minimal"));
  const Mapping start = run_mapper("random:seed=9", m, g);
  RefineOptions plain;
  plain.work = 20;
  plain.anneal = false;
  plain.region_steps = 0;
  RefineOptions annealed = plain;
  annealed.anneal = true;
  RefineStats a, b;
  refine_mcl(MappingProblem(m, g, "minimal"), start, plain, &a);
  const Mapping out = refine_mcl(MappingProblem(m, g, "minimal"), start, annealed, &b);
  EXPECT_EQ(a.annealed, 0u);
  EXPECT_GT(b.annealed, 0u);
  EXPECT_FALSE(a.after.better_than(b.after));
  EXPECT_NEAR(Evaluator(m, *routing).evaluate(g, out).mcl, b.after.mcl, 1e-9 * b.after.mcl);
}

// NAS CG on 64 ranks (8x8 grid: rank 8r + c sends one unit to its row partners c^1, c^2, c^4
// and to its transpose 8c + r) on mesh:4x4x4 under minimal routing. Hand-derived optimum:
// with r = (r2 r1 r0), c = (c2 c1 c0) in bits, the rank at coordinates (2 r_d + c_d)_d puts
// each row on a 2x2x2 box with its partners one hop apart (the box's 24 channels, one unit
// each) and each transpose on a path that only crosses the middle planes (coordinates 1 and 2
// differ exactly where r and c do); every one of the 288 channels carries exactly one unit.
// No placement does better: a partner one hop away loads its channel with a whole unit, and
// with none, the 248 flows of 2+ hops average 496/288 > 1 per channel.
Mapping cg_interleaved_on_mesh_4x4x4(const Machine& m) {
  Mapping mapping;
  mapping.slot_of_task.resize(64);
  const TorusShape& torus = *m.torus();
  for (TaskId rank = 0; rank < 64; ++rank) {
    const std::uint32_t r = rank / 8, c = rank % 8;
    RouterId router = 0;
    for (std::size_t d = 0; d < 3; ++d) router += (2 * ((r >> d) & 1) + ((c >> d) & 1)) * torus.strides[d];
    mapping.slot_of_task[rank] = router;
  }
  return mapping;
}

TEST(RefineMcl, CgOnAMeshInterleavedPlacementLoadsEveryChannelOnce) {
  const Machine m = make_machine("mesh:4x4x4");
  auto routing = make_routing(m, parse_routing_spec("minimal"));
  const CommGraph g = make_npb_cg(64);
  std::vector<double> loads;
  const Metrics metrics = Evaluator(m, *routing).evaluate(g, cg_interleaved_on_mesh_4x4x4(m), &loads);
  EXPECT_NEAR(metrics.mcl, 1.0, 1e-12);
  for (double load : loads) ASSERT_NEAR(load, 1.0, 1e-12);
}

// NAS CG's rows blocked: rank 8r + c at coordinates (2 c_d + r_d)_d, the interleaved optimum
// above with planes 1 and 2 of every dimension exchanged.
Mapping cg_blocked_on_mesh_4x4x4(const Machine& m) {
  Mapping mapping = cg_interleaved_on_mesh_4x4x4(m);
  const TorusShape& torus = *m.torus();
  for (SlotId& router : mapping.slot_of_task) {
    RouterId swapped = 0;
    for (std::size_t d = 0; d < 3; ++d) {
      const std::uint32_t x = torus.coord(router, d);
      swapped += (x == 1 ? 2 : x == 2 ? 1 : x) * torus.strides[d];
    }
    router = swapped;
  }
  return mapping;
}

TEST(RefineMcl, PlaneExchangesTakeBlockedCgRowsToTheOptimum) {
  // From the blocked placement (MCL 3 units under both routings) no single-task move, swap or
  // box move lowers the MCL (the earlier refine-mcl stayed at 3 with its whole budget); the
  // exchanges of planes 1 and 2 reach the hand-derived optimum of 1 unit above.
  const Machine m = make_machine("mesh:4x4x4");
  const CommGraph g = make_npb_cg(64);
  for (const char* routing_spec : {"minimal", "dor"}) {
    auto routing = make_routing(m, parse_routing_spec(routing_spec));
    const Mapping start = cg_blocked_on_mesh_4x4x4(m);
    ASSERT_NEAR(Evaluator(m, *routing).evaluate(g, start).mcl, 3.0, 1e-9) << routing_spec;
    RefineOptions o;
    o.work = 1 << 20;  // a safety net only: the phases end by their step counts
    o.anneal = false;
    o.region_steps = 30;
    RefineStats stats;
    const Mapping out = refine_mcl(MappingProblem(m, g, routing_spec), start, o, &stats);
    EXPECT_NEAR(stats.after.mcl, 1.0, 1e-9) << routing_spec;
    EXPECT_NEAR(Evaluator(m, *routing).evaluate(g, out).mcl, 1.0, 1e-9) << routing_spec;
  }
}

TEST(RefineMcl, EscapesThePlateauOfCgOnAMeshUnderDor) {
  // NAS CG on mesh:4x4x4 under DOR from a random placement: the earlier refine-mcl (descent,
  // region phase, kicks) stalled at 3 units with its default budget; the annealing finds the
  // structure and the search reaches the hand-derived optimum of 1 unit.
  const Machine m = make_machine("mesh:4x4x4");
  const CommGraph g = make_npb_cg(64);
  auto routing = make_routing(m, parse_routing_spec("dor"));
  const Mapping start = run_mapper("random:seed=2", m, g);
  RefineStats stats;
  const Mapping out = refine_mcl(MappingProblem(m, g, "dor"), start, RefineOptions{}, &stats);
  EXPECT_NEAR(Evaluator(m, *routing).evaluate(g, out).mcl, 1.0, 1e-9);
  EXPECT_NEAR(stats.after.mcl, 1.0, 1e-9);
}

TEST(RegionMoves, BoxTurnsPlaneAndBoxExchangesArePermutationsThatKeepNeighbours) {
  // Valid moves on mesh:4x4x4: 27 box corners x 47 symmetries, 8 aligned boxes in 28 pairs,
  // 3 dimensions x 6 pairs of planes, 64 routers in 2016 pairs: 3331. On torus:4x4x4 the
  // boxes may wrap: 64 x 47 + 28 + 18 + 2016. On mesh:5x3 (2D boxes, 8 symmetries): 4 x 2
  // corners x 7 + 2 aligned boxes in 1 pair + 10 + 3 plane pairs + 15 x 14 / 2 router pairs.
  // hypercube:d=4: 4 sets of 3 dimensions, each with 2 boxes (the fourth coordinate) x 47
  // symmetries and 1 pair of boxes, 4 plane pairs, and 16 x 15 / 2 router pairs.
  for (auto [spec, expected] :
       {std::pair{"mesh:4x4x4", 3331}, {"torus:4x4x4", 5070}, {"mesh:5x3", 175}, {"hypercube:d=4", 504}}) {
    const Machine m = make_machine(spec);
    const TorusShape& torus = *m.torus();
    const HopDistance hops(m);
    const RegionMoves region(m);
    std::vector<std::pair<RouterId, RouterId>> pairs;
    int valid = 0, planes = 0;
    for (std::uint64_t i = 0; i < region.size(); ++i) {
      if (!region.get(i, pairs)) continue;
      ++valid;
      std::vector<RouterId> from, to;
      for (auto [a, b] : pairs) from.push_back(a), to.push_back(b);
      std::sort(from.begin(), from.end());
      std::sort(to.begin(), to.end());
      ASSERT_EQ(from, to) << spec << " move " << i;
      ASSERT_EQ(std::adjacent_find(from.begin(), from.end()), from.end()) << spec << " move " << i;
      const std::size_t box = torus.dims() >= 3 ? 8 : 4;
      if (pairs.size() == 2) continue;  // two routers exchanged
      // Two planes exchanged: every router of both planes goes to its twin in the other (the
      // same coordinates but in one dimension, where the two values are the only ones).
      std::set<std::size_t> dims;
      std::set<std::uint32_t> values;
      for (auto [a, b] : pairs) {
        for (std::size_t d = 0; d < torus.dims(); ++d)
          if (torus.coord(a, d) != torus.coord(b, d)) dims.insert(d), values.insert(torus.coord(a, d));
      }
      if (dims.size() == 1 && values.size() == 2 && pairs.size() == 2 * m.num_routers / torus.sizes[*dims.begin()]) {
        ++planes;
        continue;
      }
      // Within a box, routers one hop apart stay one hop apart: a turned box has 2^|S| pairs,
      // an exchange 2 x 2^|S|, alternately from the first box and from the second.
      const std::size_t stride = pairs.size() == box ? 1 : 2;
      for (std::size_t x = 0; x < pairs.size(); ++x) {
        for (std::size_t y = x % stride; y < pairs.size(); y += stride) {
          if (hops(pairs[x].first, pairs[y].first) == 1) {
            ASSERT_EQ(hops(pairs[x].second, pairs[y].second), 1u) << spec << " move " << i;
          }
        }
      }
    }
    EXPECT_EQ(valid, expected) << spec;
    std::uint32_t plane_pairs = 0;
    for (std::uint32_t k : torus.sizes) plane_pairs += k * (k - 1) / 2;
    // (On a hypercube an exchange of boxes that differ in the fourth coordinate is a plane
    // exchange too.)
    EXPECT_GE(planes, int(plane_pairs)) << spec;
  }
}

TEST(RefineMcl, PipelinesParseAndRefuseStagesThatCannotRefine) {
  const MapperSpec p = parse_mapper_spec("hilbert+refine-mcl:work=50,seconds=1");
  ASSERT_EQ(p.stages.size(), 2u);
  EXPECT_EQ(p.stages[1].entry().name, "refine-mcl");
  EXPECT_EQ(p.stages[1].get_int("work"), 50);
  EXPECT_DOUBLE_EQ(p.stages[1].get_real("seconds"), 1.0);
  EXPECT_TRUE(p.stages[1].get_bool("anneal")) << "the table's default";
  EXPECT_EQ(p.stages[1].get_int("regions"), 200) << "the table's default";
  EXPECT_EQ(parse_mapper_spec("refine-mcl").stages[0].get_int("work"), 600) << "the table's default";
  EXPECT_FALSE(parse_mapper_spec("refine-mcl").stages[0].given("seconds")) << "no time limit unless asked for";
  EXPECT_THROW(parse_mapper_spec("default+hilbert"), Error);
  EXPECT_THROW(parse_mapper_spec("refine-mcl:seconds=0"), Error);
  EXPECT_THROW(parse_mapper_spec("refine-mcl:work=0"), Error);
  EXPECT_THROW(parse_mapper_spec("default+"), Error);
}

TEST(RefineMcl, TheWorkBudgetEndsTheSearchAtTheSamePointEveryRun) {
  // NAS CG on torus:4x4x4 from the rank order: 1 million work units run out in the first
  // descent (a step tries 16 tasks on 63 routers, a few hundred units each; the descent takes
  // about 2 million). The search checks its budget after every router the descent tries,
  // each a few thousand units at most here (64 tasks of 8 flows, 192 channels), so it stops
  // within 1% of the budget.
  const Machine m = make_machine("torus:4x4x4");
  const CommGraph g = make_npb_cg(64);
  const Mapping start = run_mapper("default", m, g);
  RefineOptions o;
  o.work = 1;
  RefineStats a, b;
  const Mapping first = refine_mcl(MappingProblem(m, g), start, o, &a);
  const Mapping second = refine_mcl(MappingProblem(m, g), start, o, &b);
  EXPECT_TRUE(a.out_of_budget);
  EXPECT_EQ(a.region_steps + a.annealed, 0u);
  EXPECT_GE(a.work, 1'000'000u);
  EXPECT_LT(a.work, 1'010'000u);
  EXPECT_EQ(first.slot_of_task, second.slot_of_task);
  EXPECT_EQ(a.work, b.work);
  EXPECT_EQ(a.moves, b.moves);
  // Twice the budget goes further, never to a worse score.
  o.work = 2;
  RefineStats c;
  refine_mcl(MappingProblem(m, g), start, o, &c);
  EXPECT_GE(c.work, 2'000'000u);
  EXPECT_GT(c.moves, a.moves);
  EXPECT_FALSE(a.after.better_than(c.after));
}

TEST(RefineMcl, WithinLeafMovesTasksOnlyUnderTheirOwnLeafSwitches) {
  // The launchers' order of a 5-point stencil on 8 x 4 tasks (1/4 to each neighbour, no wrap)
  // over two leaves whose hosts alternate: rows 0-1 and 4-5 on leaf A, 2-3 and 6-7 on B, 12
  // edges across, uplink volume 12 x 2 / 4 = 6 (hand-derived). Within leaves that stays, and
  // every task keeps its leaf; anywhere, the search moves tasks across.
  const Machine m = test::two_leaves_alternating(8);
  const std::vector<std::uint32_t> leaf = leaf_groups(m);
  ASSERT_EQ(leaf.size(), m.num_routers);
  EXPECT_EQ(leaf[0], leaf[2]);  // n1, n3
  EXPECT_EQ(leaf[1], leaf[3]);  // n2, n4
  EXPECT_NE(leaf[0], leaf[1]);
  EXPECT_TRUE(leaf_groups(make_machine("torus:4x4")).empty());
  const CommGraph g = build_pattern(parse_pattern_spec("halo2d:8x4,periodic=false"));
  const MappingProblem problem(m, g);
  const Evaluator evaluator(problem);
  const Mapping start = test::run_mapper_on(problem, "hostname-order");
  const Metrics before = evaluator.evaluate(g, start);
  ASSERT_DOUBLE_EQ(before.leaf_uplink_volume, 6.0);
  auto leaf_of_task = [&](const Mapping& x, TaskId t) { return leaf[m.router_of_slot(x.slot_of_task[t])]; };
  const Mapping within = test::run_mapper_on(problem, "hostname-order+refine-mcl:within=leaf,work=5");
  const Metrics after = evaluator.evaluate(g, within);
  EXPECT_DOUBLE_EQ(after.leaf_uplink_volume, 6.0);
  EXPECT_LE(after.mcl, before.mcl);
  for (TaskId t = 0; t < g.num_tasks(); ++t) EXPECT_EQ(leaf_of_task(within, t), leaf_of_task(start, t)) << t;
  const Mapping anywhere = test::run_mapper_on(problem, "hostname-order+refine-mcl:work=5");
  EXPECT_LT(evaluator.evaluate(g, anywhere).leaf_uplink_volume, 6.0);
  // On a machine without leaf switches: one clear line.
  const Machine torus = make_machine("torus:4x4,ppn=2");
  try {
    test::run_mapper("refine-mcl:within=leaf", torus, g);
    ADD_FAILURE() << "within=leaf ran on a torus";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("within=leaf needs a fabric with leaf switches"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace taskmap
