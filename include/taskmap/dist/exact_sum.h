#pragma once
// Sums of doubles that do not depend on the order of their terms, nor on how the terms are
// split over threads or processes: each term is rounded to a multiple of a power of two (the
// quantum, fixed for the whole sum from a bound on it) and added as a 128-bit integer, which is
// exact and associative; the total is rounded once, to the nearest double. With the quantum at
// 2^-125 of the bound, every term above 2^-72 of the bound is taken exactly, so the result is
// the correctly rounded sum of the terms.
#include "taskmap/dist/processes.h"

namespace taskmap::dist {

class FixedPoint {
 public:
  // For sums whose magnitude stays at or below `bound` (> 0, finite).
  explicit FixedPoint(double bound);
  // x (|x| <= 2 bound) as a multiple of the quantum, to the nearest (ties to even).
  Int128 from_double(double x) const;
  // The nearest double to a sum of from_double's values.
  double to_double(Int128 sum) const;

 private:
  int exponent_;  // the quantum is 2^exponent_
};

}  // namespace taskmap::dist
