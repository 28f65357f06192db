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

// halo3d:8x4x4 is 128 ranks; two-leaves.conf has 6 nodes, 48 slots at ppn=8: 128/48 = 2.67 per
// slot, and the balance (1.03 x 128/48 = 2.75) lets a slot hold up to 3.
TEST_F(ClusterFirstRun, MoreRanksThanSlotsIsSaidFirstAndNoLauncherFormatIsAssumed) {
  const std::string job = "map --machine " + two_leaves(8) + " --pattern halo3d:8x4x4 --mapper default ";
  // A fabric with host names runs under a launcher taskmap cannot see: the format is named.
  auto r = test::run_taskmap(job + "--out " + path("x.txt"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("map: a machine with host names needs --out-format, the launcher's file: srun"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("x.txt")));
  // taskmap's own file still takes several ranks a slot, after a warning that comes first.
  r = test::run_taskmap(job + "--out-format plain --out " + path("x.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto err = lines_of(r.err);
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err.front(),
            "taskmap: warning: 128 tasks for 48 slots, 2.67 per slot (up to 3 on one): more ranks than slots, which no "
            "launcher starts; check --pattern's size and the job's nodes");
  EXPECT_EQ(lines_of(test::read_text(path("x.txt"))).size(), 129u);  // a comment, then 128 "task slot" lines
  // A launcher's file is refused, naming the counts.
  r = test::run_taskmap(job + "--out-format slurm --out " + path("h"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--out-format slurm: 128 ranks but machine"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("has only 48 slots"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("h")));
  // On a machine without host names (no launcher reads its files), plain stays the default.
  r = test::run_taskmap("map --machine torus:4 --pattern halo2d:1x4 --mapper default --out " + path("t.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_text(path("t.txt")).rfind("# taskmap placement: task slot", 0), 0u);
}

// hostname-order on cn01..cn03 at 2 slots each: ranks 0,1 on cn01, 2,3 on cn02, 4,5 on cn03,
// each node's ranks on its CPUs 0 and 1.
TEST_F(ClusterFirstRun, SrunGetsItsHostFileItsCpuListAndItsCommandInOneRun) {
  const std::string out = path("srun host file");  // a path the command must quote
  const auto r = test::run_taskmap("map --machine " + two_leaves(2) +
                                   " --nodes 'cn[01-03]' --pattern halo2d:2x3 --mapper hostname-order --out-format srun "
                                   "--out '" + out + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_text(out), "cn01\ncn01\ncn02\ncn02\ncn03\ncn03\n");
  EXPECT_EQ(test::read_text(out + ".cpus"), "map_cpu:0,1\n");
  const auto err = lines_of(r.err);
  ASSERT_FALSE(err.empty());
  // srun --distribution=arbitrary: -n is the host file's line count.
  EXPECT_EQ(err.back(), "launch: SLURM_HOSTFILE='" + out +
                            "' srun --distribution=arbitrary --cpu-bind=map_cpu:0,1 -n 6 ./app");
  EXPECT_NE(std::find(err.begin(), err.end(), "wrote " + out + " and " + out + ".cpus (6 tasks, srun)"), err.end())
      << r.err;
  EXPECT_NE(std::find(err.begin(), err.end(),
                      "hostname-order (the launcher's default) is the best placement here; keep the launcher's "
                      "default: " + out + " (srun) holds it"),
            err.end())
      << r.err;
}

// auto's own choice: the command's -n and CPU list are those of the files it wrote.
TEST_F(ClusterFirstRun, TheSrunCommandMatchesTheFilesWritten) {
  const std::string out = path("hosts");
  const auto r = test::run_taskmap("map --machine " + two_leaves(4) + " --pattern halo2d:4x5 --out-format srun --out " +
                                   out + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::string cpus = test::read_text(out + ".cpus");
  ASSERT_FALSE(cpus.empty());
  cpus.pop_back();
  EXPECT_EQ(j["launch"], "SLURM_HOSTFILE=" + out + " srun --distribution=arbitrary --cpu-bind=" + cpus + " -n " +
                             std::to_string(lines_of(test::read_text(out)).size()) + " ./app");
  EXPECT_EQ(lines_of(test::read_text(out)).size(), 20u);
}

// cn04..cn06 come first in names-out-of-order.conf: with 8 ranks on nodes of 8 slots, the slots
// in the fabric's order put them all on cn04, host-name order on cn01; both keep all traffic
// inside one node, so every metric ties. auto, whose portfolio starts with the fabric's order,
// writes the launcher's default instead, as its sentence says to keep it.
TEST_F(ClusterFirstRun, ATieWritesTheLaunchersDefault) {
  const std::string out = path("hosts");
  const std::string machine = "slurm:" + test::instance("cluster/names-out-of-order.conf") + ",ppn=8";
  auto r = test::run_taskmap("map --machine " + machine + " --pattern halo2d:2x4 --out-format slurm --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_text(out), "cn01\ncn01\ncn01\ncn01\ncn01\ncn01\ncn01\ncn01\n");
  const auto err = lines_of(r.err);
  EXPECT_NE(std::find(err.begin(), err.end(),
                      "auto ties hostname-order by the maximum link load, hop-bytes and node hop-bytes: writing "
                      "hostname-order's placement"),
            err.end())
      << r.err;
  EXPECT_NE(std::find(err.begin(), err.end(),
                      "auto is no better than hostname-order (the launcher's default): the same maximum link load, "
                      "hop-bytes and node hop-bytes; keep the launcher's default: " + out + " (slurm) holds it"),
            err.end())
      << r.err;
  r = test::run_taskmap("map --machine " + machine + " --pattern halo2d:2x4 --out-format slurm --out " + out +
                        " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mapper"], "auto");
  EXPECT_EQ(j["written"], "hostname-order");
  EXPECT_EQ(j["recommendation"]["deciding"], nullptr);
  EXPECT_EQ(j["recommendation"]["placement_holds_baseline"], true);
  // A mapper the user names is written as asked, tie or not: the slots in the file's order.
  r = test::run_taskmap("map --machine " + machine + " --pattern halo2d:2x4 --mapper default --out-format slurm --out " +
                        out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_text(out), "cn04\ncn04\ncn04\ncn04\ncn04\ncn04\ncn04\ncn04\n");
  EXPECT_NE(r.err.find("default is no better than hostname-order (the launcher's default): the same maximum link "
                       "load, hop-bytes and node hop-bytes; keep the launcher's default, not " + out + " (slurm)\n"),
            std::string::npos)
      << r.err;
}

TEST_F(ClusterFirstRun, MapWritesTheReportItsHelpMentions) {
  const std::string report = path("map.html");
  const auto r = test::run_taskmap("map --machine " + two_leaves(2) +
                                   " --nodes 'cn[01-04]' --pattern halo2d:2x4 --mapper cyclic --out-format slurm --out " +
                                   path("hosts") + " --report " + report);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = test::read_text(report);
  // The sentence on stderr is the page's first words; the baseline's and the mapper's columns.
  const auto err = lines_of(r.err);
  const auto sentence = std::find_if(err.begin(), err.end(), [](const std::string& l) { return l.rfind("cyclic ", 0) == 0; });
  ASSERT_NE(sentence, err.end()) << r.err;
  EXPECT_NE(page.find(*sentence), std::string::npos) << *sentence;
  EXPECT_EQ(test::count_of(page, "<th>hostname-order</th>"), 1u);
  EXPECT_EQ(test::count_of(page, "<th>cyclic</th>"), 1u);  // the mapper, also a launcher's default
  EXPECT_NE(std::find(err.begin(), err.end(), "wrote " + report), err.end()) << r.err;
}

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
