// The MPI profiler (libtaskmap-profile-openmpi.so) on an unmodified MPI program run by Open MPI's
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

#include <sys/stat.h>
#include <unistd.h>

#include "collective_algorithms.h"
#include "mpi_runs.h"
#include "taskmap/problem/mapping.h"
#include "taskmap/workload/readers.h"
#include "test_support.h"

namespace taskmap {
namespace {

using profile::Algorithm;
using SendList = std::vector<std::pair<int, std::uint64_t>>;

SendList as_list(const std::vector<profile::Send>& sends) {
  SendList out;
  for (const profile::Send& s : sends) out.emplace_back(s.dest, s.bytes);
  return out;
}

// The collective algorithms, derived by hand from their rules.
TEST(CollectiveAlgorithms, BinomialBroadcastFromANonZeroRoot) {
  // 6 ranks, root 4: relative ranks 0..5 are world 4 5 0 1 2 3. Relative 0 sends to 4, 2, 1;
  // 2 to 3; 4 to 5; the odd ones are leaves.
  EXPECT_EQ(as_list(profile::bcast_sends(Algorithm::Binomial, 4, 6, 4, 8)), (SendList{{2, 8}, {0, 8}, {5, 8}}));
  EXPECT_EQ(as_list(profile::bcast_sends(Algorithm::Binomial, 0, 6, 4, 8)), (SendList{{1, 8}}));
  EXPECT_EQ(as_list(profile::bcast_sends(Algorithm::Binomial, 2, 6, 4, 8)), (SendList{{3, 8}}));
  EXPECT_TRUE(profile::bcast_sends(Algorithm::Binomial, 5, 6, 4, 8).empty());
  EXPECT_EQ(profile::bcast_sends(Algorithm::Linear, 4, 6, 4, 8).size(), 5u);
  // Reduce is the same tree backwards: relative 5 (world 3) sends to relative 4 (world 2).
  EXPECT_EQ(as_list(profile::reduce_sends(Algorithm::Binomial, 3, 6, 4, 8)), (SendList{{2, 8}}));
  EXPECT_EQ(as_list(profile::reduce_sends(Algorithm::Binomial, 0, 6, 4, 8)), (SendList{{4, 8}}));
}

TEST(CollectiveAlgorithms, RecursiveDoublingAllreduceOnSixRanks) {
  // pof2 = 4, rem = 2: ranks 0 and 2 hand their data to 1 and 3 and get the result back;
  // 1, 3, 4, 5 (new ranks 0..3) exchange at distances 1 and 2 of the new ranks.
  const std::vector<SendList> expected = {
      {{1, 80}}, {{3, 80}, {4, 80}, {0, 80}}, {{3, 80}}, {{1, 80}, {5, 80}, {2, 80}}, {{5, 80}, {1, 80}},
      {{4, 80}, {3, 80}}};
  for (int r = 0; r < 6; ++r) {
    EXPECT_EQ(as_list(profile::allreduce_sends(Algorithm::RecursiveDoubling, r, 6, 10, 8)), expected[r]) << r;
  }
}

TEST(CollectiveAlgorithms, RingAllreduceSendsEveryChunkButOnePerPhase) {
  // 10 doubles on 4 ranks: chunks of 3, 3, 2, 2 elements. Rank 0 skips chunk 1 in the
  // reduce-scatter and chunk 2 in the allgather: 56 + 64 bytes, 6 messages, all to rank 1.
  std::uint64_t bytes = 0;
  for (const profile::Send& s : profile::allreduce_sends(Algorithm::Ring, 0, 4, 10, 8)) {
    EXPECT_EQ(s.dest, 1);
    bytes += s.bytes;
  }
  EXPECT_EQ(bytes, 120u);
  EXPECT_EQ(profile::allreduce_sends(Algorithm::Ring, 0, 4, 10, 8).size(), 6u);
}

TEST(CollectiveAlgorithms, AllgatherRingAndRecursiveDoubling) {
  EXPECT_EQ(as_list(profile::allgather_sends(Algorithm::Ring, 2, 4, 8)), (SendList{{3, 8}, {3, 8}, {3, 8}}));
  // Recursive doubling on 8 ranks: 1, 2, then 4 blocks to rank ^ 1, ^ 2, ^ 4.
  EXPECT_EQ(as_list(profile::allgather_sends(Algorithm::RecursiveDoubling, 5, 8, 8)),
            (SendList{{4, 8}, {7, 16}, {1, 32}}));
  // Not a power of two: the ring stands in.
  EXPECT_EQ(profile::allgather_sends(Algorithm::RecursiveDoubling, 0, 3, 8).size(), 2u);
}

TEST(CollectiveAlgorithms, ChoiceParsing) {
  profile::CollectiveChoice c;
  std::string error;
  ASSERT_TRUE(profile::parse_collective_choice("", c, error));
  EXPECT_EQ(profile::describe(c), "none");
  ASSERT_TRUE(profile::parse_collective_choice("allreduce:ring,bcast", c, error));
  EXPECT_EQ(profile::describe(c), "bcast:binomial,allreduce:ring");
  ASSERT_TRUE(profile::parse_collective_choice("all", c, error));
  EXPECT_EQ(c[profile::Collective::Allgather], Algorithm::Ring);
  EXPECT_FALSE(profile::parse_collective_choice("barrier", c, error));
  EXPECT_NE(error.find("unknown collective 'barrier'"), std::string::npos) << error;
  EXPECT_FALSE(profile::parse_collective_choice("bcast:ring", c, error));
  EXPECT_EQ(error, "collective 'bcast' has no algorithm 'ring' (use binomial, linear)");
}

#ifdef TASKMAP_PROFILE_LIB
// Open MPI's mpirun of 4 ranks, oversubscribed, with further mpirun options.
std::string mpirun4(const std::string& options) {
  return std::string(TASKMAP_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 4 " + options + " ";
}

// `program` under the profiler, its profile written to `out`.
test::CommandResult run_profiled(const std::string& program, const std::string& out, const std::string& options = "") {
  return test::run_command(mpirun4(options + " -x LD_PRELOAD=" + TASKMAP_PRELOAD + " -x TASKMAP_PROFILE_OUT=" + out) +
                           program);
}

// Why mpirun cannot start 4 processes here ("" when it can), found by starting a program
// without MPI in it. Only that is a reason to skip: a profiled program that fails (a crash, a
// memory error under a sanitizer) is a failure of the test, never a skip.
std::string mpirun_unavailable() {
  static const std::string why = [] {
    const test::CommandResult r = test::run_command(mpirun4("") + "true");
    return r.exit_code == 0 ? std::string()
                            : "Open MPI's mpirun cannot start 4 processes here: " + r.err.substr(0, r.err.find('\n'));
  }();
  return why;
}

// Skips the test when mpirun cannot start processes; fails it instead under CI=true.
#define TASKMAP_REQUIRE_MPIRUN()                                      \
  do {                                                                \
    if (const std::string why = mpirun_unavailable(); !why.empty()) { \
      if (::taskmap::test::in_ci()) GTEST_FAIL() << why;              \
      GTEST_SKIP() << why;                                            \
    }                                                                 \
  } while (0)

TEST(Profiler, CountsEveryPointToPointSendOfAnUnmodifiedProgram) {
  TASKMAP_REQUIRE_MPIRUN();
  const std::string out =
      (std::filesystem::temp_directory_path() / ("taskmap_profile_" + std::to_string(::getpid()) + ".txt")).string();
  std::filesystem::remove(out);
  const test::CommandResult r = run_profiled(TASKMAP_MPI_HALO, out);
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

using Matrix = std::map<std::pair<int, int>, std::pair<unsigned long long, unsigned long long>>;

// The "src dst bytes messages" lines of a profile, without the job-size line.
Matrix read_matrix(const std::string& path) {
  Matrix m;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    int src, dst;
    unsigned long long bytes, messages;
    f >> src >> dst >> bytes >> messages;
    if (messages > 0) m[{src, dst}] = {bytes, messages};
  }
  return m;
}

TEST(Profiler, ExpandsCollectivesIntoTheNamedAlgorithms) {
  TASKMAP_REQUIRE_MPIRUN();
  const std::string out =
      (std::filesystem::temp_directory_path() / ("taskmap_coll_" + std::to_string(::getpid()) + ".txt")).string();
  auto run = [&](const std::string& choice) {
    std::filesystem::remove(out);
    return run_profiled(TASKMAP_MPI_COLLECTIVES, out, "-x TASKMAP_PROFILE_COLLECTIVES=" + choice);
  };
  const test::CommandResult all = run("all");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  // tests/mpi/collectives.c by hand, 4 ranks, default algorithms:
  Matrix expected;
  auto add = [&](int src, int dst, unsigned long long bytes, unsigned long long messages = 1) {
    auto& e = expected[{src, dst}];
    e.first += bytes;
    e.second += messages;
  };
  add(1, 3, 400), add(1, 2, 400), add(3, 0, 400);  // bcast root 1, binomial: 1 -> 3, 2; 3 -> 0
  for (int r = 0; r < 4; ++r) {
    add(r, r ^ 1, 80), add(r, r ^ 2, 80);          // allreduce, recursive doubling
    for (int d = 0; d < 4; ++d) {
      if (d != r) add(r, d, 20);                   // alltoall, 5 ints per pair
    }
    add(r, (r + 1) % 4, 24, 3);                    // allgather ring: 3 blocks of 2 ints
    if (r != 2) add(r, 2, 3);                      // gather to 2, 3 chars
    if (r != 3) add(3, r, 8);                      // scatter from 3, 4 shorts
    add(r, r ^ 2, 4);                              // allreduce of one int on {0, 2} and {1, 3}
  }
  add(1, 0, 24), add(2, 0, 24), add(3, 2, 24);     // reduce to 0, binomial
  EXPECT_EQ(read_matrix(out), expected);

  // Only the ring allreduce: 10 doubles in chunks of 3 3 2 2 elements; rank r skips chunk
  // r+1 in the reduce-scatter and r+2 in the allgather. On the halves, one int: chunks of
  // 1 and 0 elements, so each rank sends 4 bytes and an empty message.
  ASSERT_EQ(run("allreduce:ring").exit_code, 0);
  const unsigned long long chunk[4] = {24, 24, 16, 16};
  Matrix ring;
  for (int r = 0; r < 4; ++r) {
    ring[{r, (r + 1) % 4}] = {160 - chunk[(r + 1) % 4] - chunk[(r + 2) % 4], 6};
    ring[{r, r ^ 2}] = {4, 2};
  }
  EXPECT_EQ(read_matrix(out), ring);

  // An unknown choice stops the run before it records anything.
  const test::CommandResult bad = run("barrier");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("taskmap-profile: TASKMAP_PROFILE_COLLECTIVES: unknown collective 'barrier'"),
            std::string::npos)
      << bad.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  std::filesystem::remove(out);
}

// The user's loop: profile the program, map the recorded matrix, relaunch it with the
// rankfile taskmap wrote, and check every rank runs on the host and core the file names.
// The modelled machine has two nodes of (up to) two cores, both on this host.
TEST(Profiler, ProfileMapAndRelaunchWithTheRankfile) {
  TASKMAP_REQUIRE_MPIRUN();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("taskmap_e2e_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string profile = (dir / "profile.txt").string(), hosts = (dir / "hosts").string(),
                    rankfile = (dir / "rankfile").string(), plain = (dir / "plain.txt").string();
  const test::CommandResult recorded = run_profiled(TASKMAP_MPI_HALO, profile);
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
      test::run_command(mpirun4("--rankfile " + rankfile) + TASKMAP_MPI_HALO + " --where");
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
std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// An output under a regular file cannot be created: rank 0 says so once at MPI_Init and the
// job fails instead of running unprofiled and exiting 0.
TEST(Profiler, AnUnwritableOutputStopsTheJobAtInit) {
  TASKMAP_REQUIRE_MPIRUN();
  const std::string file =
      (std::filesystem::temp_directory_path() / ("taskmap_profile_file_" + std::to_string(::getpid()))).string();
  { std::ofstream(file) << "a regular file\n"; }
  const std::string out = file + "/profile.txt";
  const test::CommandResult r = run_profiled(TASKMAP_MPI_HALO, out);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(occurrences(r.err, "taskmap-profile: TASKMAP_PROFILE_OUT=" + out +
                                   ": cannot write the profile there (Not a directory)\n"),
            1u)
      << r.err;
  EXPECT_EQ(occurrences(r.err, "taskmap-profile:"), 1u) << r.err;
  EXPECT_EQ(std::filesystem::file_size(file), 15u);
  std::filesystem::remove(file);
}

// /dev/full passes the check at MPI_Init (it is writable) and fails the write at
// MPI_Finalize: one line, a failed job, and the device left as it was.
TEST(Profiler, AFailedWriteAtFinalizeIsReported) {
  TASKMAP_REQUIRE_MPIRUN();
  const test::CommandResult r = run_profiled(TASKMAP_MPI_HALO, "/dev/full");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(occurrences(r.err, "taskmap-profile: cannot write the profile /dev/full (No space left on device)\n"), 1u)
      << r.err;
  EXPECT_EQ(occurrences(r.err, "taskmap-profile:"), 1u) << r.err;
  struct stat st {};
  ASSERT_EQ(::lstat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/full was replaced";
}

// A symbolic link's target gets the profile; the link stays.
TEST(Profiler, ASymlinkedOutputKeepsTheLink) {
  TASKMAP_REQUIRE_MPIRUN();
  const auto dir = std::filesystem::temp_directory_path() / ("taskmap_profile_link_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::create_symlink("target.txt", dir / "link.txt");
  const test::CommandResult r = run_profiled(TASKMAP_MPI_HALO, (dir / "link.txt").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.txt"));
  // Rank 0 sends 2440 bytes in 4 messages to rank 1 (see the first test).
  EXPECT_EQ((read_matrix((dir / "target.txt").string())[{0, 1}]), (std::pair<unsigned long long, unsigned long long>{2440, 4}));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 2);
  std::filesystem::remove_all(dir);
}
// tests/mpi/traffic.c and its Fortran twin under both MPIs: every kind of traffic, with sizes
// chosen so each pair's total shows what was counted. Rank r sends to
// - next (r + 1): a ring send 80 B; a persistent send of 7 B started twice; a Cartesian ring's
//   neighbour alltoall 8 B and non-blocking neighbour allgather 8 B; a put 32 B; the origin
//   side of a get-accumulate 8 B; a ring allgather in place of 16-byte blocks (3 messages,
//   48 B, the ignored send count 999 not used); an alltoall in place 4 B and one of 8 B:
//   210 B in 12 messages;
// - across (r + 2): a sendrecv 40 B; the 48 B that rank r + 2 gets from r (a one-sided read
//   counts from target to origin); the two alltoalls 4 + 8 B: 100 B in 4 messages;
// - prev (r + 3): an isend 12 B; the neighbour collectives 8 + 8 B; an accumulate 16 B; the
//   result of r - 1's get-accumulate 8 B; the alltoalls 4 + 8 B: 64 B in 7 messages.
// The 1000 B sent under MPI_Pcontrol(0) are not recorded.
TEST(Profiler, RecordsEveryKindOfTrafficFromCAndEachFortranBinding) {
  Matrix expected;
  for (int r = 0; r < 4; ++r) {
    expected[{r, (r + 1) % 4}] = {210, 12};
    expected[{r, (r + 2) % 4}] = {100, 4};
    expected[{r, (r + 3) % 4}] = {64, 7};
  }
  const std::string out =
      (std::filesystem::temp_directory_path() / ("taskmap_traffic_" + std::to_string(::getpid()) + ".txt")).string();
  int runs = 0;
  for (const test::Mpi& mpi : test::mpis()) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    std::vector<std::pair<std::string, std::string>> programs = {{"C", mpi.traffic}};
    for (int b = 0; b < 3; ++b) {
      if (std::string(mpi.fortran_traffic[b]).empty()) ADD_FAILURE() << "no Fortran wrapper for " << mpi.name;
      else programs.emplace_back(test::kFortranBindings[b], mpi.fortran_traffic[b]);
    }
    for (const auto& [language, program] : programs) {
      SCOPED_TRACE(language);
      std::filesystem::remove(out);
      const test::CommandResult r = test::launch(mpi, 4, program,
                                                 {{"LD_PRELOAD", mpi.profiler},
                                                  {"TASKMAP_PROFILE_OUT", out},
                                                  {"TASKMAP_PROFILE_COLLECTIVES", "allgather:ring,alltoall"}});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(read_matrix(out), expected);
      std::ifstream in(out);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      EXPECT_NE(text.find("# MPI_Pcontrol(0) paused the recording"), std::string::npos) << text;
      EXPECT_EQ(read_pattern_file(out, guess_pattern_format(out)).num_tasks(), 4u);  // taskmap reads it
      ++runs;
    }
  }
  std::filesystem::remove(out);
  if (runs == 0) GTEST_SKIP() << "no MPI launcher could start processes here";
}

// The user's mistake: an Open MPI program with the profiler built for MPICH, and an MPICH
// program with Open MPI's. Each process used to die of SIGSEGV (Open MPI) or "Invalid
// communicator" (MPICH) in MPI_Init; now the job stops at start with one line naming the
// profiler to preload, the one the build made for the program's MPI.
TEST(Profiler, TheOtherMpisProfilerStopsTheJobWithOneLine) {
  const std::vector<test::Mpi> list = test::mpis();
  if (list.size() < 2) {
    if (test::in_ci()) GTEST_FAIL() << "built for one MPI only (scripts/setup.sh installs both)";
    GTEST_SKIP() << "built for one MPI only";
  }
  for (std::size_t i = 0; i < 2; ++i) {
    const test::Mpi &mpi = list[i], &other = list[1 - i];
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    test::expect_other_mpi_refused(mpi, mpi.traffic, other.profiler, mpi.profiler, "taskmap-profile");
  }
}
#else
TEST(Profiler, CountsEveryPointToPointSendOfAnUnmodifiedProgram) {
  GTEST_SKIP() << "built without MPI (Debian libopenmpi-dev): no profiler to test";
}
TEST(Profiler, ProfileMapAndRelaunchWithTheRankfile) {
  GTEST_SKIP() << "built without MPI (Debian libopenmpi-dev): no profiler to test";
}
TEST(Profiler, ExpandsCollectivesIntoTheNamedAlgorithms) {
  GTEST_SKIP() << "built without MPI (Debian libopenmpi-dev): no profiler to test";
}
#endif

}  // namespace
}  // namespace taskmap
