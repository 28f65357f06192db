// Inputs too large for the run, from a file header, an id or a pattern's sizes: exit 1, one
// line naming the file and line (or the pattern), and no output file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace taskmap {
namespace {

TEST(CliInputLimits, OneLineNoOutputForEachOversizedInput) {
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("taskmap_limits_" + std::to_string(::getpid()) + ".txt")).string();
  auto bad = [](const std::string& f) { return test::instance("bad/" + f); };
  // pattern, what the line names
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"file:" + bad("metis_min_id.graph"), bad("metis_min_id.graph") + ":2: task id -9223372036854775808"},
      {"file:" + bad("metis_huge_edge_count.graph"), bad("metis_huge_edge_count.graph") + ":1: edge count"},
      {"file:" + bad("edges_huge_id.txt"), bad("edges_huge_id.txt") + ":1: task id 1073741823 needs about 16 GiB"},
      {"file:" + bad("edges_sparse_ids.txt"), bad("edges_sparse_ids.txt") + ":2: task id 5000000 makes 5000001 tasks"},
      {"file:" + bad("mtx_huge_size.mtx"), bad("mtx_huge_size.mtx") + ":2: size 1073741824 needs about"},
      {"file:" + bad("huge_ids.hopbyte.txt"), bad("huge_ids.hopbyte.txt") + ":1: rank 1073741823 needs about"},
      {"file:" + bad("profile_huge_ranks.txt"), bad("profile_huge_ranks.txt") + ":1: rank count 1073741824 needs"},
      {"halo3d:16777216x16777216x16777216", "halo3d:16777216x16777216x16777216 has more than 2147483647 tasks"},
      {"halo3d:1000x1000x1000", "halo3d:1000x1000x1000 needs about 194 GiB for 6e9 flows; limit 1 GiB (--max-memory)"},
      {"localmix:1000x1000,alpha=0.5", "localmix:1000x1000,alpha=0.5 needs about 29 TiB"},
      {"alltoall:16384", "alltoall:16384 needs about 8 GiB"},
      {"npb-cg:16777216", "npb-cg:16777216 needs about 6.8 GiB"},
  };
  for (const auto& [pattern, needle] : cases) {
    auto r = test::run_taskmap("map --machine torus:4 --mapper default --max-memory 1G --out " + out + " --pattern '" +
                               pattern + "'");
    EXPECT_EQ(r.exit_code, 1) << pattern;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("taskmap: error: " + needle, 0), 0u) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << pattern;
    std::filesystem::remove(out);
  }
}

// A machine's channels are counted from its parameters before any is built. Dragonfly
// (100, 100, 100): 10,001 groups; 10,001 x 100 x 99 local and 10,001 x 10,000 global channels
// of 12 bytes, 100 local-channel ids per router and two g x g tables of 4-byte entries
// (3,588,438,808 bytes), then the group table: a group per router (1,000,100 x 4 bytes) and per
// pair of groups a first-cable index and a global channel (10,001^2 x 8 bytes):
// 4,392,599,216 bytes, 4.09 GiB.
TEST(CliInputLimits, MachinesAreSizedBeforeTheyAreBuilt) {
  auto r = test::run_taskmap("eval --machine dragonfly:p=100,a=100,h=100 --pattern halo2d:2x2 --mapper default "
                             "--max-memory 1G");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "taskmap: error: --machine 'dragonfly:p=100,a=100,h=100' needs about 4.1 GiB for 1.99e8 channels; "
            "limit 1 GiB (--max-memory)\n");
}

// Likewise a Scotch target: "hcub 22" is 2^22 routers with 22 x 2^21 channels each way (12
// bytes each, 1,107,296,256 bytes) and a table of 2 x 22 channel ids per router (738,197,504
// bytes): 1.72 GiB for 92,274,688 channels.
TEST(CliInputLimits, ScotchTargetsAreSizedBeforeTheyAreBuilt) {
  const std::string target = (std::filesystem::temp_directory_path() /
                              ("taskmap_limits_" + std::to_string(::getpid()) + ".tgt")).string();
  { std::ofstream(target) << "hcub 22\n"; }
  auto r = test::run_taskmap("eval --machine tgt:" + target + " --pattern halo2d:2x2 --mapper default --max-memory 1G");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "taskmap: error: " + target + ":1 needs about 1.7 GiB for 9.23e7 channels; limit 1 GiB (--max-memory)\n");
  std::filesystem::remove(target);
}

TEST(CliInputLimits, MaxMemoryTakesSizesAndRefusesOthers) {
  auto r = test::run_taskmap("eval --machine torus:4 --pattern halo2d:2x2 --mapper default --max-memory 512M");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // 4096 tasks x 126 flows need 15.8 MiB: refused under 8 MiB (8192K), accepted under 32 MiB.
  auto low = test::run_taskmap("eval --machine torus:4 --pattern transpose:64x64 --mapper default --max-memory 8192K");
  EXPECT_EQ(low.exit_code, 1);
  EXPECT_EQ(low.err, "taskmap: error: transpose:64x64 needs about 16 MiB for 516096 flows; limit 8 MiB (--max-memory)\n");
  auto high = test::run_taskmap("eval --machine torus:4 --pattern transpose:64x64 --mapper default --max-memory 33554432");
  EXPECT_EQ(high.exit_code, 0) << high.err;
  auto bad = test::run_taskmap("eval --machine torus:4 --pattern halo2d:2x2 --mapper default --max-memory 12Q");
  EXPECT_EQ(bad.exit_code, 2);  // command-line misuse
  EXPECT_EQ(bad.err, "taskmap: error: --max-memory '12Q': expected a size such as 16G, 512M, 1024K or a byte count "
                     "(see taskmap --help)\n");
}

}  // namespace
}  // namespace taskmap
