// Speaking Scotch end to end: scotch_gmap maps a graph onto a target file, taskmap evaluates
// that mapping on the machine it reads from the same file, and its J is the communication cost
// Scotch's gmtst prints (CommExpan's count: edge weight x distance, each edge once); taskmap's
// own mapping, written as a Scotch mapping file, gets the same figure from gmtst. gmtst (Scotch
// 7.0) numbers the terminals a mapping uses 0, 1, ... before it measures distances, so its
// figures hold only for mappings that use every terminal: each comparison below checks that
// first (docs/scotch.md). The Scotch programs come with Debian's scotch package, which
// scripts/setup.sh installs: without them these tests skip, and under CI=true they fail.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "test_support.h"

namespace taskmap {
namespace {

namespace fs = std::filesystem;

bool have_scotch_tools() { return test::run_command("command -v scotch_gmap && command -v gmtst").exit_code == 0; }

#define REQUIRE_SCOTCH_TOOLS()                                                                                \
  do {                                                                                                        \
    if (!have_scotch_tools()) {                                                                               \
      if (test::in_ci()) GTEST_FAIL() << "scotch_gmap and gmtst not found (CI=true: install Debian's scotch)";  \
      GTEST_SKIP() << "scotch_gmap and gmtst not found (Debian package scotch, scripts/setup.sh)";            \
    }                                                                                                         \
  } while (0)

class ScotchRoundTrip : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("taskmap_scotch_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // gmtst's CommExpan count: the sum over edges of weight x distance, each edge once.
  static long long gmtst_expansion(const std::string& graph, const std::string& target, const std::string& mapping) {
    const auto r = test::run_command(fmt::format("gmtst '{}' '{}' '{}'", graph, target, mapping));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::smatch m;
    const std::regex expan(R"(CommExpan=[0-9.]+\s+\((\d+)\))");
    if (!std::regex_search(r.out, m, expan)) {
      ADD_FAILURE() << "no CommExpan in gmtst's output:\n" << r.out;
      return -1;
    }
    return std::stoll(m[1].str());
  }
  // The terminals a Scotch mapping file uses.
  static std::set<long long> terminals_used(const std::string& mapping) {
    std::ifstream in(mapping);
    long long count = 0, vertex = 0, terminal = 0;
    in >> count;
    std::set<long long> used;
    while (in >> vertex >> terminal) used.insert(terminal);
    return used;
  }
  static nlohmann::json eval_json(const std::string& args) {
    const auto r = test::run_taskmap("eval " + args + " --format json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
  }

  fs::path dir_;
};

// An 8x8 mesh graph (gmk_m2) and a weighted ring of 12 vertices (edge {i, i+1} weighs i + 1),
// onto Scotch targets of 8 to 16 terminals.
TEST_F(ScotchRoundTrip, JOfScotchsMappingIsGmtstsCommunicationCost) {
  REQUIRE_SCOTCH_TOOLS();
  const std::string mesh = path("mesh8x8.grf");
  ASSERT_EQ(test::run_command(fmt::format("gmk_m2 8 8 '{}'", mesh)).exit_code, 0);
  std::string ring = "0\n12 24\n0 010\n";
  for (int v = 0; v < 12; ++v) {
    const int prev = (v + 11) % 12, next = (v + 1) % 12;
    ring += fmt::format("2 {} {} {} {}\n", prev + 1, prev, v + 1, next);  // weight of {prev, v} is prev + 1
  }
  const std::string weighted = write("ring12.grf", ring);
  struct Target {
    std::string name, text;
    int terminals;
  };
  const std::vector<Target> targets = {
      {"tleaf.tgt", "tleaf 3 2 90 2 9 2 1\n", 8}, {"torus.tgt", "torus3D 2 2 3\n", 12}, {"mesh.tgt", "mesh2D 4 3\n", 12},
      {"hcub.tgt", "hcub 3\n", 8},                {"cmplt.tgt", "cmplt 9\n", 9},      {"cmpltw.tgt", "cmpltw 4 1 3 1 3\n", 4}};
  int checked = 0;
  for (const auto& [name, text, terminals] : targets) {
    const std::string target = write(name, text);
    for (const std::string& graph : {mesh, weighted}) {
      SCOPED_TRACE(name + " " + graph);
      const std::string mapping = path("gmap.map");
      ASSERT_EQ(test::run_command(fmt::format("scotch_gmap '{}' '{}' '{}'", graph, target, mapping)).exit_code, 0);
      ASSERT_EQ(terminals_used(mapping).size(), static_cast<std::size_t>(terminals));
      const long long cost = gmtst_expansion(graph, target, mapping);
      // Scotch balances within its own tolerance; eval checks a looser one.
      const auto j = eval_json(fmt::format("--machine 'tgt:{}' --pattern 'file:{}' --mapping '{}' --imbalance 0.5", target,
                                           graph, mapping));
      ASSERT_TRUE(j.contains("j"));
      EXPECT_EQ(j["j"].get<double>(), static_cast<double>(cost));
      EXPECT_EQ(j["hop_bytes"].get<double>(), 2.0 * static_cast<double>(cost));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 12);
}

// A 4x3 mesh graph, one task per slot of a 12-slot hierarchy: every terminal is used.
TEST_F(ScotchRoundTrip, TaskmapsMappingWrittenForScotchGetsTheSameCost) {
  REQUIRE_SCOTCH_TOOLS();
  const std::string graph = path("mesh4x3.grf");
  ASSERT_EQ(test::run_command(fmt::format("gmk_m2 4 3 '{}'", graph)).exit_code, 0);
  const std::string target = write("hier.tgt", "tleaf 2 3 9 4 1\n");  // hier:4:3,dist=1:10, 12 slots
  for (const std::string& machine : {"tgt:" + target, std::string("hier:4:3,dist=1:10")}) {
    SCOPED_TRACE(machine);
    const std::string out = path("tm.map");
    const auto r = test::run_taskmap(fmt::format("map --machine '{}' --pattern 'file:{}' --mapper scotch+refine-hb "
                                                 "--out-format scotch --out '{}'",
                                                 machine, graph, out));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(terminals_used(out).size(), 12u);
    const long long cost = gmtst_expansion(graph, target, out);
    const auto j = eval_json(fmt::format("--machine '{}' --pattern 'file:{}' --mapping '{}' --mapping-format scotch",
                                         machine, graph, out));
    EXPECT_EQ(j["j"].get<double>(), static_cast<double>(cost));
  }
}

// A graph numbered from 1 (gcv from METIS) needs its mapping numbered from 1 too.
TEST_F(ScotchRoundTrip, MappingOfAGraphNumberedFromOne) {
  REQUIRE_SCOTCH_TOOLS();
  const std::string metis = write("c6.graph", "6 6\n2 6\n1 3\n2 4\n3 5\n4 6\n5 1\n");  // a ring of 6
  const std::string grf = path("c6.grf");
  ASSERT_EQ(test::run_command(fmt::format("gcv -ic '{}' '{}'", metis, grf)).exit_code, 0);
  const std::string target = write("hier.tgt", "tleaf 2 3 9 2 1\n");  // hier:2:3,dist=1:10
  const std::string out = path("c6.map");
  const auto r = test::run_taskmap(fmt::format("map --machine hier:2:3,dist=1:10 --pattern 'file:{}' --mapper default "
                                               "--out-format scotch:base=1 --out '{}'",
                                               metis, out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Tasks 0-5 on slots 0-5: the ring's edges {0,1}, {2,3}, {4,5} in a processor (1), {1,2}, {3,4}
  // and {5,0} across (10): J = 3 + 30.
  EXPECT_EQ(gmtst_expansion(grf, target, out), 33);
  const auto j = eval_json(fmt::format("--machine hier:2:3,dist=1:10 --pattern 'file:{}' --mapping '{}'", metis, out));
  EXPECT_EQ(j["j"].get<double>(), 33.0);
}

// amk_grf's target of a graph reads as that graph: the identity mapping of a 4x4 mesh onto its
// own target has every edge at distance 1 (J = 24 edges).
TEST_F(ScotchRoundTrip, DecompositionTargetOfAGraphIsThatGraph) {
  REQUIRE_SCOTCH_TOOLS();
  const std::string graph = path("m44.grf"), target = path("m44.tgt");
  ASSERT_EQ(test::run_command(fmt::format("gmk_m2 4 4 '{}' && amk_grf '{}' '{}'", graph, graph, target)).exit_code, 0);
  std::string identity = "16\n";
  for (int v = 0; v < 16; ++v) identity += fmt::format("{} {}\n", v, v);
  const auto j = eval_json(fmt::format("--machine 'tgt:{}' --pattern 'file:{}' --mapping '{}'", target, graph,
                                       write("id.map", identity)));
  EXPECT_EQ(j["j"].get<double>(), 24.0);
  EXPECT_EQ(j["max_dilation"].get<int>(), 1);
}

}  // namespace
}  // namespace taskmap
