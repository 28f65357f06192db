// The catalogue of bad inputs: every file in tests/instances/bad/ has NAME.expected beside it,
// holding the taskmap arguments that read it and the error they must give ("{}" stands for the
// file's path, "{instances}" for tests/instances, where a second input may come from). Each runs through the CLI: exit code 1, exactly that one line on stderr, and
// nothing written to the output directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <unistd.h>

#include "test_support.h"

namespace taskmap {
namespace {

namespace fs = std::filesystem;

std::string replaced(std::string text, const std::string& path) {
  for (std::size_t at; (at = text.find("{instances}")) != std::string::npos;) {
    text.replace(at, 11, std::string(TASKMAP_TEST_INSTANCES));
  }
  for (std::size_t at; (at = text.find("{}")) != std::string::npos;) text.replace(at, 2, path);
  return text;
}

TEST(BadInputs, EveryFileOfTheCatalogueFailsWithItsOneLine) {
  const fs::path dir = test::instance("bad");
  const fs::path out_dir = fs::temp_directory_path() / ("taskmap_bad_inputs_" + std::to_string(::getpid()));
  fs::remove_all(out_dir);
  fs::create_directories(out_dir);
  std::size_t checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const fs::path input = entry.path();
    if (input.extension() == ".expected") continue;
    SCOPED_TRACE(input.filename().string());
    std::ifstream expected(input.string() + ".expected");
    ASSERT_TRUE(expected) << "no " << input.filename().string() << ".expected beside it";
    std::string args_line, error_line;
    std::getline(expected, args_line);
    std::getline(expected, error_line);
    ASSERT_EQ(args_line.rfind("args: ", 0), 0u);
    ASSERT_EQ(error_line.rfind("error: ", 0), 0u);
    // Shell words: the checkout's path may hold spaces.
    std::string args = replaced(args_line.substr(6), fmt::format("'{}'", input.string()));
    if (args.rfind("map ", 0) == 0) args += fmt::format(" --out '{}'", (out_dir / "placement.txt").string());
    const auto r = test::run_taskmap(args);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "taskmap: error: " + replaced(error_line.substr(7), input.string()) + "\n");
    EXPECT_TRUE(fs::is_empty(out_dir)) << "an output or temporary file was left behind";
    ++checked;
  }
  fs::remove_all(out_dir);
  EXPECT_GE(checked, 29u) << "the catalogue's size";
}

}  // namespace
}  // namespace taskmap
