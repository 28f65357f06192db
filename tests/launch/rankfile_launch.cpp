// The rankfile `taskmap map --out-format openmpi-rankfile` writes, launched for real: a Slurm
// machine of one node (this host) with this host's hwloc node model, mapped, then run by Open
// MPI's mpirun; every rank must run on the host and core (or hardware thread) the file names. The expected cores
// and CPUs come from the hwloc library here, not from taskmap's hwloc reader.
#include <gtest/gtest.h>

#include <hwloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace taskmap {
namespace {

// One core of this host: its hwloc logical index (a rankfile's slot=) and the OS indexes of
// its PUs in logical order (the first one is what srun's map_cpu names).
struct HostCore {
  unsigned logical = 0;
  std::vector<int> pus;
};

// This host's topology as the hwloc library loads it (disallowed CPUs left out, as lstopo
// does), so its cores in logical order are taskmap's slots of the node.
class HostTopology final {
 public:
  HostTopology() {
    hwloc_topology_init(&topology_);
    loaded_ = hwloc_topology_load(topology_) == 0;
  }
  ~HostTopology() { hwloc_topology_destroy(topology_); }
  HostTopology(const HostTopology&) = delete;
  HostTopology& operator=(const HostTopology&) = delete;

  bool loaded() const { return loaded_; }
  bool export_xml(const std::string& path) const { return hwloc_topology_export_xml(topology_, path.c_str(), 0) == 0; }

  // The PUs' OS indexes in hwloc's logical order: under slots=pu, slot k of the node is PU k.
  std::vector<int> pus() const {
    std::vector<int> out;
    const int n = hwloc_get_nbobjs_by_type(topology_, HWLOC_OBJ_PU);
    for (int i = 0; i < n; ++i) out.push_back(static_cast<int>(hwloc_get_obj_by_type(topology_, HWLOC_OBJ_PU, i)->os_index));
    return out;
  }

  std::vector<HostCore> cores() const {
    std::vector<HostCore> out;
    const int n = hwloc_get_nbobjs_by_type(topology_, HWLOC_OBJ_CORE);
    for (int i = 0; i < n; ++i) {
      const hwloc_obj_t core = hwloc_get_obj_by_type(topology_, HWLOC_OBJ_CORE, i);
      HostCore c{.logical = core->logical_index, .pus = {}};
      for (unsigned k = 0;; ++k) {
        const hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(topology_, core->cpuset, HWLOC_OBJ_PU, k);
        if (pu == nullptr) break;
        c.pus.push_back(static_cast<int>(pu->os_index));
      }
      out.push_back(c);
    }
    return out;
  }

 private:
  hwloc_topology_t topology_{};
  bool loaded_ = false;
};

// Open MPI's mpirun as the root user may run it (the flag is harmless for other users).
std::string mpirun() {
#ifdef TASKMAP_MPIEXEC
  return std::string(TASKMAP_MPIEXEC) + " --allow-run-as-root ";
#else
  return "";
#endif
}

// Why this host cannot run a test ("" when it can): it needs two cores and, to launch, an
// mpirun that starts two processes. A launched program that fails is a failure of the test,
// never a skip.
std::string unavailable(std::size_t cores, bool launch) {
  if (cores < 2) return "needs 2 cores; hwloc finds " + std::to_string(cores);
  if (!launch) return "";
  if (mpirun().empty()) return "built without MPI (Debian libopenmpi-dev): no mpirun to launch with";
  const test::CommandResult r = test::run_command(mpirun() + "-np 2 true");
  return r.exit_code == 0 ? std::string()
                          : "Open MPI's mpirun cannot start 2 processes here: " + r.err.substr(0, r.err.find('\n'));
}

// Skips the test when the host cannot run it; fails it instead under CI=true.
#define TASKMAP_REQUIRE_HOST(cores, launch)                                           \
  do {                                                                                \
    if (const std::string why = unavailable(cores, launch); !why.empty()) {           \
      if (::taskmap::test::in_ci()) GTEST_FAIL() << why << " (CI=true: no skip)";     \
      GTEST_SKIP() << why;                                                            \
    }                                                                                 \
  } while (0)

std::string host_name() {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  return host;
}

#ifdef TASKMAP_MPI_WHERE
struct RankfileLine {
  std::string host;
  unsigned slot = 0;
};

std::map<int, RankfileLine> read_rankfile(const std::string& path) {
  std::map<int, RankfileLine> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    int rank = -1;
    char host[256] = {0};
    unsigned slot = 0;
    EXPECT_EQ(std::sscanf(line.c_str(), "rank %d=%255[^ ] slot=%u", &rank, host, &slot), 3) << line;
    out[rank] = {host, slot};
  }
  return out;
}

