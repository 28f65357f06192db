// The MPI plugins under their launchers (Open MPI's mpirun, MPICH's mpiexec), oversubscribed on
// this machine: tests/mpi/dist_check.cpp opens the plugin as taskmap does and checks every
// operation and the agreement on failures.
#include <gtest/gtest.h>

#include <sstream>

#include "launch/mpi_runs.h"
#include "test_support.h"

namespace taskmap {
namespace {

using test::launch;
using test::Mpi;
using test::mpis;

std::size_t lines_equal_to(const std::string& text, const std::string& line) {
  std::istringstream in(text);
  std::size_t n = 0;
  for (std::string l; std::getline(in, l);) n += l == line;
  return n;
}

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(DistPlugin, OperationsGiveWhatEveryProcessDerives) {
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    for (int np : {1, 2, 4}) {
      SCOPED_TRACE(np);
      const auto r = launch(mpi, np, std::string(TASKMAP_DIST_CHECK) + " operations", {});
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
      EXPECT_EQ(lines_equal_to(r.out, "ok"), static_cast<std::size_t>(np)) << r.out << r.err;
    }
  }
}

// A process whose error the others do not share finds itself alone within the time it waits,
// and ends the launch: nobody is left waiting for it.
TEST(DistPlugin, AProcessFailingAloneEndsTheLaunch) {
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    const auto r = launch(mpi, 3, std::string(TASKMAP_DIST_CHECK) + " one-fails", {});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(lines_equal_to(r.out, "failed alone"), 1u) << r.out << r.err;
    EXPECT_EQ(count_of(r.out, "not ended"), 0u) << r.out;
  }
}

TEST(DistPlugin, ProcessesFailingTogetherAgree) {
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    const auto r = launch(mpi, 3, std::string(TASKMAP_DIST_CHECK) + " all-fail", {});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(lines_equal_to(r.out, "all failed"), 3u) << r.out << r.err;
  }
}

}  // namespace
}  // namespace taskmap
