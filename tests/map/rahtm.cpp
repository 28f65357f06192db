// RAHTM: the cube MILP, the hierarchical mapper, and the comparison mappers (Hilbert, Rubik
// tiling).
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "taskmap/core/error.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/map/rahtm/rahtm.h"
#include "taskmap/topology/distance.h"
#include "taskmap/workload/generators.h"
#include "taskmap/workload/readers.h"
#include "merge.h"
#include "test_support.h"

namespace taskmap {
namespace {

using test::run_mapper;

// [RAHTM Figure 1]: four processes on a 2x2 network, a heavy flow P1 -> P2 (4 units) and a
// light ring P0 -> P1 -> ... (1 unit). Adjacent P1, P2 load one channel with 4; on the
// diagonal the heavy flow splits 2 + 2 and the ring's diagonal flow P3 -> P0 must cross one
// of those channels on either path, so the best split gives 2.5 (1.25 with double-wide links).
CubeProblem figure1(double capacity) {
  CubeProblem p;
  p.dims = 2;
  p.capacity = {capacity, capacity};
  p.traffic.assign(16, 0.0);
  p.traffic[1 * 4 + 2] = 4;
  for (std::uint32_t a : {0u, 2u, 3u}) p.traffic[a * 4 + (a + 1) % 4] = 1;
  return p;
}

TEST(RahtmMilp, FindsTheKnownOptimumOfFigure1) {
  for (double capacity : {1.0, 2.0}) {
    const CubeSolution s = solve_cube_milp(figure1(capacity), 1000000);
    EXPECT_TRUE(s.optimal);
    EXPECT_NEAR(s.model_mcl, 2.5 / capacity, 1e-6);
    EXPECT_EQ(s.vertex_of[1] ^ s.vertex_of[2], 3u) << "P1 and P2 on the diagonal";
  }
}

TEST(RahtmMilp, OneHeavyFlowGoesToTheAntipodalCorner) {
  // 6 units on a 3-cube: at distance 3 the three first-hop channels carry 2 each; even split
  // (6 orders, 1 unit per path) is optimal too: 2, 1, 2 on the three hop positions.
  CubeProblem p;
  p.dims = 3;
  p.capacity = {1, 1, 1};
  p.traffic.assign(64, 0.0);
  p.traffic[0 * 8 + 5] = 6;
  const CubeSolution s = solve_cube_milp(p, 1000000);
  EXPECT_TRUE(s.optimal);
  EXPECT_NEAR(s.model_mcl, 2.0, 1e-6);
  EXPECT_EQ(s.vertex_of[0] ^ s.vertex_of[5], 7u);
  EXPECT_DOUBLE_EQ(cube_even_split_mcl(p, s.vertex_of), 2.0);
  EXPECT_DOUBLE_EQ(solve_cube_greedy(p).model_mcl, 2.0);
}

TEST(RahtmMilp, EvenSplitOnTheSquareIsHandDerived) {
  // Figure 1 placed with P1, P2 on the diagonal: even split gives 2 + 0.5 = 2.5 as well.
  EXPECT_DOUBLE_EQ(cube_even_split_mcl(figure1(1), {1, 0, 3, 2}), 2.5);
  // Adjacent P1, P2: the heavy flow on one channel.
  EXPECT_DOUBLE_EQ(cube_even_split_mcl(figure1(1), {3, 0, 1, 2}), 4.0);
}

Metrics evaluate_mapping(const Machine& m, const CommGraph& g, const Mapping& map) {
  auto routing = make_routing(m, parse_routing_spec("minimal"));
  return Evaluator(m, *routing).evaluate(g, map);
}

TEST(Rahtm, FourByFourTorusGivesAValidPlacementNoWorseThanItsInputs) {
  const Machine m = make_machine("torus:4x4,ppn=1");
  const CommGraph g = make_npb_cg(16);
  RahtmStats stats;
  const Mapping map = rahtm_map(MappingProblem(m, g), RahtmOptions{}, &stats);
  validate_mapping(map, m, g.num_tasks(), "rahtm");
  const Metrics metrics = evaluate_mapping(m, g, map);
  EXPECT_NEAR(metrics.mcl, stats.final_mcl, 1e-6) << "the merge's own bookkeeping agrees with the evaluator";
  EXPECT_LE(stats.final_mcl, stats.pinned_mcl + 1e-9) << "merging never returns a worse mapping than its input";
  Mapping identity;
  for (TaskId t = 0; t < 16; ++t) identity.slot_of_task.push_back(t);
  EXPECT_LE(metrics.mcl, evaluate_mapping(m, g, identity).mcl);  // the rank order is one of its inputs
  EXPECT_EQ(stats.subproblems, 5u);  // the root 2x2 and its four 2x2 children
}

TEST(Rahtm, ConcentrationAndPartsRespectCapacities) {
  // 4x4x2: parts 4x4 (two along C), 2 tasks per router, leaves placed greedily and by MILP.
  const Machine m = make_machine("torus:4x4x2,ppn=2");
  const CommGraph g = make_npb_multipartition(64, NpbSolver::BT);
  for (auto leaf : {RahtmLeafSolver::Milp, RahtmLeafSolver::Greedy}) {
    RahtmOptions o;
    o.leaf = leaf;
    o.beam = 8;
    RahtmStats stats;
    const Mapping map = rahtm_map(MappingProblem(m, g), o, &stats);
    validate_mapping(map, m, g.num_tasks(), "rahtm");
    EXPECT_NEAR(evaluate_mapping(m, g, map).mcl, stats.final_mcl, 1e-6);
    EXPECT_LE(stats.final_mcl, stats.pinned_mcl + 1e-9);
  }
}

TEST(Rahtm, ThreadCountDoesNotChangeTheMapping) {
  // Two parts along D: the second part's merge sees its flows with the first (context), and
  // sub-problems and merge candidates are shared out over the threads.
  const Machine m = make_machine("torus:4x4x4x2,ppn=1");
  const CommGraph g = make_npb_cg(128);
  RahtmOptions one, two;
  one.threads = 1, two.threads = 2;
  one.beam = two.beam = 16;
  RahtmStats stats;
  const Mapping a = rahtm_map(MappingProblem(m, g), one, &stats);
  validate_mapping(a, m, g.num_tasks(), "rahtm");
  EXPECT_NEAR(evaluate_mapping(m, g, a).mcl, stats.final_mcl, 1e-6);
  EXPECT_LE(stats.final_mcl, stats.pinned_mcl + 1e-9);
  EXPECT_EQ(rahtm_map(MappingProblem(m, g), two).slot_of_task, a.slot_of_task);
}

TEST(Rahtm, AGridOfClustersIsAlsoLaidOntoTheTorus) {
  // halo3d:8x8x8 (27 points) on 4x4x4x2 routers of 4 slots: RAHTM's 1x2x2 tiles make an 8x4x4
  // grid of clusters, which fits the torus (8 = 4 x 2 on two torus dimensions, 4 and 4 on the
  // others), so the grid laid onto the torus is one of the merged placements. The returned
  // mapping is no worse than that candidate, nor than the blocks mapper's layout of the task
  // grid (computed independently, in blocks of any shape).
  const Machine m = make_machine("torus:4x4x4x2,ppn=4");
  const CommGraph g = build_pattern(parse_pattern_spec("halo3d:8x8x8,points=27"));
  RahtmOptions o;
  o.beam = 16;
  RahtmStats stats;
  const Mapping map = rahtm_map(MappingProblem(m, g), o, &stats);
  validate_mapping(map, m, g.num_tasks(), "rahtm");
  EXPECT_EQ(stats.clustering.substr(0, 5), "1x2x2");
  EXPECT_GT(stats.layout_mcl, 0) << "the grid layout was a candidate";
  EXPECT_LE(stats.final_mcl, stats.layout_mcl + 1e-9);
  const double mcl = evaluate_mapping(m, g, map).mcl;
  EXPECT_NEAR(mcl, stats.final_mcl, 1e-6);  // the merge's loads are floats
  EXPECT_LE(mcl, evaluate_mapping(m, g, run_mapper("blocks", m, g)).mcl * (1 + 1e-12));
}

// 32 clusters on torus:4x4x2 with seeded random flows. The half z = 0 is merged first; the
// half z = 1 then merges its four 2x2 blocks (8 orientations each) with the flows to z = 0 as
// context. A beam of 8^3 keeps every partial state up to the last block, whose 4,096
// candidates are then pruned against the best 512: pruning only drops candidates proven
// worse, so the merge must reach the least MCL over all 4,096 combinations, found here by
// trying each with an exact route cache.
void expect_merge_reaches_the_best_combination(unsigned seed) {
  SCOPED_TRACE(seed);
  const Machine m = make_machine("torus:4x4x2,ppn=1");
  std::mt19937 rng(seed);
  std::vector<CommEdge> edges;
  for (int k = 0; k < 96; ++k) {
    const auto a = static_cast<TaskId>(rng() % 32), b = static_cast<TaskId>(rng() % 32);
    if (a != b) edges.push_back({a, b, double(1 + rng() % 9)});
  }
  const CommGraph g = CommGraph::from_edges(32, edges);
  const MappingProblem problem(m, g);
  std::vector<RouterId> placement(32);
  std::iota(placement.begin(), placement.end(), RouterId{0});
  std::shuffle(placement.begin(), placement.end(), rng);
  auto quarter = [](std::uint32_t x, std::uint32_t y, std::uint32_t z) { return rahtm::Box{{x, y, z}, {2, 2, 1}}; };
  const std::vector<rahtm::Box> lower{quarter(0, 0, 0), quarter(2, 0, 0), quarter(0, 2, 0), quarter(2, 2, 0)};
  const std::vector<rahtm::Box> upper{quarter(0, 0, 1), quarter(2, 0, 1), quarter(0, 2, 1), quarter(2, 2, 1)};
  rahtm::Merger merger(m, problem.route_cache(), g, placement, 2, [](const std::string&) {});
  merger.merge(lower, 4096, false);
  const std::vector<RouterId> before = placement;

  auto z_of = [&](RouterId r) { return r / m.torus()->strides[2] % 2; };
  auto upper_mcl = [&](const std::vector<RouterId>& at) {  // of the flows with an end in z = 1
    std::vector<double> load(problem.exact_route_cache().num_channels(), 0.0);
    for (const CommEdge& e : edges) {
      if (z_of(at[e.src]) == 0 && z_of(at[e.dst]) == 0) continue;
      auto [first, last] = problem.exact_route_cache().route(at[e.src], at[e.dst]);
      for (auto* p = first; p != last; ++p) load[p->channel] += e.volume * p->load;
    }
    return *std::max_element(load.begin(), load.end());
  };
  double best = INFINITY;
  for (std::uint32_t combo = 0; combo < 4096; ++combo) {
    std::vector<RouterId> at = before;
    rahtm::Merger(m, problem.route_cache(), g, at, 1, [](const std::string&) {})
        .apply(upper, {combo & 7, combo >> 3 & 7, combo >> 6 & 7, combo >> 9 & 7});
    best = std::min(best, upper_mcl(at));
  }
  const rahtm::MergeResult r = merger.merge(upper, 512, false, {rahtm::Box{{0, 0, 0}, {4, 4, 1}}});
  EXPECT_NEAR(upper_mcl(placement), best, 1e-9 * best);
  EXPECT_NEAR(r.mcl, best, 1e-5 * best);  // the merge's loads are floats
}

TEST(Rahtm, TheMergeDropsOnlyCandidatesProvenWorse) {
  for (unsigned seed = 1; seed <= 8; ++seed) expect_merge_reaches_the_best_combination(seed);
}

TEST(Rahtm, RefusesMachinesItCannotDecompose) {
  const CommGraph g = make_npb_cg(16);
  EXPECT_THROW(rahtm_map(MappingProblem(make_machine("torus:3x4,ppn=2"), g), {}), Error);
  EXPECT_THROW(rahtm_map(MappingProblem(make_machine("dragonfly:p=2,a=4,h=2"), g), {}), Error);
  EXPECT_THROW(rahtm_map(MappingProblem(make_machine("torus:2x2,ppn=2"), g), {}), Error);  // 16 tasks, 8 slots
}

TEST(ComparisonMappers, HilbertStepsToANeighbourAtEveryCurvePoint) {
  // ppn 1 on 4x4x4x4x2: the curve runs over A-D, E then T inside each point, so tasks 2i
  // and 2i + 2 sit on consecutive curve points, one hop apart.
  const Machine m = make_machine("torus:4x4x4x4x2,ppn=1");
  const CommGraph g = build_pattern(parse_pattern_spec("npb-cg:512"));
  const Mapping map = run_mapper("hilbert", m, g);
  validate_mapping(map, m, g.num_tasks(), "hilbert");
  HopDistance hops(m);
  for (TaskId t = 0; t + 2 < 512; t += 2) {
    ASSERT_EQ(hops(m.router_of_slot(map.slot_of_task[t]), m.router_of_slot(map.slot_of_task[t + 2])), 1u) << t;
    ASSERT_EQ(hops(m.router_of_slot(map.slot_of_task[t]), m.router_of_slot(map.slot_of_task[t + 1])), 1u) << t;
  }
}

TEST(ComparisonMappers, RubikTilingPlacesTilesOnFourByTwoByTwoBoxes) {
  const Machine m = make_machine("torus:4x4x4x4x2,ppn=2");
  const CommGraph g = build_pattern(parse_pattern_spec("halo2d:16x16"));
  const Mapping map = run_mapper("rubik-tiling", m, g);
  validate_mapping(map, m, g.num_tasks(), "rubik-tiling");
  // Task (1, 2): tile 0 (box 0, layer 0), A 1, B 1, E 0: router 1*128 + 1*32 = 160, slot 320.
  EXPECT_EQ(map.slot_of_task[1 * 16 + 2], 320u);
  // Task (0, 4): tile 1 -> box 0, layer 1: router 0, slot 1.
  EXPECT_EQ(map.slot_of_task[4], 1u);
  // Task (4, 0): tile 4 -> box 2, layer 0; boxes row-major over (A/4, B/2, C, D, E/2) = (1, 2,
  // 4, 4, 1): box 2 is D = 2, router 2 * 2 = 4, slot 8.
  EXPECT_EQ(map.slot_of_task[4 * 16], 8u);
}

}  // namespace
}  // namespace taskmap
