// The refiners that cut hop-bytes: TiMEr (label swapping on partial cubes) and refine-hb,
// alone and in pipelines.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

#include "taskmap/core/error.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/map/refine/refine_hop_bytes.h"
#include "taskmap/map/refine/refine_mcl.h"
#include "taskmap/map/refine/region_moves.h"
#include "taskmap/map/refine/timer.h"
#include "taskmap/topology/allocation.h"
#include "taskmap/topology/distance.h"
#include "taskmap/workload/generators.h"
#include "taskmap/workload/pattern_spec.h"
#include "taskmap/workload/readers.h"
#include "test_support.h"

namespace taskmap {
namespace {

using test::run_mapper;

// Tasks per slot of a mapping.
std::vector<std::uint32_t> slot_counts(const Mapping& map, std::uint32_t slots) {
  std::vector<std::uint32_t> counts(slots, 0);
  for (SlotId s : map.slot_of_task) ++counts[s];
  return counts;
}

// A balanced but scattered start: task i of a seeded permutation on slot i mod slots.
Mapping scattered(std::uint32_t tasks, std::uint32_t slots, unsigned seed) {
  std::vector<TaskId> order(tasks);
  for (TaskId t = 0; t < tasks; ++t) order[t] = t;
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  Mapping m;
  m.slot_of_task.resize(tasks);
  for (std::uint32_t i = 0; i < tasks; ++i) m.slot_of_task[order[i]] = i % slots;
  return m;
}

double hop_bytes(const Machine& m, const CommGraph& g, const Mapping& map) {
  auto routing = make_routing(m, default_routing(m));  // minimal routes: hops = shortest distance
  return Evaluator(m, *routing).evaluate(g, map).hop_bytes;
}

TEST(Timer, UntanglesACrossedFourCycleOnTheSquare) {
  // hypercube:d=2 is the square 0-1-3-2. The cycle 0-1-2-3-0 on routers 0,3,1,2 crosses
  // itself: hops 2+1+2+1 = 6. On the square's own cycle every flow takes one hop: 4 (hand).
  const Machine m = make_machine("hypercube:d=2");
  const CommGraph g = CommGraph::from_edges(4, {{0, 1, 1.0}, {1, 2, 1.0}, {2, 3, 1.0}, {3, 0, 1.0}});
  Mapping start;
  start.slot_of_task = {0, 3, 1, 2};
  ASSERT_DOUBLE_EQ(hop_bytes(m, g, start), 6.0);
  TimerStats stats;
  const Mapping out = timer_enhance(MappingProblem(m, g), PartialCube::of_machine(m), start, TimerOptions{}, &stats);
  EXPECT_DOUBLE_EQ(stats.hop_bytes_before, 6.0);
  EXPECT_DOUBLE_EQ(stats.hop_bytes_after, 4.0);
  EXPECT_DOUBLE_EQ(hop_bytes(m, g, out), 4.0);
  EXPECT_EQ(stats.label_digits, 2u);
  EXPECT_EQ(stats.extension_digits, 0u);
}

TEST(Timer, NeverWorseKeepsEverySlotsCountAndCountsHopBytesLikeTheEvaluator) {
  // 400 tasks of a 20x20 halo on 16 routers (25 per slot, 5 extension digits), from a
  // scattered start and from scotch's; on a mesh, a torus and a hypercube (partial cubes).
  const CommGraph g = make_halo2d(20, 20, 9, true);
  for (const char* spec : {"mesh:4x4", "torus:4x4", "hypercube:d=4", "mesh:2x2x4,ppn=2"}) {
    const Machine m = make_machine(spec);
    const PartialCube cube = PartialCube::of_machine(m);
    for (int start_kind = 0; start_kind < 2; ++start_kind) {
      const Mapping start = start_kind == 0 ? scattered(g.num_tasks(), m.num_slots(), 4)
                                            : run_mapper("scotch", m, g);
      TimerStats stats;
      const Mapping out = timer_enhance(MappingProblem(m, g), cube, start, TimerOptions{}, &stats);
      const double before = hop_bytes(m, g, start), after = hop_bytes(m, g, out);
      EXPECT_NEAR(stats.hop_bytes_before, before, 1e-9 * before) << spec;
      EXPECT_NEAR(stats.hop_bytes_after, after, 1e-9 * before) << spec;
      EXPECT_LE(after, before) << spec;
      if (start_kind == 0) {
        EXPECT_LT(after, 0.8 * before) << spec << ": a scattered start leaves much to gain";
      }
      EXPECT_EQ(slot_counts(out, m.num_slots()), slot_counts(start, m.num_slots())) << spec;
    }
  }
}

TEST(Timer, NeverWorseThanScotchOnPgpGiantCompo) {
  const std::string path = test::shared_data("graphs/PGPgiantcompo.graph.gz");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const CommGraph g = read_pattern_file(path, PatternFormat::Metis);
  const Machine m = make_machine("torus:8x8x8");
  const Mapping start = run_mapper("scotch", m, g);
  TimerOptions o;
  o.hierarchies = 10;
  const Mapping out = timer_enhance(MappingProblem(m, g), PartialCube::of_machine(m), start, o);
  EXPECT_LE(hop_bytes(m, g, out), hop_bytes(m, g, start));
  EXPECT_EQ(slot_counts(out, m.num_slots()), slot_counts(start, m.num_slots()));
}

TEST(Timer, RefusesMachinesThatAreNotPartialCubes) {
  const CommGraph g = make_halo2d(4, 4, 5, true);
  for (const char* spec : {"torus:3x4", "dragonfly:p=1,a=4,h=1"}) {
    const Machine m = make_machine(spec);
    try {
      run_mapper("default+timer", m, g);
      ADD_FAILURE() << spec;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--mapper 'timer': "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("is not a partial cube"), std::string::npos) << e.what();
    }
  }
}

TEST(RefineHopBytes, ReachesTheOptimumOfAChainOnALine) {
  // Chain 0-1-...-7 (volume 1) on mesh:4 with 2 slots per router, task i on router i mod 4:
  // hops 1+1+1+3+1+1+1 = 9. Four routers must each hold two tasks, so the chain crosses at
  // least 3 router boundaries; pairs (0,1),(2,3),... on routers 0..3 achieve 3 (hand-derived).
  const Machine m = make_machine("mesh:4,ppn=2");
  std::vector<CommEdge> edges;
  for (TaskId t = 0; t + 1 < 8; ++t) edges.push_back({t, t + 1, 1.0});
  const CommGraph g = CommGraph::from_edges(8, std::move(edges));
  Mapping start;
  for (TaskId t = 0; t < 8; ++t) start.slot_of_task.push_back((t % 4) * 2 + t / 4);
  ASSERT_DOUBLE_EQ(hop_bytes(m, g, start), 9.0);
  HopBytesRefineStats stats;
  const Mapping out = refine_hop_bytes(MappingProblem(m, g), start, HopBytesRefineOptions{}, &stats);
  validate_mapping(out, m, g.num_tasks(), "refine-hb");
  EXPECT_DOUBLE_EQ(stats.before, 9.0);
  EXPECT_DOUBLE_EQ(stats.after, 3.0);
  EXPECT_DOUBLE_EQ(hop_bytes(m, g, out), 3.0);
}

TEST(RefineHopBytes, OnAFabricOfMoreThan4096RoutersItsHopsComeFromTheJobsRouters) {
  // A Slurm tree of 4,100 hosts under two leaves (a: cn0001-cn2050, b: cn2051-cn4100) and a
  // root: 4,103 routers (one per host, then the switches). The job has two nodes on each leaf,
  // 2 slots each: slots 0-1 on cn0001, 2-3 on cn0002, 4-5 on cn2051, 6-7 on cn2052. Two pairs
  // of tasks (volume 1 each way), each split across the leaves: host, leaf, root, leaf, host =
  // 4 hops, 2 x 4 per pair, 16 in all. Moving task 1 next to task 0 and task 3 next to task 2
  // (each onto its partner's node, which has a free slot) leaves no hop: 0.
  const auto path = std::filesystem::temp_directory_path() / fmt::format("taskmap-4100-{}.conf", ::getpid());
  std::ofstream(path) << "SwitchName=root Switches=a,b\nSwitchName=a Nodes=cn[0001-2050]\n"
                         "SwitchName=b Nodes=cn[2051-4100]\n";
  const Machine fabric = make_machine("slurm:" + path.string() + ",ppn=2");
  std::filesystem::remove(path);
  ASSERT_EQ(fabric.num_routers, 4103u);
  const Machine m = allocate(fabric, parse_nodes_argument("cn[0001-0002],cn[2051-2052]"));
  ASSERT_EQ(m.num_slots(), 8u);
  const CommGraph g = CommGraph::from_edges(4, {{0, 1, 1.0}, {1, 0, 1.0}, {2, 3, 1.0}, {3, 2, 1.0}});
  const Mapping start{{0, 4, 2, 6}, {}};
  HopBytesRefineStats stats;
  const Mapping out = refine_hop_bytes(MappingProblem(m, g), start, HopBytesRefineOptions{}, &stats);
  EXPECT_DOUBLE_EQ(stats.before, 16.0);
  EXPECT_DOUBLE_EQ(stats.after, 0.0);
  EXPECT_EQ(m.node_of_slot(out.slot_of_task[0]), m.node_of_slot(out.slot_of_task[1]));
  EXPECT_EQ(m.node_of_slot(out.slot_of_task[2]), m.node_of_slot(out.slot_of_task[3]));
}

TEST(RefineHopBytes, NeverWorseAndWithinTheBalanceOnAnyMachine) {
  const CommGraph g = make_halo2d(12, 12, 9, true);
  for (const char* spec : {"torus:4x4", "dragonfly:p=2,a=4,h=2", "percs:ns=16,nd=2", "mesh:3x3,ppn=2"}) {
    const Machine m = make_machine(spec);
    const std::uint32_t per_slot = tasks_per_slot(g.num_tasks(), m.num_slots(), 0.03);
    for (const char* first : {"default", "scotch"}) {
      Mapping start = run_mapper(first, m, g);
      HopBytesRefineOptions o;
      o.per_slot = per_slot;
      HopBytesRefineStats stats;
      const Mapping out = refine_hop_bytes(MappingProblem(m, g), start, o, &stats);
      validate_mapping(out, m, g.num_tasks(), "refine-hb", per_slot);
      const double before = hop_bytes(m, g, start), after = hop_bytes(m, g, out);
      EXPECT_NEAR(stats.before, before, 1e-9 * before) << spec;
      EXPECT_NEAR(stats.after, after, 1e-9 * before) << spec;
      EXPECT_LE(after, before) << spec << " from " << first;
    }
  }
}

// work=N stops the search where N million units run out, with what it reached: between the
// start and the unlimited search's result, the same on every run; a limit above what the
// search spends changes nothing. A cancelled problem stops it with Cancelled.
TEST(RefineHopBytes, StopsWhereItsWorkRunsOutOrWhenCancelled) {
  const Machine m = make_machine("torus:8x8x8,ppn=8");
  const CommGraph g = build_pattern(parse_pattern_spec("halo3d:16x16x16"));
  const MappingProblem problem(m, g);
  const Mapping start = run_mapper("random:seed=1", m, g);
  HopBytesRefineStats full, cut, again, above;
  const Mapping unlimited = refine_hop_bytes(problem, start, {}, &full);
  ASSERT_FALSE(full.out_of_work);
  ASSERT_GT(full.work, 2'000'000u);  // the limit below cuts it
  HopBytesRefineOptions one;
  one.work = 1;
  const Mapping a = refine_hop_bytes(problem, start, one, &cut), b = refine_hop_bytes(problem, start, one, &again);
  EXPECT_TRUE(cut.out_of_work);
  EXPECT_GE(cut.work, 1'000'000u);
  EXPECT_LT(cut.work, full.work);
  EXPECT_EQ(a.slot_of_task, b.slot_of_task);
  EXPECT_LT(cut.after, cut.before);
  EXPECT_GT(cut.after, full.after);
  HopBytesRefineOptions enough;
  enough.work = full.work / 1'000'000 + 1;
  EXPECT_EQ(refine_hop_bytes(problem, start, enough, &above).slot_of_task, unlimited.slot_of_task);
  EXPECT_FALSE(above.out_of_work);
  problem.cancel();
  EXPECT_THROW(refine_hop_bytes(problem, start, {}), Cancelled);
}

TEST(Refiners, PipelinesOfTimerAndRefineHbParse) {
  const MapperSpec p = parse_mapper_spec("scotch+timer:hierarchies=5+refine-hb:rounds=3");
  ASSERT_EQ(p.stages.size(), 3u);
  EXPECT_EQ(p.stages[1].entry().name, "timer");
  EXPECT_EQ(p.stages[1].get_int("hierarchies"), 5);
  EXPECT_EQ(p.stages[2].entry().name, "refine-hb");
  EXPECT_EQ(p.stages[2].get_int("rounds"), 3);
  EXPECT_EQ(parse_mapper_spec("rb:tries=8").stages[0].get_int("tries"), 8);
  EXPECT_THROW(parse_mapper_spec("timer:hierarchies=0"), Error);
  EXPECT_THROW(parse_mapper_spec("refine-hb:rounds=0"), Error);
  EXPECT_THROW(parse_mapper_spec("rb:tries=0"), Error);
  EXPECT_THROW(parse_mapper_spec("timer+scotch"), Error);
}

}  // namespace
}  // namespace taskmap
