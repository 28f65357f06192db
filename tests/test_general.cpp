// General graphs (issue 5): refine-mcl and its incremental loads, TiMEr, refine-hb, pipelines,
// and the mappers built on graph partitioners (scotch, metis, rb) or greedy embedding,
// one-to-one and many-to-one.
#include <gtest/gtest.h>

#include <random>

#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/core/error.h"
#include "taskmap/map/refine/refine_hop_bytes.h"
#include "taskmap/map/refine/refine_mcl.h"
#include "taskmap/map/refine/region_moves.h"
#include "taskmap/map/refine/timer.h"
#include "taskmap/workload/generators.h"
#include "taskmap/workload/readers.h"
#include "taskmap/topology/distance.h"
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
      const TaskId t = rng() % g.num_tasks();
      const SlotId s = rng() % m.num_slots();
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
      o.seconds = 1;
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
  o.seconds = 120;  // a safety net only: the phases end by their step counts
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
  const MapperSpec p = parse_mapper_spec("hilbert+refine-mcl:seconds=1");
  ASSERT_EQ(p.stages.size(), 2u);
  EXPECT_EQ(p.stages[1].entry().name, "refine-mcl");
  EXPECT_DOUBLE_EQ(p.stages[1].get_real("seconds"), 1.0);
  EXPECT_EQ(p.stages[1].get_int("kicks"), 200) << "the table's default";
  EXPECT_THROW(parse_mapper_spec("default+hilbert"), Error);
  EXPECT_THROW(parse_mapper_spec("refine-mcl:seconds=0"), Error);
  EXPECT_THROW(parse_mapper_spec("default+"), Error);
}

// The scotch mapper. A 4x8 grid embeds in the 4x8 and 8x4 meshes and in the 5-cube with every
// edge on one link (hand-known), so Scotch's terminals must be translated to the right routers
// for the average dilation to be 1.
TEST(ScotchMapper, PerfectEmbeddingsNeedTheRightTerminalNumbering) {
  const CommGraph g = make_halo2d(4, 8, 5, false);
  for (const char* spec : {"mesh:4x8", "mesh:8x4", "hypercube:d=5"}) {
    const Machine m = make_machine(spec);
    const Mapping map = run_mapper("scotch", m, g);
    validate_mapping(map, m, g.num_tasks(), "scotch");
    auto routing = make_routing(m, default_routing(m));
    EXPECT_DOUBLE_EQ(Evaluator(m, *routing).evaluate(g, map).avg_dilation, 1.0) << spec;
  }
}

TEST(ScotchMapper, FullMachinesWithoutNativeTargetGetValidPlacements) {
  // Dragonfly and a torus with a mesh dimension go through Scotch's graph target; the job
  // fills every slot, so routers Scotch overfills must hand tasks on.
  const std::pair<const char*, CommGraph> cases[] = {
      {"dragonfly:p=2,a=4,h=2", make_halo2d(6, 12, 5, true)},
      {"torus:4x4x2,mesh=C,ppn=2", make_halo2d(8, 8, 9, true)},
  };
  for (const auto& [spec, g] : cases) {
    const Machine m = make_machine(spec);
    const Mapping map = run_mapper("scotch", m, g, 0.2);
    validate_mapping(map, m, g.num_tasks(), "scotch");
  }
}

TEST(ScotchMapper, ManyTasksPerSlotWithinTheBalance) {
  // 200 tasks on 16 slots at 3%: at most ceil(1.03 x 12.5) = 13 per slot (hand-derived).
  EXPECT_EQ(tasks_per_slot(200, 16, 0.03), 13u);
  EXPECT_EQ(tasks_per_slot(16, 16, 0.03), 1u);
  EXPECT_EQ(tasks_per_slot(100, 10, 0.0), 10u);
  const Machine m = make_machine("torus:4x4");
  const CommGraph g = make_halo2d(10, 20, 5, true);
  for (const char* name : {"default", "scotch", "metis", "metis:assign=identity", "greedy", "rb"}) {
    const Mapping map = run_mapper(name, m, g);
    validate_mapping(map, m, g.num_tasks(), name, tasks_per_slot(200, 16, 0.03));
    auto routing = make_routing(m, default_routing(m));
    const Metrics metrics = Evaluator(m, *routing).evaluate(g, map);
    EXPECT_GT(metrics.mcl, 0) << name;
    EXPECT_LT(metrics.network_volume, metrics.total_volume) << name << ": tasks sharing a router talk locally";
  }
}

