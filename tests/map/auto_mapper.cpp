// auto: never worse than any mapper it tried (the launchers' defaults, scotch+refine-hb and
// rb+refine-hb among them), the same
// result every run, the optimum where it is known, and docs/auto.md names its portfolio.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>

#include "taskmap/eval/evaluator.h"
#include "taskmap/map/partition/partition_mappers.h"
#include "taskmap/map/portfolio/auto_mapper.h"
#include "taskmap/topology/allocation.h"
#include "taskmap/topology/fabric.h"
#include "taskmap/workload/generators.h"
#include "test_support.h"

namespace taskmap {
namespace {

// a is no worse than b: lower MCL, or the same MCL (to rounding) and no more hop-bytes; or the
// same with the roles of the two metrics exchanged.
bool no_worse(const Metrics& a, const Metrics& b, bool mcl_first) {
  const double a1 = mcl_first ? a.mcl : a.hop_bytes, b1 = mcl_first ? b.mcl : b.hop_bytes;
  const double a2 = mcl_first ? a.hop_bytes : a.mcl, b2 = mcl_first ? b.hop_bytes : b.mcl;
  const double tol1 = 1e-9 * std::max(1.0, std::abs(b1)), tol2 = 1e-9 * std::max(1.0, std::abs(b2));
  if (a1 < b1 - tol1) return true;
  if (a1 > b1 + tol1) return false;
  return a2 <= b2 + tol2;
}

struct Case {
  std::string name;
  Machine machine;
  CommGraph graph;
  std::string routing;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"stencil on a 3D torus", make_machine("torus:4x4x4,ppn=2"),
                 build_pattern(parse_pattern_spec("halo3d:8x4x4")), ""});
  out.push_back({"stencil on a 3D torus under dor", make_machine("torus:4x4x4,ppn=2"),
                 build_pattern(parse_pattern_spec("halo3d:8x4x4")), "dor"});
  out.push_back({"CG on a Dragonfly", make_machine("dragonfly:p=2,a=4,h=2"),
                 build_pattern(parse_pattern_spec("npb-cg:64")), ""});
  out.push_back({"a METIS graph on a mesh", make_machine("mesh:4x4,ppn=2"),
                 build_pattern(parse_pattern_spec(fmt::format("file:{}", test::instance("path4.graph")))), ""});
  out.push_back({"more tasks than slots", make_machine("torus:2x2x2,ppn=2"),
                 build_pattern(parse_pattern_spec("halo2d:8x8")), ""});
  out.push_back({"scattered named nodes", allocate(test::four_named_nodes(4),
                                                   parse_nodes_argument(fmt::format("@{}", test::instance("cluster/uneven.hosts")))),
                 build_pattern(parse_pattern_spec("halo2d:2x3")), ""});
  return out;
}

