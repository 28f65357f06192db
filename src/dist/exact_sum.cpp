#include "taskmap/dist/exact_sum.h"

#include <cmath>

#include "taskmap/core/error.h"

namespace taskmap::dist {

namespace {
// |sum| <= bound < 2^(ilogb(bound) + 1) = 2^(exponent + kBits): the sum of any split of the terms
// fits in 127 bits and a sign.
constexpr int kBits = 125;
}  // namespace

FixedPoint::FixedPoint(double bound) {
  if (!(bound > 0) || !std::isfinite(bound)) fail("exact sum: the bound {} is not a positive finite number", bound);
  exponent_ = std::ilogb(bound) + 1 - kBits;
}

Int128 FixedPoint::from_double(double x) const {
  const double scaled = std::nearbyint(std::ldexp(x, -exponent_));
  // Beyond 2 bound the term was not within the bound the sum was set up for.
  if (!(std::fabs(scaled) < std::ldexp(1.0, kBits + 1))) fail("exact sum: the term {} exceeds the sum's bound", x);
  return static_cast<Int128>(scaled);
}

double FixedPoint::to_double(Int128 sum) const { return std::ldexp(static_cast<double>(sum), exponent_); }

}  // namespace taskmap::dist
