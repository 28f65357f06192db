// The taskmap binary under MPI launchers (Open MPI's mpirun, MPICH's mpiexec), oversubscribed on
// this machine: eval, compare and map over 1, 2 and 4 processes against the serial program, the
// distributed partition, and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "launch/mpi_runs.h"
#include "test_support.h"

namespace taskmap {
namespace {

using test::launch;
using test::Mpi;
using test::count_of;
using test::mpis;

std::string temp(const std::string& name) { return test::temp_path("dist", name); }

std::string taskmap_command(const std::string& args) { return std::string(TASKMAP_BINARY) + " " + args; }

// The serial program needs no MPI runtime: the binary does not link one.
TEST(TaskmapBinary, LinksNoMpi) {
  const auto r = test::run_command(std::string("ldd ") + TASKMAP_BINARY);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("libmpi"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("libptscotch"), std::string::npos) << r.out;
}

// The metrics of `eval` over 1, 2 and 4 processes are the serial run's, byte for byte.
void expect_serial_eval(const Mpi& mpi, const std::string& args) {
  SCOPED_TRACE(args);
  const auto serial = test::run_taskmap(args);
  ASSERT_EQ(serial.exit_code, 0) << serial.err;
  for (int np : {1, 2, 4}) {
    SCOPED_TRACE(np);
    const auto r = launch(mpi, np, taskmap_command(args), {});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, serial.out);
  }
}

// The random placement of 131,072 tasks on 4,096 routers under DOR is about 10^7 units of
// routing work (786,432 task pairs of 1 + 12 hops on average): three blocks of destinations,
// routed by different processes (at 4 processes one has none), their loads added exactly. The
// others are routed in one piece: by the leader, the others receiving its loads (the adaptive
// ugal routing always so).
TEST(TaskmapUnderMpi, EvalGivesTheSerialMetrics) {
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    expect_serial_eval(mpi, "eval --format json --machine torus:16x16x16,ppn=32 --pattern halo3d:64x64x32 --mapper "
                            "random:seed=1 --routing dor");
    expect_serial_eval(mpi, "eval --format json --machine torus:8x8x8,ppn=4 --pattern halo3d:16x16x8 --mapper "
                            "random:seed=2");
    expect_serial_eval(mpi, "eval --format json --machine dragonfly:p=2,a=4,h=2 --pattern halo2d:8x9 --routing ugal "
                            "--mapper default");
  }
}

// compare's rows spread over the processes print the serial table, timings aside.
TEST(TaskmapUnderMpi, CompareSpreadsRowsAndPrintsTheSerialRows) {
  const std::string args = "compare --format json --machine torus:4x4x4,ppn=2 --pattern halo3d:8x4x4 --mappers "
                           "default,random:seed=3,greedy,rb,scotch,rahtm,order:ABCT,percs-block:level=node";
  auto without_timings = [](const std::string& out) {
    nlohmann::json j = nlohmann::json::parse(out);
    for (auto& row : j["rows"]) row.erase("mapping_seconds");
    return j;
  };
  const auto serial = test::run_taskmap(args);
  ASSERT_EQ(serial.exit_code, 0) << serial.err;
  const nlohmann::json expected = without_timings(serial.out);
  ASSERT_NE(serial.out.find("\"skipped\""), std::string::npos);  // percs-block's row says why not
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    for (int np : {1, 2, 4}) {
      SCOPED_TRACE(np);
      const auto r = launch(mpi, np, taskmap_command(args), {});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(without_timings(r.out), expected);
    }
  }
}

// The distributed partition gives a valid mapping (every task on a slot, one per slot, which
// `taskmap eval` checks as it reads the file), the same on every run with as many processes,
// and one that cuts far less traffic than a random placement.
TEST(TaskmapUnderMpi, PtScotchMappingsAreValid) {
  const std::string problem = "--machine torus:4x4x4,ppn=4 --pattern halo3d:16x4x4";
  const auto random = test::run_taskmap("eval --format json " + problem + " --mapper random:seed=1");
  ASSERT_EQ(random.exit_code, 0) << random.err;
  const double random_hop_bytes = nlohmann::json::parse(random.out)["hop_bytes"];
  for (const Mpi& mpi : mpis()) {
    if (std::string(mpi.name) != "openmpi") continue;  // PT-Scotch is Open MPI's
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    for (int np : {1, 2, 4}) {
      SCOPED_TRACE(np);
      const std::string out = temp("ptscotch_" + std::to_string(np) + ".txt");
      const auto r = launch(mpi, np, taskmap_command("map --mapper ptscotch --out " + out + " " + problem), {});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_NE(r.err.find("parts cut by PT-Scotch on " + std::to_string(np) + " processes"), std::string::npos)
          << r.err;
      const auto check = test::run_taskmap("eval --format json --mapping " + out + " " + problem);
      ASSERT_EQ(check.exit_code, 0) << check.err;
      EXPECT_LT(nlohmann::json::parse(check.out)["hop_bytes"].get<double>(), random_hop_bytes / 2);
      const std::string again = temp("ptscotch_again.txt");
      const auto r2 = launch(mpi, np, taskmap_command("map --mapper ptscotch --out " + again + " " + problem), {});
      ASSERT_EQ(r2.exit_code, 0) << r2.err;
      EXPECT_EQ(test::read_text(again), test::read_text(out));
      std::filesystem::remove(out);
      std::filesystem::remove(again);
    }
  }
}

