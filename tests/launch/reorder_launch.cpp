// libtaskmap-reorder-<mpi>.so in real MPI runs (Open MPI and MPICH), oversubscribed on this
// machine, with node names simulated by TASKMAP_FAKE_HOST over a fabric of three leaf switches
// (tests/instances/reorder/three_leaves.conf). The programs check MPI's own answers on the
// returned communicator (tests/mpi/stencil3d.c, tests/mpi/dist_graph.c); the tests check the
// report against hand-derived values and against `taskmap eval` on the reported placement.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <utility>
#include <vector>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mpi_runs.h"
#include "taskmap/reorder/reorder_plan.h"
#include "test_support.h"

namespace taskmap {
namespace {

using test::launch;
using test::Mpi;
using test::mpis;

std::string temp(const std::string& name) { return test::temp_path("reorder", name); }

const std::string kFabric = std::string(TASKMAP_TEST_INSTANCES) + "/reorder/three_leaves.conf";
// The mapping's time limit in these runs. The default 10 s is not what they test: auto's MCL
// refinement spends its whole work budget (0.2 s of CPU on 36 ranks), and under the sanitizers
// with 36 MPICH processes polling on 2 cores rank 0 gets a small share of a core.
const std::string kMappingSeconds = "600";

// The job sizes of the stencil runs. Under the sanitizers every instrumented process of a
// 36-process job oversubscribed on 2 cores runs about 4x slower (6 minutes a test for the three
// runs); there the largest size alone is run, the one whose grid (4x3x3) is not a cube, and the
// plain run without the library is left to the release build.
const std::vector<int> kStencilSizes = TASKMAP_TESTS_SANITIZED ? std::vector<int>{36} : std::vector<int>{27, 36};

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// Rank r on host r mod 4: cn01, cn04, cn07 on three leaves, cn02 beside cn01. Stencil neighbours
// (steps 1, 3 and 9 in rank) then never share a host, so the identity order is poor.
std::string cyclic_hosts(int np) {
  const char* hosts[4] = {"cn01", "cn04", "cn07", "cn02"};
  const std::string path = temp("hosts_" + std::to_string(np));
  std::ofstream out(path);
  for (int r = 0; r < np; ++r) out << hosts[r % 4] << "\n";
  return path;
}

// "66 -> 18 (73% lower)": a metric of the identity order and of the new one, as the library's
// line shows them (%.6g, the change in whole percent).
std::string change_text(double before, double after) {
  const std::string numbers = fmt::format("{:.6g} -> {:.6g}", before, after);
  if (before == after) return numbers + " (same)";
  return fmt::format("{} ({}% {})", numbers, std::lround(std::abs(after - before) / before * 100),
                     after < before ? "lower" : "higher");
}

// docs/mpi.md's recipe for checking a report ("### Checking a report"), run as the page gives
// it in a folder holding `report` as report.json, with this build's taskmap on the PATH.
test::CommandResult run_doc_recipe(const std::string& report) {
  const std::string doc = test::read_text(std::string(TASKMAP_SOURCE_DIR) + "/docs/mpi.md");
  const std::size_t section = doc.find("### Checking a report");
  const std::size_t begin = doc.find("```sh\n", section), end = doc.find("```\n", begin + 6);
  if (section == std::string::npos || begin == std::string::npos || end == std::string::npos) {
    ADD_FAILURE() << "docs/mpi.md has no sh block under '### Checking a report'";
    return {};
  }
  const std::filesystem::path dir = temp("recipe");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(report, dir / "report.json");
  std::ofstream(dir / "recipe.sh") << doc.substr(begin + 6, end - begin - 6);
  const std::string bin = std::filesystem::path(TASKMAP_BINARY).parent_path().string();
  const test::CommandResult result = test::run_command("cd '" + dir.string() + "' && PATH='" + bin + "':$PATH bash -e recipe.sh");
  std::filesystem::remove_all(dir);
  return result;
}

// The stencil on `np` processes with the library: every process's own check passes, the
// report shows a better order than the identity, `taskmap eval` on the reported graph, nodes
// and placement measures what the report says, rank 0's line on stderr has the report's
// numbers, and docs/mpi.md's recipe reaches the report's verdict.
void expect_better_stencil_order(const Mpi& mpi, const std::string& program, int np) {
  SCOPED_TRACE(program + " -np " + std::to_string(np));
  const std::string report = temp("report.json"), machine = "slurm:" + kFabric + ",ppn=16";
  std::filesystem::remove(report);
  // Appended: on `"@" + cyclic_hosts(np)` (an insert at 0 into the temporary), GCC 12 at -O3
  // reports an overlapping memcpy (-Wrestrict) that cannot happen.
  std::string hosts = "@";
  hosts += cyclic_hosts(np);
  const auto r = launch(mpi, np, program,
                        {{"LD_PRELOAD", mpi.reorder},
                         {"TASKMAP_REORDER_SECONDS", kMappingSeconds},
                         {"TASKMAP_MACHINE", machine},
                         {"TASKMAP_FAKE_HOST", hosts},
                         {"TASKMAP_REORDER_REPORT", report}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), np) << r.out;  // "stencil ok" from every process
  const nlohmann::json j = read_json(report);
  ASSERT_EQ(j["kept"], "mapper") << j.dump();
  // One line from one process, the report's numbers; 4 hosts (cyclic_hosts); the work of 70% of
  // the limit at 20 million units a second: 14 million a second.
  const nlohmann::json &identity_metrics = j["identity"], &chosen_metrics = j["mapper_result"];
  EXPECT_EQ(r.err, "taskmap reorder: MPI_Cart_create: " + std::to_string(np) + " ranks on 4 nodes, reordered by auto:work=" + std::to_string(std::stoi(kMappingSeconds) * 14) + ",workers=4: MCL " +
                       change_text(identity_metrics["mcl"], chosen_metrics["mcl"]) + ", hop-bytes " +
                       change_text(identity_metrics["hop_bytes"], chosen_metrics["hop_bytes"]) + " (report: " + report +
                       ")\n");
  // No node model here: the processes take their node's slots in CPU order, and the report says why.
  EXPECT_EQ(j["process_slots"], "cpu-order");
  EXPECT_EQ(j["process_slots_reason"], "no node model (TASKMAP_NODE_TOPOLOGY)");
  std::vector<int> permutation = j["permutation"];
  // The plan of the 4 planning processes (the first of each node) is the one this process
  // alone computes for the same request with 4 workers, each worker's jobs in turn.
  ReorderRequest request;
  request.call = j["call"];
  std::vector<CommEdge> graph_edges;
  for (const auto& edge : j["edges"]) graph_edges.push_back({edge[0], edge[1], edge[2].get<double>()});
  request.graph = CommGraph::from_edges(j["vertices"].get<std::uint32_t>(), std::move(graph_edges));
  request.hosts = j["hosts"].get<std::vector<std::string>>();
  request.cpus = j["cpus"].get<std::vector<int>>();
  request.machine = machine;
  request.seconds = std::stod(kMappingSeconds);
  request.workers = 4;
  EXPECT_EQ(plan_reorder(request).process_of_vertex, permutation);
  std::vector<int> identity(permutation.size());
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_NE(permutation, identity);
  const double chosen = j["mapper_result"]["hop_bytes"], before = j["identity"]["hop_bytes"];
  EXPECT_LT(chosen, before);
  const std::string edges = temp("edges.txt"), nodes = temp("nodes.txt"), placement = temp("placement.txt"),
                    start = temp("start.txt");
  {
    std::ofstream e(edges);
    for (const auto& edge : j["edges"]) e << edge[0] << " " << edge[1] << " " << edge[2].get<double>() << "\n";
    std::ofstream(nodes) << j["nodes"].get<std::string>();
    std::ofstream(placement) << j["placement"].get<std::string>();
    std::ofstream(start) << j["identity_placement"].get<std::string>();
  }
  // The chosen placement measures as mapper_result, the starting one as identity.
  for (const auto& [file, key] : {std::pair(placement, "mapper_result"), std::pair(start, "identity")}) {
    const auto eval = test::run_taskmap("eval --format json --baseline none --machine '" + machine + "' --nodes @" +
                                        nodes + " --pattern file:" + edges + " --mapping " + file);
    ASSERT_EQ(eval.exit_code, 0) << eval.err;
    const nlohmann::json m = nlohmann::json::parse(eval.out);
    EXPECT_DOUBLE_EQ(m["hop_bytes"].get<double>(), j[key]["hop_bytes"].get<double>()) << key;
    EXPECT_DOUBLE_EQ(m["mcl"].get<double>(), j[key]["mcl"].get<double>()) << key;
  }
  // docs/mpi.md's recipe, against the job's starting placement: the reorder is better, by the
  // report's MCL change.
  if (test::run_command("command -v jq").exit_code != 0) {  // the recipe's JSON tool
    if (test::in_ci()) ADD_FAILURE() << "jq not found (CI=true: scripts/setup.sh installs it)";
    return;
  }
  const test::CommandResult recipe = run_doc_recipe(report);
  ASSERT_EQ(recipe.exit_code, 0) << recipe.err;
  const std::string verdict = recipe.out.substr(0, recipe.out.find('\n'));
  const double mcl_before = identity_metrics["mcl"], mcl_after = chosen_metrics["mcl"];
  ASSERT_LT(mcl_after, mcl_before);  // the cyclic start crosses the leaves with every neighbour pair
  EXPECT_TRUE(verdict.starts_with(fmt::format("file:placement.txt lowers the maximum link load by {}%",
                                              std::lround((mcl_before - mcl_after) / mcl_before * 100))))
      << verdict;
  // The verdict may name what rose beside (node hop-bytes), then the deciding metric.
  EXPECT_NE(verdict.find(" against file:start.txt;"), std::string::npos) << verdict;
  EXPECT_TRUE(verdict.ends_with(": use placement.txt") || verdict.ends_with("; use placement.txt")) << verdict;
}

// The stencil program without the library (its own check, as a baseline; release build only),
// then with it at every size of kStencilSizes.
TEST(ReorderLibrary, StencilKeepsItsResultsAndGetsABetterOrder) {
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    if (!TASKMAP_TESTS_SANITIZED) {
      const auto plain = launch(mpi, 27, mpi.stencil, {});
      ASSERT_EQ(plain.exit_code, 0) << plain.err;
    }
    for (int np : kStencilSizes) expect_better_stencil_order(mpi, mpi.stencil, np);
  }
}

// The same stencil in Fortran with the mpi_f08 bindings, whose MPI_Cart_create does not go
// through the C function: what it adds to the C runs is that binding, so one job of the size
// whose grid is not a cube (4x3x3) covers it; each launch of 36 processes on 2 cores takes 10 s.
TEST(ReorderLibrary, FortranStencilGetsTheSameOrder) {
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    if (std::string(mpi.fortran_stencil).empty()) {
      ADD_FAILURE() << "no Fortran wrapper for " << mpi.name;
      continue;
    }
    expect_better_stencil_order(mpi, mpi.fortran_stencil, kStencilSizes.back());
  }
}

