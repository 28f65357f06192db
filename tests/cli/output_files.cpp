// Where the commands write: devices and FIFOs in place, symbolic links followed, "-" as
// standard output for single files, and every output location checked before any work.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <vector>

#include "test_support.h"

namespace taskmap {
namespace {

namespace fs = std::filesystem;
using test::run_taskmap;

const std::string kJob = "--machine torus:4x4 --pattern halo2d:4x4";

class CliOutputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("taskmap_cli_outputs_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The placement `map` writes to a regular file: what the other outputs must carry.
  std::string expected_placement() {
    const std::string plain = (dir_ / "plain.txt").string();
    const auto r = run_taskmap("map " + kJob + " --mapper random:seed=3 --out " + plain);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::stringstream content;
    content << std::ifstream(plain).rdbuf();
    fs::remove(plain);
    EXPECT_FALSE(content.str().empty());
    return content.str();
  }

  fs::path dir_;
};

void expect_one_line_error(const test::CommandResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("taskmap: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

TEST_F(CliOutputFiles, DevNullStaysACharacterDevice) {
  const auto r = run_taskmap("map " + kJob + " --mapper default --out /dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::lstat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null was replaced";
}

TEST_F(CliOutputFiles, DevFullIsOneLineNamingItAndTheReason) {
  const auto r = run_taskmap("map " + kJob + " --mapper default --out /dev/full");
  expect_one_line_error(r, "/dev/full: cannot write (No space left on device)");
  struct stat st {};
  ASSERT_EQ(::lstat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(CliOutputFiles, AFifoGetsThePlacement) {
  const std::string expected = expected_placement();
  ASSERT_LT(expected.size(), 65536u) << "must fit the pipe's buffer: nothing reads while taskmap runs";
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // lets taskmap open it at once
  ASSERT_GE(fd, 0);
  const auto r = run_taskmap("map " + kJob + " --mapper random:seed=3 --out " + fifo.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string got;
  char buffer[4096];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    got.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  EXPECT_EQ(got, expected);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
}

TEST_F(CliOutputFiles, ASymlinkStaysAndItsTargetGetsThePlacement) {
  const std::string expected = expected_placement();
  { std::ofstream(dir_ / "target.txt") << "old\n"; }
  fs::create_symlink("target.txt", dir_ / "link.txt");
  const auto r = run_taskmap("map " + kJob + " --mapper random:seed=3 --out " + (dir_ / "link.txt").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.txt"));
  std::stringstream content;
  content << std::ifstream(dir_ / "target.txt").rdbuf();
  EXPECT_EQ(content.str(), expected);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2);
}

TEST_F(CliOutputFiles, DashIsStandardOutputForSingleFiles) {
  const std::string expected = expected_placement();
  const auto map = test::run_command("cd " + dir_.string() + " && " + TASKMAP_BINARY + " map " + kJob +
                                     " --mapper random:seed=3 --out -");
  ASSERT_EQ(map.exit_code, 0) << map.err;
  EXPECT_EQ(map.out, expected);
  EXPECT_FALSE(fs::exists(dir_ / "-"));

  const auto csv = test::run_command("cd " + dir_.string() + " && " + TASKMAP_BINARY +
                                     " eval --machine torus:4 --pattern halo2d:1x4 --mapper default --format json "
                                     "--loads-csv -");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  // The CSV first, then the metrics.
  EXPECT_EQ(csv.out.rfind("channel,src_router,dst_router,class,bandwidth,load,utilization\n0,0,1,A+,1,0.25,0.25\n", 0),
            0u)
      << csv.out;
  EXPECT_NE(csv.out.find("\"mcl\""), std::string::npos);
  const auto report = test::run_command("cd " + dir_.string() + " && " + TASKMAP_BINARY +
                                        " eval --machine torus:4 --pattern halo2d:1x4 --mapper default --report -");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("<html"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "-"));
}

TEST_F(CliOutputFiles, DashIsRefusedWhereADirectoryIsExpected) {
  expect_one_line_error(run_taskmap("export simgrid " + kJob + " --mapper default --out -"),
                        "--out -: a directory is needed here, not standard output");
  expect_one_line_error(run_taskmap("reproduce percs-table1 --out -"),
                        "--out -: a directory is needed here, not standard output");
  EXPECT_FALSE(fs::exists("-"));
}

// refine-mcl with no limit on its work and regions runs for its whole time limit.
const std::string kSlowJob = "--machine torus:8x8x8 --pattern halo3d:8x8x8";
std::string slow_mapper(double seconds) {
  return fmt::format(" --mapper refine-mcl:work=1073741824,seconds={},regions=16777216", seconds);
}

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A mapper that runs 20 s: an unusable output must be refused before it starts.
TEST_F(CliOutputFiles, UnusableOutputsFailBeforeAnyWork) {
  // The mapper does take its budget when the output is fine.
  const double control = seconds_of([&] {
    EXPECT_EQ(run_taskmap("map " + kSlowJob + slow_mapper(2.5) + " --out " + (dir_ / "ok.txt").string()).exit_code, 0);
  });
  EXPECT_GE(control, 2.0);
  fs::remove(dir_ / "ok.txt");

  const std::string file = (dir_ / "file.txt").string();
  { std::ofstream(file) << "x\n"; }
  const std::string missing = (dir_ / "missing").string();
  const std::string kJob = kSlowJob;
  const std::string slow = slow_mapper(20);
  struct Case {
    std::string args, needle;
  };
  const std::vector<Case> cases = {
      {"map " + kJob + slow + " --out " + missing + "/p.txt",
       "--out " + missing + "/p.txt: the directory " + missing + " does not exist"},
      {"map " + kJob + slow + " --out " + file + "/p.txt", "--out " + file + "/p.txt: " + file + " is not a directory"},
      {"eval " + kJob + slow + " --loads-csv " + missing + "/l.csv",
       "--loads-csv " + missing + "/l.csv: the directory " + missing + " does not exist"},
      {"eval " + kJob + slow + " --report " + file + "/r.html",
       "--report " + file + "/r.html: " + file + " is not a directory"},
      {"export simgrid " + kJob + slow + " --out " + file + "/export",
       "--out " + file + "/export: " + file + " is not a directory"},
      {"export simgrid " + kJob + slow + " --out " + file, "--out " + file + ": exists and is not a directory"},
      {"reproduce percs-table4 --out " + file + "/figures", "--out " + file + "/figures: " + file + " is not a directory"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    test::CommandResult r;
    const double seconds = seconds_of([&] { r = run_taskmap(c.args); });
    expect_one_line_error(r, c.needle);
    EXPECT_LT(seconds, 2.0) << "the command worked before checking its output";
  }
  EXPECT_FALSE(fs::exists(missing));
}

}  // namespace
}  // namespace taskmap
