// Mapping files of other tools: Scotch's mapping files and METIS partition files written and
// read, Open MPI rankfiles read back, and the format guessed from the content.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "taskmap/core/error.h"
#include "taskmap/launch/placement.h"
#include "test_support.h"

namespace taskmap {
namespace {

class MappingFormats : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("taskmap_mapping_formats_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string file(const std::string& text) {
    const std::string path = (dir_ / fmt::format("m{}.txt", count_++)).string();
    std::ofstream(path) << text;
    return path;
  }
  std::filesystem::path dir_;
  int count_ = 0;
};

// hier:2:2:2: terminal t is slot t. Tasks on slots 0, 4, 1, 2.
TEST_F(MappingFormats, ScotchFileNamesTheTerminalOfEachTask) {
  const Machine m = make_machine("hier:2:2:2,dist=1:10:100");
  const Mapping map{{0, 4, 1, 2}, {}};
  EXPECT_EQ(format_placement(map, m, PlacementFormat::Scotch), "4\n0\t0\n1\t4\n2\t1\n3\t2\n");
  EXPECT_EQ(format_placement(map, m, parse_placement_spec("scotch:base=1")), "4\n1\t0\n2\t4\n3\t1\n4\t2\n");
  // torus:2x2,ppn=2: a terminal per router; slots 0, 3, 5, 6 are on routers 0, 1, 2, 3.
  const Machine torus = make_machine("torus:2x2,ppn=2");
  EXPECT_EQ(format_placement(Mapping{{0, 3, 5, 6}, {}}, torus, PlacementFormat::Scotch), "4\n0\t0\n1\t1\n2\t2\n3\t3\n");
  // Several tasks on a terminal are fine (Scotch's mappings are many-to-one).
  EXPECT_EQ(format_placement(Mapping{{1, 1, 0}, {}}, torus, PlacementFormat::Scotch), "3\n0\t0\n1\t0\n2\t0\n");
  // A deco target keeps its labels: amk_grf's target of vertices 4 to 7.
  const Machine row = make_machine("tgt:" + test::instance("scotch/row1.deco1.tgt"));
  EXPECT_EQ(format_placement(Mapping{{3, 0}, {}}, row, PlacementFormat::Scotch), "2\n0\t7\n1\t4\n");
}

TEST_F(MappingFormats, ScotchFileReadsBackWithItsBase) {
  const Machine torus = make_machine("torus:2x2,ppn=2");
  std::string note;
  // Vertices 1 to 4 (base 1): terminals 0, 3, 3, 1. Router 3's slots are 6 and 7, filled in turn.
  const Mapping m = read_placement(file("4\n1 0\n2 3\n3 3\n4\t1\n"), PlacementFormat::Scotch, torus, 4, 1,
                                   HostNames::with_prefix("node"), &note);
  EXPECT_EQ(m.slot_of_task, (std::vector<SlotId>{0, 6, 7, 2}));
  EXPECT_NE(note.find("Scotch vertices numbered from 1, read as tasks 0 to 3"), std::string::npos) << note;
  // Lines in any order, tokens across lines, as Scotch reads them.
  EXPECT_EQ(read_placement(file("3 2 1\n0 0 1 0"), PlacementFormat::Scotch, torus, 3).slot_of_task,
            (std::vector<SlotId>{0, 1, 2}));
  // Labels: terminal 6 of the row target is router 2.
  const Machine row = make_machine("tgt:" + test::instance("scotch/row1.deco1.tgt"));
  EXPECT_EQ(read_placement(file("2\n0 6\n1 4\n"), PlacementFormat::Scotch, row, 2).slot_of_task,
            (std::vector<SlotId>{2, 0}));
  auto error_of = [&](const std::string& text, std::size_t tasks, std::uint32_t per_slot = 1) {
    const std::string path = file(text);
    return test::error_message([&] { read_placement(path, PlacementFormat::Scotch, torus, tasks, per_slot); }).substr(path.size());
  };
  EXPECT_EQ(error_of("3\n0 0\n1 1\n2 2\n", 4), ":1: the mapping has 3 vertices but the pattern has 4 tasks");
  EXPECT_EQ(error_of("2\n0 0\n1 4\n", 2),
            ":3: terminal 4 is not one of the 4 terminals of 'torus:2x2,ppn=2' (docs/scotch.md: how taskmap numbers a "
            "machine's terminals)");
  EXPECT_EQ(error_of("2\n0 0\n0 1\n", 2), ":3: vertex 0 is mapped twice (line 2)");
  EXPECT_EQ(error_of("2\n2 0\n3 1\n", 2), ":2: the lowest vertex is 2; vertices are numbered from 0 or 1");
  EXPECT_EQ(error_of("2\n0 0\n2 1\n", 2), ":3: vertex 2 is out of range [0, 2)");
  // Router 0 has 2 slots: a third task is beyond one per slot.
  EXPECT_EQ(error_of("3\n0 0\n1 0\n2 0\n", 3), ":4: terminal 0 gets more than 2 tasks (2 slots, 1 per slot under the balance)");
  EXPECT_EQ(read_placement(file("3\n0 0\n1 0\n2 0\n"), PlacementFormat::Scotch, torus, 3, 2).slot_of_task,
            (std::vector<SlotId>{0, 1, 0}));
  EXPECT_EQ(error_of("2\n0 0\n1 1\n1 1\n", 2), ":4: '1' after the 2 pairs the count announces");
  EXPECT_EQ(error_of("5\n0 0\n", 5), ":1: 5 'vertex terminal' pairs announced, but the file is too short to hold them");
}

TEST_F(MappingFormats, MetisPartitionPartIsSlot) {
  const Machine torus = make_machine("torus:2x2");
  const Mapping m = read_placement(file("3\n0\n2\n"), PlacementFormat::MetisPart, torus, 3);
  EXPECT_EQ(m.slot_of_task, (std::vector<SlotId>{3, 0, 2}));
  EXPECT_EQ(format_placement(m, torus, PlacementFormat::MetisPart), "3\n0\n2\n");
  auto error_of = [&](const std::string& text, std::size_t tasks) {
    const std::string path = file(text);
    return test::error_message([&] { read_placement(path, PlacementFormat::MetisPart, torus, tasks); }).substr(path.size());
  };
  EXPECT_EQ(error_of("3\n0\n", 3), ": 2 lines but the pattern has 3 tasks (one part per task)");
  EXPECT_EQ(error_of("0\n1\n2\n", 2), ":3: more lines than the pattern's 2 tasks (one part per task)");
  EXPECT_EQ(error_of("0\n4\n", 2), ":2: part 4 is out of range [0, 4) (part p is slot p)");
  EXPECT_EQ(error_of("1\n1\n", 2), ":2: slot 1 is already taken by task 0 (line 1)");
  EXPECT_EQ(error_of("1 2\n", 1), ":1: expected one part number, found 2 fields");
}

// The rankfile format_placement writes reads back to the same slots (torus:2x2,ppn=4: node n
// holds slots 4n .. 4n+3).
TEST_F(MappingFormats, RankfileReadsBackThroughTheHostNames) {
  const Machine m = make_machine("torus:2x2,ppn=4");
  const Mapping map{{0, 5, 15}, {}};
  const HostNames hosts = HostNames::with_prefix("host");
  const std::string rankfile = format_placement(map, m, PlacementFormat::OpenMpiRankfile, hosts);
  EXPECT_EQ(read_placement(file(rankfile), PlacementFormat::OpenMpiRankfile, m, 3, 1, hosts).slot_of_task,
            map.slot_of_task);
  // Open MPI's relative host names: +n2 is the job's third node.
  EXPECT_EQ(read_placement(file("# relative\nrank 1=+n2 slot=1\nrank 0=+n0 slot=3\n"), PlacementFormat::OpenMpiRankfile,
                           m, 2)
                .slot_of_task,
            (std::vector<SlotId>{3, 9}));
  // A machine with host names: cn2's slots are 2 and 3 (test_support's four named nodes, 2 slots each,
  // in router order cn10, cn2, cn01, gpu1).
  const Machine named = test::four_named_nodes(2);
  EXPECT_EQ(read_placement(file("rank 0=cn2 slot=1\nrank 1=gpu1 slot=0\n"), PlacementFormat::OpenMpiRankfile, named, 2)
                .slot_of_task,
            (std::vector<SlotId>{3, 6}));
  auto error_of = [&](const std::string& text) {
    const std::string path = file(text);
    return test::error_message([&] { read_placement(path, PlacementFormat::OpenMpiRankfile, m, 2, 1, hosts); })
        .substr(path.size());
  };
  EXPECT_EQ(error_of("rank 0=host9 slot=0\n"),
            ":1: host 'host9' is not a node of 'torus:2x2,ppn=4' (nodes are named by --host-prefix or --hosts)");
  EXPECT_EQ(error_of("rank 0=host1 slot=0:1\n"),
            ":1: slot=0:1: taskmap reads one core's logical index (slot=N), not a socket:core pair, a range or a list");
  EXPECT_EQ(error_of("rank 0=host1 slot=4\n"), ":1: slot=4 is not a core of host host1's 4 slots");
  EXPECT_EQ(error_of("rank 2=host1 slot=0\n"), ":1: rank 2 is out of range [0, 2)");
  EXPECT_EQ(error_of("rank 0 host1 slot=0\n"), ":1: expected 'rank R=HOST slot=CORE'");
  EXPECT_EQ(error_of("rank 0=+n4 slot=0\n"), ":1: '+n4' names none of the job's 4 nodes (+n0 to +n3)");
}

TEST_F(MappingFormats, TheContentTellsTheFormat) {
  const Machine torus = make_machine("torus:2x2");
  auto guessed = [&](const std::string& text, std::size_t tasks) {
    std::string note;
    const std::string path = file(text);
    const Mapping m = read_placement(path, std::nullopt, torus, tasks, 1, HostNames::with_prefix("node"), &note);
    EXPECT_EQ(note.rfind(path + ": read as ", 0), 0u) << note;
    return note.substr(path.size() + 10, note.find(' ', path.size() + 10) - path.size() - 10);
  };
  EXPECT_EQ(guessed("# taskmap placement\n0 2\n1 3\n", 2), "plain");
  EXPECT_EQ(guessed("0 2\n1 3\n", 2), "plain");
  EXPECT_EQ(guessed("2\n0 2\n1 3\n", 2), "scotch");
  EXPECT_EQ(guessed("2\n3\n", 2), "metis-part");
  EXPECT_EQ(guessed("rank 0=node1 slot=0\n", 1), "openmpi-rankfile");
  auto error_of = [&](const std::string& text) {
    const std::string path = file(text);
    return test::error_message([&] { read_placement(path, std::nullopt, torus, 1); }).substr(path.size());
  };
  const std::string give = "give --mapping-format plain|scotch|metis-part|openmpi-rankfile";
  // One number alone: a Scotch mapping of no vertex, or a METIS partition of one task.
  EXPECT_EQ(error_of("0\n"), ": the content fits scotch (a count line and as many 'vertex terminal' lines) and "
                             "metis-part (one part number per line); " + give);
  EXPECT_EQ(error_of("3\n0 1\n"), ": a Scotch mapping's first line counts the 'vertex terminal' lines that follow, but 1 "
                                  "follow; " + give);
  EXPECT_EQ(error_of("0 1\n1 2 3\n"), ":2: cannot tell the mapping's format: this line is none of 'task slot', a Scotch "
                                      "count or 'vertex terminal', a METIS part number or 'rank R=HOST slot=CORE'; " + give);
  EXPECT_EQ(error_of("\n# nothing\n"), ": only comments: no mapping to read");
  // A launcher's host list is written, not read.
  EXPECT_EQ(test::error_message([&] { parse_mapping_format("hydra"); }),
            "--mapping-format hydra: taskmap writes it but does not read it back (it reads "
            "plain|scotch|metis-part|openmpi-rankfile)");
}

}  // namespace
}  // namespace taskmap
