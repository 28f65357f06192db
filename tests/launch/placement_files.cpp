// Placement files: taskmap's plain mapping file, and the launchers' rankfiles, host lists,
// Cray rank orders and BG/Q map files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "taskmap/core/error.h"
#include "taskmap/launch/placement.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "test_support.h"

namespace taskmap {
namespace {

TEST(MappingFiles, PlainFileRoundTrip) {
  Machine m = make_machine("torus:2x2");
  Mapping read = read_mapping_file(test::instance("map4.txt"), m, 4);
  EXPECT_EQ(read.slot_of_task, (std::vector<SlotId>{2, 0, 3, 1}));
  const std::string text = format_placement(read, m, PlacementFormat::Plain);
  EXPECT_NE(text.find("0 2\n1 0\n2 3\n3 1\n"), std::string::npos);
}

TEST(MappingFiles, BadFilesNameTheLineAndProblem) {
  Machine m = make_machine("torus:2x2");
  auto error_of = [&](const std::string& f) {
    try {
      read_mapping_file(test::instance("bad/" + f), m, 4);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("dup_slot.txt"), test::instance("bad/dup_slot.txt") + ":2: slot 2 is already taken by task 0 (line 1)");
  EXPECT_EQ(error_of("dup_task.txt"), test::instance("bad/dup_task.txt") + ":2: task 0 is already placed (line 1)");
  EXPECT_EQ(error_of("missing_task.txt"), test::instance("bad/missing_task.txt") + ": task 2 has no slot (the pattern has 4 tasks)");
  EXPECT_EQ(error_of("slot_range.txt"), test::instance("bad/slot_range.txt") + ":3: slot 99 is out of range [0, 4)");
}

// Launcher files, each derived by hand from the launcher's rule. torus:2x2,ppn=2: node n
// holds slots 2n and 2n+1.
TEST(PlacementFiles, OpenMpiRankfileNamesHostAndCore) {
  Machine m = make_machine("torus:2x2,ppn=4");
  Mapping map{{0, 5, 15}, {}};
  EXPECT_EQ(format_placement(map, m, PlacementFormat::OpenMpiRankfile, HostNames::with_prefix("host")),
            "rank 0=host0 slot=0\nrank 1=host1 slot=1\nrank 2=host3 slot=3\n");
  // Real host names, one per node; the first field of a line counts (Open MPI hostfile style).
  const std::string hosts = (std::filesystem::temp_directory_path() / "taskmap_hosts.txt").string();
  { std::ofstream(hosts) << "# allocation\nalpha slots=4\nbeta\ngamma\ndelta max_slots=4\n"; }
  EXPECT_EQ(format_placement(map, m, PlacementFormat::OpenMpiRankfile, HostNames::from_file(hosts)),
            "rank 0=alpha slot=0\nrank 1=beta slot=1\nrank 2=delta slot=3\n");
  { std::ofstream(hosts) << "alpha\nbeta\n"; }
  EXPECT_THROW(
      {
        try {
          format_placement(map, m, PlacementFormat::OpenMpiRankfile, HostNames::from_file(hosts));
        } catch (const Error& e) {
          EXPECT_STREQ(e.what(), ("--hosts " + hosts + ": names 2 hosts but the mapping uses node 3 (give one host per "
                                  "node, in node order)").c_str());
          throw;
        }
      },
      Error);
  { std::ofstream(hosts) << "alpha\nbeta:4\n"; }  // Hydra's host:N is no host name
  EXPECT_EQ(test::error_message([&] { HostNames::from_file(hosts); }),
            hosts + ":2: 'beta:4' is not a host name (one host name per line, in node order; no ':N' counts)");
  std::filesystem::remove(hosts);
}

TEST(PlacementFiles, HydraAndSlurmListHostsInRankOrder) {
  Machine m = make_machine("torus:2x2,ppn=2");
  Mapping map{{0, 1, 3, 2, 4, 7}, {}};  // nodes 0 0 1 1 2 3
  EXPECT_EQ(format_placement(map, m, PlacementFormat::Hydra), "node0:2\nnode1:2\nnode2:1\nnode3:1\n");
  EXPECT_EQ(format_placement(map, m, PlacementFormat::Slurm), "node0\nnode0\nnode1\nnode1\nnode2\nnode3\n");
  // A host met again later starts a new line: Hydra fills lines in order.
  Mapping back{{0, 2, 1}, {}};
  EXPECT_EQ(format_placement(back, m, PlacementFormat::Hydra), "node0:1\nnode1:1\nnode0:1\n");
}

// The command printed after the file: -n/-np the ranks (6), the path quoted where a shell
// would split it; srun's CPU list is the one every node's ranks share (slot 0 then 1 on
// nodes 0 and 1; nodes 2 and 3 hold one rank on their first slot).
TEST(PlacementFiles, TheLaunchCommandNamesTheFileAndTheRanks) {
  Machine m = make_machine("torus:2x2,ppn=2");
  Mapping map{{0, 1, 2, 3, 4, 6}, {}};  // nodes 0 0 1 1 2 3, each on CPUs 0,1 in rank order
  auto command = [&](const char* format, const std::string& out) {
    return launch_command(map, m, parse_placement_spec(format), out);
  };
  EXPECT_EQ(command("srun", "h"), "SLURM_HOSTFILE=h srun --distribution=arbitrary --cpu-bind=map_cpu:0,1 -n 6 ./app");
  EXPECT_EQ(command("slurm", "my hosts"), "SLURM_HOSTFILE='my hosts' srun --distribution=arbitrary -n 6 ./app");
  EXPECT_EQ(command("openmpi-rankfile", "it's"), "mpirun -np 6 --rankfile 'it'\\''s' ./app");
  EXPECT_EQ(command("hydra", "/tmp/m.txt"), "mpiexec -f /tmp/m.txt -n 6 ./app");
  EXPECT_EQ(command("plain", "p.txt"), "");
  EXPECT_EQ(command("slurm-map-cpu", "cpus"), "");  // one of srun's two files only
  EXPECT_EQ(srun_cpu_list_path("h"), "h.cpus");
}

TEST(PlacementFiles, CrayRankOrderIsTheRankOnEachSlotWithRanges) {
  Machine m = make_machine("torus:2x2,ppn=2");
  Mapping map{{1, 0, 2, 3, 4, 5, 7, 6}, {}};
  // Slots 0..7 hold ranks 1 0 2 3 4 5 7 6.
  EXPECT_EQ(format_placement(map, m, PlacementFormat::CrayRankOrder),
            "# MPICH_RANK_ORDER from taskmap: 8 ranks on torus:2x2,ppn=2, slot order\n1,0,2-5,7,6\n");
  Mapping hole{{0, 2}, {}};
  EXPECT_THROW(format_placement(hole, m, PlacementFormat::CrayRankOrder), Error);
}

TEST(PlacementFiles, BgqMapfileGivesTorusCoordinatesAndCore) {
  Machine m = make_machine("torus:2x2x2x2x2,ppn=2");
  // Slot 5: node 2 = router 2 = (0,0,0,1,0), core 1. Slot 62: router 31 = (1,1,1,1,1), core 0.
  Mapping map{{5, 62}, {}};
  EXPECT_EQ(format_placement(map, m, PlacementFormat::BgqMapfile), "0 0 0 1 0 1\n1 1 1 1 1 0\n");
  EXPECT_THROW(format_placement(map, make_machine("torus:4x4x4,ppn=2"), PlacementFormat::BgqMapfile), Error);
}

TEST(PlacementFiles, LauncherFilesPlaceOneRankPerSlot) {
  Machine m = make_machine("torus:2x2");
  Mapping many{{0, 0, 1, 1, 2, 3}, {}};
  for (PlacementFormat f : {PlacementFormat::OpenMpiRankfile, PlacementFormat::Hydra, PlacementFormat::Slurm,
                            PlacementFormat::CrayRankOrder}) {
    try {
      format_placement(many, m, f);
      ADD_FAILURE() << placement_format_name(f) << " accepted 6 ranks on 4 slots";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("6 ranks but machine 'torus:2x2' has only 4 slots"), std::string::npos)
          << e.what();
    }
  }
  Mapping shared{{0, 0, 1}, {}};
  EXPECT_THROW(format_placement(shared, m, PlacementFormat::Slurm), Error);
  EXPECT_NO_THROW(format_placement(many, m, PlacementFormat::Plain));
}

}  // namespace
}  // namespace taskmap
