// Text inputs: compressed files read transparently, line cursors that name the source and the
// line, strict number fields.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/core/text_source.h"
#include "test_support.h"

namespace taskmap {
namespace {

TEST(TextInput, XzAndGzipFilesReadLikeThePlainFile) {
  const auto dir = std::filesystem::temp_directory_path() / ("taskmap_core_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string plain = (dir / "edges.txt").string();
  std::ofstream(plain) << "0 1 2.5\n# comment\n1 0 2.5\n";
  ASSERT_EQ(test::run_command("xz -k " + plain + " && gzip -k " + plain).exit_code, 0);
  const std::string text = io::read_text_file(plain);
  EXPECT_EQ(text, "0 1 2.5\n# comment\n1 0 2.5\n");
  EXPECT_EQ(io::read_text_file(plain + ".xz"), text);
  EXPECT_EQ(io::read_text_file(plain + ".gz"), text);
  std::filesystem::remove_all(dir);
  EXPECT_THROW(io::read_text_file(plain), Error);
}

TEST(TextInput, EveryMemberOfAConcatenatedGzipFileAndNoByteOrderMark) {
  const auto dir = std::filesystem::temp_directory_path() / ("taskmap_members_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string a = (dir / "a").string(), b = (dir / "b").string(), both = (dir / "both.gz").string();
  std::ofstream(a) << "\xEF\xBB\xBF" "0 1 1\n";  // a byte order mark, as some editors write one
  std::ofstream(b) << "2 3 1\n";
  // Two gzip members one after the other, as `gzip -c a >> both.gz` or pigz write them.
  ASSERT_EQ(test::run_command("gzip -c " + a + " > " + both + " && gzip -c " + b + " >> " + both).exit_code, 0);
  EXPECT_EQ(io::read_text_file(both), "0 1 1\n2 3 1\n");
  EXPECT_EQ(io::read_text_file(a), "0 1 1\n");
  std::filesystem::remove_all(dir);
}

TEST(TextInput, WhatAFileUnpacksToCountsAgainstTheMemoryLimit) {
  // 64 MiB of newlines pack into about 64 KiB of gzip; with a limit of 16 MiB the reader stops
  // once the unpacked text passes half of it, long before 64 MiB.
  const auto dir = std::filesystem::temp_directory_path() / ("taskmap_unpacked_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string packed = (dir / "newlines.gz").string();
  ASSERT_EQ(test::run_command("head -c 67108864 /dev/zero | tr '\\0' '\\n' | gzip -c > " + packed).exit_code, 0);
  set_memory_limit(16 << 20);
  try {
    io::read_text_file(packed);
    ADD_FAILURE() << "read 64 MiB under a 16 MiB limit";
  } catch (const LimitError& e) {
    EXPECT_NE(std::string(e.what()).find(packed + " needs about "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("for its text unpacked (so far); limit 16 MiB (--max-memory)"),
              std::string::npos) << e.what();
  }
  set_memory_limit(0);
  EXPECT_EQ(io::read_text_file(packed).size(), std::size_t{67108864});
  std::filesystem::remove_all(dir);
}

TEST(TextInput, LineCursorSkipsCommentsAndNamesTheLine) {
  io::LineCursor cursor("input.txt", "# header\n\n0 1\n% other comment\n2 x\n");
  EXPECT_EQ(cursor.next_content_line(), "0 1");
  EXPECT_EQ(cursor.line_number(), 3u);
  EXPECT_EQ(cursor.next_content_line(), "2 x");
  try {
    cursor.fail_here("'x' is not a task id");
    FAIL() << "fail_here returned";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "input.txt:5: 'x' is not a task id");
  }
  EXPECT_EQ(cursor.next_content_line(), std::nullopt);
}

// A NUL byte is binary data; it would also cut every message that quotes the line short.
TEST(TextInput, ALineWithANulByteIsRefused) {
  io::LineCursor cursor("input.txt", std::string("0 1\nn0\0de 2\n", 12));
  EXPECT_EQ(cursor.next_content_line(), "0 1");
  EXPECT_EQ(test::error_message([&] { cursor.next_content_line(); }), "input.txt:2: a NUL byte at column 3: not a text file");
}

TEST(TextInput, FieldsAndStrictNumbers) {
  EXPECT_EQ(io::split_fields(" 1\t2  3 "), (std::vector<std::string_view>{"1", "2", "3"}));
  EXPECT_EQ(io::split_fields("1,2, 3", true), (std::vector<std::string_view>{"1", "2", "3"}));
  EXPECT_EQ(io::parse_int("42"), 42);
  EXPECT_EQ(io::parse_int("42x"), std::nullopt);
  EXPECT_EQ(io::parse_int("4.2"), std::nullopt);
  EXPECT_DOUBLE_EQ(*io::parse_double("1e-3"), 1e-3);
  EXPECT_EQ(io::parse_double("1.5.2"), std::nullopt);
}

TEST(TextInput, PrintableEscapesControlCharactersOnly) {
  EXPECT_EQ(io::printable(std::string_view("a\nb\0c\x7f\td", 8)), "a\\x0ab\\x00c\\x7f\\x09d");
  EXPECT_EQ(io::printable("node-01 \xc3\xa9"), "node-01 \xc3\xa9");  // bytes of UTF-8 text stay
}

}  // namespace
}  // namespace taskmap