TEST(Auto, NeverWorseThanAnyMapperOfItsFirstRoundNorThePartitionPipelines) {
  for (const Case& c : cases()) {
    for (const char* objective : {"mcl", "hop-bytes"}) {
      SCOPED_TRACE(fmt::format("{}, objective {}", c.name, objective));
      const MappingProblem problem(c.machine, c.graph, c.routing);
      const Evaluator evaluator(problem);
      // uplink-slack=0: MCL first, with no room for fewer leaf-uplink bytes (the default slack's
      // bound is checked below).
      const Mapping chosen =
          test::run_mapper_on(problem, fmt::format("auto:objective={},budget=20,uplink-slack=0", objective));
      validate_mapping(chosen, c.machine, c.graph.num_tasks(), "auto", problem.tasks_per_slot());
      const Metrics mine = evaluator.evaluate(c.graph, chosen);
      const Metrics slack = evaluator.evaluate(c.graph, test::run_mapper_on(problem, fmt::format("auto:objective={},budget=20", objective)));
      int compared = 0;
      // The best of the first round that is not a partitioner, refined for hop-bytes, is one
      // of auto's results whichever mapper leads.
      const std::vector<std::string> portfolio = auto_portfolio(problem);
      auto partitioner = [](const std::string& spec) {
        return spec == "scotch" || spec == "rb" || spec == "rb:tries=16" || spec == "rb:tries=16,split=leaves";
      };
      std::string best_other;
      Metrics best_other_metrics;
      bool tied = false;
      std::vector<std::string> specs = portfolio;
      for (const char* pipeline : {"scotch+refine-hb", "rb+refine-hb"}) specs.push_back(pipeline);
      if (c.graph.num_tasks() > c.machine.num_slots()) specs.push_back("rb:tries=16+refine-hb");
      for (const std::string& spec : specs) {
        if (!why_not_applicable(parse_mapper_spec(spec), problem).empty()) continue;
        Mapping other;
        try {
          other = test::run_mapper_on(problem, spec);
        } catch (const Error&) {
          continue;  // e.g. a structured mapper without the task grid it needs
        }
        const Metrics theirs = evaluator.evaluate(c.graph, other);
        const bool first_round = std::find(portfolio.begin(), portfolio.end(), spec) != portfolio.end();
        if (first_round && !partitioner(spec)) {
          const bool mcl = objective == std::string("mcl");
          if (best_other.empty() || !no_worse(best_other_metrics, theirs, mcl)) {
            best_other = spec;
            best_other_metrics = theirs;
            tied = false;
          } else if (no_worse(theirs, best_other_metrics, mcl)) {
            tied = true;  // auto breaks such ties by traffic inside nodes too: either may be refined
          }
        }
        EXPECT_TRUE(no_worse(mine, theirs, objective == std::string("mcl")))
            << spec << " is better than auto (" << chosen.note << ")";
        // With the default slack: an MCL at most 5% above any other's, never above a launcher's.
        const bool launcher = spec == "default" || spec == "hostname-order" || spec == "cyclic";
        if (objective == std::string("mcl")) {
          EXPECT_LE(slack.mcl, theirs.mcl * (1 + (launcher ? 0 : AutoOptions{}.uplink_slack) + 1e-9)) << spec;
        } else {
          EXPECT_TRUE(no_worse(slack, theirs, false)) << spec;
        }
        ++compared;
      }
      EXPECT_GE(compared, 4);  // default, hostname-order, and at least greedy and rb
      ASSERT_FALSE(best_other.empty());
      if (tied) continue;
      const Metrics refined = evaluator.evaluate(c.graph, test::run_mapper_on(problem, best_other + "+refine-hb"));
      EXPECT_TRUE(no_worse(mine, refined, objective == std::string("mcl")))
          << best_other << "+refine-hb is better than auto (" << chosen.note << ")";
    }
  }
}

TEST(Auto, FindsTheOptimumOfAScrambledRing) {
  // 8 tasks in a ring under a scrambled numbering (task order[i] sends 1 to order[i + 1]) on an
  // 8-router ring. Every flow crosses at least one channel, and a flow between routers 4 apart
  // (the only split route) loads 8 channels with 1/2, so the best MCL is 1: each flow on one
  // channel of its own, hop-bytes 8. The default order (task t on router t) does worse.
  const std::vector<TaskId> order = {0, 5, 2, 7, 4, 1, 6, 3};
  std::vector<CommEdge> edges;
  for (std::size_t i = 0; i < order.size(); ++i) edges.push_back({order[i], order[(i + 1) % order.size()], 1.0});
  const CommGraph g = CommGraph::from_edges(8, edges);
  const Machine m = make_machine("torus:8");
  const MappingProblem problem(m, g);
  const Evaluator evaluator(problem);
  EXPECT_GT(evaluator.evaluate(g, test::run_mapper_on(problem, "default")).mcl, 1.0);
  const Metrics best = evaluator.evaluate(g, test::run_mapper_on(problem, "auto"));
  EXPECT_DOUBLE_EQ(best.mcl, 1.0);
  EXPECT_DOUBLE_EQ(best.hop_bytes, 8.0);
}

TEST(Auto, GivesTheSameMappingEveryRun) {
  const Machine m = make_machine("torus:4x4x4,ppn=2");
  const CommGraph g = build_pattern(parse_pattern_spec("npb-cg:128"));
  const Mapping a = test::run_mapper("auto:budget=30,seed=7", m, g), b = test::run_mapper("auto:budget=30,seed=7", m, g);
  EXPECT_EQ(a.slot_of_task, b.slot_of_task);
  EXPECT_EQ(a.note, b.note);
  EXPECT_NE(a.note.find("auto:budget=30,seed=7: chose "), std::string::npos) << a.note;
}