// Four processes on two hosts, rank r on host r mod 2 (cn01 and cn02 share a leaf: 2 hops). The
// graph's heavy pairs {0,1} and {2,3} (weight 100 each way) cross hosts in the identity order:
// 4 x 100 x 2 = 800 hop-bytes; the light pairs {0,2} and {1,3} (weight 1) share a host. Swapping
// the roles keeps the heavy pairs on a host and leaves the light ones crossing: 4 x 1 x 2 = 8.
// With TASKMAP_REORDER_QUIET=1 the run says nothing on stderr.
void expect_dist_graph_optimum(const Mpi& mpi, const std::string& program, const std::string& args,
                               double identity, double optimum) {
  SCOPED_TRACE(program + " " + args);
  const std::string report = temp("dist.json");
  std::filesystem::remove(report);
  const auto r = launch(mpi, 4, program + " " + args,
                        {{"LD_PRELOAD", mpi.reorder},
                         {"TASKMAP_REORDER_SECONDS", kMappingSeconds},
                         {"TASKMAP_MACHINE", "slurm:" + kFabric + ",ppn=4"},
                         {"TASKMAP_FAKE_HOST", "cn01:0,cn02:1,cn01:2,cn02:3"},
                         {"TASKMAP_REORDER_REPORT", report},
                         {"TASKMAP_REORDER_QUIET", "1"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // TASKMAP_REORDER_QUIET=1: no line on success
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 4) << r.out;  // each process's check passed
  const nlohmann::json j = read_json(report);
  EXPECT_EQ(j["identity"]["hop_bytes"], identity);
  EXPECT_EQ(j["mapper_result"]["hop_bytes"], optimum);
  // The processes that became vertices 0 and 1 share a host (world rank parity).
  const std::vector<int> p = j["permutation"];
  EXPECT_EQ(p[0] % 2, p[1] % 2);
  EXPECT_EQ(p[2] % 2, p[3] % 2);
}

TEST(ReorderLibrary, WeightedDistributedGraphGetsTheHandDerivedOptimum) {
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    expect_dist_graph_optimum(mpi, mpi.dist_graph, "", 800, 8);
  }
}

// The same from Fortran, with MPI_Dist_graph_create_adjacent and weights, and with
// MPI_Dist_graph_create and MPI_UNWEIGHTED (each process giving the edge to its heavy partner:
// 4 x 1 x 2 = 8 hop-bytes in the identity order, 0 once partners share a host).
TEST(ReorderLibrary, FortranDistributedGraphsInEachBinding) {
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    for (int b = 0; b < 3; ++b) {
      SCOPED_TRACE(test::kFortranBindings[b]);
      if (std::string(mpi.fortran_dist_graph[b]).empty()) {
        ADD_FAILURE() << "no Fortran wrapper for " << mpi.name;
        continue;
      }
      expect_dist_graph_optimum(mpi, mpi.fortran_dist_graph[b], "weighted", 800, 8);
      expect_dist_graph_optimum(mpi, mpi.fortran_dist_graph[b], "unweighted", 8, 0);
    }
  }
}

