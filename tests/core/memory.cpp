// The memory limit and its sizes: parsing "16G", rounding for messages.
#include <gtest/gtest.h>

#include <unistd.h>

#include "taskmap/core/memory.h"

namespace taskmap {
namespace {

TEST(MemoryLimit, ByteSizesInBinaryMultiples) {
  EXPECT_EQ(parse_byte_size("16G"), std::uint64_t(16) << 30);
  EXPECT_EQ(parse_byte_size("512M"), std::uint64_t(512) << 20);
  EXPECT_EQ(parse_byte_size("1024K"), std::uint64_t(1) << 20);
  EXPECT_EQ(parse_byte_size("123"), 123u);
  EXPECT_EQ(parse_byte_size("2t"), std::uint64_t(2) << 40);
  EXPECT_EQ(parse_byte_size("16GiB"), std::uint64_t(16) << 30);
  EXPECT_EQ(parse_byte_size("64B"), 64u);
  for (const char* bad : {"", "G", "-1", "0", "1.5G", "12Q", "16 G", "20000000T"}) {
    EXPECT_EQ(parse_byte_size(bad), std::nullopt) << bad;
  }
}

TEST(MemoryLimit, RoundedForMessages) {
  EXPECT_EQ(format_bytes(std::uint64_t(24) << 30), "24 GiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_count(999999), "999999");
  EXPECT_EQ(format_count(6000000000), "6e9");
  EXPECT_EQ(format_count(1073741824), "1.07e9");
}

TEST(MemoryLimit, SetOverridesTheDefaultWhichIsBelowPhysicalMemory) {
  const std::uint64_t physical = std::uint64_t(::sysconf(_SC_PHYS_PAGES)) * std::uint64_t(::sysconf(_SC_PAGE_SIZE));
  EXPECT_GT(default_memory_limit(), 0u);
  EXPECT_LE(default_memory_limit(), physical / 5 * 4);
  set_memory_limit(1000);
  EXPECT_EQ(memory_limit(), 1000u);
  EXPECT_NO_THROW(check_memory("x", 1000, "1 task"));
  try {
    check_memory("x", 1001, "1 task");
    ADD_FAILURE() << "no error";
  } catch (const LimitError& e) {
    EXPECT_STREQ(e.what(), "x needs about 1001 B for 1 task; limit 1000 B (--max-memory)");
  }
  set_memory_limit(0);
  EXPECT_EQ(memory_limit(), default_memory_limit());
}

}  // namespace
}  // namespace taskmap
