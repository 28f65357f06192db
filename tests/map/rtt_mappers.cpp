// RT/RTT mappers: identity and diagonal shift, concentration functions, the closed-form
// throughput of the identity mapping.
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

using test::run_mapper;

// The mapper named `mapper` on the machine under its default routing.
Mapping run_mapper(const Machine& m, const CommGraph& g, const std::string& mapper) {
  return test::run_mapper(mapper, m, g);
}

// ---- RT / RTT mappers ----

TEST(RttMap, DiagonalShiftIsThePapersFormula) {
  // f^d(x, y) = (x + y mod m, y) on RTT(2): 4 x 2 routers, logical 4 x 2 grid.
  const Machine m = make_machine("rtt:a=2");
  const CommGraph g = make_localmix(4, 2, 1.0);
  const Mapping map = run_mapper(m, g, "rtt-map:f=diag");
  for (std::uint32_t x = 0; x < 4; ++x)
    for (std::uint32_t y = 0; y < 2; ++y) EXPECT_EQ(map.slot_of_task[x * 2 + y], (x + y) % 4 + 4 * y);
}

TEST(RttMap, TwistedConcentrationIsThePapersFormula) {
  // f_2^t(x, y) = (x + floor(y/n) m/2 mod m, y mod n) from 4 x 4 onto 4 x 2 (m = 4, n = 2).
  const Machine m = make_machine("rtt:a=2,ppn=2");
  const CommGraph g = make_localmix(4, 4, 1.0);
  const Mapping map = run_mapper(m, g, "rtt-map:f=id,conc=t2");
  for (std::uint32_t x = 0; x < 4; ++x)
    for (std::uint32_t y = 0; y < 4; ++y) {
      const std::uint32_t rx = (x + (y / 2) * 2) % 4, ry = y % 2;
      EXPECT_EQ(map.slot_of_task[x * 4 + y] / 2, rx + 4 * ry) << x << "," << y;
    }
  // f_2^v then f^d: (x, y) -> (x + floor(y/2) mod 4, floor(y/2)).
  const Mapping dv = run_mapper(m, g, "rtt-map:f=diag,conc=v2");
  EXPECT_EQ(dv.slot_of_task[3 * 4 + 3] / 2, (3 + 1) % 4 + 4 * 1);
  // f_2^h then f_2^t: 8 x 4 onto 4 x 2 with 4 tasks per router.
  const Machine m4 = make_machine("rtt:a=2,ppn=4");
  const Mapping ht = run_mapper(m4, make_localmix(8, 4, 1.0), "rtt-map:conc=h2t2");
  EXPECT_EQ(ht.slot_of_task[5 * 4 + 3] / 4, (5 / 2 + (3 / 2) * 2) % 4 + 4 * (3 % 2));
}

TEST(RttMap, IdThroughputOnRtIsTheClosedForm) {
  // Section 3.3.1: max throughput 4 / (alpha + a (1 - alpha)), exactly, for a = 4, 8, 16.
  for (int a : {4, 8, 16}) {
    for (double alpha : {0.0, 0.3, 0.65, 1.0}) {
      auto e = test::evaluate(fmt::format("rt:a={}", a), fmt::format("localmix:{}x{},alpha={}", 2 * a, a, alpha),
                              "rtt-map:f=id", "minimal");
      EXPECT_NEAR(e.metrics.throughput, 4 / (alpha + a * (1 - alpha)), 1e-9) << "a=" << a << " alpha=" << alpha;
    }
  }
}

TEST(RttMap, RefusesGridsItCannotConcentrate) {
  const Machine m = make_machine("rtt:a=4");
  EXPECT_THROW(run_mapper(m, make_localmix(8, 8, 1), "rtt-map:f=id"), Error);  // 8x8 onto 8x4 without conc
  EXPECT_THROW(run_mapper(make_machine("rtt:a=4,ppn=2"), make_localmix(8, 6, 1), "rtt-map:conc=v2"), Error);
  EXPECT_THROW(parse_mapper_spec("rtt-map:conc=x2"), Error);
}

}  // namespace
}  // namespace taskmap
