// A new user's first runs on a Slurm fabric: map with more ranks than slots, the launcher's
// file named, srun's two files and its command line in one run, map's HTML report, a tie with
// the launcher's default, arguments a command does not take, and what info shows.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace taskmap {
namespace {

std::string two_leaves(int ppn) {
  return "slurm:" + test::instance("cluster/two-leaves.conf") + ",ppn=" + std::to_string(ppn);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class ClusterFirstRun : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::temp_path("first_run", testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (std::filesystem::path(dir_) / name).string(); }
  std::string dir_;
};

// CLI11 2.1 printed the arguments it did not expect in reverse order ("r.html --reportx").
TEST_F(ClusterFirstRun, ArgumentsACommandDoesNotTakeAreNamedInTheirOrder) {
  const std::string torus = " --machine torus:4 --pattern halo2d:1x4";
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"info", "info --machine torus:4"},
      {"eval", "eval" + torus},
      {"map", "map" + torus + " --out " + path("p.txt")},
      {"compare", "compare" + torus + " --mappers default"},
      {"export simgrid", "export simgrid" + torus + " --out " + path("d")},
      {"validate", "validate" + torus + " --mappers default"},
      {"reproduce", "reproduce percs-table1"},
      {"list", "list formats"}};
  for (const auto& [name, command] : commands) {
    const auto r = test::run_taskmap(command + " --reportx r.html");
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_EQ(r.err, "taskmap: error: " + name + ": unexpected arguments: --reportx r.html (see taskmap --help)\n")
        << command;
  }
  EXPECT_FALSE(std::filesystem::exists(path("p.txt")));
}

TEST_F(ClusterFirstRun, InfoLeavesThePartialCubeTestToWhereTimerApplies) {
  auto partial_cube_line = [](const std::string& args) {
    const auto r = test::run_taskmap("info " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (const std::string& line : lines_of(r.out)) {
      if (line.rfind("partial cube", 0) == 0) return line;
    }
    return std::string("none");
  };
  // A cluster's fabric: not in its table, though the tree (9 routers, 8 cables: one Djoković
  // class per edge) is a partial cube; --verbose and the JSON say it.
  const std::string fabric = "--machine " + two_leaves(2);
  EXPECT_EQ(partial_cube_line(fabric), "none");
  EXPECT_EQ(partial_cube_line(fabric + " --verbose"), "partial cube          yes, 8-bit labels (the timer mapper applies)");
  const auto j = nlohmann::json::parse(test::run_taskmap("info " + fabric + " --format json").out);
  EXPECT_EQ(j["partial_cube"], "yes");
  EXPECT_EQ(j["partial_cube_dims"], 8);
  // A 4x4 torus, two even rings of 2 bits each: timer applies. A ring of 5 is an odd cycle:
  // said only when asked.
  EXPECT_EQ(partial_cube_line("--machine torus:4x4"), "partial cube          yes, 4-bit labels (the timer mapper applies)");
  EXPECT_EQ(partial_cube_line("--machine torus:5x4"), "none");
  EXPECT_EQ(partial_cube_line("--machine torus:5x4 --verbose"),
            "partial cube          no: machine 'torus:5x4' is not a partial cube: dimension A is a ring of 5 routers, "
            "an odd cycle");
}

}  // namespace
}  // namespace taskmap
