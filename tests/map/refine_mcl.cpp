// refine-mcl: its incremental channel loads against the evaluator, its moves, its iterated
// local search and region phase, and the pipelines it ends.
#include <gtest/gtest.h>

#include <random>

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

// After every one of a random sequence of moves and swaps, the incremental MCL and hop-bytes
// equal a full evaluation, and try_move predicted them.
void check_random_moves(const std::string& machine_spec, const std::string& routing_spec, const CommGraph& g,
                        const char* first = "random:seed=3", std::uint32_t per_slot = 1) {
  const Machine m = make_machine(machine_spec);
  auto routing = make_routing(m, parse_routing_spec(routing_spec));
  const Evaluator evaluator(m, *routing);
  Mapping start = run_mapper(first, m, g);
  IncrementalLoads loads(MappingProblem(m, g, routing_spec), start, per_slot);
  const RegionMoves region(m);
  const std::uint32_t per_router = m.nodes_per_router * m.slots_per_node;
  std::vector<std::pair<RouterId, RouterId>> pairs;
  std::mt19937 rng(7);
  for (int step = 0; step < 150; ++step) {
    LoadScore predicted;
    const bool region_step = step % 3 == 2 && region.get(rng() % region.size(), pairs);
    if (region_step) {
      // Every third step a region move: all tasks of each router in it move together.
      std::vector<Relocation> moves;
      for (auto [from, to] : pairs)
        for (std::uint32_t k = 0; k < per_router; ++k)
          for (TaskId t : loads.tasks_on(from * per_router + k)) moves.push_back({t, to * per_router + k});
      predicted = loads.try_relocate(moves);
      ASSERT_NEAR(loads.try_spread(moves), predicted.spread, 1e-9 * std::max(1.0, predicted.spread));
      loads.relocate(moves);
    } else {
      const auto t = static_cast<TaskId>(rng() % g.num_tasks());
      const auto s = static_cast<SlotId>(rng() % m.num_slots());
      predicted = loads.try_move(t, s);
      loads.move(t, s);
    }
    validate_mapping(loads.mapping(), m, g.num_tasks(), "test", per_slot);
    const Metrics full = evaluator.evaluate(g, loads.mapping());
    const LoadScore now = loads.score();
    ASSERT_NEAR(now.mcl, full.mcl, 1e-9 * std::max(1.0, full.mcl)) << machine_spec << " step " << step;
    ASSERT_NEAR(now.hop_bytes, full.hop_bytes, 1e-6) << machine_spec << " step " << step;
    ASSERT_NEAR(predicted.mcl, now.mcl, 1e-9 * std::max(1.0, now.mcl));
    ASSERT_EQ(predicted.at_mcl, now.at_mcl);
    if (region_step) {
      ASSERT_NEAR(predicted.spread, now.spread, 1e-9 * std::max(1.0, now.spread));
    }
  }
  // The spread is the sum of (load / the start's MCL)^4 over the channels.
  const double start_mcl = evaluator.evaluate(g, start).mcl;
  std::vector<double> end;
  evaluator.evaluate(g, loads.mapping(), &end);
  double spread = 0;
  for (std::size_t c = 0; c < end.size(); ++c)
    spread += std::pow(end[c] / m.classes[m.channels[c].link_class].bandwidth / start_mcl, 4);
  EXPECT_NEAR(loads.score().spread, spread, 1e-9 * spread) << machine_spec;
}

