// Output files appear whole or not at all.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "taskmap/core/atomic_file.h"

namespace taskmap {
namespace {

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("taskmap_atomic_" + std::to_string(::getpid()) + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(AtomicFile, NothingAppearsUntilCommitAndNothingRemainsWithoutIt) {
  const auto dir = fresh_dir("commit");
  const std::string path = (dir / "out.txt").string();
  {
    io::AtomicFile file(path);
    file.stream() << "partial";
    EXPECT_FALSE(std::filesystem::exists(path));
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "an abandoned writer left a file";
  {
    io::AtomicFile file(path);
    file.stream() << "whole\n";
    file.commit();
  }
  std::stringstream content;
  content << std::ifstream(path).rdbuf();
  EXPECT_EQ(content.str(), "whole\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, ReplacesAnExistingFileWhole) {
  const auto dir = fresh_dir("replace");
  const std::string path = (dir / "out.txt").string();
  io::write_file_atomically(path, "old\n");
  io::write_file_atomically(path, "new\n");
  std::stringstream content;
  content << std::ifstream(path).rdbuf();
  EXPECT_EQ(content.str(), "new\n");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace taskmap
