// Exact sums: the correctly rounded sum of the terms, whatever their order or split.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "taskmap/dist/exact_sum.h"
#include "test_support.h"

namespace taskmap::dist {
namespace {

double exact_sum(const FixedPoint& fixed, const std::vector<double>& terms) {
  Int128 sum = 0;
  for (double t : terms) sum += fixed.from_double(t);
  return fixed.to_double(sum);
}

// The doubles 0.1, 0.2 and 0.3 are 0.1000000000000000055511151231257827,
// 0.2000000000000000111022302462515654 and 0.2999999999999999888977697537484346: their exact sum,
// 0.6000000000000000055511151231257827, is 2.8e-17 above the double 0.6
// (0.59999999999999997779553950749686919) and 8.3e-17 below the next one
// (0.60000000000000008881784197001252323), so it rounds to 0.6. Adding from the left gives the
// next one instead: 0.1 + 0.2 = 0.30000000000000004, + 0.3 = 0.6000000000000001.
TEST(ExactSum, IsTheCorrectlyRoundedSumInEveryOrder) {
  const FixedPoint fixed(1.0);
  std::vector<double> terms{0.1, 0.2, 0.3};
  EXPECT_EQ((0.1 + 0.2) + 0.3, 0.6000000000000001);
  std::sort(terms.begin(), terms.end());
  do {
    EXPECT_EQ(exact_sum(fixed, terms), 0.6);
  } while (std::next_permutation(terms.begin(), terms.end()));
}

// 1e16 + 1 is not a double (above 2^53 = 9.007e15 doubles are even): from the left, 1 is lost.
TEST(ExactSum, KeepsWhatAFloatingSumLoses) {
  const FixedPoint fixed(2e16);
  EXPECT_EQ((1e16 + 1.0) - 1e16, 0.0);
  EXPECT_EQ(exact_sum(fixed, {1e16, 1.0, -1e16}), 1.0);
  // A single term comes back unchanged.
  EXPECT_EQ(exact_sum(fixed, {0.1}), 0.1);
  EXPECT_EQ(exact_sum(FixedPoint(0.1), {0.1}), 0.1);
}

TEST(ExactSum, RefusesTermsBeyondItsBoundAndBadBounds) {
  const FixedPoint fixed(1.0);
  EXPECT_NE(test::error_message([&] { fixed.from_double(1e10); }), "no error");
  EXPECT_NE(test::error_message([] { FixedPoint(0.0); }), "no error");
  EXPECT_NE(test::error_message([] { FixedPoint(std::numeric_limits<double>::infinity()); }), "no error");
}

}  // namespace
}  // namespace taskmap::dist
