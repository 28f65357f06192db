// Paths with commas, equals signs, colons, spaces, quotes and non-ASCII characters given to
// --out, --mapping and the file: mapper: each is written or read as named, and a missing one is
// reported with its exact path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "taskmap/core/spec.h"
#include "test_support.h"

namespace taskmap {
namespace {

namespace fs = std::filesystem;

// One shell word.
std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

class CliPaths : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("taskmap_cli_paths_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

double hop_bytes_of(const test::CommandResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out)["hop_bytes"].get<double>() : -1;
}

TEST_F(CliPaths, OutMappingAndFileMapperTakeAnyPath) {
  const std::string job = "--machine torus:4x4 --pattern halo2d:4x4";
  // random:seed=3 is not the default order, so reading the placement back shows.
  const double expected = hop_bytes_of(test::run_taskmap("eval " + job + " --mapper random:seed=3 --format json"));
  const double identity = hop_bytes_of(test::run_taskmap("eval " + job + " --mapper default --format json"));
  ASSERT_NE(expected, identity);
  for (const std::string name : {"a,b.txt", "run=1/p.txt", "N=64,ppn=16/p.txt", "c:o:l.txt", "sp ace/ü ñ.txt",
                                 "it's.txt"}) {
    SCOPED_TRACE(name);
    const fs::path path = dir_ / name;
    fs::create_directories(path.parent_path());
    const auto map = test::run_taskmap("map " + job + " --mapper random:seed=3 --out " + shell_quoted(path.string()));
    ASSERT_EQ(map.exit_code, 0) << map.err;
    ASSERT_TRUE(fs::exists(path));
    EXPECT_EQ(hop_bytes_of(test::run_taskmap("eval " + job + " --format json --mapping " + shell_quoted(path.string()))),
              expected);
    const std::string quoted_spec = "file:" + io::quote_spec_value(path.string());
    EXPECT_EQ(hop_bytes_of(test::run_taskmap("eval " + job + " --format json --mapper " + shell_quoted(quoted_spec))),
              expected);
    // In a list of mappers, a quoted path may hold commas.
    const auto compare =
        test::run_taskmap("compare " + job + " --format json --mappers " + shell_quoted("default," + quoted_spec));
    ASSERT_EQ(compare.exit_code, 0) << compare.err;
    const auto rows = nlohmann::json::parse(compare.out)["rows"];
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[1]["hop_bytes"].get<double>(), expected);
  }
}

TEST_F(CliPaths, MissingFilesAreNamedWithTheirExactPath) {
  const std::string job = "eval --machine torus:4x4 --pattern halo2d:4x4 ";
  const std::string missing = (dir_ / "run=1" / "a,b c.txt").string();
  for (const std::string& args : {"--mapping " + shell_quoted(missing),
                                 "--mapper " + shell_quoted("file:" + io::quote_spec_value(missing))}) {
    SCOPED_TRACE(args);
    const auto r = test::run_taskmap(job + args);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "taskmap: error: cannot open '" + missing + "': No such file or directory\n");
  }
}

}  // namespace
}  // namespace taskmap
