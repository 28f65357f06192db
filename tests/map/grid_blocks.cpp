// blocks: the task grid in blocks of one router's slots, laid onto the torus.
#include <gtest/gtest.h>

#include "taskmap/eval/evaluator.h"
#include "taskmap/map/grid_layout.h"
#include "test_support.h"

namespace taskmap {
namespace {

TEST(GridBlocks, AStencilInBlocksOfFourOnA3DTorus) {
  // halo3d:16x16x8 (each task sends 1/6 to each of its 6 neighbours) on 8x8x8 routers of 4
  // slots. A block of 4 tasks is 4x1x1 (faces 1, 4, 4 tasks: 18 boundary flows) or 2x2x1 in
  // some orientation (faces 2, 2, 4: 16 boundary flows), and 2x2x1 fits (16/2, 16/2, 8/1 =
  // 8x8x8 blocks). Each boundary flow goes 1 hop to the neighbouring router: hop-bytes
  // 512 blocks x 16 x 1/6 = 4096/3, and the 4-task face puts 4/6 on one channel: MCL 2/3.
  const test::Evaluated e = test::evaluate("torus:8x8x8,ppn=4", "halo3d:16x16x8", "blocks");
  EXPECT_NEAR(e.metrics.hop_bytes, 4096.0 / 3, 1e-9);
  EXPECT_NEAR(e.metrics.mcl, 2.0 / 3, 1e-12);
  EXPECT_EQ(e.metrics.max_dilation, 1u);
}

TEST(GridBlocks, ATaskDimensionSnakesThroughSeveralTorusDimensions) {
  // halo2d:8x8 without wrap-around on a 2x2x4 torus of 4 slots: blocks of 2x2 tasks make a 4x4
  // grid of blocks, whose first dimension must walk the 2x2 torus plane A-B. Walked as a snake
  // ((0,0), (0,1), (1,1), (1,0)) neighbouring blocks stay on neighbouring routers, so no flow
  // goes further than one hop; in row-major order the step (0,1) -> (1,0) would take two.
  const test::Evaluated e = test::evaluate("torus:2x2x4,ppn=4", "halo2d:8x8,periodic=false", "blocks");
  EXPECT_EQ(e.metrics.max_dilation, 1u);
  EXPECT_NEAR(e.metrics.hop_bytes, e.metrics.network_volume, 1e-9);
  EXPECT_GT(e.metrics.network_volume, 0);
}

TEST(GridLayout, EveryFittingAssignmentAndTheSnakeThroughIt) {
  // An 8x4 grid on the 4x4x2 torus: its 8 must be A and C (4 x 2) or B and C, its 4 the other
  // of A and B; A and B together (16) or C alone (2) fit neither. The assignments are counted
  // with A's choice as the fastest digit (A->1, B C->0 comes before B->1, A C->0), at most
  // `limit` of them.
  const TorusShape torus = *make_machine("torus:4x4x2,ppn=1").torus();
  const std::vector<detail::GridLayout> layouts = detail::grid_layouts(torus, {8, 4}, 256);
  ASSERT_EQ(layouts.size(), 2u);
  EXPECT_EQ(layouts[0].torus_dims, (std::vector<std::vector<std::size_t>>{{1, 2}, {0}}));
  EXPECT_EQ(layouts[1].torus_dims, (std::vector<std::vector<std::size_t>>{{0, 2}, {1}}));
  EXPECT_EQ(detail::grid_layouts(torus, {8, 4}, 1).size(), 1u);
  // Along the 8 of {A C | B}, A is the slower digit and C runs 0 1 | 1 0 | 0 1 | 1 0:
  // (A, C) = (0,0) (0,1) (1,1) (1,0) (2,0) (2,1) (3,1) (3,0), one hop apart each. With B = 3
  // and the last dimension fastest (strides 8, 2, 1): router = 8 A + 6 + C.
  const std::vector<RouterId> expected{6, 7, 15, 14, 22, 23, 31, 30};
  for (std::uint32_t q = 0; q < 8; ++q) EXPECT_EQ(detail::layout_router(torus, layouts[1], {q, 3}), expected[q]) << q;
}

TEST(GridBlocks, RefusesWhatDoesNotFit) {
  const Machine m = make_machine("torus:4x4,ppn=2");
  EXPECT_NE(test::error_message([&] { test::run_mapper("blocks", m, build_pattern(parse_pattern_spec("halo2d:4x4"))); })
                .find("fill the machine"),
            std::string::npos);
  // 36 routers of one slot: 4x9 blocks of one task cannot be two sizes of 6.
  const Machine six = make_machine("torus:6x6,ppn=1");
  EXPECT_NE(test::error_message([&] { test::run_mapper("blocks", six, build_pattern(parse_pattern_spec("halo2d:4x9"))); })
                .find("does not match"),
            std::string::npos);
}

}  // namespace
}  // namespace taskmap