TEST(ScotchMapper, ByteCountsDoNotOverflowScotchsWeights) {
  // Scotch sums weight x distance in 32 bits. The same traffic in bytes (x 1e12) must map
  // exactly as in units: the weights are normalised, whatever the volumes' scale.
  const CommGraph units = make_halo2d(16, 16, 9, true);
  std::vector<CommEdge> edges;
  for (TaskId a = 0; a < units.num_tasks(); ++a) {
    auto targets = units.targets(a);
    auto volumes = units.volumes(a);
    for (std::size_t e = 0; e < targets.size(); ++e) edges.push_back({a, targets[e], volumes[e] * 1e12});
  }
  const CommGraph bytes = CommGraph::from_edges(units.num_tasks(), std::move(edges));
  const Machine m = make_machine("torus:4x4x4");  // 4 tasks per slot
  EXPECT_EQ(run_mapper("scotch", m, bytes).slot_of_task, run_mapper("scotch", m, units).slot_of_task);
}

TEST(MetisMapper, GreedyPlacementOfPartsBeatsIdentityOnAGrid) {
  // 16 parts of a 32x32 grid on a 4x4 mesh: METIS's part numbers carry no geometry, so part i
  // on router i scatters neighbouring parts; the greedy placement must do no worse in hop-bytes.
  const Machine m = make_machine("mesh:4x4");
  const CommGraph g = make_halo2d(32, 32, 5, false);
  auto routing = make_routing(m, default_routing(m));
  const Evaluator evaluator(m, *routing);
  const Metrics greedy = evaluator.evaluate(g, run_mapper("metis", m, g));
  const Metrics identity = evaluator.evaluate(g, run_mapper("metis:assign=identity", m, g));
  EXPECT_LE(greedy.hop_bytes, identity.hop_bytes);
  EXPECT_THROW(parse_mapper_spec("metis:assign=random"), Error);
}

TEST(GreedyMapper, FollowsHoeflerSnirOnAChain) {
  // Chain 0-1-2-3 with volumes 3, 2, 1 on mesh:4 (hand-derived): task 1 (most traffic, 5) on
  // router 0; task 0 (3 to placed tasks) next to it on router 1; task 2 (2 to task 1): router 0
  // is full, BFS from it finds router 1 full, then router 2; task 3 from router 2: router 3.
  const Machine m = make_machine("mesh:4");
  const CommGraph g = CommGraph::from_edges(4, {{0, 1, 3.0}, {1, 2, 2.0}, {2, 3, 1.0}});
  EXPECT_EQ(run_mapper("greedy", m, g).slot_of_task, (std::vector<SlotId>{1, 0, 2, 3}));
}

TEST(PartitioningMappers, TwoInterleavedCliquesEachGetARouter) {
  // Tasks 0,2,4,6 and 1,3,5,7 form two cliques; two routers of 4 slots each. Cutting the
  // cliques apart is the only placement without network traffic (hand-derived).
  std::vector<CommEdge> edges;
  for (TaskId a = 0; a < 8; ++a)
    for (TaskId b = 0; b < 8; ++b)
      if (a != b && a % 2 == b % 2) edges.push_back({a, b, 1.0});
  const CommGraph g = CommGraph::from_edges(8, std::move(edges));
  const Machine m = make_machine("mesh:2,ppn=4");
  auto routing = make_routing(m, default_routing(m));
  for (const char* name : {"rb", "scotch", "metis", "greedy"}) {
    const Mapping map = run_mapper(name, m, g);
    validate_mapping(map, m, g.num_tasks(), name);
    EXPECT_DOUBLE_EQ(Evaluator(m, *routing).evaluate(g, map).network_volume, 0.0) << name;
  }
}

// Tasks per slot of a mapping.
std::vector<std::uint32_t> slot_counts(const Mapping& map, std::uint32_t slots) {
  std::vector<std::uint32_t> counts(slots, 0);
  for (SlotId s : map.slot_of_task) ++counts[s];
  return counts;
}

