// blocks: the task grid in blocks of one router's slots, laid onto the torus.
#include <gtest/gtest.h>

#include "taskmap/eval/evaluator.h"
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