TEST(RefineMcl, IncrementalLoadsAgreeWithTheEvaluatorAfterRandomMoves) {
  // Fewer tasks than slots, so moves to free slots happen as well as swaps.
  check_random_moves("torus:4x4x2,ppn=2", "minimal", make_halo2d(5, 8, 9, true));
  check_random_moves("mesh:4x4,ppn=1", "dor", make_transpose(4, 3));
  check_random_moves("dragonfly:p=2,a=4,h=2", "minimal", make_halo2d(6, 6, 5, true));
  check_random_moves("percs:ns=16,nd=2", "direct", make_halo2d(8, 8, 5, true));
  // Many-to-one: 20 tasks on 8 slots, at most 3 per slot (3% balance); full slots swap.
  check_random_moves("torus:2x2x2", "minimal", make_halo2d(4, 5, 9, true), "default", tasks_per_slot(20, 8, 0.03));
}

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
      o.kicks = 5;
      o.region_steps = 10;
      const Mapping out = refine_mcl(MappingProblem(m, g), start, o);
      validate_mapping(out, m, g.num_tasks(), "refine-mcl");
      const Metrics before = evaluator.evaluate(g, start), after = evaluator.evaluate(g, out);
      EXPECT_LE(after.mcl, before.mcl * (1 + 1e-12)) << spec << " from " << first;
    }
  }
}