// A balanced but scattered start: task i of a seeded permutation on slot i mod slots.
Mapping scattered(std::uint32_t tasks, std::uint32_t slots, unsigned seed) {
  std::vector<TaskId> order(tasks);
  for (TaskId t = 0; t < tasks; ++t) order[t] = t;
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  Mapping m;
  m.slot_of_task.resize(tasks);
  for (std::uint32_t i = 0; i < tasks; ++i) m.slot_of_task[order[i]] = i % slots;
  return m;
}

double hop_bytes(const Machine& m, const CommGraph& g, const Mapping& map) {
  auto routing = make_routing(m, default_routing(m));  // minimal routes: hops = shortest distance
  return Evaluator(m, *routing).evaluate(g, map).hop_bytes;
}

TEST(Timer, UntanglesACrossedFourCycleOnTheSquare) {
  // hypercube:d=2 is the square 0-1-3-2. The cycle 0-1-2-3-0 on routers 0,3,1,2 crosses
  // itself: hops 2+1+2+1 = 6. On the square's own cycle every flow takes one hop: 4 (hand).
  const Machine m = make_machine("hypercube:d=2");
  const CommGraph g = CommGraph::from_edges(4, {{0, 1, 1.0}, {1, 2, 1.0}, {2, 3, 1.0}, {3, 0, 1.0}});
  Mapping start;
  start.slot_of_task = {0, 3, 1, 2};
  ASSERT_DOUBLE_EQ(hop_bytes(m, g, start), 6.0);
  TimerStats stats;
  const Mapping out = timer_enhance(m, PartialCube::of_machine(m), g, start, TimerOptions{}, &stats);
  EXPECT_DOUBLE_EQ(stats.hop_bytes_before, 6.0);
  EXPECT_DOUBLE_EQ(stats.hop_bytes_after, 4.0);
  EXPECT_DOUBLE_EQ(hop_bytes(m, g, out), 4.0);
  EXPECT_EQ(stats.label_digits, 2u);
  EXPECT_EQ(stats.extension_digits, 0u);
}

TEST(Timer, NeverWorseKeepsEverySlotsCountAndCountsHopBytesLikeTheEvaluator) {
  // 400 tasks of a 20x20 halo on 16 routers (25 per slot, 5 extension digits), from a
  // scattered start and from scotch's; on a mesh, a torus and a hypercube (partial cubes).
  const CommGraph g = make_halo2d(20, 20, 9, true);
  for (const char* spec : {"mesh:4x4", "torus:4x4", "hypercube:d=4", "mesh:2x2x4,ppn=2"}) {
    const Machine m = make_machine(spec);
    const PartialCube cube = PartialCube::of_machine(m);
    for (int start_kind = 0; start_kind < 2; ++start_kind) {
      const Mapping start = start_kind == 0 ? scattered(g.num_tasks(), m.num_slots(), 4)
                                            : run_mapper("scotch", m, g);
      TimerStats stats;
      const Mapping out = timer_enhance(m, cube, g, start, TimerOptions{}, &stats);
      const double before = hop_bytes(m, g, start), after = hop_bytes(m, g, out);
      EXPECT_NEAR(stats.hop_bytes_before, before, 1e-9 * before) << spec;
      EXPECT_NEAR(stats.hop_bytes_after, after, 1e-9 * before) << spec;
      EXPECT_LE(after, before) << spec;
      if (start_kind == 0) {
        EXPECT_LT(after, 0.8 * before) << spec << ": a scattered start leaves much to gain";
      }
      EXPECT_EQ(slot_counts(out, m.num_slots()), slot_counts(start, m.num_slots())) << spec;
    }
  }
}

TEST(Timer, NeverWorseThanScotchOnPgpGiantCompo) {
  const std::string path = test::shared_data("graphs/PGPgiantcompo.graph.gz");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const CommGraph g = read_pattern_file(path, PatternFormat::Metis);
  const Machine m = make_machine("torus:8x8x8");
  const Mapping start = run_mapper("scotch", m, g);
  TimerOptions o;
  o.hierarchies = 10;
  const Mapping out = timer_enhance(m, PartialCube::of_machine(m), g, start, o);
  EXPECT_LE(hop_bytes(m, g, out), hop_bytes(m, g, start));
  EXPECT_EQ(slot_counts(out, m.num_slots()), slot_counts(start, m.num_slots()));
}

