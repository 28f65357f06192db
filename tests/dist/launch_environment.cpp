// The launcher's environment as taskmap reads it before MPI starts, where the MPI plugin is
// looked for, and the serial program's processes.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "taskmap/core/error.h"
#include "taskmap/dist/launch.h"
#include "test_support.h"

namespace taskmap::dist {
namespace {

// An environment of the variables given.
Getenv environment(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(LaunchEnvironment, NoLauncherVariablesIsTheSerialProgram) {
  EXPECT_FALSE(detect_launch(environment({})).has_value());
  // A batch script's own variables do not start MPI: only a launcher's do.
  EXPECT_FALSE(detect_launch(environment({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}})).has_value());
}

// Variables as Open MPI 4.1's mpirun -np 4 sets them for its third process (it sets the PMIx
// ones too, which Open MPI's own take precedence over).
TEST(LaunchEnvironment, OpenMpiMpirun) {
  const auto launch = detect_launch(environment({{"OMPI_COMM_WORLD_SIZE", "4"},
                                                 {"OMPI_COMM_WORLD_RANK", "2"},
                                                 {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"},
                                                 {"PMIX_RANK", "2"}}));
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->mpi, "openmpi");
  EXPECT_EQ(launch->rank, 2);
  EXPECT_EQ(launch->size, 4);
  EXPECT_EQ(launch->local_size, 4);
  EXPECT_EQ(launch->launcher, "Open MPI (OMPI_COMM_WORLD_SIZE=4)");
}

// MPICH 4's Hydra (mpiexec -np 2) sets PMI_RANK, PMI_SIZE and MPI_LOCALNRANKS.
TEST(LaunchEnvironment, MpichHydra) {
  const auto launch =
      detect_launch(environment({{"PMI_SIZE", "2"}, {"PMI_RANK", "1"}, {"MPI_LOCALNRANKS", "2"}, {"PMI_FD", "6"}}));
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->mpi, "mpich");
  EXPECT_EQ(launch->rank, 1);
  EXPECT_EQ(launch->size, 2);
  EXPECT_EQ(launch->local_size, 2);
}

// A PMIx launcher (srun --mpi=pmix) gives the rank only; the size comes from MPI.
TEST(LaunchEnvironment, PmixGivesTheRankOnly) {
  const auto launch = detect_launch(environment({{"PMIX_RANK", "0"}}));
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->mpi, "openmpi");
  EXPECT_EQ(launch->rank, 0);
  EXPECT_EQ(launch->size, 0);
}

TEST(LaunchEnvironment, MalformedVariablesAreRefusedWithTheirName) {
  EXPECT_EQ(test::error_message([] { detect_launch(environment({{"OMPI_COMM_WORLD_SIZE", "four"}})); }),
            "OMPI_COMM_WORLD_SIZE='four': the launcher's environment should hold a number of at least 1 here");
  EXPECT_EQ(test::error_message([] { detect_launch(environment({{"PMI_SIZE", "0"}, {"PMI_RANK", "0"}})); }),
            "PMI_SIZE='0': the launcher's environment should hold a number of at least 1 here");
  EXPECT_EQ(test::error_message(
                [] { detect_launch(environment({{"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_RANK", "2"}})); }),
            "the launcher's environment gives rank 2 of 2 processes");
}

TEST(LaunchEnvironment, PluginIsLookedForBesideTheBinaryThenInTheLibraryFolder) {
  LaunchEnvironment launch;
  launch.mpi = "mpich";
  const auto paths = plugin_candidates(launch, "/opt/taskmap/bin", environment({}));
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0], "/opt/taskmap/bin/libtaskmap-dist-mpich.so");
  // GNUInstallDirs' library folder: lib, or lib/<multiarch> under /usr.
  EXPECT_TRUE(paths[1].starts_with("/opt/taskmap/lib")) << paths[1];
  EXPECT_TRUE(paths[1].ends_with("/libtaskmap-dist-mpich.so")) << paths[1];
  EXPECT_EQ(plugin_candidates(launch, "/opt/taskmap/bin", environment({{"TASKMAP_DIST_PLUGIN", "/tmp/p.so"}})),
            std::vector<std::string>{"/tmp/p.so"});
}

TEST(Processes, SlicesFollowEachOtherAndDifferByAtMostOne) {
  // 10 items on 4 processes: 3, 3, 2, 2.
  const std::uint64_t begins[] = {0, 3, 6, 8}, ends[] = {3, 6, 8, 10};
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(slice_of(10, r, 4).begin, begins[r]);
    EXPECT_EQ(slice_of(10, r, 4).end, ends[r]);
  }
  // More processes than items: the last ones own nothing.
  EXPECT_EQ(slice_of(2, 3, 4).begin, 2u);
  EXPECT_EQ(slice_of(2, 3, 4).end, 2u);
}

TEST(Processes, TheSerialProgramIsOneProcessThatLeads) {
  const Processes& p = this_process_only();
  EXPECT_EQ(p.size(), 1);
  EXPECT_TRUE(p.leader());
  EXPECT_EQ(&p.alone(), &p);
  std::vector<std::uint64_t> v{5, 7};
  p.sum(v);
  EXPECT_EQ(v, (std::vector<std::uint64_t>{5, 7}));
  EXPECT_FALSE(p.distributed_partition());
  int runs = 0;
  on_leader(p, [&] { ++runs; });
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(test::error_message([&] { on_leader(p, [] { fail("no room"); }); }), "no room");
}

}  // namespace
}  // namespace taskmap::dist