// auto's jobs spread over the processes (each maps its own alone, then all evaluate every
// result together) give the placement the serial program finds with as many workers, each
// worker's jobs run in turn: under both MPIs, at 2 processes, and at 3 with a work limit.
TEST(TaskmapUnderMpi, AutoOverProcessesIsAutoWithAsManyWorkers) {
  const std::string problem = "--machine torus:4x4x4,ppn=2 --pattern halo3d:8x4x4,points=27";
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    for (const auto& [np, limit] : {std::pair<int, std::string>{2, ""}, {3, ":work=3"}}) {
      {
        SCOPED_TRACE(std::to_string(np) + limit);
        const std::string spread = temp("auto_spread.txt"), alone = temp("auto_alone.txt");
        const auto r = launch(mpi, np, taskmap_command("map --mapper auto" + limit + " --out " + spread + " " + problem), {});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const std::string workers = (limit.empty() ? ":" : limit + ",") + "workers=" + std::to_string(np);
        const auto serial = test::run_taskmap("map --mapper auto" + workers + " --out " + alone + " " + problem);
        ASSERT_EQ(serial.exit_code, 0) << serial.err;
        EXPECT_EQ(test::read_text(spread), test::read_text(alone));
        std::filesystem::remove(spread);
        std::filesystem::remove(alone);
      }
    }
  }
}

// Without PT-Scotch (MPICH's plugin, the serial program), or with fewer tasks than processes,
// ptscotch is scotch, on the leader.
TEST(TaskmapUnderMpi, PtScotchWithoutPtScotchIsScotch) {
  const std::string problem = "--machine torus:4x4x4,ppn=4 --pattern halo3d:16x4x4";
  const std::string scotch = temp("scotch.txt"), serial = temp("ptscotch_serial.txt");
  ASSERT_EQ(test::run_taskmap("map --mapper scotch --out " + scotch + " " + problem).exit_code, 0);
  ASSERT_EQ(test::run_taskmap("map --mapper ptscotch --out " + serial + " " + problem).exit_code, 0);
  EXPECT_EQ(test::read_text(serial), test::read_text(scotch));
  // Three tasks (tests/instances/three.grf) on four processes.
  const std::string small = "--machine torus:4x4x4,ppn=2 --pattern file:" + test::instance("three.grf");
  const std::string small_scotch = temp("scotch_small.txt");
  ASSERT_EQ(test::run_taskmap("map --mapper scotch --out " + small_scotch + " " + small).exit_code, 0);
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    const std::string out = temp("ptscotch_" + std::string(mpi.name) + ".txt");
    if (std::string(mpi.name) == "mpich") {
      const auto r = launch(mpi, 2, taskmap_command("map --mapper ptscotch --out " + out + " " + problem), {});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(test::read_text(out), test::read_text(scotch));
    }
    const auto r = launch(mpi, 4, taskmap_command("map --mapper ptscotch --out " + out + " " + small), {});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::read_text(out), test::read_text(small_scotch));
    std::filesystem::remove(out);
  }
  std::filesystem::remove(small_scotch);
  std::filesystem::remove(scotch);
  std::filesystem::remove(serial);
}

// Every process meets the same bad input: one error line, from rank 0, exit 1; a command that
// does not spread (info) prints once.
TEST(TaskmapUnderMpi, BadInputIsOneLineAndOtherCommandsPrintOnce) {
  const auto info = test::run_taskmap("info --machine torus:4x4x4");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    const auto bad = launch(mpi, 3, taskmap_command("eval --machine torus:4x4x4 --pattern halo3d:4x4"), {});
    EXPECT_EQ(bad.exit_code, 1) << bad.err;
    EXPECT_EQ(count_of(bad.err, "taskmap: error:"), 1u) << bad.err;
    const auto out = launch(mpi, 3, taskmap_command("map --machine torus:4x4x4 --pattern halo3d:4x4x4 --out "
                                                    "/nonexistent/dir/x.txt"), {});
    EXPECT_EQ(out.exit_code, 1) << out.err;
    EXPECT_EQ(count_of(out.err, "taskmap: error: --out /nonexistent/dir/x.txt"), 1u) << out.err;
    const auto many = launch(mpi, 3, taskmap_command("info --machine torus:4x4x4"), {});
    EXPECT_EQ(many.exit_code, 0) << many.err;
    EXPECT_EQ(many.out, info.out);
    const auto missing = launch(mpi, 2, taskmap_command("eval --machine torus:4x4x4 --pattern halo3d:4x4x4"),
                                {{"TASKMAP_DIST_PLUGIN", "/nonexistent/plugin.so"}});
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_EQ(count_of(missing.err, "but its MPI plugin is missing: no /nonexistent/plugin.so"), 1u) << missing.err;
  }
}

}  // namespace
}  // namespace taskmap
