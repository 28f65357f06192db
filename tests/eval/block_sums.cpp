// The evaluator's routing by blocks of destinations (what the processes of an MPI launch share):
// the same loads as routing the router pairs one by one, and hand-derived ones.
#include <gtest/gtest.h>

#include <cmath>

#include "test_support.h"

namespace taskmap {
namespace {

struct Evaluation {
  Metrics metrics;
  std::vector<double> loads;
};

Evaluation evaluate_in_blocks(const MappingProblem& problem, const Mapping& mapping, std::uint64_t block_work) {
  Evaluation e;
  e.metrics = Evaluator(problem, EvaluatorOptions{.block_work = block_work}).evaluate(problem.graph(), mapping, &e.loads);
  return e;
}

// A periodic ring of 8 tasks on torus:8, task t on router 3t mod 8, minimal routing: every
// neighbour is 3 hops away in one direction (3 < 8 / 2), 16 flows of 1/4 over 3 hops each,
// spread evenly: every channel carries 3/4. A block of 4 units of work holds one destination
// (2 task pairs of 3 + 1 each): 8 blocks, each its own sum.
TEST(EvaluationBlocks, EachDestinationItsOwnBlockGivesTheHandDerivedLoads) {
  const Machine m = make_machine("torus:8");
  const CommGraph g = build_pattern(parse_pattern_spec("halo2d:1x8"));
  const MappingProblem problem(m, g, "minimal");
  Mapping map;
  for (TaskId t = 0; t < 8; ++t) map.slot_of_task.push_back((3 * t) % 8);
  const Evaluation e = evaluate_in_blocks(problem, map, 4);
  for (double l : e.loads) EXPECT_EQ(l, 0.75);
  EXPECT_EQ(e.metrics.mcl, 0.75);
  EXPECT_EQ(e.metrics.router_pairs, 16u);
  EXPECT_EQ(e.metrics.channel_updates, 48u);  // 16 pairs x 3 channels
  EXPECT_DOUBLE_EQ(e.metrics.avg_routed_hops, 3.0);
}

// Blocks or not, the loads agree to rounding, and the counts exactly, on a random placement
// under minimal routing (paths split over the minimal box) and under DOR.
TEST(EvaluationBlocks, AgreeWithTheSourceOrderSum) {
  const Machine m = make_machine("torus:4x4x4,ppn=2");
  const CommGraph g = build_pattern(parse_pattern_spec("halo3d:8x4x4"));
  for (const char* routing : {"minimal", "dor"}) {
    SCOPED_TRACE(routing);
    const MappingProblem problem(m, g, routing);
    const Mapping map = test::run_mapper_on(problem, "random:seed=5");
    const Evaluation whole = evaluate_in_blocks(problem, map, 0);  // 2^22: one block
    for (std::uint64_t block_work : {1, 40, 500}) {
      const Evaluation blocks = evaluate_in_blocks(problem, map, block_work);
      ASSERT_EQ(blocks.loads.size(), whole.loads.size());
      for (std::size_t c = 0; c < whole.loads.size(); ++c) {
        EXPECT_NEAR(blocks.loads[c], whole.loads[c], 1e-12 * std::max(1.0, whole.loads[c]));
      }
      EXPECT_NEAR(blocks.metrics.mcl, whole.metrics.mcl, 1e-12 * whole.metrics.mcl);
      EXPECT_EQ(blocks.metrics.hop_bytes, whole.metrics.hop_bytes);  // not routed: the same sum
      EXPECT_EQ(blocks.metrics.router_pairs, whole.metrics.router_pairs);
      EXPECT_EQ(blocks.metrics.channel_updates, whole.metrics.channel_updates);
      EXPECT_EQ(blocks.metrics.channels_used, whole.metrics.channels_used);
    }
  }
}

}  // namespace
}  // namespace taskmap