// An Open MPI program with the reorder library built for MPICH, and the reverse: the job stops
// at start with one line naming the library built for the program's MPI (docs/mpi.md says why
// it stops rather than run on without the reorder).
TEST(ReorderLibrary, TheOtherMpisLibraryStopsTheJobWithOneLine) {
  const std::vector<Mpi> list = mpis();
  if (list.size() < 2) {
    if (test::in_ci()) GTEST_FAIL() << "built for one MPI only (scripts/setup.sh installs both)";
    GTEST_SKIP() << "built for one MPI only";
  }
  for (std::size_t i = 0; i < 2; ++i) {
    const Mpi &mpi = list[i], &other = list[1 - i];
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    test::expect_other_mpi_refused(mpi, mpi.stencil, other.reorder, mpi.reorder, "taskmap reorder");
  }
}

// No machine: the identity order, one warning line, and the program runs as without taskmap.
TEST(ReorderLibrary, FallsBackToTheIdentityWithOneWarning) {
  for (const Mpi& mpi : mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    const std::string report = temp("fallback.json");
    std::filesystem::remove(report);
    const auto r = launch(mpi, 4, mpi.dist_graph, {{"LD_PRELOAD", mpi.reorder}, {"TASKMAP_REORDER_REPORT", report}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("taskmap reorder: MPI_Dist_graph_create_adjacent keeps the identity order: no machine"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    for (int world = 0; world < 4; ++world) {
      EXPECT_NE(r.out.find("dist graph ok: " + std::to_string(world) + " " + std::to_string(world)), std::string::npos)
          << r.out;
    }
    EXPECT_EQ(read_json(report)["kept"], "identity");
  }
}

}  // namespace
}  // namespace taskmap
