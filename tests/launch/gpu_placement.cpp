// Placement files of GPU jobs: srun's map_gpu list, the per-rank gpu-env file, srun's two files
// on GPU slots, the rankfile's cores on GPU slots, each derived by hand; their refusal where the
// slots are not GPUs; and scripts/taskmap-gpu-run reading its rank's line, by itself and under
// each MPI's launcher.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "mpi_runs.h"
#include "taskmap/core/error.h"
#include "taskmap/launch/placement.h"
#include "taskmap/topology/machine_spec.h"
#include "taskmap/topology/node_model.h"
#include "test_support.h"

namespace taskmap {
namespace {

// torus:2x2 with 4 GPUs a node: node n holds slots 4n..4n+3, slot 4n+k is GPU k (device k).
Machine gpu_torus() {
  const MachineSpec spec = parse_machine_spec("torus:2x2,ppn=4");
  return apply_node_topology(build_machine(spec), spec, "gpus:4", {});
}

// The same machine whose GPUs are numbered by their launcher in the other order: slot k of a
// node is device 3 - k (as on a node whose PCIe tree lists cuda3 first).
Machine reversed_gpu_torus() {
  Machine m = gpu_torus();
  auto gpus = std::make_shared<GpuNode>(*m.node_model->gpu);
  for (std::uint32_t k = 0; k < gpus->num_gpus(); ++k) gpus->gpus[k].device = 3 - k;
  auto model = std::make_shared<NodeModel>(*m.node_model);
  model->gpu = std::move(gpus);
  m.node_model = std::move(model);
  return m;
}

constexpr const char* kHeader =
    "# taskmap gpu-env: {} ranks on {}; one line per rank: rank, host, local rank (the rank's index among its "
    "host's ranks), gpu (the device index for CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES)\n"
    "# taskmap-gpu-run reads its rank's line; start the ranks on their hosts with this mapping's host file or "
    "rankfile\n";

std::string header(std::size_t ranks, const Machine& m) {
  std::string h = kHeader;
  h.replace(h.find("{}"), 2, std::to_string(ranks));
  h.replace(h.find("{}"), 2, m.description);
  return h;
}

// Ranks 0-3 on node 0's GPUs 2,3,0,1; ranks 4-7 on node 1's GPUs 2,3,0,1: srun's list is
// 2,3,0,1, every rank's line its node, its index there and its GPU.
TEST(GpuPlacement, MapGpuAndGpuEnvNameEachRanksGpu) {
  const Machine m = gpu_torus();
  const Mapping map{{2, 3, 0, 1, 6, 7, 4, 5}, {}};
  EXPECT_EQ(format_placement(map, m, PlacementFormat::SlurmMapGpu), "map_gpu:2,3,0,1\n");
  EXPECT_EQ(format_placement(map, m, PlacementFormat::GpuEnv),
            header(8, m) +
                "rank=0 host=node0 local_rank=0 gpu=2\n"
                "rank=1 host=node0 local_rank=1 gpu=3\n"
                "rank=2 host=node0 local_rank=2 gpu=0\n"
                "rank=3 host=node0 local_rank=3 gpu=1\n"
                "rank=4 host=node1 local_rank=0 gpu=2\n"
                "rank=5 host=node1 local_rank=1 gpu=3\n"
                "rank=6 host=node1 local_rank=2 gpu=0\n"
                "rank=7 host=node1 local_rank=3 gpu=1\n");
  // The GPU's device index, not the slot's place in the node.
  const Machine reversed = reversed_gpu_torus();
  EXPECT_EQ(format_placement(map, reversed, PlacementFormat::SlurmMapGpu), "map_gpu:1,0,3,2\n");
  const std::string env = format_placement(map, reversed, PlacementFormat::GpuEnv);
  EXPECT_NE(env.find("rank=0 host=node0 local_rank=0 gpu=1\nrank=1 host=node0 local_rank=1 gpu=0\n"), std::string::npos)
      << env;
}

// Ranks alternate between nodes 0 and 3: each node's local ranks count its own ranks in rank
// order; node 3 holds fewer ranks, on the first GPUs of node 0's list.
TEST(GpuPlacement, LocalRanksCountEachHostsRanksInRankOrder) {
  const Machine m = gpu_torus();
  const Mapping map{{1, 13, 0, 12, 3}, {}};  // nodes 0 3 0 3 0; GPUs 1 1 0 0 3
  EXPECT_EQ(format_placement(map, m, PlacementFormat::GpuEnv, HostNames::with_prefix("gpu-")),
            header(5, m) +
                "rank=0 host=gpu-0 local_rank=0 gpu=1\n"
                "rank=1 host=gpu-3 local_rank=0 gpu=1\n"
                "rank=2 host=gpu-0 local_rank=1 gpu=0\n"
                "rank=3 host=gpu-3 local_rank=1 gpu=0\n"
                "rank=4 host=gpu-0 local_rank=2 gpu=3\n");
  EXPECT_EQ(format_placement(map, m, PlacementFormat::SlurmMapGpu), "map_gpu:1,0,3\n");
  // A host name a shell would split is one quoted word, so that a line can be evaluated.
  const std::string hosts = test::temp_path("gpu_env", "hosts.txt");
  { std::ofstream(hosts) << "a\nb\nc\nd$(x)\n"; }
  const std::string env = format_placement(map, m, PlacementFormat::GpuEnv, HostNames::from_file(hosts));
  EXPECT_NE(env.find("rank=1 host='d$(x)' local_rank=0 gpu=1\n"), std::string::npos) << env;
  std::filesystem::remove(hosts);
}

// srun's map_gpu gives every node one list: node 1's ranks on GPUs 0,1 against node 0's 1,0.
TEST(GpuPlacement, MapGpuIsRefusedWhenTheNodesDisagree) {
  const Machine m = gpu_torus();
  const Mapping map{{1, 0, 4, 5}, {}};
  EXPECT_EQ(test::error_message([&] { format_placement(map, m, PlacementFormat::SlurmMapGpu); }),
            "--out-format slurm-map-gpu: the ranks on node 1 sit on GPUs 0,1 but those on node 0 on 1,0; srun's "
            "map_gpu gives every node one list (write gpu-env and launch through taskmap-gpu-run)");
  // gpu-env names each rank's GPU: any arrangement.
  EXPECT_NO_THROW(format_placement(map, m, PlacementFormat::GpuEnv));
}

// srun on GPU slots: the host file, and beside it the map_gpu list, which the command binds with.
TEST(GpuPlacement, SrunBindsEachRankToItsGpuOnGpuSlots) {
  const Machine m = gpu_torus();
  const Mapping map{{2, 3, 0, 1, 6, 7, 4, 5}, {}};
  const PlacementSpec srun = parse_placement_spec("srun");
  EXPECT_EQ(launch_command(map, m, srun, "h"),
            "SLURM_HOSTFILE=h srun --distribution=arbitrary --gpu-bind=map_gpu:2,3,0,1 -n 8 ./app");
  EXPECT_EQ(format_placement(map, m, srun), "node0\nnode0\nnode0\nnode0\nnode1\nnode1\nnode1\nnode1\n");
  EXPECT_EQ(srun_bind_format(m), PlacementFormat::SlurmMapGpu);
  EXPECT_EQ(srun_bind_list_path(m, "h"), "h.gpus");
  EXPECT_EQ(srun_gpu_list_path("h"), "h.gpus");
  // Without GPU slots, the CPU list as before.
  const Machine cores = make_machine("torus:2x2,ppn=4");
  EXPECT_EQ(srun_bind_format(cores), PlacementFormat::SlurmMapCpu);
  EXPECT_EQ(srun_bind_list_path(cores, "h"), "h.cpus");
  EXPECT_EQ(launch_command(map, cores, srun, "h"),
            "SLURM_HOSTFILE=h srun --distribution=arbitrary --cpu-bind=map_cpu:2,3,0,1 -n 8 ./app");
  // The GPU files alone start nothing.
  EXPECT_EQ(launch_command(map, m, parse_placement_spec("slurm-map-gpu"), "g"), "");
  EXPECT_EQ(launch_command(map, m, parse_placement_spec("gpu-env"), "g"), "");
}

// Open MPI's rankfile on GPU slots: slot= is the core nearest the GPU, which gpus:N does not
// know: it is the slot's index in the node (hwloc:FILE,slots=gpu gives the first core of the
// GPU's CPUs).
TEST(GpuPlacement, TheRankfileOnGpuSlotsNamesTheHostsInRankOrder) {
  const Machine m = gpu_torus();
  const Mapping map{{2, 3, 6}, {}};
  EXPECT_EQ(format_placement(map, m, PlacementFormat::OpenMpiRankfile),
            "rank 0=node0 slot=2\nrank 1=node0 slot=3\nrank 2=node1 slot=2\n");
  EXPECT_EQ(format_placement(map, m, PlacementFormat::Hydra), "node0:2\nnode1:1\n");
}

TEST(GpuPlacement, GpuFormatsNeedGpuSlots) {
  const Machine m = make_machine("torus:2x2,ppn=4");
  const Mapping map{{0, 1}, {}};
  for (const char* format : {"gpu-env", "slurm-map-gpu"}) {
    EXPECT_EQ(test::error_message([&] { format_placement(map, m, parse_placement_spec(format)); }),
              std::string("--out-format ") + format +
                  ": the slots of machine 'torus:2x2,ppn=4' are cores, not GPUs: give --node-topology gpus:N or "
                  "hwloc:FILE,slots=gpu");
  }
}

class GpuLaunchFiles : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::temp_path("gpu_launch", testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (std::filesystem::path(dir_) / name).string(); }
  // A plain placement file: task t on slots[t].
  std::string placement(const std::vector<SlotId>& slots) const {
    const std::string file = path("placement.txt");
    std::ofstream out(file);
    for (std::size_t t = 0; t < slots.size(); ++t) out << t << " " << slots[t] << "\n";
    return file;
  }
  std::string dir_;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// `map` end to end on torus:2x2 with gpus:4: halo2d:2x4's 8 tasks from a file, ranks 0-3 on
// node 0's GPUs 3,2,1,0 and ranks 4-7 on node 2's GPUs 3,2,1,0.
TEST_F(GpuLaunchFiles, MapWritesTheGpuFilesOfAMappingFromAFile) {
  const std::string job = "map --machine torus:2x2,ppn=4 --node-topology gpus:4 --pattern halo2d:2x4 --mapper file:" +
                          placement({3, 2, 1, 0, 11, 10, 9, 8}) + " ";
  auto r = test::run_taskmap(job + "--out-format gpu-env --out " + path("gpus.env"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string env = test::read_text(path("gpus.env"));
  const auto lines = lines_of(env);
  ASSERT_EQ(lines.size(), 10u) << env;
  EXPECT_EQ(lines[0].rfind("# taskmap gpu-env: 8 ranks on torus:2x2,ppn=4", 0), 0u) << lines[0];
  EXPECT_EQ(std::vector<std::string>(lines.begin() + 2, lines.end()),
            (std::vector<std::string>{"rank=0 host=node0 local_rank=0 gpu=3", "rank=1 host=node0 local_rank=1 gpu=2",
                                      "rank=2 host=node0 local_rank=2 gpu=1", "rank=3 host=node0 local_rank=3 gpu=0",
                                      "rank=4 host=node2 local_rank=0 gpu=3", "rank=5 host=node2 local_rank=1 gpu=2",
                                      "rank=6 host=node2 local_rank=2 gpu=1", "rank=7 host=node2 local_rank=3 gpu=0"}));
  r = test::run_taskmap(job + "--out-format slurm-map-gpu --out " + path("gpus"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_text(path("gpus")), "map_gpu:3,2,1,0\n");
  // srun's two files in one run, and the command that uses them.
  r = test::run_taskmap(job + "--out-format srun --out " + path("hosts"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_text(path("hosts")), "node0\nnode0\nnode0\nnode0\nnode2\nnode2\nnode2\nnode2\n");
  EXPECT_EQ(test::read_text(path("hosts.gpus")), "map_gpu:3,2,1,0\n");
  EXPECT_FALSE(std::filesystem::exists(path("hosts.cpus")));
  const auto err = lines_of(r.err);
  EXPECT_NE(std::find(err.begin(), err.end(), "wrote " + path("hosts") + " and " + path("hosts.gpus") + " (8 tasks, srun)"),
            err.end())
      << r.err;
  EXPECT_NE(std::find(err.begin(), err.end(),
                      "launch: SLURM_HOSTFILE=" + path("hosts") +
                          " srun --distribution=arbitrary --gpu-bind=map_gpu:3,2,1,0 -n 8 ./app"),
            err.end())
      << r.err;
  // gpu-env and the launcher's file in one run: the files the two formats write alone, and the
  // command that runs the wrapper under that launcher.
  for (const auto& [launcher, suffix, command] :
       {std::tuple{"openmpi-rankfile", ".rankfile", "mpirun -np 8 --rankfile " + path("one.env.rankfile") +
                                                       " -x TASKMAP_GPU_ENV=" + path("one.env") + " taskmap-gpu-run ./app"},
        std::tuple{"hydra", ".hosts", "mpiexec -f " + path("one.env.hosts") + " -n 8 -genv TASKMAP_GPU_ENV " +
                                          path("one.env") + " taskmap-gpu-run ./app"}}) {
    SCOPED_TRACE(launcher);
    r = test::run_taskmap(job + "--out-format gpu-env:launcher=" + launcher + " --out " + path("one.env"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::read_text(path("one.env")), env);
    ASSERT_EQ(test::run_taskmap(job + "--out-format " + launcher + " --out " + path("alone")).exit_code, 0);
    EXPECT_EQ(test::read_text(path(std::string("one.env") + suffix)), test::read_text(path("alone")));
    const auto said = lines_of(r.err);
    EXPECT_NE(std::find(said.begin(), said.end(), "launch: " + command), said.end()) << r.err;
  }
  // To standard output there is no room for the second file.
  r = test::run_taskmap(job + "--out-format gpu-env:launcher=hydra --out -");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("writes two files (FILE and FILE.hosts)"), std::string::npos) << r.err;
}

// Node 0's ranks on GPUs 0,1 and node 1's on 1,0: `map` gives node 1 node 0's arrangement
// (gpus:N has no levels: every arrangement costs the same, the first node's is kept; ranks 2
// and 3 swap GPUs, staying on node 1), and says so.
TEST_F(GpuLaunchFiles, MapArrangesEveryNodesRanksAlikeForMapGpu) {
  auto r = test::run_taskmap("map --machine torus:2x2,ppn=4 --node-topology gpus:4 --pattern halo2d:2x2 --mapper file:" +
                             placement({0, 1, 5, 4}) + " --out-format slurm-map-gpu --out " + path("gpus"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_text(path("gpus")), "map_gpu:0,1\n");
  EXPECT_NE(r.err.find("taskmap: slurm-map-gpu: the ranks of every node now sit on one list of GPUs, in rank order "
                       "(srun's map_gpu has one list for all nodes); the nodes keep their ranks"),
            std::string::npos)
      << r.err;
}

// Without GPU slots: one line, exit 1, no file (srun's files neither).
TEST_F(GpuLaunchFiles, GpuFormatsWithoutGpuSlotsFailInOneLineAndWriteNothing) {
  for (const char* format : {"gpu-env", "slurm-map-gpu"}) {
    const auto r = test::run_taskmap(std::string("map --machine torus:2x2,ppn=4 --pattern halo2d:2x2 --mapper default "
                                                 "--out-format ") +
                                     format + " --out " + path("out"));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(r.err, std::string("taskmap: error: --out-format ") + format +
                         ": the slots of machine 'torus:2x2,ppn=4' are cores, not GPUs: give --node-topology gpus:N "
                         "or hwloc:FILE,slots=gpu\n");
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(std::filesystem::exists(path("out"))) << format;
  }
}

// scripts/taskmap-gpu-run, under dash (/bin/sh on Debian) and any sh: the rank from each
// launcher's variable, its line's GPU exported, the program run with its arguments; one line
// and exit 1 for a rank without a line, no rank, or no file.
std::string wrapper() { return std::string(TASKMAP_SOURCE_DIR) + "/scripts/taskmap-gpu-run"; }

TEST_F(GpuLaunchFiles, TheWrapperExportsItsRanksGpu) {
  const std::string env = path("gpus.env");
  {
    std::ofstream(env) << "# taskmap gpu-env: 3 ranks\n# second comment\nrank=0 host=a local_rank=0 gpu=2\n"
                          "rank=1 host='we ird' local_rank=1 gpu=3\nrank=10 host=b local_rank=0 gpu=1\n";
  }
  const std::string print = " sh -c 'echo \"$CUDA_VISIBLE_DEVICES $ROCR_VISIBLE_DEVICES $TASKMAP_LOCAL_RANK $0 $1\"' x y";
  for (const char* shell : {"dash", "sh"}) {
    if (test::run_command(std::string("command -v ") + shell).exit_code != 0) continue;
    SCOPED_TRACE(shell);
    const std::string run = std::string(shell) + " " + wrapper();
    auto r = test::run_command("env -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u PMI_RANK SLURM_PROCID=1 TASKMAP_GPU_ENV=" +
                               env + " " + run + print);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "3 3 1 x y\n");
    r = test::run_command("env -u OMPI_COMM_WORLD_RANK -u PMIX_RANK PMI_RANK=10 SLURM_PROCID=0 " + run + " -f " + env +
                          print);
    EXPECT_EQ(r.out, "1 1 0 x y\n") << r.err;
    r = test::run_command("env OMPI_COMM_WORLD_RANK=0 PMIX_RANK=7 TASKMAP_GPU_ENV=" + env + " " + run + print);
    EXPECT_EQ(r.out, "2 2 0 x y\n") << r.err;
    r = test::run_command("env -u OMPI_COMM_WORLD_RANK PMIX_RANK=1 TASKMAP_GPU_ENV=" + env + " " + run + print);
    EXPECT_EQ(r.out, "3 3 1 x y\n") << r.err;
    // Rank 3 has no line (rank 1 and 10 are not prefixes of it, nor it of them).
    r = test::run_command("env -u OMPI_COMM_WORLD_RANK -u PMIX_RANK PMI_RANK=3 TASKMAP_GPU_ENV=" + env + " " + run + print);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "taskmap-gpu-run: " + env + " has no line for rank 3\n");
    EXPECT_EQ(r.out, "");
    r = test::run_command("env -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u PMI_RANK -u SLURM_PROCID TASKMAP_GPU_ENV=" + env +
                          " " + run + print);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "taskmap-gpu-run: no rank in the environment (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, "
                     "SLURM_PROCID): start it under mpirun, mpiexec or srun\n");
    r = test::run_command("env -u TASKMAP_GPU_ENV PMI_RANK=0 " + run + print);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "taskmap-gpu-run: cannot read the gpu-env file '' (-f FILE or TASKMAP_GPU_ENV=FILE)\n");
  }
}

// The wrapper under each MPI's launcher on this host: a gpu-env file that `map` wrote for 4
// ranks on 2 hosts (the launcher starts them all here), each rank printing its rank and the
// GPU it was given: node 0's ranks on GPUs 1,0, node 1's on 1,0.
TEST_F(GpuLaunchFiles, EveryRankRunsOnItsGpuUnderMpirun) {
  TASKMAP_REQUIRE_TOOL("command -v mpirun", "mpirun (Debian openmpi-bin)");
  const std::vector<test::Mpi> mpis = test::mpis();
  if (mpis.empty()) {
    if (test::in_ci()) GTEST_FAIL() << "built without MPI (CI=true: no skip)";
    GTEST_SKIP() << "built without MPI: no launcher to run the wrapper under";
  }
  const std::string env = path("gpus.env");
  const auto r = test::run_taskmap("map --machine torus:2,ppn=2 --node-topology gpus:2 --pattern halo2d:2x2 --mapper file:" +
                                   placement({1, 0, 3, 2}) + " --out-format gpu-env --out " + env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string print =
      " sh -c 'echo \"${OMPI_COMM_WORLD_RANK:-$PMI_RANK} $CUDA_VISIBLE_DEVICES $ROCR_VISIBLE_DEVICES $TASKMAP_LOCAL_RANK\"'";
  for (const test::Mpi& mpi : mpis) {
    SCOPED_TRACE(mpi.name);
    TASKMAP_REQUIRE_LAUNCHER(mpi);
    const test::CommandResult run = test::launch(mpi, 4, wrapper() + print, {{"TASKMAP_GPU_ENV", env}});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const auto lines = lines_of(run.out);
    EXPECT_EQ(std::set<std::string>(lines.begin(), lines.end()),
              (std::set<std::string>{"0 1 1 0", "1 0 0 1", "2 1 1 0", "3 0 0 1"}))
        << run.out << run.err;
    EXPECT_EQ(lines.size(), 4u) << run.out;
  }
}

}  // namespace
}  // namespace taskmap
