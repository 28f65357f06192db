// Baseline mappers and placement files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/core/error.h"
#include "taskmap/launch/placement.h"
#include "test_support.h"

namespace taskmap {
namespace {

using test::run_mapper;

Mapping run(const std::string& mapper, const Machine& m, const CommGraph& g) {
  return run_mapper(mapper, m, g);
}

TEST(Mappers, DefaultIsTheCanonicalSlotOrderAndEqualsABCT) {
  Machine m = make_machine("torus:2x3,ppn=2");
  CommGraph g = CommGraph::from_edges(12, {});
  Mapping d = run("default", m, g);
  for (TaskId t = 0; t < 12; ++t) EXPECT_EQ(d.slot_of_task[t], t);
  EXPECT_EQ(run("order:ABT", m, g).slot_of_task, d.slot_of_task);
}

TEST(Mappers, LetterOrdersPutTheLastLetterFastest) {
  // 2x3 torus, 2 slots per node. TBA: B fastest, then A, then T.
  Machine m = make_machine("torus:2x3,ppn=2");
  CommGraph g = CommGraph::from_edges(12, {});
  Mapping tba = run("order:TBA", m, g);
  // Task 1: T=0, B=0, A=1 -> router 3, slot 6. Task 2: B=1, A=0 -> router 1, slot 2. Task 6: T=1 -> slot 1.
  EXPECT_EQ(tba.slot_of_task[0], 0u);
  EXPECT_EQ(tba.slot_of_task[1], 6u);
  EXPECT_EQ(tba.slot_of_task[2], 2u);
  EXPECT_EQ(tba.slot_of_task[6], 1u);
  validate_mapping(tba, m, 12, "order:TBA");
}

TEST(Mappers, BadLetterOrdersAreRejected) {
  Machine m = make_machine("torus:2x3,ppn=2");
  CommGraph g = CommGraph::from_edges(4, {});
  EXPECT_THROW(run("order:AB", m, g), Error);    // T missing
  EXPECT_THROW(run("order:ABTT", m, g), Error);  // repeated
  EXPECT_THROW(run("order:ACT", m, g), Error);   // no C dimension
  EXPECT_THROW(run("order:ABT", make_machine("dragonfly:p=1,a=2,h=1"), g), Error);
  EXPECT_THROW(parse_mapper_spec("order:abt"), Error);
  EXPECT_THROW(parse_mapper_spec("anneal"), Error);  // unknown
  EXPECT_THROW(parse_mapper_spec("random:sed=3"), Error);
}

TEST(Mappers, RandomIsAValidSeededPermutation) {
  Machine m = make_machine("torus:4x4,ppn=4");
  CommGraph g = CommGraph::from_edges(50, {});
  Mapping a = run("random:seed=3", m, g), b = run("random:seed=3", m, g), c = run("random:seed=4", m, g);
  EXPECT_EQ(a.slot_of_task, b.slot_of_task);
  EXPECT_NE(a.slot_of_task, c.slot_of_task);
  validate_mapping(a, m, 50, "random");
  std::set<SlotId> used(a.slot_of_task.begin(), a.slot_of_task.end());
  EXPECT_EQ(used.size(), 50u);
}

TEST(Mappers, MoreTasksThanSlotsIsAnError) {
  Machine m = make_machine("torus:2x2");
  CommGraph g = CommGraph::from_edges(5, {});
  for (const char* name : {"random", "order:ABT"}) {
    try {
      run(name, m, g);
      ADD_FAILURE() << name;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                "the pattern has 5 tasks but machine 'torus:2x2' has only 4 slots (several tasks per slot: default, scotch, "
                "metis, greedy, rb, timer, refine-hb or refine-mcl)");
    }
  }
  // default takes several tasks per slot: consecutive blocks, task t on slot floor(4t/5).
  EXPECT_EQ(run("default", m, g).slot_of_task, (std::vector<SlotId>{0, 0, 1, 2, 3}));
}

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
