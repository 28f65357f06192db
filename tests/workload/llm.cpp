// The llm pattern: volumes derived by hand on small jobs, Megatron-LM's rank orders, expert
// parallelism, and the one line each bad spec gives.
#include <gtest/gtest.h>

#include <set>

#include "taskmap/core/error.h"
#include "taskmap/workload/llm.h"
#include "taskmap/workload/pattern_catalog.h"
#include "taskmap/workload/pattern_spec.h"
#include "test_support.h"

namespace taskmap {
namespace {

CommGraph pattern(const std::string& spec) { return build_pattern(parse_pattern_spec(spec)); }

// The ranks of the group along `axis` that holds `rank`, in group order.
std::vector<std::uint32_t> group(const LlmOptions& o, bool expert_grid, LlmAxis axis, std::uint32_t rank,
                                 std::uint32_t size) {
  auto c = llm_coordinates(o, expert_grid, rank);
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < size; ++i) {
    c[static_cast<std::size_t>(axis)] = i;
    out.push_back(llm_rank(o, expert_grid, c));
  }
  return out;
}

std::set<std::pair<TaskId, TaskId>> pairs_of(const CommGraph& g) {
  std::set<std::pair<TaskId, TaskId>> pairs;
  for (TaskId a = 0; a < g.num_tasks(); ++a)
    for (TaskId b : g.targets(a)) pairs.insert({a, b});
  return pairs;
}

const std::string kTiny = "layers=2,hidden=4,seq=2,micro_batch=1,micro_batches=1,bytes=1,grad_bytes=1,params=48";

TEST(LlmPattern, HandDerivedVolumesOnTwoByTwoByTwo) {
  // Default order tp-cp-ep-dp-pp: rank = t + 2 d + 4 p. One activation b s h bytes = 1*2*4*1 = 8.
  // TP {0,1} {2,3} {4,5} {6,7}: m (layers/pp) 4 all-reduces x 2(T-1)/T x 8 = 1*1*4*1*8 = 32 each way.
  // PP 0->4 1->5 2->6 3->7 forward, 4->0 ... backward: m x 8 / T = 4.
  // DP {0,2} {1,3} {4,6} {5,7}: 2(D-1)/D x params/(T P) x grad_bytes = 1 x 48/4 x 1 = 12 each way.
  const CommGraph g = pattern("llm:tp=2,pp=2,dp=2," + kTiny);
  ASSERT_EQ(g.num_tasks(), 8u);
  for (TaskId t : {0u, 2u, 4u, 6u}) {
    EXPECT_DOUBLE_EQ(g.volume(t, t + 1), 32);
    EXPECT_DOUBLE_EQ(g.volume(t + 1, t), 32);
  }
  for (TaskId r = 0; r < 4; ++r) {
    EXPECT_DOUBLE_EQ(g.volume(r, r + 4), 4);
    EXPECT_DOUBLE_EQ(g.volume(r + 4, r), 4);
  }
  for (TaskId r : {0u, 1u, 4u, 5u}) {
    EXPECT_DOUBLE_EQ(g.volume(r, r + 2), 12);
    EXPECT_DOUBLE_EQ(g.volume(r + 2, r), 12);
  }
  EXPECT_EQ(g.num_edges(), 24u);                      // 8 TP + 8 PP + 8 DP
  EXPECT_DOUBLE_EQ(g.total_volume(), 8 * (32 + 4 + 12));
  EXPECT_EQ(g.grid(), (std::vector<std::uint32_t>{2, 2, 2}));
}

TEST(LlmPattern, RingsGoOneWayInGroupOrder) {
  // dp=3: ring 0 -> 1 -> 2 -> 0, each 2 (2/3) x 3 x 1 = 4; nothing back.
  const CommGraph g = pattern("llm:tp=1,pp=1,dp=3,params=3,grad_bytes=1");
  EXPECT_DOUBLE_EQ(g.volume(0, 1), 4);
  EXPECT_DOUBLE_EQ(g.volume(1, 2), 4);
  EXPECT_DOUBLE_EQ(g.volume(2, 0), 4);
  EXPECT_DOUBLE_EQ(g.volume(1, 0), 0);
  EXPECT_EQ(g.num_edges(), 3u);
  // tp=4, one stage, one replica: 96 layers x 96 micro-batches x 4 x 2(3/4) x 1*2048*12288*2.
  const CommGraph t = pattern("llm:tp=4,pp=1,dp=1");
  EXPECT_DOUBLE_EQ(t.volume(3, 0), 96.0 * 96 * 4 * 1.5 * 2048 * 12288 * 2);
  EXPECT_DOUBLE_EQ(t.volume(0, 3), 0);
}

TEST(LlmPattern, DefaultParametersAreTwelveLayersHiddenSquared) {
  // dp=2, tp=pp=1: the whole model's gradients, 12 x 96 x 12288^2 parameters in fp32, once
  // (2 (D-1)/D = 1).
  const CommGraph g = pattern("llm:tp=1,pp=1,dp=2");
  EXPECT_DOUBLE_EQ(g.volume(0, 1), 12.0 * 96 * 12288.0 * 12288 * 4);
}

TEST(LlmPattern, RankOrdersFollowMegatron) {
  // parallel_state.py's docstring: sizes tp 2, dp 3, pp 4 in order tp-dp-pp; the DP group of
  // rank 0 is [0, 2, 4], the last one [19, 21, 23].
  LlmOptions o;
  o.tp = 2, o.dp = 3, o.pp = 4;
  ASSERT_EQ(parse_llm_order("tp-dp-pp", o.order), "");
  EXPECT_EQ(group(o, false, LlmAxis::DP, 0, 3), (std::vector<std::uint32_t>{0, 2, 4}));
  EXPECT_EQ(group(o, false, LlmAxis::DP, 23, 3), (std::vector<std::uint32_t>{19, 21, 23}));
  EXPECT_EQ(group(o, false, LlmAxis::TP, 7, 2), (std::vector<std::uint32_t>{6, 7}));
  EXPECT_EQ(group(o, false, LlmAxis::PP, 1, 4), (std::vector<std::uint32_t>{1, 7, 13, 19}));
  // Its tp-pp-dp example, sizes 2-2-2: DP groups [0, 4], [1, 5], [2, 6], [3, 7].
  o.dp = 2, o.pp = 2;
  ASSERT_EQ(parse_llm_order("tp-pp-dp", o.order), "");
  for (std::uint32_t r = 0; r < 4; ++r) EXPECT_EQ(group(o, false, LlmAxis::DP, r, 2), (std::vector<std::uint32_t>{r, r + 4}));
  EXPECT_EQ(group(o, false, LlmAxis::PP, 1, 2), (std::vector<std::uint32_t>{1, 3}));
  // The graph agrees: under tp-pp-dp, DP pairs are r, r+4 and pipeline pairs r, r+2.
  const CommGraph g = pattern("llm:tp=2,pp=2,dp=2,order=tp-pp-dp," + kTiny);
  EXPECT_DOUBLE_EQ(g.volume(1, 5), 12);  // DP
  EXPECT_DOUBLE_EQ(g.volume(1, 3), 4);   // PP forward
  EXPECT_DOUBLE_EQ(g.volume(3, 1), 4);   // PP backward
  EXPECT_DOUBLE_EQ(g.volume(0, 1), 32);  // TP
  EXPECT_EQ(g.grid(), (std::vector<std::uint32_t>{2, 2, 2}));
  // Megatron's default string and the short one number the dense ranks alike.
  EXPECT_EQ(pairs_of(pattern("llm:tp=2,pp=3,dp=4")), pairs_of(pattern("llm:tp=2,pp=3,dp=4,order=tp-dp-pp")));
  EXPECT_EQ(pairs_of(pattern("llm:tp=2,pp=3,dp=4,order=tp-cp-ep-pp-dp")),
            pairs_of(pattern("llm:tp=2,pp=3,dp=4,order=tp-pp-dp")));
}

TEST(LlmPattern, ExpertGroupsSplitTheDataParallelGroup) {
  // tp=pp=1, dp=4, ep=2: dense DP ring 0->1->2->3->0; expert grid rank = e + 2 x, so EP groups
  // {0,1} {2,3} and expert-DP groups {0,2} {1,3}.
  // EP, per peer: m x moe_layers/pp x 4 all-to-alls x (b s / T = 2 tokens) x top_k 1 x h 4 x
  // 1 byte / E 2 = 1*1*4*2*1*4*1/2 = 16.
  // DP: 2 (3/4) x params 4 / 1 x 1 = 6. Expert DP: 2 (1/2) x expert_params 20 / (1*1*2) x 1 = 10.
  const CommGraph g = pattern(
      "llm:tp=1,pp=1,dp=4,ep=2,layers=1,hidden=4,seq=2,micro_batch=1,micro_batches=1,bytes=1,grad_bytes=1,"
      "top_k=1,params=4,expert_params=20");
  EXPECT_DOUBLE_EQ(g.volume(0, 1), 16 + 6);
  EXPECT_DOUBLE_EQ(g.volume(1, 0), 16);
  EXPECT_DOUBLE_EQ(g.volume(2, 3), 16 + 6);
  EXPECT_DOUBLE_EQ(g.volume(3, 2), 16);
  EXPECT_DOUBLE_EQ(g.volume(1, 2), 6);
  EXPECT_DOUBLE_EQ(g.volume(3, 0), 6);
  EXPECT_DOUBLE_EQ(g.volume(0, 2), 10);
  EXPECT_DOUBLE_EQ(g.volume(2, 0), 10);
  EXPECT_DOUBLE_EQ(g.volume(1, 3), 10);
  EXPECT_DOUBLE_EQ(g.volume(0, 3), 0);
  EXPECT_DOUBLE_EQ(g.total_volume(), 4 * 16 + 4 * 6 + 4 * 10);
  // ep = dp = 4, top_k 2, moe_layers 1 of 2 layers: every rank sends 1*1*4*2*2*4*1/4 = 16 to
  // each of the 3 others, and no expert-DP traffic (one replica of each expert).
  const CommGraph all = pattern(
      "llm:tp=1,pp=1,dp=4,ep=4,layers=2,moe_layers=1,hidden=4,seq=2,micro_batch=1,micro_batches=1,bytes=1,"
      "grad_bytes=1,top_k=2,params=4,expert_params=20");
  EXPECT_DOUBLE_EQ(all.volume(2, 0), 16);
  EXPECT_DOUBLE_EQ(all.volume(2, 3), 16 + 6);
}

TEST(LlmPattern, ExpertGroupsInsideTensorAndPipelineParallelism) {
  // tp=2, pp=2, dp=4, ep=2, default order: dense rank = t + 2 d + 8 p; expert rank
  // = t + 2 e + 4 x + 8 p. Rank 11 = (t 1, d 1, p 1) = (t 1, e 1, x 0, p 1): EP group {9, 11},
  // expert-DP group {11, 15}, DP group {9, 11, 13, 15}.
  LlmOptions o;
  o.tp = 2, o.pp = 2, o.dp = 4, o.ep = 2;
  ASSERT_EQ(parse_llm_order("tp-cp-ep-dp-pp", o.order), "");
  EXPECT_EQ(group(o, true, LlmAxis::EP, 11, 2), (std::vector<std::uint32_t>{9, 11}));
  EXPECT_EQ(group(o, true, LlmAxis::DP, 11, 2), (std::vector<std::uint32_t>{11, 15}));
  EXPECT_EQ(group(o, false, LlmAxis::DP, 11, 4), (std::vector<std::uint32_t>{9, 11, 13, 15}));
  const CommGraph g = pattern("llm:tp=2,pp=2,dp=4,ep=2,expert_params=1e9");
  // Rank 11 sends to its TP successor 10, DP successor 13, previous stage 3, EP peer 9 and
  // expert-DP successor 15.
  const auto t = g.targets(11);
  EXPECT_EQ(std::vector<TaskId>(t.begin(), t.end()), (std::vector<TaskId>{3, 9, 10, 13, 15}));
}

TEST(LlmPattern, BadSpecsNameTheParameter) {
  auto message = [](const std::string& spec) { return test::error_message([&] { parse_pattern_spec(spec); }); };
  EXPECT_EQ(message("llm:tp=65536,pp=65536,dp=2"),
            "--pattern 'llm:tp=65536,pp=65536,dp=2': llm: tp x pp x dp = 65536 x 65536 x 2 = 8589934592 ranks, more "
            "than 2147483647 (task ids are 32-bit)");
  // A product beyond 64 bits is still refused, not wrapped round to a small count.
  EXPECT_NE(message("llm:tp=14510077,pp=902231,dp=1409069,layers=902231").find("ranks, more than 2147483647"),
            std::string::npos);
  EXPECT_EQ(message("llm:tp=0,pp=1,dp=2"), "--pattern 'llm:tp=0,pp=1,dp=2': llm: tp must be at least 1, not 0");
  EXPECT_EQ(message("llm:tp=1,pp=1,dp=6,ep=4"),
            "--pattern 'llm:tp=1,pp=1,dp=6,ep=4': llm: ep=4 must divide dp=6 (expert groups lie inside "
            "data-parallel groups)");
  EXPECT_EQ(message("llm:tp=2,pp=2,dp=2,order=tp-xp-pp"),
            "--pattern 'llm:tp=2,pp=2,dp=2,order=tp-xp-pp': llm: order=tp-xp-pp: unknown token 'xp'; known: tp, cp, "
            "ep, dp, pp (joined by '-', fastest first)");
  EXPECT_EQ(message("llm:tp=2,pp=2,dp=2,order=tp-dp-tp"),
            "--pattern 'llm:tp=2,pp=2,dp=2,order=tp-dp-tp': llm: order=tp-dp-tp: 'tp' appears twice");
  EXPECT_EQ(message("llm:tp=2,pp=2,dp=2,order=tp-pp"),
            "--pattern 'llm:tp=2,pp=2,dp=2,order=tp-pp': llm: order=tp-pp leaves out dp, whose size is 2");
  EXPECT_EQ(message("llm:tp=2,pp=2,dp=2,layers=3"),
            "--pattern 'llm:tp=2,pp=2,dp=2,layers=3': llm: layers=3 must be a multiple of pp=2 (as many layers per "
            "stage)");
  EXPECT_EQ(message("llm:tp=2,pp=2,dp=4,ep=2,order=tp-ep-pp-dp"),
            "--pattern 'llm:tp=2,pp=2,dp=4,ep=2,order=tp-ep-pp-dp': llm: order=tp-ep-pp-dp: with ep > 1 and pp > 1, "
            "pp must come last (expert and dense pipelines must be the same)");
  EXPECT_EQ(message("llm:tp=1,pp=1,dp=1"), "--pattern 'llm:tp=1,pp=1,dp=1': llm: tp x pp x dp = 1 rank: at least 2 are needed");
  EXPECT_EQ(message("llm:tp=2,pp=2,dp=2,ep=2,moe_layers=200"),
            "--pattern 'llm:tp=2,pp=2,dp=2,ep=2,moe_layers=200': llm: moe_layers=200 exceeds layers=96");
  EXPECT_NE(message("llm:tp=2,pp=2").find("dp"), std::string::npos);
  // ep left out of the order while ep > 1.
  EXPECT_EQ(message("llm:tp=1,pp=1,dp=4,ep=2,order=tp-dp-pp"),
            "--pattern 'llm:tp=1,pp=1,dp=4,ep=2,order=tp-dp-pp': llm: order=tp-dp-pp leaves out ep, whose size is 2");
}

}  // namespace
}  // namespace taskmap
