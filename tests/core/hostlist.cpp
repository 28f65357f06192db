// Slurm host lists: expansion (ranges, zero padding, several bracket groups), its errors, the
// inverse for display, and Slurm's per-node task counts. Every expected list is written out by hand.
#include <gtest/gtest.h>

#include "taskmap/core/error.h"
#include "taskmap/core/hostlist.h"
#include "taskmap/core/memory.h"

namespace taskmap {
namespace {

using Names = std::vector<std::string>;

std::string error_of(std::string_view text, std::size_t max_hosts = std::size_t{1} << 24, std::uint64_t held = 0) {
  try {
    io::expand_hostlist(text, "topology.conf:7", max_hosts, held);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(HostList, RangesAndSingleNumbers) {
  EXPECT_EQ(io::expand_hostlist("cn[1-3]"), (Names{"cn1", "cn2", "cn3"}));
  EXPECT_EQ(io::expand_hostlist("n[1-3,7],gpu[01-04]"),
            (Names{"n1", "n2", "n3", "n7", "gpu01", "gpu02", "gpu03", "gpu04"}));
  EXPECT_EQ(io::expand_hostlist("sl390lin[22,28,34,37]"),
            (Names{"sl390lin22", "sl390lin28", "sl390lin34", "sl390lin37"}));
  EXPECT_EQ(io::expand_hostlist("single"), (Names{"single"}));
  EXPECT_EQ(io::expand_hostlist("a,b,a"), (Names{"a", "b", "a"}));  // duplicates kept, order kept
  EXPECT_EQ(io::expand_hostlist(""), Names{});
  EXPECT_EQ(io::expand_hostlist("  "), Names{});
}

TEST(HostList, LeadingZerosFollowTheLowerBound) {
  // Width = digits of the lower bound, as Slurm pads: 099 and 100 share width 3.
  EXPECT_EQ(io::expand_hostlist("cn[099-101]"), (Names{"cn099", "cn100", "cn101"}));
  EXPECT_EQ(io::expand_hostlist("cn[8-10]"), (Names{"cn8", "cn9", "cn10"}));
  EXPECT_EQ(io::expand_hostlist("cn[08-10]"), (Names{"cn08", "cn09", "cn10"}));
  EXPECT_EQ(io::expand_hostlist("cn[001-2]"), (Names{"cn001", "cn002"}));
  // 128 names, the first and the last written out.
  const auto cn = io::expand_hostlist("cn[001-128]");
  ASSERT_EQ(cn.size(), 128u);
  EXPECT_EQ(cn.front(), "cn001");
  EXPECT_EQ(cn[9], "cn010");
  EXPECT_EQ(cn.back(), "cn128");
}

TEST(HostList, SeveralGroupsMultiplyFirstSlowest) {
  EXPECT_EQ(io::expand_hostlist("r[1-2]n[01-03]"), (Names{"r1n01", "r1n02", "r1n03", "r2n01", "r2n02", "r2n03"}));
  EXPECT_EQ(io::expand_hostlist("r[1-2]n[01-16]").size(), 32u);
  EXPECT_EQ(io::expand_hostlist("c[0-1]s[5,9]x"), (Names{"c0s5x", "c0s9x", "c1s5x", "c1s9x"}));
}

TEST(HostList, HyphenatedPrefixesAndSpacesAroundCommas) {
  EXPECT_EQ(io::expand_hostlist("tara-c-[001-004]"), (Names{"tara-c-001", "tara-c-002", "tara-c-003", "tara-c-004"}));
  EXPECT_EQ(io::expand_hostlist("tara-dgx1-[001-002]"), (Names{"tara-dgx1-001", "tara-dgx1-002"}));
  EXPECT_EQ(io::expand_hostlist("a1 , b[1-2] ,c"), (Names{"a1", "b1", "b2", "c"}));
  EXPECT_EQ(io::expand_hostlist("n[1 - 2, 5]"), (Names{"n1", "n2", "n5"}));
  // Slurm's separators: commas and spaces outside brackets, several in a row or at either end.
  EXPECT_EQ(io::expand_hostlist("a,,b"), (Names{"a", "b"}));
  EXPECT_EQ(io::expand_hostlist(",a,"), (Names{"a"}));
  EXPECT_EQ(io::expand_hostlist("n[1-2] n5\tm1"), (Names{"n1", "n2", "n5", "m1"}));
}

TEST(HostList, ErrorsNameTheSourceTheListAndTheProblem) {
  EXPECT_EQ(error_of("cn[01-"), "topology.conf:7: host list 'cn[01-': unclosed '['");
  EXPECT_EQ(error_of("cn[5-3]"), "topology.conf:7: host list 'cn[5-3]': reversed range 5-3");
  EXPECT_EQ(error_of("cn[a-3]"), "topology.conf:7: host list 'cn[a-3]': 'a' is not a number");
  EXPECT_EQ(error_of("cn[1-x]"), "topology.conf:7: host list 'cn[1-x]': 'x' is not a number");
  EXPECT_EQ(error_of("cn[]"), "topology.conf:7: host list 'cn[]': empty range in brackets");
  EXPECT_EQ(error_of("cn[1,]"), "topology.conf:7: host list 'cn[1,]': empty range in brackets");
  EXPECT_EQ(error_of("cn1]"), "topology.conf:7: host list 'cn1]': ']' without '['");
  EXPECT_EQ(error_of("cn[1[2]]"), "topology.conf:7: host list 'cn[1[2]]': '[' inside brackets");
  EXPECT_EQ(error_of("n[1-99999999999999999999]"),
            "topology.conf:7: host list 'n[1-99999999999999999999]': 99999999999999999999 is too large");
}

TEST(HostList, TooManyNamesIsCountedBeforeExpanding) {
  // 3 * 4 = 12 names > 10; a list of 10^18 names must fail at once, not allocate.
  EXPECT_EQ(error_of("r[1-3]n[1-4]", 10), "topology.conf:7: host list 'r[1-3]n[1-4]': expands to more than 10 names");
  EXPECT_EQ(io::expand_hostlist("r[1-2]n[1-5]", "x", 10).size(), 10u);
  EXPECT_EQ(error_of("a[0-999999999]b[0-999999999]"),
            "topology.conf:7: host list 'a[0-999999999]b[0-999999999]': expands to more than 16777216 names");
  EXPECT_EQ(error_of("a[0-18446744073709551615]b[0-18446744073709551615]"),
            "topology.conf:7: host list 'a[0-18446744073709551615]b[0-18446744073709551615]': "
            "expands to more than 16777216 names");
}

TEST(HostList, ErrorsQuotingALineBreakStayOneLine) {
  // A YAML value can hold a line break; trim() takes only spaces and tabs, so "1\n" is the bound.
  EXPECT_EQ(error_of("cn[1\n-2]"), "topology.conf:7: host list 'cn[1\\x0a-2]': '1\\x0a' is not a number");
}

TEST(HostList, NamesNeedingMoreThanTheMemoryLimitAreRefusedBeforeExpanding) {
  // Each name: the string (32 bytes), its characters when over 15 (with the NUL), and 128
  // bytes for the caller's index of it. 10^5 names of 14 characters: 160 bytes each = 1.6e7
  // bytes = 15.3 MiB.
  set_memory_limit(std::uint64_t{1} << 20);
  EXPECT_EQ(error_of("longname-[00000-99999]"),
            "topology.conf:7: host list 'longname-[00000-99999]' needs about 15 MiB for 100000 names; "
            "limit 1 MiB (--max-memory)");
  // 10 names of 23 characters: 32 + 24 + 128 bytes each = 1,840 bytes.
  set_memory_limit(1839);
  EXPECT_EQ(error_of("a-very-long-host-name-[0-9]"),
            "topology.conf:7: host list 'a-very-long-host-name-[0-9]' needs about 1.8 KiB for 10 names; "
            "limit 1.8 KiB (--max-memory)");
  set_memory_limit(1840);
  EXPECT_EQ(io::expand_hostlist("a-very-long-host-name-[0-9]", "x").size(), 10u);
  // A file's earlier lists count: 5 such names held already leave room for 4 more, not 10.
  set_memory_limit(1840 + 920 - 1);
  EXPECT_EQ(error_of("a-very-long-host-name-[0-9]", 100, 920),
            "topology.conf:7: host list 'a-very-long-host-name-[0-9]' needs about 2.7 KiB for 10 names with the "
            "earlier lists'; limit 2.7 KiB (--max-memory)");
  set_memory_limit(0);
}

TEST(HostList, CompressFoldsSortedNamesKeepingPadding) {
  EXPECT_EQ(io::compress_hostlist({"cn3", "cn1", "cn2", "cn7"}), "cn[1-3,7]");
  EXPECT_EQ(io::compress_hostlist({"gpu02", "gpu01", "gpu04", "gpu03"}), "gpu[01-04]");
  EXPECT_EQ(io::compress_hostlist({"cn099", "cn100", "cn101"}), "cn[099-101]");
  EXPECT_EQ(io::compress_hostlist({"n9", "n10", "n11"}), "n[9-11]");
  EXPECT_EQ(io::compress_hostlist({"login", "n1", "n1", "n2"}), "login,n[1-2]");
  EXPECT_EQ(io::compress_hostlist({"tara-c-001", "tara-c-002", "tara-m-001"}), "tara-c-[001-002],tara-m-001");
  EXPECT_EQ(io::compress_hostlist({}), "");
  // Round trip through the expansion.
  const Names many = io::expand_hostlist("r[1-2]n[01-16],x[8-12],y");
  EXPECT_EQ(io::expand_hostlist(io::compress_hostlist(many)).size(), many.size());
  EXPECT_EQ(io::compress_hostlist(io::expand_hostlist("sl390lin[1-5,7-11,13-18,20-21,24-27,29,33]")),
            "sl390lin[1-5,7-11,13-18,20-21,24-27,29,33]");
}

TEST(HostList, SlurmTaskCounts) {
  EXPECT_EQ(io::expand_slurm_counts("2(x3),1", "SLURM_TASKS_PER_NODE"), (std::vector<std::uint32_t>{2, 2, 2, 1}));
  EXPECT_EQ(io::expand_slurm_counts("4", "s"), (std::vector<std::uint32_t>{4}));
  EXPECT_EQ(io::expand_slurm_counts("1,3(x2)", "s"), (std::vector<std::uint32_t>{1, 3, 3}));
  auto error = [](std::string_view text) {
    try {
      io::expand_slurm_counts(text, "SLURM_TASKS_PER_NODE");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("2(x3"), "SLURM_TASKS_PER_NODE: task counts '2(x3': '2(x3' is not N(xM)");
  EXPECT_EQ(error("2(3)"), "SLURM_TASKS_PER_NODE: task counts '2(3)': '2(3)' is not N(xM)");
  EXPECT_EQ(error("2(x0)"), "SLURM_TASKS_PER_NODE: task counts '2(x0)': '2(x0)' repeats zero times");
  EXPECT_EQ(error("a"), "SLURM_TASKS_PER_NODE: task counts 'a': count 'a' is not a number");
  EXPECT_EQ(error("1,,2"), "SLURM_TASKS_PER_NODE: task counts '1,,2': count '' is not a number");
  EXPECT_EQ(error("1(x99999999999)"),
            "SLURM_TASKS_PER_NODE: task counts '1(x99999999999)': repeat '99999999999' is not a number");
  EXPECT_EQ(error("1(x4000000000)"), "SLURM_TASKS_PER_NODE: task counts '1(x4000000000)': more than 16777216 counts");
}

}  // namespace
}  // namespace taskmap
