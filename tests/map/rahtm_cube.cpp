// RAHTM's cube sub-problems: the canonical form that lets equal ones be solved once, and the
// exact search for the least even-split MCL, checked against exhaustive enumeration and CBC.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "taskmap/map/rahtm/cube.h"
#include "taskmap/map/rahtm/rahtm.h"
#include "taskmap/problem/problem.h"
#include "taskmap/topology/machine_spec.h"

namespace taskmap {
namespace {

CubeProblem cube(std::vector<double> capacity, std::vector<double> traffic) {
  CubeProblem p;
  p.dims = static_cast<std::uint32_t>(capacity.size());
  p.capacity = std::move(capacity);
  p.traffic = std::move(traffic);
  return p;
}

// Q's cluster to[a] is P's cluster a; volumes times `factor`; capacities as given.
CubeProblem relabelled(const CubeProblem& p, const std::vector<std::uint32_t>& to, double factor,
                       std::vector<double> capacity) {
  const std::uint32_t n = p.size();
  CubeProblem q = cube(std::move(capacity), std::vector<double>(std::size_t(n) * n, 0.0));
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t b = 0; b < n; ++b) q.traffic[to[a] * n + to[b]] = p.traffic[a * n + b] * factor;
  return q;
}

// A 3-cube sub-problem without symmetry to speak of: asymmetric volumes, some pairs silent.
CubeProblem irregular_three_cube() {
  return cube({1, 2, 1}, {0, 5, 0, 1, 0, 0, 2, 0,   //
                          3, 0, 4, 0, 0, 1, 0, 0,   //
                          0, 2, 0, 6, 0, 0, 0, 1,   //
                          1, 0, 0, 0, 7, 0, 0, 0,   //
                          0, 0, 3, 0, 0, 2, 0, 0,   //
                          0, 0, 0, 0, 1, 0, 8, 0,   //
                          2, 0, 0, 0, 0, 0, 0, 3,   //
                          0, 1, 0, 0, 0, 4, 0, 0});
}

bool is_placement(const std::vector<std::uint32_t>& vertex_of, std::uint32_t n) {
  std::vector<std::uint32_t> sorted = vertex_of;
  std::sort(sorted.begin(), sorted.end());
  for (std::uint32_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != i) return false;
  return sorted.size() == n;
}

std::vector<std::uint32_t> identity(std::uint32_t n) {
  std::vector<std::uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  return v;
}

TEST(CanonicalCube, RelabelledScaledAndDimensionPermutedCopiesShareOneForm) {
  const CubeProblem p = irregular_three_cube();
  // Clusters relabelled, volumes x3, and the capacity-2 dimension moved from 1 to 0: the
  // same sub-problem seen through a dimension permutation of the cube.
  const CubeProblem q = relabelled(p, {5, 2, 7, 0, 3, 6, 1, 4}, 3.0, {2, 1, 1});
  const CanonicalCube cp = canonical_cube(p), cq = canonical_cube(q);
  EXPECT_TRUE(cp.canonical);
  EXPECT_TRUE(cq.canonical);
  EXPECT_EQ(cp.problem.capacity, (std::vector<double>{1, 1, 2}));
  EXPECT_EQ(cp.problem.capacity, cq.problem.capacity);
  EXPECT_EQ(cp.problem.traffic, cq.problem.traffic);
  EXPECT_DOUBLE_EQ(cp.scale, 8.0);  // the largest volume
  EXPECT_DOUBLE_EQ(cq.scale, 24.0);
  // One volume changed: another sub-problem, another form.
  CubeProblem r = p;
  r.traffic[0 * 8 + 1] = 4;
  EXPECT_NE(canonical_cube(r).problem.traffic, cp.problem.traffic);

  // The form's solution, mapped back, is a placement of each with the same MCL up to the
  // scale (the even split evaluated afresh on the original sub-problems).
  const CubeSolution s = solve_cube_exact(cp.problem, identity(8), 1'000'000);
  ASSERT_TRUE(s.optimal);
  const CubeSolution sp = cp.to_original(s), sq = cq.to_original(s);
  ASSERT_TRUE(is_placement(sp.vertex_of, 8));
  ASSERT_TRUE(is_placement(sq.vertex_of, 8));
  const double mcl_p = cube_even_split_mcl(p, sp.vertex_of), mcl_q = cube_even_split_mcl(q, sq.vertex_of);
  EXPECT_NEAR(mcl_p, s.model_mcl * 8.0, 1e-12 * mcl_p);
  EXPECT_NEAR(mcl_q, 3.0 * mcl_p, 1e-12 * mcl_q);
  // And it is the optimum of each: solved directly, neither does better.
  EXPECT_NEAR(solve_cube_exact(p, identity(8), 1'000'000).model_mcl, mcl_p, 1e-9 * mcl_p);
  EXPECT_NEAR(solve_cube_exact(q, identity(8), 1'000'000).model_mcl, mcl_q, 1e-9 * mcl_q);
}

TEST(CanonicalCube, ScalingsThatRoundDifferentlyStillAgree) {
  // x/8 and (3x)/(3*8): computed in floating point, the quotients may differ in the last
  // bit; the form rounds them to 36 significant bits.
  CubeProblem p = irregular_three_cube();
  for (double& v : p.traffic) v *= 0.1;
  const CubeProblem q = relabelled(p, identity(8), 3.0, p.capacity);
  EXPECT_EQ(canonical_cube(p).problem.traffic, canonical_cube(q).problem.traffic);
}

TEST(CanonicalCube, HighlySymmetricGraphsAreLabelledCompletely) {
  // The 4-cube's own adjacency (384 automorphisms) and the complete graph on 32 clusters
  // (32! automorphisms): the orbit pruning keeps the labelling search within its budget,
  // and every relabelling has the same form.
  CubeProblem adjacency = cube({1, 1, 1, 1}, std::vector<double>(256, 0.0));
  for (std::uint32_t v = 0; v < 16; ++v)
    for (std::uint32_t d = 0; d < 4; ++d) adjacency.traffic[v * 16 + (v ^ (1u << d))] = 1;
  CubeProblem complete = cube({1, 1, 1, 1, 1}, std::vector<double>(1024, 1.0));
  for (std::uint32_t v = 0; v < 32; ++v) complete.traffic[v * 32 + v] = 0;
  std::mt19937 rng(7);
  for (const CubeProblem* p : {&adjacency, &complete}) {
    const CanonicalCube form = canonical_cube(*p);
    EXPECT_TRUE(form.canonical);
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<std::uint32_t> to = identity(p->size());
      std::shuffle(to.begin(), to.end(), rng);
      const CanonicalCube other = canonical_cube(relabelled(*p, to, 1.0, p->capacity));
      EXPECT_TRUE(other.canonical);
      EXPECT_EQ(other.problem.traffic, form.problem.traffic);
    }
  }
}

