// The MPI plugins under their launchers (Open MPI's mpirun, MPICH's mpiexec), oversubscribed on
// this machine: tests/mpi/dist_check.cpp opens the plugin as taskmap does and checks every
// operation and the agreement on failures.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <string>

#include "launch/mpi_runs.h"
#include "test_support.h"

namespace taskmap {
namespace {

using test::launch;
using test::Mpi;
using test::count_of;
using test::mpis;

TEST(DistPlugin, OperationsGiveWhatEveryProcessDerives) {
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    for (int np : {1, 2, 4}) {
      SCOPED_TRACE(np);
      const auto r = launch(mpi, np, std::string(TASKMAP_DIST_CHECK) + " operations", {});
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
      // Each process prints "ok" and a line break; a launcher may forward the processes'
      // output interleaved ("okok" then two line breaks, seen under MPICH), so the lines are
      // not counted, the text without its whitespace is.
      std::string words;
      for (char ch : r.out) {
        if (!std::isspace(static_cast<unsigned char>(ch))) words += ch;
      }
      std::string expected;
      for (int i = 0; i < np; ++i) expected += "ok";
      EXPECT_EQ(words, expected) << r.out << r.err;
    }
  }
}

// A process whose error the others do not share finds itself alone within the time it waits,
// and ends the launch: nobody is left waiting for it.
TEST(DistPlugin, AProcessFailingAloneEndsTheLaunch) {
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    // The verdicts are read from a file: a launcher need not forward what a process printed
    // just before it aborted the run.
    const std::string record = test::temp_path("one_fails", mpi.name);
    std::filesystem::remove(record);
    const auto r = launch(mpi, 3, std::string(TASKMAP_DIST_CHECK) + " one-fails " + record, {});
    const std::string verdicts = test::read_text(record);
    std::filesystem::remove(record);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(count_of(verdicts, "failed alone"), 1u) << verdicts << r.out << r.err;
    EXPECT_EQ(count_of(verdicts, "not ended"), 0u) << verdicts;
  }
}

TEST(DistPlugin, ProcessesFailingTogetherAgree) {
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    const auto r = launch(mpi, 3, std::string(TASKMAP_DIST_CHECK) + " all-fail", {});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(count_of(r.out, "all failed"), 3u) << r.out << r.err;
  }
}

}  // namespace
}  // namespace taskmap
