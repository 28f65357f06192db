// The MPI profiler (libtaskmap-profile.so) on an unmodified MPI program run by Open MPI's
// mpirun: every point-to-point send is counted, in MPI_COMM_WORLD ranks, and taskmap reads
// the file it writes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "taskmap/pattern/readers.h"
#include "test_support.h"

namespace taskmap {
namespace {

#ifdef TASKMAP_PROFILE_LIB
TEST(Profiler, CountsEveryPointToPointSendOfAnUnmodifiedProgram) {
  const std::string out =
      (std::filesystem::temp_directory_path() / ("taskmap_profile_" + std::to_string(::getpid()) + ".txt")).string();
  std::filesystem::remove(out);
  const test::CommandResult r = test::run_command(
      std::string(TASKMAP_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 4 -x LD_PRELOAD=" + TASKMAP_PROFILE_LIB +
      " -x TASKMAP_PROFILE_OUT=" + out + " " + TASKMAP_MPI_HALO);
  if (r.exit_code != 0 && !std::filesystem::exists(out)) {
    GTEST_SKIP() << "Open MPI could not start the 4-rank program: " << r.err.substr(0, r.err.find('\n'));
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // tests/mpi/halo.c by hand, for rank r of 4: to r+1, 3 x 100 doubles and 10 ints (4
  // messages, 2440 bytes); to r-1, 3 x 50 doubles (3, 1200); to r+2, a persistent send of 7
  // chars started twice (2, 14); on the reversed split communicator, world 2 -> 0 and 3 -> 1
  // send 3 floats more (1, 12). The send to MPI_PROC_NULL is not traffic.
  std::map<std::pair<int, int>, std::pair<unsigned long long, unsigned long long>> expected, got;
  for (int rank = 0; rank < 4; ++rank) {
    auto add = [&](int dst, unsigned long long bytes, unsigned long long messages) {
      auto& e = expected[{rank, dst}];
      e.first += bytes;
      e.second += messages;
    };
    add((rank + 1) % 4, 2440, 4);
    add((rank + 3) % 4, 1200, 3);
    add((rank + 2) % 4, 14, 2);
    if (rank >= 2) add(rank - 2, 12, 1);
  }
  std::ifstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    int src, dst;
    unsigned long long bytes, messages;
    ASSERT_TRUE(fields >> src >> dst >> bytes >> messages) << line;
    if (bytes == 0 && messages == 0) {  // the job-size line: the last rank, to itself
      EXPECT_EQ(src, 3);
      EXPECT_EQ(dst, 3);
      continue;
    }
    got[{src, dst}] = {bytes, messages};
  }
  EXPECT_EQ(got, expected);
  const CommGraph g = read_pattern_file(out, guess_pattern_format(out));
  EXPECT_EQ(g.num_tasks(), 4u);
  EXPECT_DOUBLE_EQ(g.volume(2, 0), 26.0);
  EXPECT_DOUBLE_EQ(g.volume(0, 1), 2440.0);
  std::filesystem::remove(out);
}
#else
TEST(Profiler, CountsEveryPointToPointSendOfAnUnmodifiedProgram) {
  GTEST_SKIP() << "built without MPI (Debian libopenmpi-dev): no profiler to test";
}
#endif

}  // namespace
}  // namespace taskmap
