// The command-line contract: outputs, and bad input giving one clear line, a non-zero exit
// and no output file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "test_support.h"

namespace taskmap {
namespace {

using test::run_taskmap;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("taskmap_cli_" + std::to_string(::getpid()) + "_" + name)).string();
}

void expect_one_line_error(const test::CommandResult& r, const std::string& needle) {
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("taskmap: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

TEST(Cli, EvalJsonHasTheContractKeys) {
  auto r = run_taskmap("eval --machine torus:4x4 --pattern halo2d:4x4 --mapper default --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"mcl", "classes", "bottleneck_class", "throughput", "hop_bytes", "avg_dilation",
                          "max_dilation", "channels_used", "mapper", "units", "baselines", "recommendation"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_FALSE(j.contains("mcl_by_class"));
  EXPECT_DOUBLE_EQ(j["mcl"].get<double>(), 0.25);
  // Every channel of the 4x4 torus carries 1/4 (a quarter of each task's unit to each
  // neighbour): each of the four classes reaches the MCL, in class order.
  EXPECT_DOUBLE_EQ(j["classes"]["B-"]["mcl"].get<double>(), 0.25);
  EXPECT_EQ(j["classes"]["B-"]["channels"], 16);
  EXPECT_EQ(j["bottleneck_class"], nlohmann::json({"A+", "A-", "B+", "B-"}));
  EXPECT_EQ(j["routing"], "minimal");
  EXPECT_EQ(j["mapper"], "default");
}

TEST(Cli, MapsAnLlmTrainingJobAndRefusesABadOneInOneLine) {
  const std::string out = temp_path("llm.txt");
  auto r = run_taskmap("map --machine torus:4x4 --pattern llm:tp=2,pp=2,dp=4 --mapper default --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::count_of(test::read_text(out), "\n"), 17u);  // a header line, then one per task
  std::filesystem::remove(out);
  r = run_taskmap("eval --machine torus:4x4 --pattern llm:tp=2,pp=2,dp=3,ep=2 --mapper default");
  expect_one_line_error(r, "--pattern 'llm:tp=2,pp=2,dp=3,ep=2': llm: ep=2 must divide dp=3");
  EXPECT_EQ(r.exit_code, 1);  // a spec string's error, as every other --pattern's
  r = run_taskmap("list patterns");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("llm:tp=N,pp=N,dp=N[,ep=N][,order=TEXT]"), std::string::npos) << r.out;
}

TEST(Cli, EvalWritesChannelLoadsCsv) {
  const std::string csv = temp_path("loads.csv");
  auto r = run_taskmap("eval --machine torus:4 --pattern halo2d:1x4 --mapper default --loads-csv " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(csv);
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_EQ(header, "channel,src_router,dst_router,class,bandwidth,load,utilization");
  EXPECT_EQ(first, "0,0,1,A+,1,0.25,0.25");
  std::filesystem::remove(csv);
}

TEST(Cli, CompareHasOneRowPerMapper) {
  auto r = run_taskmap("compare --machine torus:4x4x2,ppn=2 --pattern halo3d:4x4x4 --mappers default,random:seed=2,order:TCBA --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 3u);
  EXPECT_EQ(j["rows"][1]["mapper"], "random:seed=2");
  auto table = run_taskmap("compare --machine torus:4x4x2,ppn=2 --pattern halo3d:4x4x4 --mappers default,order:TCBA");
  EXPECT_NE(table.out.find("order:TCBA"), std::string::npos);
}

TEST(Cli, EvalIsTheSameAtEveryThreadCount) {
  // 65,536 tasks placed at random on 4,096 routers: about 5 million channel-load additions
  // estimated, beyond one block (2^22): the blocks are summed in a fixed tree.
  const std::string args = "eval --machine torus:16x16x16,ppn=16 --pattern halo3d:64x32x32 --mapper random:seed=5 "
                           "--format json --loads-csv ";
  std::string first_json, first_csv;
  for (const char* threads : {"1", "2", "4"}) {
    const std::string csv = temp_path(std::string("loads") + threads + ".csv");
    auto r = run_taskmap(args + csv + " --threads " + threads);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(csv);
    const std::string loads((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::filesystem::remove(csv);
    if (first_json.empty()) {
      first_json = r.out, first_csv = loads;
      EXPECT_GT(nlohmann::json::parse(r.out)["channel_updates"].get<std::uint64_t>(), 0u);
      continue;
    }
    EXPECT_EQ(r.out, first_json) << threads << " threads";
    EXPECT_EQ(loads, first_csv) << threads << " threads";
  }
  // A count that is no count is command-line misuse.
  EXPECT_EQ(run_taskmap("eval --machine torus:4 --pattern halo2d:1x4 --threads 0").exit_code, 2);
}

TEST(Cli, AMisspeltCommandIsNamedWithTheCommands) {
  const auto r = run_taskmap("mpa --machine torus:4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "taskmap: error: unknown command 'mpa'; the commands are info, routes, eval, map, compare, "
                   "reorder-plan, export, validate, reproduce, list (see taskmap --help)\n");
}

TEST(Cli, ProgressBarOnlyWhenAskedOrOnATerminal) {
  const std::string args = "compare --machine torus:4x4 --pattern halo2d:4x4 --mappers default,random:seed=1";
  // Through a pipe (as here): no bar.
  auto quiet = run_taskmap(args);
  ASSERT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.err.find('\r'), std::string::npos) << quiet.err;
  // TASKMAP_PROGRESS=always draws at once: the full bar after both mappers, then erased.
  auto shown = test::run_command("TASKMAP_PROGRESS=always " + std::string(TASKMAP_BINARY) + " " + args);
  ASSERT_EQ(shown.exit_code, 0);
  EXPECT_EQ(shown.out.find('\r'), std::string::npos);  // stdout stays clean
  EXPECT_NE(shown.err.find("\rcompare [" + std::string(30, '#') + "] 100% 2/2"), std::string::npos) << shown.err;
  EXPECT_TRUE(shown.err.ends_with("\r\033[K")) << shown.err;
}

// A run long enough to draw (auto with 40 million work units of refine-mcl on 512 tasks takes
// about 1.6 s of CPU; the bar waits half a second): the bar appears on a terminal (a pty from
// util-linux's script) and nowhere else.
TEST(Cli, ProgressOnATerminalOnly) {
  TASKMAP_REQUIRE_TOOL("command -v script", "script (util-linux)");
  const std::string command = std::string("env -u TASKMAP_PROGRESS ") + TASKMAP_BINARY +
                              " map --machine torus:8x8x8 --pattern halo3d:8x8x8 --mapper auto:budget=40 --out /dev/null";
  const auto piped = test::run_command(command);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.err.find("auto:budget=40 ["), std::string::npos) << piped.err;
  EXPECT_EQ(piped.err.find("\033[K"), std::string::npos);
  const auto tty = test::run_command("script -qec '" + command + "' /dev/null");
  ASSERT_EQ(tty.exit_code, 0) << tty.out;
  EXPECT_NE(tty.out.find("\rauto:budget=40 ["), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("\033[K"), std::string::npos);
  // The summary after it is whole: the bar erased its line first.
  EXPECT_NE(tty.out.find("\r\033[Kauto:budget=40: chose "), std::string::npos) << tty.out;
}

TEST(Cli, InfoReportsStructure) {
  auto r = run_taskmap("info --machine percs:ns=16,nd=2 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["routers"], 512);
  EXPECT_EQ(j["slots"], 2048);
  EXPECT_EQ(j["classes"]["D"]["channels"], 16 * 2 * 16);
  EXPECT_EQ(j["diameter"], 3);
  EXPECT_EQ(j["default_routing"], "direct");
  EXPECT_TRUE(j["partial_cube_dims"].is_null());  // PERCS has triangles (all-to-all drawers)
  // An 8x8x8 torus is a partial cube with 4 Djoković classes per ring of 8 [TiMEr §2].
  auto torus = nlohmann::json::parse(run_taskmap("info --machine torus:8x8x8 --format json").out);
  EXPECT_EQ(torus["partial_cube_dims"], 12);
}

// `info` used to compare every pair of routers (and to label partial cubes edge class by edge
// class): these never returned. Closed forms describe them from their parameters; the time
// limit (generous for sanitizer builds) is what fails if a quadratic step comes back.
TEST(Cli, InfoOnMillionRouterMachinesReturns) {
  struct Case {
    const char* machine;
    std::uint64_t routers, channels;
    std::uint32_t diameter;
  };
  // Dragonfly: g = 10,001 groups of 100 routers, a(a-1) local channels per group, g(g-1)
  // global; torus: 4 channels per router; RTT(1448): 2a^2 routers of 4 channels, diameter a
  // [RTT-map Table 1].
  for (const Case& c : {Case{"dragonfly:p=100,a=100,h=100", 1000100, 10001ull * 9900 + 10001ull * 10000, 3},
                        Case{"torus:2048x2048", 2048ull * 2048, 4ull * 2048 * 2048, 2048},
                        Case{"rtt:a=1448", 2ull * 1448 * 1448, 8ull * 1448 * 1448, 1448}}) {
    SCOPED_TRACE(c.machine);
    const auto r = test::run_command(std::string("timeout 120 ") + TASKMAP_BINARY + " info --format json --machine " + c.machine);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["routers"], c.routers);
    EXPECT_EQ(j["channels"], c.channels);
    EXPECT_EQ(j["diameter"], c.diameter);
    EXPECT_EQ(j["distance_estimated"], false);
  }
}

TEST(Cli, MapWritesPlainAndRankfilePlacements) {
  const std::string plain = temp_path("plain.txt"), rankfile = temp_path("rankfile");
  ASSERT_EQ(run_taskmap("map --machine torus:2x2,ppn=2 --pattern halo2d:2x4 --mapper order:TBA --out " + plain).exit_code, 0);
  ASSERT_EQ(run_taskmap("map --machine torus:2x2,ppn=2 --pattern halo2d:2x4 --mapper default --out " + rankfile +
                        " --out-format openmpi-rankfile").exit_code,
            0);
  // The written plain file is read back by eval.
  auto r = run_taskmap("eval --machine torus:2x2,ppn=2 --pattern halo2d:2x4 --mapping " + plain + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(rankfile);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "rank 0=node0 slot=0");
  std::getline(in, line);
  EXPECT_EQ(line, "rank 1=node0 slot=1");
  std::filesystem::remove(plain);
  std::filesystem::remove(rankfile);
}

struct BadCase {
  const char* name;
  std::string args;
  std::string needle;
};

TEST(Cli, BadInputGivesOneLineAndNoOutputFile) {
  const std::string out = temp_path("never.txt");
  const std::string bad = std::string(TASKMAP_TEST_INSTANCES) + "/bad/";
  const std::string base = "map --out " + out + " ";
  const std::vector<BadCase> cases = {
      {"unknown machine", base + "--machine cube:4 --pattern halo2d:4x4 --mapper default", "unknown machine 'cube'"},
      {"unknown pattern", base + "--machine torus:4x4 --pattern wave:4 --mapper default", "unknown pattern 'wave'"},
      {"unknown mapper", base + "--machine torus:4x4 --pattern halo2d:4x4 --mapper magic", "unknown mapper 'magic'"},
      {"unknown baseline", base + "--machine torus:4x4 --pattern halo2d:4x4 --baseline magic",
       "--baseline 'magic': unknown mapper 'magic'"},
      {"bytes per unit not positive", "eval --machine torus:4x4 --pattern halo2d:4x4 --bytes-per-unit 0",
       "--bytes-per-unit 0: must be positive"},
      {"report not html", "compare --machine torus:4x4 --pattern halo2d:4x4 --mappers default --report out.txt",
       "--report out.txt: the report is an HTML page"},
      {"json summary and placement on stdout", "map --machine torus:4x4 --pattern halo2d:4x4 --out - --format json",
       "map: --format json prints the summary on standard output"},
      {"unknown routing", "eval --machine torus:4x4 --pattern halo2d:4x4 --mapper default --routing fast",
       "unknown routing 'fast'"},
      {"routing of another machine", "eval --machine torus:4x4 --pattern halo2d:4x4 --mapper default --routing indirect",
       "does not apply to torus machines"},
      {"percs nd=3", base + "--machine percs:ns=32,nd=3 --pattern halo2d:64x64 --mapper default", "nd=3 does not divide 32"},
      {"percs h>16", base + "--machine percs:ns=1024,nd=32 --pattern halo2d:4x4 --mapper default", "exceeds the 16 D ports"},
      {"zero dimension", base + "--machine torus:4x0 --pattern halo2d:4x4 --mapper default", "dimension size 0"},
      {"too many tasks for a one-to-one mapper", base + "--machine torus:4x4 --pattern halo2d:8x8 --mapper random",
       "--mapper 'random': it places one task per slot, and the job has 64 tasks for 16 slots (several tasks per slot: auto, default, hostname-order, file, scotch, ptscotch, metis, greedy, rb, ml, timer, refine-hb, refine-mcl or refine-inject)"},
      {"timer on a machine that is not a partial cube", base + "--machine torus:3x4 --pattern halo2d:4x4 --mapper timer",
       "--mapper 'timer': machine 'torus:3x4' is not a partial cube: it is not bipartite"},
      {"imbalance out of range", base + "--machine torus:4x4 --pattern halo2d:8x8 --mapper default --imbalance 1",
       "--imbalance 1: must be in [0, 1)"},
      {"placement file beyond the balance",
       "eval --machine torus:2x2 --pattern halo2d:2x4 --imbalance 0 --mapping " + bad + "three_on_slot0.txt",
       "three_on_slot0.txt:4: slot 0 already holds the 2 tasks the balance allows"},
      {"truncated file", base + "--machine torus:4x4 --pattern file:" + bad + "truncated.graph --mapper default",
       "truncated.graph: unexpected end of file after line 4"},
      {"profile of a crashed run", base + "--machine torus:2x2 --pattern file:" + bad + "crashed_profile.txt --mapper default",
       "crashed_profile.txt: truncated profile: no '# end of taskmap-profile: L lines' line after line 6"},
      {"profile cut inside a line", base + "--machine torus:2x2 --pattern file:" + bad + "cut_profile.txt --mapper default",
       "cut_profile.txt:6: expected 'src dst bytes messages', found 3 fields"},
      {"profile missing lines", base + "--machine torus:2x2 --pattern file:" + bad + "short_profile.txt --mapper default",
       "short_profile.txt: truncated profile: its end line announces 3 lines but it holds 2"},
      {"malformed file", base + "--machine torus:4x4 --pattern file:" + bad + "ragged.csv --mapper default",
       "ragged.csv:2: row has 2 values"},
      {"duplicate slot", "eval --machine torus:2x2 --pattern halo2d:2x2 --mapping " + bad + "dup_slot.txt",
       "dup_slot.txt:2: slot 2 is already taken by task 0"},
      {"missing slot", "eval --machine torus:2x2 --pattern halo2d:2x2 --mapping " + bad + "missing_task.txt",
       "task 2 has no slot"},
      {"slot out of range", "eval --machine torus:2x2 --pattern halo2d:2x2 --mapping " + bad + "slot_range.txt",
       "slot 99 is out of range [0, 4)"},
      {"bad out format", base + "--machine torus:4x4 --pattern halo2d:4x4 --mapper default --out-format lsf",
       "--out-format 'lsf': unknown format 'lsf'; known: plain, scotch, metis-part, openmpi-rankfile, hydra, slurm, "
       "slurm-map-cpu, slurm-map-gpu, srun, gpu-env, cray-rank-order, bgq-mapfile"},
      {"rankfile with more ranks than slots",
       base + "--machine torus:4x4 --pattern halo2d:8x8 --mapper default --out-format openmpi-rankfile",
       "--out-format openmpi-rankfile: 64 ranks but machine 'torus:4x4' has only 16 slots"},
      {"bgq map file for another machine",
       base + "--machine mesh:4x4 --pattern halo2d:4x4 --mapper default --out-format bgq-mapfile",
       "machine 'mesh:4x4' is not a Blue Gene/Q partition"},
      {"hosts file missing", base + "--machine torus:4x4 --pattern halo2d:4x4 --mapper default --out-format slurm "
       "--hosts /nonexistent/hosts", "/nonexistent/hosts"},
      {"report not named .html",
       "eval --machine torus:4x4 --pattern halo2d:4x4 --mapper default --report " + out,
       "the report is an HTML page; name it *.html"},
      {"unknown report baseline",
       "eval --machine torus:4x4 --pattern halo2d:4x4 --mapper default --baseline best --report " + out + ".html",
       "unknown mapper 'best'"},
      {"simgrid export too large for explicit routes",
       "export simgrid --machine mesh:65x64 --pattern halo2d:4x4 --mapper default --out " + out,
       "explicit routes are written for at most 4096 nodes"},
      {"simgrid export of a routing that splits flows",
       "export simgrid --machine torus:4x4 --pattern halo2d:4x4 --mapper default --routing minimal --out " + out,
       "splits the flow from router 0 to router 2 over several paths; SimGrid routes each pair on one path"},
      {"router-level mapper on a fat-tree", base + "--machine fattree:k=4,n=2 --pattern halo2d:4x4 --mapper timer",
       "machine 'fattree:k=4,n=2' has routers without nodes (switches)"},
      {"unknown option", "eval --machine torus:4x4 --pattern halo2d:4x4 --mapper default --colour red", "--colour"},
      {"unknown key", base + "--machine torus:4x4 --pattern halo2d:4x4 --mapper random:sed=2", "random: unknown parameter 'sed'; known: seed"},
      {"rahtm, size not a power of two", base + "--machine torus:3x4 --pattern halo2d:3x4 --mapper rahtm",
       "--mapper 'rahtm': RAHTM cannot decompose 'torus:3x4': dimension A has size 3, not a power of two"},
      {"rahtm on a dragonfly", base + "--machine dragonfly:p=2,a=4,h=2 --pattern halo2d:4x4 --mapper rahtm",
       "--mapper 'rahtm': it needs a torus, mesh or hypercube, not dragonfly"},
      {"rahtm, pattern larger than the machine", base + "--machine torus:4x4 --pattern npb-cg:32 --mapper rahtm",
       "--mapper 'rahtm': it places one task per slot, and the job has 32 tasks for 16 slots"},
      {"rahtm time limit", base + "--machine torus:4x4 --pattern npb-cg:16 --mapper rahtm:milp-seconds=0",
       "rahtm: milp-seconds must be at least 0.001, not 0"},
      {"npb-bt not square", base + "--machine torus:4x4x2 --pattern npb-bt:32 --mapper default",
       "npb-bt needs a square rank count >= 4, not 32"},
      {"pipeline stage that cannot refine", base + "--machine torus:4x4 --pattern halo2d:4x4 --mapper default+hilbert",
       "--mapper 'default+hilbert': 'hilbert' cannot start from another mapping (after '+' only timer, refine-hb, refine-mcl or refine-inject)"},
      {"empty pipeline stage", base + "--machine torus:4x4 --pattern halo2d:4x4 --mapper default+",
       "--mapper 'default+': stage 2 is empty"},
      {"routing for another machine", base + "--machine torus:4x4 --pattern halo2d:4x4 --mapper refine-mcl --routing valiant",
       "--routing 'valiant' does not apply to torus machines"},
      {"refine-mcl optimizes under the run's routing, it has no routing of its own",
       base + "--machine torus:4x4 --pattern halo2d:4x4 --mapper refine-mcl:routing=dor", "refine-mcl: unknown parameter 'routing'; known: work, seconds, candidates, anneal, regions, within, links, moves, seed"},
      {"refine-mcl within leaves needs leaf switches",
       base + "--machine torus:4x4 --pattern halo2d:4x4 --mapper refine-mcl:within=leaf",
       "within=leaf needs a fabric with leaf switches (a Slurm or ibnetdiscover tree), not torus"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.name);
    expect_one_line_error(run_taskmap(c.args), c.needle);
    EXPECT_FALSE(std::filesystem::exists(out)) << c.name;
  }
  // No temporary file is left behind either.
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path())) {
    EXPECT_EQ(entry.path().filename().string().find(std::filesystem::path(out).filename().string() + ".tmp"),
              std::string::npos);
  }
}

// An output path under a regular file cannot be written, even by root.
TEST(Cli, UnwritableOutputIsReportedWithoutPartialFile) {
  const std::string regular = temp_path("regular-file");
  std::ofstream(regular) << "not a directory\n";
  const std::string out = regular + "/out.txt";
  auto r = run_taskmap("map --machine torus:4x4 --pattern halo2d:4x4 --mapper default --out " + out);
  EXPECT_EQ(r.exit_code, 1);
  expect_one_line_error(r, "--out " + out + ": " + regular + " is not a directory");
  EXPECT_TRUE(std::filesystem::is_regular_file(regular));
  EXPECT_EQ(std::filesystem::file_size(regular), 16u);
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path())) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == std::filesystem::path(regular).filename() ||
                name.find(std::filesystem::path(regular).filename().string()) == std::string::npos)
        << "left behind: " << name;
  }
  std::filesystem::remove(regular);
}

