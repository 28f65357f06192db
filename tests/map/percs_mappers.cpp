// PERCS mappers: blocking, mod-colouring and transpose layouts, where each puts the tasks.
#include <gtest/gtest.h>

#include <algorithm>
#include <queue>
#include <set>
#include <unistd.h>

#include "taskmap/core/error.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/map/structured/coloring.h"
#include "taskmap/workload/generators.h"
#include "test_support.h"

namespace taskmap {
namespace {

using test::run_mapper;

// The mapper named `mapper` on the machine under its default routing.
Mapping run_mapper(const Machine& m, const CommGraph& g, const std::string& mapper) {
  return test::run_mapper(mapper, m, g);
}

// ---- PERCS mappers ----

TEST(PercsBlock, EveryBlockStaysOnOneProcessorBlock) {
  const Machine m = make_machine("percs:ns=32,nd=4");
  const CommGraph g = make_halo2d(64, 64, 5, true);
  struct Level {
    const char* name;
    std::uint32_t rows, cols, nodes;
  };
  for (Level lv : {Level{"node", 2, 2, 1}, Level{"drawer", 4, 8, 8}, Level{"supernode", 8, 16, 32}}) {
    for (const char* order : {"seq", "random"}) {
      SCOPED_TRACE(fmt::format("{} {}", lv.name, order));
      const Mapping map = run_mapper(m, g, fmt::format("percs-block:level={},order={},seed=7", lv.name, order));
      validate_mapping(map, m, g.num_tasks(), "test");
      std::set<std::uint32_t> used;
      for (std::uint32_t br = 0; br < 64 / lv.rows; ++br)
        for (std::uint32_t bc = 0; bc < 64 / lv.cols; ++bc) {
          std::set<std::uint32_t> blocks;
          for (std::uint32_t r = 0; r < lv.rows; ++r)
            for (std::uint32_t c = 0; c < lv.cols; ++c) {
              blocks.insert(map.slot_of_task[(br * lv.rows + r) * 64 + bc * lv.cols + c] / 4 / lv.nodes);
            }
          ASSERT_EQ(blocks.size(), 1u);
          EXPECT_TRUE(used.insert(*blocks.begin()).second) << "two task blocks on one processor block";
        }
    }
  }
  // Sequential supernode blocking puts block j on supernode j.
  const Mapping seq = run_mapper(m, g, "percs-block:level=supernode");
  EXPECT_EQ(seq.slot_of_task[0 * 64 + 16] / 128, 1u);
  EXPECT_EQ(seq.slot_of_task[8 * 64 + 0] / 128, 4u);
}

TEST(PercsModColor, BlocksFollowThePerfectColouring) {
  const Machine m = make_machine("percs:ns=32,nd=4");
  const CommGraph g = make_halo2d(64, 64, 5, true);
  const Mapping map = run_mapper(m, g, "percs-modcolor");
  validate_mapping(map, m, g.num_tasks(), "test");
  Coloring blocks(64);
  for (std::uint32_t b = 0; b < 64; ++b) {
    std::set<std::uint32_t> sn;
    for (std::uint32_t r = 0; r < 8; ++r)
      for (std::uint32_t c = 0; c < 8; ++c) sn.insert(map.slot_of_task[((b / 8) * 8 + r) * 64 + (b % 8) * 8 + c] / 128);
    ASSERT_EQ(sn.size(), 1u);
    blocks[b] = *sn.begin();
  }
  EXPECT_EQ(blocks, mod_coloring(8, 8));
  EXPECT_TRUE(check_perfect_coloring(blocks, 8, 8).ok);
  // A quad (2x2) shares one node.
  EXPECT_EQ(map.slot_of_task[0] / 4, map.slot_of_task[65] / 4);
}

TEST(PercsTranspose, HybridPicksTheLayoutOfAppendixC) {
  const Machine m = make_machine("percs:ns=16,nd=4");
  const CommGraph g = make_transpose(32, 64);  // rows of 64 span two drawers: go column-wise
  const Mapping hybrid = run_mapper(m, g, "percs-transpose:layout=hybrid");
  const Mapping column = run_mapper(m, g, "percs-transpose:layout=column");
  EXPECT_EQ(hybrid.slot_of_task, column.slot_of_task);
  EXPECT_EQ(column.slot_of_task[1 * 64 + 5], 5u * 32 + 1);  // task (1, 5) at slot 5P + 1
  const CommGraph square = make_transpose(64, 64);
  const Machine m32 = make_machine("percs:ns=32,nd=4");
  const Mapping row = run_mapper(m32, square, "percs-transpose:layout=hybrid");
  for (TaskId t = 0; t < square.num_tasks(); ++t) ASSERT_EQ(row.slot_of_task[t], t);
}

}  // namespace
}  // namespace taskmap