// What tests/mpi/where.c printed: per rank, its host, its CPU and the CPUs it may run on.
struct RankPlace {
  std::string host;
  int cpu = -1;
  std::vector<int> allowed;
};

std::map<int, RankPlace> read_places(const std::string& output) {
  std::map<int, RankPlace> out;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    std::string word, host_word, cpu_word, allowed_word;
    int rank = -1;
    RankPlace p;
    if (!(f >> word >> rank >> host_word >> p.host >> cpu_word >> p.cpu >> allowed_word) || word != "rank") continue;
    for (int c; f >> c;) p.allowed.push_back(c);
    out[rank] = p;
  }
  return out;
}
#endif

class RankfileLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(topology_.loaded());
    cores_ = topology_.cores();
    dir_ = std::filesystem::temp_directory_path() / ("taskmap_rankfile_launch_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    ASSERT_TRUE(topology_.export_xml(path("node.xml")));
    // One switch holding this host; a node's slots are its cores.
    std::ofstream(path("topology.conf")) << "SwitchName=s0 Nodes=" << host_ << "\n";
    std::ofstream(path("pattern.txt")) << "0 1 5\n";
    std::ofstream(path("swapped.txt")) << "0 1\n1 0\n";  // rank 0 on slot 1, rank 1 on slot 0
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // `taskmap map` of the 2-rank pattern with `mapper`, written as `format` to `out`; with
  // `pus`, the node's slots are its hardware threads (slots=pu).
  void map(const std::string& mapper, const std::string& format, const std::string& out, bool pus = false) const {
    const test::CommandResult r = test::run_taskmap(
        "map --machine slurm:" + path("topology.conf") +
        (pus ? ",slots=pu,ppn=" + std::to_string(topology_.pus().size()) : ",ppn=" + std::to_string(cores_.size())) +
        " --node-topology hwloc:" + path("node.xml") + " --nodes " + host_ + " --pattern file:" +
        path("pattern.txt") + " --mapper " + mapper + " --out-format " + format + " --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

#ifdef TASKMAP_MPI_WHERE
  // Maps with `mapper`, checks the rankfile puts rank r on slot slot_of_rank[r], launches
  // tests/mpi/where.c with it and checks every rank runs on the host and core it names.
  void map_and_launch(const std::string& mapper, const std::vector<unsigned>& slot_of_rank) const {
    const std::string rankfile = path("rankfile");
    map(mapper, "openmpi-rankfile", rankfile);
    const std::map<int, RankfileLine> wanted = read_rankfile(rankfile);
    ASSERT_EQ(wanted.size(), 2u);
    for (int rank = 0; rank < 2; ++rank) {
      EXPECT_EQ(wanted.at(rank).host, host_) << "rank " << rank;
      EXPECT_EQ(wanted.at(rank).slot, cores_[slot_of_rank[rank]].logical) << "rank " << rank;
    }
    // Open MPI 4.1 needs no flag beside --rankfile (and --allow-run-as-root for root): it maps
    // by the file and binds each rank to the named core whatever --bind-to says, takes the
    // file's hosts as the allocation (no --oversubscribe; -np may be left out, more ranks than
    // lines fail), and reads slot=N as hwloc's logical core N (unless the MCA parameter
    // rmaps_rank_file_physical=1). One name per node: two names of one host (its name and
    // localhost) become one node with too few slots, so only one switch here.
    const test::CommandResult launched =
        test::run_command(mpirun() + "--rankfile " + rankfile + " -np 2 " + TASKMAP_MPI_WHERE);
    ASSERT_EQ(launched.exit_code, 0) << launched.err;
    const std::map<int, RankPlace> places = read_places(launched.out);
    ASSERT_EQ(places.size(), 2u) << launched.out;
    for (const auto& [rank, place] : places) {
      const RankfileLine& line = wanted.at(rank);
      const HostCore* core = nullptr;
      for (const HostCore& c : cores_) {
        if (c.logical == line.slot) core = &c;
      }
      ASSERT_NE(core, nullptr) << "rank " << rank << ": no core with logical index " << line.slot;
      EXPECT_EQ(place.host, line.host) << "rank " << rank;
      // Bound to exactly that core's PUs, and running on one of them (its only PU here).
      EXPECT_EQ(place.allowed, core->pus) << "rank " << rank;
      EXPECT_TRUE(std::ranges::find(core->pus, place.cpu) != core->pus.end())
          << "rank " << rank << " runs on CPU " << place.cpu;
      if (core->pus.size() == 1) {
        EXPECT_EQ(place.cpu, core->pus.front()) << "rank " << rank;
      }
    }
  }

  // The same with hardware threads as slots: the rankfile names PUs by logical index, and
  // mpirun --use-hwthread-cpus binds each rank to that one PU.
  void map_and_launch_on_pus(const std::string& mapper, const std::vector<unsigned>& slot_of_rank) const {
    const std::string rankfile = path("rankfile");
    map(mapper, "openmpi-rankfile", rankfile, true);
    const std::map<int, RankfileLine> wanted = read_rankfile(rankfile);
    ASSERT_EQ(wanted.size(), 2u);
    for (int rank = 0; rank < 2; ++rank) EXPECT_EQ(wanted.at(rank).slot, slot_of_rank[rank]) << "rank " << rank;
    const test::CommandResult launched =
        test::run_command(mpirun() + "--use-hwthread-cpus --rankfile " + rankfile + " -np 2 " + TASKMAP_MPI_WHERE);
    ASSERT_EQ(launched.exit_code, 0) << launched.err;
    const std::map<int, RankPlace> places = read_places(launched.out);
    ASSERT_EQ(places.size(), 2u) << launched.out;
    const std::vector<int> pus = topology_.pus();
    for (const auto& [rank, place] : places) {
      const int pu = pus.at(wanted.at(rank).slot);
      EXPECT_EQ(place.allowed, std::vector<int>{pu}) << "rank " << rank;
      EXPECT_EQ(place.cpu, pu) << "rank " << rank;
    }
  }
#endif

  HostTopology topology_;
  std::vector<HostCore> cores_;
  std::string host_ = host_name();
  std::filesystem::path dir_;
};

#ifdef TASKMAP_MPI_WHERE
TEST_F(RankfileLaunch, SwappedRanksRunOnTheCoresTheRankfileNames) {
  TASKMAP_REQUIRE_HOST(cores_.size(), true);
  map_and_launch("file:" + path("swapped.txt"), {1, 0});
}

TEST_F(RankfileLaunch, DefaultMappingRunsRankIOnCoreI) {
  TASKMAP_REQUIRE_HOST(cores_.size(), true);
  map_and_launch("default", {0, 1});
}

TEST_F(RankfileLaunch, SwappedRanksRunOnTheHardwareThreadsTheRankfileNames) {
  TASKMAP_REQUIRE_HOST(cores_.size(), true);
  map_and_launch_on_pus("file:" + path("swapped.txt"), {1, 0});
}
#else
TEST_F(RankfileLaunch, SwappedRanksRunOnTheCoresTheRankfileNames) { TASKMAP_REQUIRE_HOST(cores_.size(), true); }
TEST_F(RankfileLaunch, SwappedRanksRunOnTheHardwareThreadsTheRankfileNames) { TASKMAP_REQUIRE_HOST(cores_.size(), true); }
TEST_F(RankfileLaunch, DefaultMappingRunsRankIOnCoreI) { TASKMAP_REQUIRE_HOST(cores_.size(), true); }
#endif

// srun's map_cpu names OS CPUs: the first PU of the core of each rank's slot, in rank order.
TEST_F(RankfileLaunch, SlurmMapCpuNamesTheFirstPuOfEachRanksCore) {
  TASKMAP_REQUIRE_HOST(cores_.size(), false);
  map("file:" + path("swapped.txt"), "slurm-map-cpu", path("map_cpu"));
  std::ifstream in(path("map_cpu"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "map_cpu:" + std::to_string(cores_[1].pus.front()) + "," + std::to_string(cores_[0].pus.front()) + "\n");
}

}  // namespace
}  // namespace taskmap