// Structured mappers refuse grids they cannot map with one line naming the constraint.
TEST(Cli, StructuredMappersRefuseImpossibleGridsInOneLine) {
  auto mod = test::run_taskmap("eval --machine percs:ns=32,nd=4 --pattern halo2d:128x32 --mapper percs-modcolor");
  EXPECT_EQ(mod.exit_code, 1);
  EXPECT_EQ(mod.err,
            "taskmap: error: --mapper 'percs-modcolor': mod-colouring needs P a multiple of 32 and Q a power of two "
            ">= 64, not 128x32\n");
  const auto out = std::filesystem::temp_directory_path() / ("taskmap_bbac_" + std::to_string(::getpid()));
  auto bbac = test::run_taskmap("map --machine dragonfly:p=4,a=8,h=4 --pattern halo2d:16x32 --mapper dragonfly-bbac --out " +
                                out.string());
  EXPECT_EQ(bbac.exit_code, 1);
  EXPECT_NE(bbac.err.find("B-BAC needs a square (or cubic) task grid, not 16x32"), std::string::npos) << bbac.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  auto nogrid = test::run_taskmap("eval --machine rt:a=2 --pattern alltoall:8 --mapper rtt-map:f=diag");
  EXPECT_NE(nogrid.err.find("the pattern has no task grid; give one with grid=PxQ"), std::string::npos) << nogrid.err;
  auto withgrid = test::run_taskmap("eval --machine rt:a=2 --pattern alltoall:8 --mapper rtt-map:f=diag,grid=4x2");
  EXPECT_EQ(withgrid.exit_code, 0) << withgrid.err;
  auto level = test::run_taskmap("eval --machine percs:ns=16,nd=4 --pattern halo2d:32x64 --mapper percs-block:level=rack");
  EXPECT_NE(level.err.find("unknown level 'rack'; known: node, drawer, supernode"), std::string::npos) << level.err;
}

