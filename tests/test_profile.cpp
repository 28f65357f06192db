// The MPI profiler (libtaskmap-profile.so) on an unmodified MPI program run by Open MPI's
// mpirun: every point-to-point send is counted, in MPI_COMM_WORLD ranks, and taskmap reads
// the file it writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "taskmap/map/mapping.h"
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

// The user's loop: profile the program, map the recorded matrix, relaunch it with the
// rankfile taskmap wrote, and check every rank runs on the host and core the file names.
// The modelled machine has two nodes of (up to) two cores, both on this host.
TEST(Profiler, ProfileMapAndRelaunchWithTheRankfile) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("taskmap_e2e_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string profile = (dir / "profile.txt").string(), hosts = (dir / "hosts").string(),
                    rankfile = (dir / "rankfile").string(), plain = (dir / "plain.txt").string();
  const std::string mpirun = std::string(TASKMAP_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 4 ";
  const test::CommandResult recorded = test::run_command(mpirun + "-x LD_PRELOAD=" + TASKMAP_PROFILE_LIB +
                                                         " -x TASKMAP_PROFILE_OUT=" + profile + " " + TASKMAP_MPI_HALO);
  if (recorded.exit_code != 0 && !std::filesystem::exists(profile)) {
    GTEST_SKIP() << "Open MPI could not start the 4-rank program: "
                 << recorded.err.substr(0, recorded.err.find('\n'));
  }
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;

  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  const unsigned cores = std::max(1u, std::min(2u, std::thread::hardware_concurrency()));
  { std::ofstream(hosts) << "# both modelled nodes are this host\n" << host << "\n" << host << " slots=2\n"; }
  const std::string machine = cores == 2 ? "mesh:2,ppn=2" : "mesh:4";
  if (cores == 1) { std::ofstream(hosts, std::ios::app) << host << "\n" << host << "\n"; }
  const std::string map = "map --machine " + machine + " --pattern file:" + profile + " --mapper greedy --out ";
  ASSERT_EQ(test::run_taskmap(map + plain).exit_code, 0);
  const test::CommandResult wrote =
      test::run_taskmap(map + rankfile + " --out-format openmpi-rankfile --hosts " + hosts);
  ASSERT_EQ(wrote.exit_code, 0) << wrote.err;

  // The rankfile says what the plain placement says: slot s is core s % ppn of node s / ppn.
  const Machine m = make_machine(machine);
  const Mapping mapping = read_mapping_file(plain, m, 4);
  std::map<int, std::pair<std::string, int>> wanted;  // rank -> (host, core)
  {
    std::ifstream in(rankfile);
    std::string line;
    while (std::getline(in, line)) {
      int rank, core;
      char name[256];
      ASSERT_EQ(std::sscanf(line.c_str(), "rank %d=%255[^ ] slot=%d", &rank, name, &core), 3) << line;
      ASSERT_TRUE(rank >= 0 && rank < 4) << line;
      EXPECT_EQ(core, int(mapping.slot_of_task[rank] % m.slots_per_node)) << line;
      EXPECT_EQ(std::string(name), std::string(host)) << line;
      wanted[rank] = {name, core};
    }
  }
  ASSERT_EQ(wanted.size(), 4u);

  const test::CommandResult launched =
      test::run_command(mpirun + "--rankfile " + rankfile + " " + TASKMAP_MPI_HALO + " --where");
  ASSERT_EQ(launched.exit_code, 0) << launched.err;
  std::map<int, std::set<int>> cpus_of_rank;
  std::istringstream lines(launched.out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    std::string word, name;
    int rank;
    if (!(f >> word >> rank) || word != "rank") continue;
    f >> word >> name >> word;
    EXPECT_EQ(name, wanted[rank].first) << line;
    int cpu;
    while (f >> cpu) cpus_of_rank[rank].insert(cpu);
  }
  ASSERT_EQ(cpus_of_rank.size(), 4u) << launched.out;
  // Bound to the core the file names: ranks on one core share their CPUs, ranks on
  // different cores share none, and a core of one CPU is that CPU.
  for (const auto& [a, cpus_a] : cpus_of_rank) {
    if (cpus_a.size() == 1) {
      EXPECT_EQ(*cpus_a.begin(), wanted[a].second) << "rank " << a;
    }
    for (const auto& [b, cpus_b] : cpus_of_rank) {
      std::vector<int> common;
      std::set_intersection(cpus_a.begin(), cpus_a.end(), cpus_b.begin(), cpus_b.end(), std::back_inserter(common));
      if (wanted[a].second == wanted[b].second) {
        EXPECT_EQ(cpus_a, cpus_b) << "ranks " << a << " and " << b;
      } else {
        EXPECT_TRUE(common.empty()) << "ranks " << a << " and " << b;
      }
    }
  }
  std::filesystem::remove_all(dir);
}
#else
TEST(Profiler, CountsEveryPointToPointSendOfAnUnmodifiedProgram) {
  GTEST_SKIP() << "built without MPI (Debian libopenmpi-dev): no profiler to test";
}
TEST(Profiler, ProfileMapAndRelaunchWithTheRankfile) {
  GTEST_SKIP() << "built without MPI (Debian libopenmpi-dev): no profiler to test";
}
#endif

}  // namespace
}  // namespace taskmap