TEST(Timer, RefusesMachinesThatAreNotPartialCubes) {
  const CommGraph g = make_halo2d(4, 4, 5, true);
  for (const char* spec : {"torus:3x4", "dragonfly:p=1,a=4,h=1"}) {
    const Machine m = make_machine(spec);
    try {
      run_mapper("default+timer", m, g);
      ADD_FAILURE() << spec;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--mapper 'timer': "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("is not a partial cube"), std::string::npos) << e.what();
    }
  }
}

TEST(RefineHopBytes, ReachesTheOptimumOfAChainOnALine) {
  // Chain 0-1-...-7 (volume 1) on mesh:4 with 2 slots per router, task i on router i mod 4:
  // hops 1+1+1+3+1+1+1 = 9. Four routers must each hold two tasks, so the chain crosses at
  // least 3 router boundaries; pairs (0,1),(2,3),... on routers 0..3 achieve 3 (hand-derived).
  const Machine m = make_machine("mesh:4,ppn=2");
  std::vector<CommEdge> edges;
  for (TaskId t = 0; t + 1 < 8; ++t) edges.push_back({t, t + 1, 1.0});
  const CommGraph g = CommGraph::from_edges(8, std::move(edges));
  Mapping start;
  for (TaskId t = 0; t < 8; ++t) start.slot_of_task.push_back((t % 4) * 2 + t / 4);
  ASSERT_DOUBLE_EQ(hop_bytes(m, g, start), 9.0);
  HopBytesRefineStats stats;
  const Mapping out = refine_hop_bytes(m, g, start, HopBytesRefineOptions{}, &stats);
  validate_mapping(out, m, g.num_tasks(), "refine-hb");
  EXPECT_DOUBLE_EQ(stats.before, 9.0);
  EXPECT_DOUBLE_EQ(stats.after, 3.0);
  EXPECT_DOUBLE_EQ(hop_bytes(m, g, out), 3.0);
}

TEST(RefineHopBytes, NeverWorseAndWithinTheBalanceOnAnyMachine) {
  const CommGraph g = make_halo2d(12, 12, 9, true);
  for (const char* spec : {"torus:4x4", "dragonfly:p=2,a=4,h=2", "percs:ns=16,nd=2", "mesh:3x3,ppn=2"}) {
    const Machine m = make_machine(spec);
    const std::uint32_t per_slot = tasks_per_slot(g.num_tasks(), m.num_slots(), 0.03);
    for (const char* first : {"default", "scotch"}) {
      Mapping start = run_mapper(first, m, g);
      HopBytesRefineOptions o;
      o.per_slot = per_slot;
      HopBytesRefineStats stats;
      const Mapping out = refine_hop_bytes(m, g, start, o, &stats);
      validate_mapping(out, m, g.num_tasks(), "refine-hb", per_slot);
      const double before = hop_bytes(m, g, start), after = hop_bytes(m, g, out);
      EXPECT_NEAR(stats.before, before, 1e-9 * before) << spec;
      EXPECT_NEAR(stats.after, after, 1e-9 * before) << spec;
      EXPECT_LE(after, before) << spec << " from " << first;
    }
  }
}

TEST(Refiners, PipelinesOfTimerAndRefineHbParse) {
  const MapperSpec p = parse_mapper_spec("scotch+timer:hierarchies=5+refine-hb:rounds=3");
  ASSERT_EQ(p.stages.size(), 3u);
  EXPECT_EQ(p.stages[1].entry().name, "timer");
  EXPECT_EQ(p.stages[1].get_int("hierarchies"), 5);
  EXPECT_EQ(p.stages[2].entry().name, "refine-hb");
  EXPECT_EQ(p.stages[2].get_int("rounds"), 3);
  EXPECT_EQ(parse_mapper_spec("rb:tries=8").stages[0].get_int("tries"), 8);
  EXPECT_THROW(parse_mapper_spec("timer:hierarchies=0"), Error);
  EXPECT_THROW(parse_mapper_spec("refine-hb:rounds=0"), Error);
  EXPECT_THROW(parse_mapper_spec("rb:tries=0"), Error);
  EXPECT_THROW(parse_mapper_spec("timer+scotch"), Error);
}

}  // namespace
}  // namespace taskmap
