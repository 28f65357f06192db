// The basic mappers: default, letter orders, random, cyclic.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "taskmap/core/error.h"
#include "taskmap/launch/placement.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/topology/rect_torus_geometry.h"
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
                "the pattern has 5 tasks but machine 'torus:2x2' has only 4 slots (several tasks per slot: auto, default, "
                "hostname-order, file, scotch, ptscotch, metis, greedy, rb, ml, timer, refine-hb, refine-mcl or "
                "refine-inject)");
    }
  }
  // default takes several tasks per slot: consecutive blocks, task t on slot floor(4t/5).
  EXPECT_EQ(run("default", m, g).slot_of_task, (std::vector<SlotId>{0, 0, 1, 2, 3}));
}

// A placement file may put several tasks on a slot, up to the balance's share, as
// `eval --mapping` reads it: 6 tasks on torus:2x2 give ceil(1.03 x 6 / 4) = 2 tasks per slot.
TEST(Mappers, FileTakesSeveralTasksPerSlotWithinTheBalance) {
  const Machine m = make_machine("torus:2x2");
  const CommGraph g = CommGraph::from_edges(6, {});
  const std::string within = test::temp_path("file_mapper", "within.txt");
  std::ofstream(within) << "0 0\n1 0\n2 1\n3 2\n4 3\n5 3\n";
  EXPECT_EQ(run("file:" + within, m, g).slot_of_task, (std::vector<SlotId>{0, 0, 1, 2, 3, 3}));
  const std::string beyond = test::temp_path("file_mapper", "beyond.txt");
  std::ofstream(beyond) << "0 0\n1 0\n2 0\n3 2\n4 3\n5 3\n";
  EXPECT_EQ(test::error_message([&] { run("file:" + beyond, m, g); }),
            beyond + ":3: slot 0 already holds the 2 tasks the balance allows");
  std::filesystem::remove(within);
  std::filesystem::remove(beyond);
}

TEST(Mappers, CyclicIsSlurmsCyclicDistribution) {
  // torus:2x2,ppn=2: 4 nodes of 2 slots. Cyclic puts task t on node t mod 4, core t / 4.
  const Machine m = make_machine("torus:2x2,ppn=2");
  const CommGraph g = CommGraph::from_edges(8, {});
  const Mapping c = run_mapper("cyclic", m, g);
  EXPECT_EQ(c.slot_of_task, (std::vector<SlotId>{0, 2, 4, 6, 1, 3, 5, 7}));
  // stride=4 on 8 slots: 0, 4, then the second lap shifted by one: 1, 5, ...
  const Mapping s = run_mapper("cyclic:stride=4", m, g);
  EXPECT_EQ(s.slot_of_task, (std::vector<SlotId>{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_THROW(run_mapper("cyclic:stride=3", m, g), Error);
}

}  // namespace
}  // namespace taskmap
