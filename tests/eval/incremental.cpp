// IncrementalEvaluator: its loads, hop-bytes, deltas and crossing tasks against full
// evaluations after random moves, and on hand-derived cases.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "taskmap/eval/incremental.h"
#include "taskmap/map/refine/region_moves.h"
#include "taskmap/workload/generators.h"
#include "test_support.h"

namespace taskmap {
namespace {

using test::run_mapper;

// Each task's contribution to the load of `channel` (over its bandwidth), from every flow
// routed again.
std::vector<double> crossing_by_brute_force(const Machine& m, const Routing& routing, const CommGraph& g,
                                            const Mapping& map, ChannelId channel) {
  std::vector<double> share(g.num_tasks(), 0.0);
  const double inv_bandwidth = 1.0 / m.classes[m.channels[channel].link_class].bandwidth;
  for (TaskId a = 0; a < g.num_tasks(); ++a) {
    auto targets = g.targets(a);
    auto volumes = g.volumes(a);
    for (std::size_t e = 0; e < targets.size(); ++e) {
      const RouterId ra = m.router_of_slot(map.slot_of_task[a]), rb = m.router_of_slot(map.slot_of_task[targets[e]]);
      if (ra == rb) continue;
      const auto loads = test::route_loads(routing, ra, rb);
      if (auto it = loads.find(channel); it != loads.end()) {
        share[a] += volumes[e] * it->second * inv_bandwidth, share[targets[e]] += volumes[e] * it->second * inv_bandwidth;
      }
    }
  }
  return share;
}

// tasks_crossing lists exactly the tasks with a share, heaviest first.
void check_crossing(IncrementalEvaluator& loads, const std::vector<double>& share, const std::string& where) {
  const ChannelId c = loads.bottleneck();
  double total = 0;
  for (double s : share) total += s;
  const std::vector<TaskId> listed = loads.tasks_crossing(c);
  std::vector<TaskId> expected;
  for (TaskId t = 0; t < share.size(); ++t)
    if (share[t] > 1e-9 * total) expected.push_back(t);
  std::vector<TaskId> sorted = listed;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(sorted, expected) << where;
  for (std::size_t i = 1; i < listed.size(); ++i)
    ASSERT_GE(share[listed[i - 1]], share[listed[i]] * (1 - 1e-9)) << where << ": heaviest first";
}

// After every one of a random sequence of moves, swaps and region moves, the incremental MCL,
// hop-bytes and spread equal a full evaluation, try_move/try_relocate predicted them, and
// hop_delta predicted the hop-bytes change.
void check_random_moves(const std::string& machine_spec, const std::string& routing_spec, const CommGraph& g,
                        const char* first = "random:seed=3", std::uint32_t per_slot = 1) {
  const Machine m = make_machine(machine_spec);
  auto routing = make_routing(m, parse_routing_spec(routing_spec));
  const Evaluator evaluator(m, *routing);
  Mapping start = run_mapper(first, m, g);
  IncrementalEvaluator loads(MappingProblem(m, g, routing_spec), start, per_slot, IncrementalEvaluator::Track::Loads);
  const RegionMoves region(m);
  const std::uint32_t per_router = m.nodes_per_router * m.slots_per_node;
  std::vector<std::pair<RouterId, RouterId>> pairs;
  std::mt19937 rng(7);
  for (int step = 0; step < 150; ++step) {
    LoadScore predicted;
    double predicted_hop_change = 0;
    const double hop_bytes_before = evaluator.evaluate(g, loads.mapping()).hop_bytes;
    const bool region_step = step % 3 == 2 && region.get(rng() % region.size(), pairs);
    if (region_step) {
      // Every third step a region move: all tasks of each router in it move together.
      std::vector<Relocation> moves;
      for (auto [from, to] : pairs)
        for (std::uint32_t k = 0; k < per_router; ++k)
          for (TaskId t : loads.tasks_on(from * per_router + k)) moves.push_back({t, to * per_router + k});
      predicted = loads.try_relocate(moves);
      predicted_hop_change = loads.hop_delta(moves).change;
      loads.relocate(moves);
    } else {
      const auto t = static_cast<TaskId>(rng() % g.num_tasks());
      const auto s = static_cast<SlotId>(rng() % m.num_slots());
      predicted = loads.try_move(t, s);
      predicted_hop_change = predicted.hop_bytes - loads.hop_bytes();
      loads.move(t, s);
    }
    validate_mapping(loads.mapping(), m, g.num_tasks(), "test", per_slot);
    const Metrics full = evaluator.evaluate(g, loads.mapping());
    const LoadScore now = loads.score();
    ASSERT_NEAR(now.mcl, full.mcl, 1e-9 * std::max(1.0, full.mcl)) << machine_spec << " step " << step;
    ASSERT_NEAR(now.hop_bytes, full.hop_bytes, 1e-6) << machine_spec << " step " << step;
    ASSERT_NEAR(predicted.mcl, now.mcl, 1e-9 * std::max(1.0, now.mcl));
    ASSERT_EQ(predicted.at_mcl, now.at_mcl);
    ASSERT_NEAR(predicted.spread, now.spread, 1e-9 * std::max(1.0, now.spread));
    ASSERT_NEAR(predicted_hop_change, full.hop_bytes - hop_bytes_before, 1e-6) << machine_spec << " step " << step;
    if (step % 10 == 0) {
      // The tasks crossing the bottleneck, kept up to date since the last scan.
      check_crossing(loads, crossing_by_brute_force(m, *routing, g, loads.mapping(), loads.bottleneck()),
                     machine_spec + " step " + std::to_string(step));
    }
  }
  // The spread is the sum over channels of (load / bandwidth / unit)^4, the unit being the
  // heaviest flow's volume over the widest class's bandwidth.
  double heaviest = 0, widest = 0;
  for (TaskId t = 0; t < g.num_tasks(); ++t)
    for (double v : g.volumes(t)) heaviest = std::max(heaviest, v);
  for (const LinkClass& c : m.classes) widest = std::max(widest, c.bandwidth);
  std::vector<double> end;
  evaluator.evaluate(g, loads.mapping(), &end);
  double spread = 0;
  for (std::size_t c = 0; c < end.size(); ++c)
    spread += std::pow(end[c] / m.classes[m.channels[c].link_class].bandwidth / (heaviest / widest), 4);
  EXPECT_NEAR(loads.score().spread, spread, 1e-9 * spread) << machine_spec;
}

TEST(IncrementalEvaluator, AgreesWithTheEvaluatorAfterRandomMoves) {
  // Fewer tasks than slots, so moves to free slots happen as well as swaps.
  check_random_moves("torus:4x4x2,ppn=2", "minimal", make_halo2d(5, 8, 9, true));
  check_random_moves("mesh:4x4,ppn=1", "dor", make_transpose(4, 3));
  check_random_moves("dragonfly:p=2,a=4,h=2", "minimal", make_halo2d(6, 6, 5, true));
  check_random_moves("percs:ns=16,nd=2", "direct", make_halo2d(8, 8, 5, true));
  // Many-to-one: 20 tasks on 8 slots, at most 3 per slot (3% balance); full slots swap.
  check_random_moves("torus:2x2x2", "minimal", make_halo2d(4, 5, 9, true), "default", tasks_per_slot(20, 8, 0.03));
  // 4,352 routers, beyond the problem's route cache: routes computed and kept by the evaluator.
  check_random_moves("torus:17x16x16", "dor", make_halo3d(4, 4, 4, 7, true));
}

TEST(IncrementalEvaluator, HopDeltaAndTaskCostsOnALine) {
  // mesh:4, flows 0 -> 1 (volume 1) and 1 -> 0 (volume 2), tasks on routers 0 and 3:
  // hop-bytes (1 + 2) x 3 = 9. Moving task 1 to router 1: 3 x 1 = 3, a change of -6, over a
  // cut of volume 3 (hand-derived). Task 0's cost at router x is 3 x |x - 3|.
  const Machine m = make_machine("mesh:4");
  const CommGraph g = CommGraph::from_edges(2, {{0, 1, 1.0}, {1, 0, 2.0}});
  Mapping start;
  start.slot_of_task = {0, 3};
  IncrementalEvaluator eval(MappingProblem(m, g), start, 1, IncrementalEvaluator::Track::HopBytes);
  EXPECT_DOUBLE_EQ(eval.hop_bytes(), 9.0);
  EXPECT_DOUBLE_EQ(eval.volume_between(0, 1), 3.0);
  EXPECT_DOUBLE_EQ(eval.volume_between(1, 0), 3.0);
  eval.gather(0);
  for (RouterId x = 0; x < 4; ++x) {
    EXPECT_DOUBLE_EQ(eval.task_cost(0, x), 3.0 * std::abs(int(x) - 3));
    EXPECT_DOUBLE_EQ(eval.cost_at(x), eval.task_cost(0, x));
  }
  const Relocation move{1, 1};
  const auto d = eval.hop_delta({&move, 1});
  EXPECT_DOUBLE_EQ(d.change, -6.0);
  EXPECT_DOUBLE_EQ(d.cut_volume, 3.0);
  eval.relocate({&move, 1});
  EXPECT_DOUBLE_EQ(eval.hop_bytes(), 3.0);
  EXPECT_DOUBLE_EQ(eval.recompute_hop_bytes(), 3.0);
  EXPECT_EQ(eval.router_of(1), 1u);
  EXPECT_EQ(eval.free_slot(3), 3u);
  EXPECT_EQ(eval.free_slot(1), UINT32_MAX);
  // Both tasks moved one router to the right: the distance stays 1, nothing changes, and the
  // pair between them is no cut.
  const Relocation both[2] = {{0, 1}, {1, 2}};
  const auto shift = eval.hop_delta(both);
  EXPECT_DOUBLE_EQ(shift.change, 0.0);
  EXPECT_DOUBLE_EQ(shift.cut_volume, 0.0);
}

TEST(IncrementalEvaluator, LoadsOfAFlowAcrossALine) {
  // mesh:4 under minimal routing, one flow 0 -> 1 of volume 1 between routers 0 and 3: three
  // channels carry 1, so the MCL is 1 on 3 channels, and the tasks crossing the first of them
  // are both ends (hand-derived). Task 1 moved next to task 0: one channel carries 1.
  const Machine m = make_machine("mesh:4");
  const CommGraph g = CommGraph::from_edges(2, {{0, 1, 1.0}});
  Mapping start;
  start.slot_of_task = {0, 3};
  IncrementalEvaluator eval(MappingProblem(m, g, "minimal"), start, 1, IncrementalEvaluator::Track::Loads);
  EXPECT_DOUBLE_EQ(eval.score().mcl, 1.0);
  EXPECT_EQ(eval.score().at_mcl, 3u);
  EXPECT_EQ(eval.tasks_crossing(eval.bottleneck()), (std::vector<TaskId>{0, 1}));
  const LoadScore predicted = eval.try_move(1, 1);
  EXPECT_DOUBLE_EQ(predicted.mcl, 1.0);
  EXPECT_EQ(predicted.at_mcl, 1u);
  EXPECT_DOUBLE_EQ(predicted.hop_bytes, 1.0);
  EXPECT_TRUE(predicted.better_than(eval.score()));
  eval.move(1, 1);
  EXPECT_EQ(eval.score().at_mcl, 1u);
  // Every other channel is idle: the crossing tasks of the bottleneck are the two ends again.
  EXPECT_EQ(eval.tasks_crossing(eval.bottleneck()), (std::vector<TaskId>{0, 1}));
}

TEST(LoadScore, OrdersByMclThenChannelsAtItThenSpreadThenHopBytes) {
  const LoadScore base{2.0, 3, 10.0, 100.0};
  EXPECT_TRUE((LoadScore{1.9, 9, 99.0, 999.0}.better_than(base)));
  EXPECT_TRUE((LoadScore{2.0, 2, 99.0, 999.0}.better_than(base)));
  EXPECT_TRUE((LoadScore{2.0, 3, 9.0, 999.0}.better_than(base)));
  EXPECT_TRUE((LoadScore{2.0, 3, 10.0, 99.0}.better_than(base)));
  EXPECT_FALSE(base.better_than(base));
  // Within 1e-9 (relative) the MCL and the spread count as equal.
  EXPECT_TRUE((LoadScore{2.0 + 1e-12, 3, 10.0, 99.0}.better_than(base)));
  EXPECT_TRUE((LoadScore{2.0, 3, 10.0 + 1e-12, 99.0}.better_than(base)));
}

}  // namespace
}  // namespace taskmap
