// [PERCS-map Tables 1-4]: the default (sequential) mapping's throughput tau = 4/t with
// its bottleneck class, under direct and indirect routing. The paper rounds half to even.
#include <gtest/gtest.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <cfenv>
#include <cmath>

#include "test_support.h"

namespace taskmap {
namespace {

struct Cell {
  int ns, nd;
  const char* pattern;
  const char* routing;
  double paper;
  const char* bottleneck;  // the paper's class ("" where the table does not say)
};

double round_half_even(double x) {
  std::fesetround(FE_TONEAREST);
  return std::nearbyint(x);
}

void check(const Cell& c) {
  auto e = test::evaluate(fmt::format("percs:ns={},nd={}", c.ns, c.nd), c.pattern, "default", c.routing);
  // tau is per node: the throughput per task times the 4 tasks of every node.
  const double tau = 4 * e.metrics.throughput;
  SCOPED_TRACE(fmt::format("ns={} nd={} {} {}: tau={} ({})", c.ns, c.nd, c.pattern, c.routing, tau,
                           fmt::join(e.metrics.bottleneck_class, ",")));
  EXPECT_EQ(round_half_even(tau), c.paper);
  if (*c.bottleneck) {
    // Several classes are listed when they tie exactly; the paper's must be among them.
    const auto& tied = e.metrics.bottleneck_class;
    EXPECT_NE(std::find(tied.begin(), tied.end(), c.bottleneck), tied.end());
  }
}

TEST(PercsTable1, HaloDefaultDirectNs32) {
  // Table 1, DEF column; "In most of the cases, D-links were the bottleneck" (only starred
  // cells are LR, and none of DEF is starred).
  for (Cell c : {Cell{32, 1, "halo2d:64x64", "direct", 2, "D"}, Cell{32, 2, "halo2d:64x64", "direct", 5, "D"},
                 Cell{32, 4, "halo2d:64x64", "direct", 10, "D"}, Cell{32, 8, "halo2d:64x64", "direct", 20, "D"},
                 Cell{32, 16, "halo2d:64x64", "direct", 40, "D"}}) {
    check(c);
  }
}

TEST(PercsTable2, HaloDefaultDirectNd4) {
  // Grids P x Q = 128 ns, P <= Q, powers of two, as square as possible.
  for (Cell c : {Cell{16, 4, "halo2d:32x64", "direct", 10, "D"}, Cell{32, 4, "halo2d:64x64", "direct", 10, "D"},
                 Cell{64, 4, "halo2d:64x128", "direct", 5, "D"}, Cell{128, 4, "halo2d:128x128", "direct", 5, "D"}}) {
    check(c);
  }
}

TEST(PercsTable3, HaloDefaultIndirectNs32) {
  for (Cell c : {Cell{32, 1, "halo2d:64x64", "indirect", 20, "D"}, Cell{32, 2, "halo2d:64x64", "indirect", 34, "LR"},
                 Cell{32, 4, "halo2d:64x64", "indirect", 80, "D"}, Cell{32, 8, "halo2d:64x64", "indirect", 103, "LL"},
                 Cell{32, 16, "halo2d:64x64", "indirect", 64, "LL"}}) {
    check(c);
  }
}

TEST(PercsTable4, TransposeRowWiseSequentialDirectNs32) {
  // The Hybrid column: on a 64x64 grid the row-wise sequential mapping is the default one.
  // nd = 4 is an exact D/LR tie (both 0.05); the paper prints D.
  for (Cell c : {Cell{32, 1, "transpose:64x64", "direct", 20, "D"}, Cell{32, 2, "transpose:64x64", "direct", 40, "D"},
                 Cell{32, 4, "transpose:64x64", "direct", 80, "D"}, Cell{32, 8, "transpose:64x64", "direct", 80, "LR"},
                 Cell{32, 16, "transpose:64x64", "direct", 80, "LR"}}) {
    check(c);
  }
}

}  // namespace
}  // namespace taskmap
