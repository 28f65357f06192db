// The evaluator's blocks: routed in parallel, summed in a fixed order, the same loads at any
// thread count, and equal up to rounding to the serial sum in (source, destination) order.
#include <gtest/gtest.h>

#include <cstring>

#include <tbb/task_arena.h>

#include "test_support.h"

namespace taskmap {
namespace {

struct Evaluation {
  Metrics metrics;
  std::vector<double> loads;
};

Evaluation evaluate_with(const MappingProblem& problem, const Mapping& mapping, std::uint64_t block_work, int threads) {
  Evaluation run;
  tbb::task_arena arena(threads);
  arena.execute([&] {
    run.metrics = Evaluator(problem, {.block_work = block_work}).evaluate(problem.graph(), mapping, &run.loads);
  });
  return run;
}

TEST(EvaluationBlocks, EveryChannelOfTheHaloCarriesAQuarterInBlocksToo) {
  // As Evaluator.FourByFourTorusHaloLoadsEveryChannelByAQuarter, routed in blocks of one
  // destination each: every channel carries one flow of 1/4.
  for (const char* spec : {"torus:4x4", "torus:16x16"}) {
    const Machine m = make_machine(spec);
    const CommGraph g = build_pattern(parse_pattern_spec(spec == std::string("torus:4x4") ? "halo2d:4x4" : "halo2d:16x16"));
    const MappingProblem problem(m, g, "minimal");
    const Mapping mapping = test::run_mapper_on(problem, "default");
    const Evaluation run = evaluate_with(problem, mapping, 1, 2);
    for (double l : run.loads) EXPECT_EQ(l, 0.25);
    EXPECT_EQ(run.metrics.router_pairs, 4u * m.num_routers);
    EXPECT_EQ(run.metrics.router_pair_hops, 4u * m.num_routers);
    EXPECT_DOUBLE_EQ(run.metrics.avg_routed_hops, 1.0);
  }
}

TEST(EvaluationBlocks, LoadsAreTheSameBitForBitAtAnyThreadCount) {
  // A random placement: long flows, many of them towards each router, so that the minimal
  // split merges them; blocks far smaller than the work.
  const Machine m = make_machine("torus:8x8x4,ppn=4");
  const CommGraph g = build_pattern(parse_pattern_spec("halo3d:16x8x8"));
  for (const char* routing : {"minimal", "dor", "dor:ties=simgrid"}) {
    const MappingProblem problem(m, g, routing);
    const Mapping mapping = test::run_mapper_on(problem, "random:seed=3");
    const Evaluation one = evaluate_with(problem, mapping, 1, 1);
    ASSERT_GT(one.metrics.channel_updates, 0u);
    for (int threads : {2, 4}) {
      const Evaluation many = evaluate_with(problem, mapping, 1, threads);
      ASSERT_EQ(one.loads.size(), many.loads.size());
      EXPECT_EQ(std::memcmp(one.loads.data(), many.loads.data(), one.loads.size() * sizeof(double)), 0)
          << routing << ", " << threads << " threads";
      EXPECT_EQ(one.metrics.mcl, many.metrics.mcl);
      EXPECT_EQ(one.metrics.avg_routed_hops, many.metrics.avg_routed_hops);
      EXPECT_EQ(one.metrics.channel_updates, many.metrics.channel_updates);
    }
  }
}

TEST(EvaluationBlocks, BlocksAgreeWithTheSerialSum) {
  const Machine m = make_machine("torus:8x8x4,ppn=4");
  const CommGraph g = build_pattern(parse_pattern_spec("halo3d:16x8x8"));
  for (const char* routing : {"minimal", "dor"}) {
    const MappingProblem problem(m, g, routing);
    const Mapping mapping = test::run_mapper_on(problem, "random:seed=3");
    const Evaluation serial = evaluate_with(problem, mapping, UINT64_MAX, 2);
    const Evaluation blocks = evaluate_with(problem, mapping, 1, 2);
    double top = 0;
    for (double l : serial.loads) top = std::max(top, l);
    for (std::size_t c = 0; c < serial.loads.size(); ++c) ASSERT_NEAR(blocks.loads[c], serial.loads[c], 1e-12 * top);
    EXPECT_NEAR(blocks.metrics.mcl, serial.metrics.mcl, 1e-12 * serial.metrics.mcl);
    // Both models route along minimal paths: the volume-weighted mean of the routed hops is
    // the hop-bytes per volume crossing the network. The serial sum runs over some 10^5
    // shares, hence its looser bound.
    const double dilation = serial.metrics.hop_bytes / serial.metrics.network_volume;
    EXPECT_NEAR(blocks.metrics.avg_routed_hops, dilation, 1e-12 * dilation);
    EXPECT_NEAR(serial.metrics.avg_routed_hops, dilation, 1e-10 * dilation);
    EXPECT_EQ(blocks.metrics.router_pairs, serial.metrics.router_pairs);
    EXPECT_EQ(blocks.metrics.router_pair_hops, serial.metrics.router_pair_hops);
    EXPECT_EQ(blocks.metrics.hop_bytes, serial.metrics.hop_bytes);  // summed in task order either way
    if (std::string(routing) == "minimal") {
      // Flows towards one router merged: fewer additions than the flows' own boxes.
      EXPECT_LT(blocks.metrics.channel_updates, serial.metrics.channel_updates);
    } else {
      EXPECT_EQ(blocks.metrics.channel_updates, serial.metrics.channel_updates);
    }
  }
}

}  // namespace
}  // namespace taskmap