// The version is project()'s, read here from CMakeLists.txt; a git checkout adds its
// `git describe --always --dirty`, which must name a commit of that checkout.
TEST(Cli, VersionIsTheProjectVersionAndTheGitCommit) {
  std::ifstream cmakelists(std::string(TASKMAP_SOURCE_DIR) + "/CMakeLists.txt");
  std::stringstream text;
  text << cmakelists.rdbuf();
  std::smatch project;
  const std::string cmake = text.str();
  ASSERT_TRUE(std::regex_search(cmake, project, std::regex(R"(project\(taskmap VERSION ([0-9.]+))")));
  const std::string version = project[1];

  auto r = run_taskmap("--version");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch line;
  ASSERT_TRUE(std::regex_match(r.out, line, std::regex(R"(taskmap ([0-9.]+)( \(git (.+)\))?\n)"))) << r.out;
  EXPECT_EQ(line[1], version);
  const std::string git = fmt::format("git -C {} ", TASKMAP_SOURCE_DIR);
  if (test::run_command(git + "rev-parse --git-dir").exit_code != 0) return;  // not a checkout
  ASSERT_TRUE(line[2].matched) << "built from a git checkout, but no git description: " << r.out;
  // describe --always gives HASH or TAG-N-gHASH, with -dirty after either.
  std::smatch hash;
  const std::string describe = line[3];
  ASSERT_TRUE(std::regex_match(describe, hash, std::regex(R"((?:.*-g)?([0-9a-f]{7,40})(-dirty)?)"))) << describe;
  EXPECT_EQ(test::run_command(git + "cat-file -e " + std::string(hash[1]) + "^{commit}").exit_code, 0) << describe;
}

}  // namespace
}  // namespace taskmap
