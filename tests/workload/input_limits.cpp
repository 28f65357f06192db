// Sizes taken from a header field, an id or a pattern's parameters are checked before anything
// is allocated: one line naming the place, and no allocation of the size asked for.
#include <gtest/gtest.h>

#include <fstream>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/workload/generators.h"
#include "test_support.h"

namespace taskmap {
namespace {

// Sets memory_limit() for one test, then goes back to the default.
struct LimitGuard {
  explicit LimitGuard(std::uint64_t bytes) { set_memory_limit(bytes); }
  ~LimitGuard() { set_memory_limit(0); }
};

constexpr std::uint64_t GiB = std::uint64_t(1) << 30, MiB = std::uint64_t(1) << 20;

std::string error_of(const std::string& spec) {
  try {
    build_pattern(parse_pattern_spec(spec));
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string bad(const std::string& name) { return test::instance("bad/" + name); }

TEST(InputLimits, MetisIdAtInt64MinIsOutOfRange) {
  EXPECT_EQ(error_of("file:" + bad("metis_min_id.graph")),
            bad("metis_min_id.graph") + ":2: task id -9223372036854775808 is out of range [1, 2)");
}

TEST(InputLimits, MetisEdgeCountBeyondTheVertexCount) {
  EXPECT_EQ(error_of("file:" + bad("metis_huge_edge_count.graph")),
            bad("metis_huge_edge_count.graph") +
                ":1: edge count 9223372036854775807 is too large: 2 vertices have at most 1 edges");
  // A count within n(n-1)/2 that the lists do not hold: compared without doubling it.
  EXPECT_EQ(error_of("file:" + bad("wrong_edge_count.graph")),
            bad("wrong_edge_count.graph") +
                ":1: header announces 5 edges but the adjacency lists hold 6 entries, not twice the edge count (each "
                "edge is listed at both of its ends)");
}

// 2^30 tasks at 16 bytes each (plus 32 per flow): 16 GiB.
TEST(InputLimits, TaskCountsFromOneIdOrHeaderAreHeldToMemory) {
  LimitGuard limit(GiB);
  EXPECT_EQ(error_of("file:" + bad("edges_huge_id.txt")),
            bad("edges_huge_id.txt") +
                ":1: task id 1073741823 needs about 16 GiB for 1073741824 tasks; limit 1 GiB (--max-memory)");
  EXPECT_EQ(error_of("file:" + bad("mtx_huge_size.mtx")),
            bad("mtx_huge_size.mtx") +
                ":2: size 1073741824 needs about 16 GiB for 1073741824 tasks; limit 1 GiB (--max-memory)");
  EXPECT_EQ(error_of("file:" + bad("huge_ids.hopbyte.txt")),
            bad("huge_ids.hopbyte.txt") +
                ":1: rank 1073741823 needs about 16 GiB for 1073741824 tasks; limit 1 GiB (--max-memory)");
  EXPECT_EQ(error_of("file:" + bad("profile_huge_ranks.txt")),
            bad("profile_huge_ranks.txt") +
                ":1: rank count 1073741824 needs about 16 GiB for 1073741824 tasks; limit 1 GiB (--max-memory)");
  // tasks=N is held to memory too: 2^26 tasks x 16 bytes = 1 GiB, plus one flow.
  EXPECT_EQ(error_of("file:" + test::instance("edges.txt") + ",tasks=67108864"),
            test::instance("edges.txt") + ": tasks=67108864 needs about 1 GiB for 67108864 tasks; limit 1 GiB (--max-memory)");
}

TEST(InputLimits, IdsAndCountsPastWhatTaskmapNumbersSayTheRange) {
  const std::string edges = testing::TempDir() + "edges_past_range.txt";
  std::ofstream(edges) << "0 4000000000 5\n";
  EXPECT_EQ(error_of("file:" + edges), edges + ":1: task id out of range (0 to 1073741823)");
  const std::string profile = testing::TempDir() + "profile_past_range.txt";
  std::ofstream(profile) << "# taskmap-profile: 4000000000 ranks (MPI_COMM_WORLD); src dst bytes messages\n0 1 8 1\n"
                            "# end of taskmap-profile: 1 lines\n";
  EXPECT_EQ(error_of("file:" + profile), profile + ":1: rank count 4000000000 is out of range (1 to 1073741824)");
}

TEST(InputLimits, SparseIdsBeyondWhatTheContentNamesAreRefused) {
  LimitGuard limit(GiB);
  EXPECT_EQ(error_of("file:" + bad("edges_sparse_ids.txt")),
            bad("edges_sparse_ids.txt") +
                ":2: task id 5000000 makes 5000001 tasks, but the file's 2 lines name at most 4; number the tasks "
                "densely from 0, or give tasks=N for a job with ranks that never communicate");
  EXPECT_EQ(error_of("file:" + bad("mtx_sparse.mtx")),
            bad("mtx_sparse.mtx") + ":2: size 5000000 makes 5000000 tasks, but the file's 1 entries name at most 2");
  EXPECT_EQ(error_of("file:" + bad("profile_sparse_ranks.txt")),
            bad("profile_sparse_ranks.txt") +
                ":1: rank count 5000000 makes 5000000 tasks, but the file's 1 lines name at most 2");
  // The user's tasks=N vouches for the count.
  EXPECT_EQ(build_pattern(parse_pattern_spec("file:" + bad("edges_sparse_ids.txt") + ",tasks=5000001")).num_tasks(),
            5000001u);
}

TEST(InputLimits, GeneratedPatternsBeyondTaskIds) {
  EXPECT_EQ(error_of("halo3d:16777216x16777216x16777216"),
            "halo3d:16777216x16777216x16777216 has more than 2147483647 tasks (task ids are 32-bit)");
  EXPECT_EQ(error_of("localmix:100000x100000,alpha=0.5"),
            "localmix:100000x100000,alpha=0.5 has more than 2147483647 tasks (task ids are 32-bit)");
  EXPECT_EQ(error_of("halo2d:65536x65536"), "halo2d:65536x65536 has more than 2147483647 tasks (task ids are 32-bit)");
  EXPECT_NE(error_of("halo3d:4294967296x4294967296x1").find("size 4294967296 is too large (at most 16777216)"),
            std::string::npos);
  // Not a square: refused at once (the search for its root used to wrap around in 32 bits).
  EXPECT_THROW(make_npb_multipartition(4294967295u, NpbSolver::BT), Error);
}

// Estimates: 32 bytes per flow, 16 per task (comm_graph.cpp).
TEST(InputLimits, GeneratedPatternsBeyondTheMemoryLimit) {
  {
    LimitGuard limit(19 * GiB);  // 6e9 x 32 + 1e9 x 16 bytes = 193.7 GiB
    EXPECT_EQ(error_of("halo3d:1000x1000x1000"),
              "halo3d:1000x1000x1000 needs about 194 GiB for 6e9 flows; limit 19 GiB (--max-memory)");
  }
  LimitGuard limit(GiB);
  // 1e6 tasks, 1e6 x (1e6 + 4) flows: 3.2e13 bytes = 29.1 TiB.
  EXPECT_EQ(error_of("localmix:1000x1000,alpha=0.5"),
            "localmix:1000x1000,alpha=0.5 needs about 29 TiB for 1e12 flows; limit 1 GiB (--max-memory)");
  // 16384 x 16383 = 268419072 flows: 8589672448 bytes = 8.0 GiB.
  EXPECT_EQ(error_of("alltoall:16384"), "alltoall:16384 needs about 8 GiB for 2.68e8 flows; limit 1 GiB (--max-memory)");
  // 2^24 ranks, 13 partners each: 7247757312 bytes = 6.75 GiB.
  EXPECT_EQ(error_of("npb-cg:16777216"), "npb-cg:16777216 needs about 6.8 GiB for 2.18e8 flows; limit 1 GiB (--max-memory)");
  LimitGuard small(512 * MiB);
  // 2048^2 ranks x 6 flows: 805306368 + 67108864 bytes = 832 MiB.
  EXPECT_EQ(error_of("npb-bt:4194304"), "npb-bt:4194304 needs about 832 MiB for 2.52e7 flows; limit 512 MiB (--max-memory)");
  // 1e6 tasks x 4 face neighbours: 1.28e8 + 1.6e7 bytes = 137.3 MiB.
  LimitGuard smaller(64 * MiB);
  EXPECT_EQ(error_of("halo2d:1000x1000"), "halo2d:1000x1000 needs about 137 MiB for 4e6 flows; limit 64 MiB (--max-memory)");
  EXPECT_EQ(build_pattern(parse_pattern_spec("halo2d:64x64")).num_tasks(), 4096u);
  // 4096 tasks x 126 (rows + cols - 2) flows: 16515072 + 65536 bytes = 15.8 MiB.
  LimitGuard tiny(8 * MiB);
  EXPECT_EQ(error_of("transpose:64x64"), "transpose:64x64 needs about 16 MiB for 516096 flows; limit 8 MiB (--max-memory)");
}

}  // namespace
}  // namespace taskmap