TEST(RefineMcl, IteratedLocalSearchKeepsTheBestOptimum) {
  // The kicks start from the first descent's optimum and keep only better ones, so with kicks
  // the score is never worse than the plain descent's, from the same start.
  const Machine m = make_machine("torus:4x4x2");
  const CommGraph g = make_halo2d(8, 4, 9, true);
  auto routing = make_routing(m, parse_routing_spec("minimal"));
  const Mapping start = run_mapper("random:seed=9", m, g);
  RefineOptions plain;
  plain.kicks = 0;
  plain.region_steps = 0;
  RefineOptions kicked = plain;
  kicked.kicks = 8;
  RefineStats a, b;
  refine_mcl(MappingProblem(m, g, "minimal"), start, plain, &a);
  const Mapping out = refine_mcl(MappingProblem(m, g, "minimal"), start, kicked, &b);
  EXPECT_EQ(a.kicks, 0u);
  EXPECT_EQ(b.kicks, 8u);
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

TEST(RefineMcl, RegionMovesReachTheOptimumOfCgOnAMesh) {
  // From the rank-order placement (MCL 3.77 units), single-task moves and swaps stall well
  // above the optimum; turning and exchanging 2x2x2 boxes reaches the optimum of 1 unit.
  const Machine m = make_machine("mesh:4x4x4");
  auto routing = make_routing(m, parse_routing_spec("minimal"));
  const CommGraph g = make_npb_cg(64);
  const Mapping start = run_mapper("default", m, g);
  RefineOptions o;
  o.work = 1 << 20;  // a safety net only: the phases end by their step counts
  o.kicks = 0;
  o.region_steps = 30;
  RefineStats stats;
  const Mapping out = refine_mcl(MappingProblem(m, g, "minimal"), start, o, &stats);
  EXPECT_NEAR(stats.after.mcl, 1.0, 1e-9);
  EXPECT_NEAR(Evaluator(m, *routing).evaluate(g, out).mcl, 1.0, 1e-9);
  EXPECT_GT(stats.region_best, 0u);
}

TEST(RegionMoves, BoxTurnsAndExchangesArePermutationsThatKeepNeighbours) {
  // Valid moves on mesh:4x4x4: 27 box corners x 47 symmetries, 8 aligned boxes in 28 pairs,
  // 64 routers in 2016 pairs: 3313. On torus:4x4x4 the boxes may wrap: 64 x 47 + 28 + 2016.
  // On mesh:5x3 (2D boxes, 8 symmetries): 4 x 2 corners x 7 + 2 aligned boxes in 1 pair +
  // 15 x 14 / 2 router pairs. hypercube:d=4: 4 sets of 3 dimensions, each with 2 boxes (the
  // fourth coordinate) x 47 symmetries and 1 pair of boxes, and 16 x 15 / 2 router pairs.
  for (auto [spec, expected] :
       {std::pair{"mesh:4x4x4", 3313}, {"torus:4x4x4", 5052}, {"mesh:5x3", 162}, {"hypercube:d=4", 500}}) {
    const Machine m = make_machine(spec);
    const HopDistance hops(m);
    const RegionMoves region(m);
    std::vector<std::pair<RouterId, RouterId>> pairs;
    int valid = 0;
    for (std::uint64_t i = 0; i < region.size(); ++i) {
      if (!region.get(i, pairs)) continue;
      ++valid;
      std::vector<RouterId> from, to;
      for (auto [a, b] : pairs) from.push_back(a), to.push_back(b);
      std::sort(from.begin(), from.end());
      std::sort(to.begin(), to.end());
      ASSERT_EQ(from, to) << spec << " move " << i;
      ASSERT_EQ(std::adjacent_find(from.begin(), from.end()), from.end()) << spec << " move " << i;
      // Within a box, routers one hop apart stay one hop apart: a turned box has 2^|S| pairs,
      // an exchange 2 x 2^|S|, alternately from the first box and from the second.
      const std::size_t box = m.torus()->dims() >= 3 ? 8 : 4, stride = pairs.size() == box ? 1 : 2;
      if (pairs.size() == 2) continue;  // two routers exchanged
      for (std::size_t x = 0; x < pairs.size(); ++x) {
        for (std::size_t y = x % stride; y < pairs.size(); y += stride) {
          if (hops(pairs[x].first, pairs[y].first) == 1) {
            ASSERT_EQ(hops(pairs[x].second, pairs[y].second), 1u) << spec << " move " << i;
          }
        }
      }
    }
    EXPECT_EQ(valid, expected) << spec;
  }
}

TEST(RefineMcl, PipelinesParseAndRefuseStagesThatCannotRefine) {
  const MapperSpec p = parse_mapper_spec("hilbert+refine-mcl:work=50,seconds=1");
  ASSERT_EQ(p.stages.size(), 2u);
  EXPECT_EQ(p.stages[1].entry().name, "refine-mcl");
  EXPECT_EQ(p.stages[1].get_int("work"), 50);
  EXPECT_DOUBLE_EQ(p.stages[1].get_real("seconds"), 1.0);
  EXPECT_EQ(p.stages[1].get_int("kicks"), 200) << "the table's default";
  EXPECT_EQ(parse_mapper_spec("refine-mcl").stages[0].get_int("work"), 600) << "the table's default";
  EXPECT_FALSE(parse_mapper_spec("refine-mcl").stages[0].given("seconds")) << "no time limit unless asked for";
  EXPECT_THROW(parse_mapper_spec("default+hilbert"), Error);
  EXPECT_THROW(parse_mapper_spec("refine-mcl:seconds=0"), Error);
  EXPECT_THROW(parse_mapper_spec("refine-mcl:work=0"), Error);
  EXPECT_THROW(parse_mapper_spec("default+"), Error);
}

TEST(RefineMcl, TheWorkBudgetEndsTheSearchAtTheSamePointEveryRun) {
  // NAS CG on torus:4x4x4 from the rank order: 2 million work units run out in the first
  // descent (a step tries 16 tasks on 63 routers, a few hundred units each). The search checks
  // its budget after every router the descent tries, every region move scored and every
  // kick, each a few thousand units at most here (64 tasks of 8 flows, 192 channels), so it
  // stops within 1% of the budget.
  const Machine m = make_machine("torus:4x4x4");
  const CommGraph g = make_npb_cg(64);
  const Mapping start = run_mapper("default", m, g);
  RefineOptions o;
  o.work = 2;
  RefineStats a, b;
  const Mapping first = refine_mcl(MappingProblem(m, g), start, o, &a);
  const Mapping second = refine_mcl(MappingProblem(m, g), start, o, &b);
  EXPECT_TRUE(a.out_of_budget);
  EXPECT_EQ(a.region_steps + a.kicks, 0u);
  EXPECT_GE(a.work, 2'000'000u);
  EXPECT_LT(a.work, 2'020'000u);
  EXPECT_EQ(first.slot_of_task, second.slot_of_task);
  EXPECT_EQ(a.work, b.work);
  EXPECT_EQ(a.moves, b.moves);
  // Twice the budget goes further, never to a worse score.
  o.work = 4;
  RefineStats c;
  refine_mcl(MappingProblem(m, g), start, o, &c);
  EXPECT_GE(c.work, 4'000'000u);
  EXPECT_GT(c.moves, a.moves);
  EXPECT_FALSE(a.after.better_than(c.after));
}

}  // namespace
}  // namespace taskmap