// The least even-split MCL over all n! placements.
double exhaustive_minimum(const CubeProblem& p) {
  std::vector<std::uint32_t> at = identity(p.size());
  double best = INFINITY;
  do best = std::min(best, cube_even_split_mcl(p, at));
  while (std::next_permutation(at.begin(), at.end()));
  return best;
}

CubeProblem random_cube(std::mt19937& rng, std::vector<double> capacity, double density) {
  const std::uint32_t n = 1u << capacity.size();
  CubeProblem p = cube(std::move(capacity), std::vector<double>(std::size_t(n) * n, 0.0));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> volume(1, 9);
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t b = 0; b < n; ++b)
      if (a != b && unit(rng) < density) p.traffic[a * n + b] = volume(rng);
  return p;
}

TEST(CubeSearch, FindsTheExhaustiveMinimumOnSquaresAndThreeCubes) {
  // Every capacity pattern the decomposition makes (double-wide links on some dimensions),
  // sparse and dense traffic; the symmetry pruning must not lose the optimum.
  std::mt19937 rng(2024);
  const std::vector<std::vector<double>> capacities = {{1, 1}, {2, 1}, {1, 1, 1}, {2, 1, 1}, {1, 2, 2}, {2, 2, 2}};
  for (const auto& capacity : capacities) {
    for (double density : {0.2, 0.5, 1.0}) {
      const CubeProblem p = random_cube(rng, capacity, density);
      const double minimum = exhaustive_minimum(p);
      CubeSearchStats stats;
      const CubeSolution s = solve_cube_exact(p, identity(p.size()), 10'000'000, &stats);
      EXPECT_TRUE(s.optimal);
      EXPECT_TRUE(is_placement(s.vertex_of, p.size()));
      EXPECT_NEAR(s.model_mcl, minimum, 1e-9 * minimum) << capacity.size() << " dims, density " << density;
      EXPECT_DOUBLE_EQ(cube_even_split_mcl(p, s.vertex_of), s.model_mcl);
    }
  }
}

