// The spec syntax every name on the command line follows: kind[:item,...], typed values with
// ranges, and errors naming the option, the text and the problem.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "taskmap/core/error.h"
#include "taskmap/core/spec.h"

namespace taskmap {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(SpecReader, ReadsKindBareItemAndTypedKeys) {
  io::SpecReader spec("--machine", "torus:4x4x2,ppn=16,mesh=C,fast=true,alpha=0.25");
  EXPECT_EQ(spec.kind(), "torus");
  EXPECT_EQ(spec.bare_sizes("4x4", 1024), (std::vector<std::uint32_t>{4, 4, 2}));
  EXPECT_EQ(spec.get_int("ppn", 1, 64), 16);
  EXPECT_EQ(spec.get_string("mesh"), "C");
  EXPECT_EQ(spec.get_bool("fast"), true);
  EXPECT_DOUBLE_EQ(*spec.get_double("alpha"), 0.25);
  EXPECT_EQ(spec.get_int("conc", 1, 8), std::nullopt);
  EXPECT_NO_THROW(spec.finish());
}

TEST(SpecReader, UnknownKeysAndBadValuesNameOptionTextAndProblem) {
  EXPECT_EQ(error_of([] {
              io::SpecReader spec("--mapper", "random:sed=3");
              spec.get_int("seed", 0, 100);
              spec.finish();
            }),
            "--mapper 'random:sed=3': unknown key 'sed' for 'random'");
  EXPECT_EQ(error_of([] { io::SpecReader("--machine", "torus:4x4,ppn=2,ppn=3"); }),
            "--machine 'torus:4x4,ppn=2,ppn=3': key 'ppn' given twice");
  EXPECT_EQ(error_of([] { io::SpecReader("--machine", "torus:4x4,ppn=99").get_int("ppn", 1, 64); }),
            "--machine 'torus:4x4,ppn=99': ppn=99 is out of range [1, 64]");
  EXPECT_EQ(error_of([] { io::SpecReader("--machine", "torus:4x0").bare_sizes("4x4", 1024); }),
            "--machine 'torus:4x0': dimension size 0 must be at least 1");
  EXPECT_EQ(error_of([] { io::SpecReader("--pattern", "halo2d:4x4,periodic=maybe").get_bool("periodic"); }),
            "--pattern 'halo2d:4x4,periodic=maybe': periodic='maybe' is not true or false");
  EXPECT_EQ(error_of([] { io::SpecReader("--machine", ":4x4"); }), "--machine ':4x4': missing name before ':'");
}

}  // namespace
}  // namespace taskmap