// On leaf switches its MCL searches (four here) run at once; their results are taken in a
// fixed order, so one thread and four give the same choice: here
// one of the searches' results (the 5-point stencil of CutsATreeAtItsLeaves..., below).
TEST(Auto, GivesTheSameMappingAtEveryThreadCount) {
  const Machine m = test::two_leaves_alternating(8);
  const CommGraph g = build_pattern(parse_pattern_spec("halo2d:8x4,periodic=false"));
  std::vector<Mapping> runs;
  for (int threads : {1, 4}) {
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    runs.push_back(test::run_mapper("auto:budget=2", m, g));
  }
  EXPECT_EQ(runs[0].slot_of_task, runs[1].slot_of_task);
  EXPECT_EQ(runs[0].note, runs[1].note);
  EXPECT_NE(runs[0].note.find("+refine-mcl:work=2"), std::string::npos) << runs[0].note;
}

// Under work=N, the rule of auto_mapper.h: the route cache's 10 units and each candidate's
// predicted units per task-graph edge and task count against half of N million in the
// portfolio's order. halo3d:8x8x8 (27-point, periodic) has 512 tasks and 512 x 26 = 13,312
// edges: 13,824 x 10 = 138,240 for the routes, 13,824 x 6 = 82,944 for each of default,
// hostname-order, cyclic, blocks and hilbert (552,960 in all), rahtm 13,824 x 2,006 (27.7
// million: beyond 5 million), greedy 13,824 x 26 (359,424), rb x 26 (359,424), scotch x 51
// (705,024), then ml x 606 (8.4 million: beyond). Of the 8,023,168 units left, the MCL search
// (one on a torus) gets half, 4 million, the hop-bytes refinements share the other half.
TEST(Auto, AWorkLimitSharesTheWorkByOneRule) {
  const Machine m = make_machine("torus:4x4x4,ppn=8");
  const CommGraph g = build_pattern(parse_pattern_spec("halo3d:8x8x8,points=27"));
  ASSERT_EQ(g.num_edges(), 13'312u);
  const MappingProblem problem(m, g);
  EXPECT_EQ(route_work(problem), 138'240u);
  EXPECT_EQ(predicted_work("hostname-order", problem), 82'944u);
  EXPECT_EQ(predicted_work("scotch", problem), 13'824u * 51);
  EXPECT_EQ(predicted_work("scotch:strategy=speed", problem), 13'824u * 46);
  const Mapping chosen = test::run_mapper_on(problem, "auto:work=10");
  EXPECT_NE(chosen.note.find("rahtm, ml: beyond the work limit"), std::string::npos) << chosen.note;
  EXPECT_EQ(chosen.note.find("scotch: beyond"), std::string::npos) << chosen.note;
  // 8 first-round results; refine-hb from blocks (the best), rb and scotch (1 million each);
  // one MCL search: 12.
  EXPECT_NE(chosen.note.find(" among 12 results; "), std::string::npos) << chosen.note;
  EXPECT_EQ(chosen.slot_of_task, test::run_mapper_on(problem, "auto:work=10").slot_of_task);
  // Cancelled, it stops with Cancelled: not a candidate failing, which it would leave out.
  problem.cancel();
  EXPECT_THROW(test::run_mapper_on(problem, "auto"), Cancelled);
}

// Where routes are wide, an evaluation costs what the launchers' evaluations measured: a
// 27-point halo of 512 tasks (E + n = 13,824) on the 512 hosts of a 3-level 8-ary fat tree
// under ecmp, whose routes between pods spread over every spine, adds over a hundred channel
// loads per task pair (evaluator's count), so an evaluation is predicted at a quarter unit
// each, far above 6 x 13,824 = 82,944. Under work=2 (1 million for the first round) the routes (138,240)
// and the three launchers' orders leave no room; with 82,944 per evaluation greedy (82,944 +
// 20 x 13,824) would have fitted (746,496 in all).
TEST(Auto, WideRoutesMakeEvaluationsCostWhatTheLaunchersMeasured) {
  const Machine m = make_machine("fattree:k=8,n=3");
  const CommGraph g = build_pattern(parse_pattern_spec("halo3d:8x8x8,points=27"));
  const MappingProblem problem(m, g, "ecmp");
  const Metrics launcher = Evaluator(problem).evaluate(g, test::run_mapper_on(problem, "hostname-order"));
  ASSERT_GT(launcher.channel_updates, 100u * g.num_edges());
  EXPECT_EQ(evaluation_work(problem, {}), 82'944u);
  EXPECT_EQ(evaluation_work(problem, {launcher}), (launcher.channel_updates + 3) / 4);
  EXPECT_EQ(predicted_work("greedy", problem), 82'944u + 20 * 13'824u);
  const Mapping chosen = test::run_mapper_on(problem, "auto:work=2");
  EXPECT_NE(chosen.note.find("left out: greedy, rb, scotch, ml,"), std::string::npos) << chosen.note;
  EXPECT_NE(chosen.note.find(" among 3 results; "), std::string::npos) << chosen.note;
}

// A candidate whose prediction does not fit runs in its cheaper form where that fits: 32,768
// tasks (halo3d:32x32x32, 7 points: 196,608 edges, 229,376 edges and tasks), twice the size up
// to which Scotch's quality strategy is predicted linear: 45 x 2^1.5 = 128 units of its own (134
// with the evaluation), the speed strategy 40 (46). Before Scotch's turn the routes (10), five
// launcher and structured orders (6 each), greedy and rb (26 each) took 92 x 229,376 = 21.1
// million; quality would end at 51.8 million, speed at 31.7: under work=80 (40 million for the
// first round) Scotch runs with the speed strategy. (Each mapper stands in by the default
// order here: the rule is tested, not their results.)
TEST(Auto, ACandidateBeyondTheLimitRunsInItsCheaperForm) {
  const Machine m = make_machine("torus:8x8x8,ppn=64");
  const CommGraph g = build_pattern(parse_pattern_spec("halo3d:32x32x32"));
  const MappingProblem problem(m, g);
  EXPECT_EQ(predicted_work("scotch", problem), 229'376u * 134);
  std::vector<std::string> made;
  MapperFactory factory{[&](std::string_view spec) -> std::unique_ptr<Mapper> {
                          made.emplace_back(spec);
                          return make_mapper(parse_mapper_spec("default"));
                        },
                        [](std::string_view spec, const MappingProblem& p) {
                          return why_not_applicable(parse_mapper_spec(spec), p);
                        }};
  AutoOptions options;
  options.work = 80;
  make_auto_mapper({"auto:work=80", {}}, options, std::move(factory))->run(problem);
  EXPECT_NE(std::find(made.begin(), made.end(), "scotch:strategy=speed"), made.end());
  EXPECT_EQ(std::find(made.begin(), made.end(), "scotch"), made.end());
}

// With two workers (one process running both in turn), the same rule per worker: each first-
// round candidate goes to the worker with the least predicted work, within 5 million each
// (default, cyclic, hilbert and rb on one, hostname-order, blocks, greedy and scotch on the
// other: 1,368,576 units at most; rahtm and ml left out); the 3 hop-bytes refinements and 2
// MCL searches (the second from another seed, so that no worker idles): 13 results. Both
// workers' times are measured.
TEST(Auto, TwoWorkersShareTheJobsByTheSameRule) {
  const Machine m = make_machine("torus:4x4x4,ppn=8");
  const CommGraph g = build_pattern(parse_pattern_spec("halo3d:8x8x8,points=27"));
  const MappingProblem problem(m, g);
  const Mapping chosen = test::run_mapper_on(problem, "auto:work=10,workers=2");
  EXPECT_NE(chosen.note.find(" among 13 results; left out: rahtm, ml: beyond the work limit"), std::string::npos)
      << chosen.note;
  const std::vector<double> seconds = auto_worker_seconds();
  ASSERT_EQ(seconds.size(), 2u);
  EXPECT_GT(seconds[0], 0.0);
  EXPECT_GT(seconds[1], 0.0);
  EXPECT_EQ(chosen.slot_of_task, test::run_mapper_on(problem, "auto:work=10,workers=2").slot_of_task);
}

// two_planes.topo under updn: no route between the management hosts m1 and m2. The candidates
// whose placements make them talk are left out, named, with the reason said once.
TEST(Auto, CandidatesLeftOutForOneReasonAreNamedTogether) {
  const std::string file = test::instance("ibnet/two_planes.topo");
  const Machine m = make_machine("ibnet:" + file);
  const CommGraph g = build_pattern(parse_pattern_spec("halo2d:2x5"));
  const MappingProblem problem(m, g, "updn");
  const Mapping chosen = test::run_mapper_on(problem, "auto");
  const std::string reason = "ibnet:" + file +
                             ": up*/down* from the 2 top switches has no route from host 'm1' to host 'm2' (no top "
                             "switch is above both); use ecmp, or a job without one of them (--nodes)";
  const std::size_t left_out = chosen.note.find("; left out: ");
  ASSERT_NE(left_out, std::string::npos) << chosen.note;
  const std::string tail = chosen.note.substr(left_out + 12);
  EXPECT_EQ(tail.size() - tail.rfind(": " + reason), reason.size() + 2) << tail;  // the reason last, once
  EXPECT_EQ(tail.find(reason), tail.rfind(reason)) << tail;
  EXPECT_NE(tail.find("hostname-order, "), std::string::npos) << tail;  // named, among others
}

// A candidate the system refuses memory is left out like one that fails for a reason of its
// own; the others still run and one of them is chosen.
TEST(Auto, ACandidateOutOfMemoryIsLeftOutAndTheOthersStillRun) {
  struct OutOfMemory final : Mapper {
    Mapping run(const MappingProblem&) const override { throw std::bad_alloc(); }
  };
  const Machine m = make_machine("torus:4x4,ppn=2");
  const CommGraph g = build_pattern(parse_pattern_spec("halo2d:8x4"));
  const MappingProblem problem(m, g);
  MapperFactory factory{[](std::string_view spec) -> std::unique_ptr<Mapper> {
                          if (spec == "greedy") return std::make_unique<OutOfMemory>();
                          return make_mapper(parse_mapper_spec(spec));
                        },
                        [](std::string_view spec, const MappingProblem& p) {
                          return why_not_applicable(parse_mapper_spec(spec), p);
                        }};
  const Mapping chosen = make_auto_mapper({"auto", {}}, AutoOptions{}, std::move(factory))->run(problem);
  EXPECT_NE(chosen.note.find("; left out: greedy: out of memory"), std::string::npos) << chosen.note;
  EXPECT_NE(chosen.note.find("among "), std::string::npos) << chosen.note;
  const Mapping plain = test::run_mapper_on(problem, "auto");
  // greedy is not the winner here, so its absence changes nothing.
  EXPECT_EQ(chosen.slot_of_task, plain.slot_of_task) << plain.note;
}

TEST(Auto, TheMclSearchShrinksWhereScoringOneTasksMovesCostsMuch) {
  // torus 4x4, one slot per router, a periodic 5-point halo on 4x4: every task sends to 4
  // partners and receives from 4 (64 directed edges / 16 tasks x 2 = 8 flows). A candidate
  // task's moves: 16 routers x 1 slot, each re-routing its 8 flows, old and new route at 4
  // units: 16 x 8 x 2 x 4 = 1024 units, far below 2^19: the whole budget, 16 candidates.
  const Machine small = make_machine("torus:4x4");
  const CommGraph halo = build_pattern(parse_pattern_spec("halo2d:4x4,points=5,periodic=true"));
  const MappingProblem few(small, halo);
  EXPECT_EQ(move_work(few), 1024u);
  EXPECT_EQ(mcl_search(few, 100, 16).budget, 100u);
  EXPECT_EQ(mcl_search(few, 100, 16).candidates, 16u);
  // torus 32x32 with 16 slots per router: refine-mcl tries every second slot, 8 per router,
  // 8192 tries; a periodic 9-point halo: 8 partners out and 8 in, 16 flows. 8192 x 16 x 2 x 4
  // = 2^20 units, twice 2^19: the budget halves (100 -> 50 million units), and 50 million buy 8
  // steps of 50e6 / (8 x 2^20) = 5.96 candidates: 5.
  const Machine wide = make_machine("torus:32x32,ppn=16");
  const CommGraph halo9 = build_pattern(parse_pattern_spec("halo2d:128x128,points=9,periodic=true"));
  const MappingProblem many(wide, halo9);
  EXPECT_EQ(move_work(many), std::uint64_t{1} << 20);
  EXPECT_EQ(mcl_search(many, 100, 16).budget, 50u);
  EXPECT_EQ(mcl_search(many, 100, 16).candidates, 5u);
  // A budget of 0 stays 0 (no MCL search); a tiny one keeps at least 1 million units and 1 candidate.
  EXPECT_EQ(mcl_search(many, 0, 16).budget, 0u);
  EXPECT_EQ(mcl_search(many, 1, 16).budget, 1u);
  EXPECT_EQ(mcl_search(many, 1, 16).candidates, 1u);
}

// Under forwarding tables the switch links' loads are the ones the job will see: within the
// MCL slack the least network MCL comes first, then the uplink volume; an equal MCL goes to
// the lower network MCL on any machine.
TEST(Auto, UnderForwardingTablesTheLeastNetworkMclWinsWithinTheSlack) {
  auto with = [](double mcl, double network, double uplink) {
    Metrics m;
    m.mcl = mcl, m.mcl_network = network, m.hop_bytes = 100, m.leaf_uplink_volume = uplink;
    return m;
  };
  // One launcher default (MCL 10), then three placements within 5% of the lowest MCL (8).
  const std::vector<Metrics> results = {with(10, 9, 50), with(8, 6, 30), with(8.2, 4, 40), with(8.3, 5, 20)};
  AutoOptions options;
  EXPECT_EQ(auto_choice(results, 1, options, true, true), 2u);   // the least network MCL
  EXPECT_EQ(auto_choice(results, 1, options, true, false), 3u);  // the ECMP model: the least uplink volume
  // Equal MCL (the nodes' own links set it): the lower network MCL, before hop-bytes.
  const std::vector<Metrics> tie = {with(10, 9, 50), with(8, 6, 30), with(8, 4, 40)};
  EXPECT_EQ(auto_choice(tie, 1, options, false), 2u);
}

TEST(Auto, OnLeafSwitchesTheLeastUplinkVolumeWinsWithinTheMclSlack) {
  auto with = [](double mcl, double hop_bytes, double uplink) {
    Metrics m;
    m.mcl = mcl, m.hop_bytes = hop_bytes, m.leaf_uplink_volume = uplink;
    return m;
  };
  // Two launcher defaults (MCL 10 and 12), then four placements.
  std::vector<Metrics> results = {with(10, 100, 50), with(12, 120, 80), with(8, 70, 40),
                                  with(8.3, 90, 20), with(8.5, 60, 10), with(8.2, 95, 20)};
  AutoOptions options;
  options.uplink_slack = 0.05;  // MCL up to 8.4: results 2, 3 and 5; 3 and 5 tie on uplinks, 5 has the lower MCL
  EXPECT_EQ(auto_choice(results, 2, options, true), 5u);
  EXPECT_EQ(auto_choice(results, 2, options, false), 2u);  // no leaf switches: the lowest MCL
  options.uplink_slack = 0.1;  // up to 8.8: result 4
  EXPECT_EQ(auto_choice(results, 2, options, true), 4u);
  options.uplink_slack = 0;
  EXPECT_EQ(auto_choice(results, 2, options, true), 2u);
  // Never above a launcher default's MCL, whatever the slack.
  options.uplink_slack = 1;
  results.push_back(with(10.5, 200, 1));
  EXPECT_EQ(auto_choice(results, 2, options, true), 4u);
  results.push_back(with(10, 200, 2));  // equal to hostname-order's MCL: allowed
  EXPECT_EQ(auto_choice(results, 2, options, true), 7u);
  options.objective = AutoObjective::HopBytes;  // the slack weighs only against the MCL
  EXPECT_EQ(auto_choice(results, 2, options, true), 4u);
}

TEST(Auto, CutsATreeAtItsLeavesWhereTheLaunchersOrderDoesNot) {
  // Leaves A and B under S, each with 4 parallel uplinks; hosts n1 and n3 on A, n2 and n4 on B,
  // 8 slots each (test::two_leaves_alternating). A 5-point stencil on 8 x 4 tasks (1/4 to each neighbour, no wrap): the
  // launchers' order puts rows 0-1, 4-5 on A and 2-3, 6-7 on B, 3 row boundaries of 4 edges
  // across the leaves, each both ways: uplink volume 3 x 4 x 2 / 4 = 6. The least cut into two
  // halves of 16 tasks is 4 edges (rows 0-3 against 4-7): volume 2. The launchers' MCL is 2
  // (injection of a middle pair of rows: 8 edges x 1/4).
  const Machine m = test::two_leaves_alternating(8);
  ASSERT_TRUE(has_leaf_switches(m));
  EXPECT_FALSE(has_leaf_switches(make_machine("torus:4x4,ppn=2")));
  const CommGraph g = build_pattern(parse_pattern_spec("halo2d:8x4,periodic=false"));
  const MappingProblem problem(m, g);
  const Evaluator evaluator(problem);
  const Metrics launcher = evaluator.evaluate(g, test::run_mapper_on(problem, "hostname-order"));
  EXPECT_DOUBLE_EQ(launcher.leaf_uplink_volume, 6.0);
  EXPECT_DOUBLE_EQ(launcher.mcl, 2.0);
  const Mapping chosen = test::run_mapper_on(problem, "auto");
  const Metrics best = evaluator.evaluate(g, chosen);
  EXPECT_DOUBLE_EQ(best.leaf_uplink_volume, 2.0) << chosen.note;
  EXPECT_LE(best.mcl, launcher.mcl) << chosen.note;
}

// Scotch's target is a distance matrix only where it has no native one: a torus, a 2D mesh and
// a hierarchy have none; a 4D mesh has all its 256 routers (alike); a fabric, its hosts. Above
// 4,096 hosts auto leaves scotch out (the matrix of 10,000 takes seconds and gigabytes).
TEST(Auto, ScotchIsLeftOutWhereItsTargetWouldBeAHugeDistanceMatrix) {
  EXPECT_EQ(scotch_distance_matrix_terminals(make_machine("torus:32x16x16")), 0u);
  EXPECT_EQ(scotch_distance_matrix_terminals(make_machine("mesh:4x4")), 0u);
  EXPECT_EQ(scotch_distance_matrix_terminals(make_machine("hier:4:3,dist=1:10")), 0u);
  EXPECT_EQ(scotch_distance_matrix_terminals(make_machine("mesh:4x4x4x4")), 256u);
  const CommGraph g = build_pattern(parse_pattern_spec("halo2d:8x8"));
  for (const int hosts : {4096, 4097}) {
    const std::string conf = test::temp_path("auto_scotch", fmt::format("{}.conf", hosts));
    std::ofstream(conf) << fmt::format("SwitchName=top Switches=leaf[0-1]\nSwitchName=leaf0 Nodes=n[0001-2048]\n"
                                       "SwitchName=leaf1 Nodes=n[2049-{}]\n", hosts);
    const Machine m = make_machine(fmt::format("slurm:{}", conf));
    std::filesystem::remove(conf);
    EXPECT_EQ(scotch_distance_matrix_terminals(m), static_cast<std::size_t>(hosts));
    const std::vector<std::string> specs = auto_portfolio(MappingProblem(m, g));
    EXPECT_EQ(std::count(specs.begin(), specs.end(), "scotch"), hosts <= 4096 ? 1 : 0) << hosts;
  }
  const std::vector<std::string> torus = auto_portfolio(MappingProblem(make_machine("torus:32x16x16"), g));
  EXPECT_EQ(std::count(torus.begin(), torus.end(), "scotch"), 1);
}

// effort=high changes the multilevel candidate alone: ml with 8 runs and a longer annealing of
// its coarsest graphs in place of ml, every other candidate the same and in the same order.
TEST(Auto, HighEffortRunsTheLongerMultilevelInPlaceOfTheDefault) {
  const Machine m = make_machine("torus:4x4");
  const CommGraph g = make_halo2d(24, 24, 5, false);  // 576 tasks on 16 slots
  const MappingProblem problem(m, g);
  std::vector<std::string> normal = auto_portfolio(problem), high = auto_portfolio(problem, AutoEffort::High);
  ASSERT_EQ(std::count(normal.begin(), normal.end(), "ml"), 1);
  std::replace(normal.begin(), normal.end(), std::string("ml"), std::string("ml:seeds=8,anneal=32000"));
  EXPECT_EQ(high, normal);
}

// Scotch's time grows with the tasks more than with the edges: above 2^21 edges auto keeps it
// on a job of at most 131,072 tasks (an all-to-all of 1,449 tasks: 2,098,152 edges; a 27-point
// stencil of exactly 131,072 tasks: 26 edges each, 3.4M), not on a larger one (the stencil
// of 135,168 tasks, 3.5M edges).
TEST(Auto, ScotchStaysOnJobsOfManyEdgesButFewTasks) {
  const Machine m = make_machine("torus:8x8x8,ppn=264");
  auto has_scotch = [&](const char* pattern) {
    const CommGraph g = build_pattern(parse_pattern_spec(pattern));
    EXPECT_GT(g.num_edges(), std::size_t{1} << 21) << pattern;
    const std::vector<std::string> specs = auto_portfolio(MappingProblem(m, g));
    return std::count(specs.begin(), specs.end(), "scotch") == 1;
  };
  EXPECT_TRUE(has_scotch("alltoall:1449"));
  EXPECT_TRUE(has_scotch("halo3d:64x64x32,points=27"));
  EXPECT_FALSE(has_scotch("halo3d:64x64x33,points=27"));
}

// The leaves' partition by link speed runs where it can differ from the one by slots: on leaf
// switches, with free slots, among nodes whose own links differ in speed.
TEST(Auto, SharesByLinkSpeedRunOnlyWithFreeSlotsAndNodesOfDifferentSpeeds) {
  auto has_shares_by_speed = [](double n1_speed, std::uint32_t tasks) {
    Fabric f;
    f.source = "two leaves";
    f.switches = {"S", "A", "B"};
    f.hosts = {"n1", "n2", "n3"};
    f.host_ports = {{0, 1, n1_speed}, {1, 1, 100}, {2, 2, 100}};
    f.cables = {{0, 1, 100}, {0, 2, 100}};
    f.rates_in_gbps = true;
    f.top_switches = {0};
    const Machine m = build_fabric_machine(f, {.slots_per_node = 4, .description = "two leaves"});
    const CommGraph g = build_pattern(parse_pattern_spec(fmt::format("halo2d:2x{}", tasks / 2)));
    const std::vector<std::string> specs = auto_portfolio(MappingProblem(m, g));
    return std::count(specs.begin(), specs.end(), "rb:tries=16,split=leaves,shares=link-speed") == 1;
  };
  EXPECT_TRUE(has_shares_by_speed(50, 6));
  EXPECT_FALSE(has_shares_by_speed(50, 12));   // no free slot
  EXPECT_FALSE(has_shares_by_speed(100, 6));  // all as fast
}

TEST(Auto, DocsNameEveryMapperOfThePortfolio) {
  std::ifstream in(std::string(TASKMAP_SOURCE_DIR) + "/docs/auto.md");
  ASSERT_TRUE(in) << "docs/auto.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  const std::pair<const char*, const char*> machines[] = {
      {"torus:4x4x4x4x2", "halo2d:64x32"}, {"percs:ns=16,nd=4", "halo2d:16x16"}, {"rtt:a=4", "halo2d:8x8"},
      {"dragonfly:p=2,a=4,h=2", "halo2d:8x8"}, {"fattree:k=4,n=2", "halo2d:4x4"}};
  for (const auto& [machine, pattern] : machines) {
    const Machine m = make_machine(machine);
    const CommGraph g = build_pattern(parse_pattern_spec(pattern));
    for (const std::string& spec : auto_portfolio(MappingProblem(m, g))) {
      EXPECT_NE(text.str().find(fmt::format("`{}`", spec)), std::string::npos) << machine << ": docs/auto.md omits " << spec;
    }
  }
}

TEST(Auto, MapAndEvalUseItWhenNoMapperIsNamed) {
  const auto map = test::run_taskmap("map --machine torus:4x4,ppn=2 --pattern halo2d:8x4 --out -");
  EXPECT_EQ(map.exit_code, 0) << map.err;
  EXPECT_NE(map.err.find("auto: chose "), std::string::npos) << map.err;
  const auto eval = test::run_taskmap("eval --machine torus:4x4,ppn=2 --pattern halo2d:8x4 --format json");
  EXPECT_EQ(eval.exit_code, 0) << eval.err;
  EXPECT_NE(eval.out.find("\"mapper\": \"auto\""), std::string::npos) << eval.out;
  const auto both = test::run_taskmap("eval --machine torus:4x4,ppn=2 --pattern halo2d:8x4 --mapper default "
                                      "--mapping /dev/null");
  EXPECT_EQ(both.exit_code, 2);  // command-line misuse
  EXPECT_NE(both.err.find("not both"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace taskmap