TEST(CubeSearch, AgreesWithTheMilpOfTableTwo) {
  // [RAHTM Figure 1]: P1 -> P2 (4 units) and the ring P0 -> P1 -> P2 -> P3 -> P0 (1 unit)
  // on a 2x2 network. The MILP's optimum, with the best split over minimal paths, is 2.5
  // (tests/map/rahtm.cpp); the even split reaches it with P1, P2 on the diagonal (2 + 0.5 on
  // the busiest channel), and no even split does better as the best split bounds it below.
  CubeProblem figure1 = cube({1, 1}, std::vector<double>(16, 0.0));
  figure1.traffic[1 * 4 + 2] = 4;
  for (std::uint32_t a : {0u, 2u, 3u}) figure1.traffic[a * 4 + (a + 1) % 4] = 1;
  const CubeSolution exact = solve_cube_exact(figure1, identity(4), 1000);
  EXPECT_TRUE(exact.optimal);
  EXPECT_DOUBLE_EQ(exact.model_mcl, 2.5);
  EXPECT_EQ(exact.vertex_of[1] ^ exact.vertex_of[2], 3u);

  // Small random cubes (few flows, so that CBC proves its optimum quickly): CBC's optimum
  // (best split) bounds the exact search's (even split) from below, and the exact search's
  // placement is at least as good as CBC's under the even split.
  std::mt19937 rng(99);
  for (const auto& [capacity, density] : std::vector<std::pair<std::vector<double>, double>>{
           {{1, 1}, 0.5}, {{2, 1}, 1.0}, {{1, 1}, 1.0}, {{2, 2}, 0.7}, {{1, 1, 1}, 0.06}, {{2, 1, 1}, 0.06}}) {
    const CubeProblem p = random_cube(rng, capacity, density);
    const auto flows = std::count_if(p.traffic.begin(), p.traffic.end(), [](double v) { return v > 0; });
    SCOPED_TRACE(testing::Message() << capacity.size() << " dimensions, " << flows << " flows");
    ASSERT_GE(flows, 2);
    const CubeSolution milp = solve_cube_milp(p, 1'000'000);
    const CubeSolution search = solve_cube_exact(p, identity(p.size()), 10'000'000);
    ASSERT_TRUE(milp.optimal);
    ASSERT_TRUE(search.optimal);
    EXPECT_LE(milp.model_mcl, search.model_mcl * (1 + 1e-6));
    EXPECT_LE(search.model_mcl, cube_even_split_mcl(p, milp.vertex_of) * (1 + 1e-9));
  }
}

TEST(CubeSearch, ABudgetThatRunsOutKeepsAPlacementNoWorseThanItsStart) {
  std::mt19937 rng(5);
  const CubeProblem p = random_cube(rng, {1, 1, 1, 1}, 0.5);
  const std::vector<std::uint32_t> start = identity(16);
  const CubeSolution s = solve_cube_exact(p, start, 20);
  EXPECT_FALSE(s.optimal);
  EXPECT_TRUE(is_placement(s.vertex_of, 16));
  EXPECT_LE(s.model_mcl, cube_even_split_mcl(p, start));
}

TEST(RahtmCanonical, EqualSubProblemsUpToSymmetryAreSolvedOnce) {
  // torus:4x4, one task per router: the 4x4 task grid in 2x2 tiles (no traffic between
  // tiles: the cut is 0), so the root sub-problem places 4 silent tiles (capacities 2 2: each
  // half of the torus spans a whole ring) and each tile's 4 tasks make one sub-problem
  // (capacities 1 1). Tile 0: a directed 4-cycle; tile 1: the cycle reversed, twice the
  // volume; tile 2: a cycle visiting the tasks in another order; tile 3: a directed path.
  // The first three are one sub-problem up to relabelling and scale: 5 sub-problems, 3 forms.
  const Machine m = make_machine("torus:4x4,ppn=1");
  auto task = [](std::uint32_t row, std::uint32_t col) { return row * 4 + col; };
  // Tile (r, c) holds tasks (2r + i, 2c + j); its k-th task in row-major order:
  auto in_tile = [&](std::uint32_t tile, std::uint32_t k) {
    return task(tile / 2 * 2 + k / 2, tile % 2 * 2 + k % 2);
  };
  std::vector<CommEdge> edges;
  auto cycle = [&](std::uint32_t tile, std::vector<std::uint32_t> order, double volume) {
    for (std::size_t i = 0; i < order.size(); ++i)
      edges.push_back({in_tile(tile, order[i]), in_tile(tile, order[(i + 1) % order.size()]), volume});
  };
  cycle(0, {0, 1, 3, 2}, 1.0);
  cycle(1, {2, 3, 1, 0}, 2.0);
  cycle(2, {0, 3, 1, 2}, 1.0);
  for (std::uint32_t k = 0; k < 3; ++k) edges.push_back({in_tile(3, k), in_tile(3, k + 1), 1.0});
  CommGraph g = CommGraph::from_edges(16, std::move(edges));
  g.set_grid({4, 4});
  for (unsigned threads : {1u, 2u}) {
    RahtmOptions o;
    o.threads = threads;
    RahtmStats stats;
    const Mapping map = rahtm_map(MappingProblem(m, g), o, &stats);
    validate_mapping(map, m, 16, "rahtm");
    EXPECT_EQ(stats.subproblems, 5u);
    EXPECT_EQ(stats.solved, 3u);
    EXPECT_EQ(stats.labelling_incomplete, 0u);
  }
}

}  // namespace
}  // namespace taskmap
