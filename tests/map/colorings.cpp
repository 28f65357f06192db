// Colourings behind the structured mappers: mod-colouring and its perfectness check, balanced
// adjacency colourings and their checker.
#include <gtest/gtest.h>

#include <algorithm>
#include <queue>
#include <set>
#include <unistd.h>

#include "taskmap/core/error.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/map/structured/coloring.h"
#include "taskmap/workload/generators.h"
#include "test_support.h"

namespace taskmap {
namespace {

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

}  // namespace
}  // namespace taskmap
