#pragma once
// The traffic of one training iteration of a transformer language model under Megatron-LM's
// tensor (TP), pipeline (PP), data (DP) and expert (EP) parallelism, in bytes from rank to rank.
// Formulas and sources: docs/patterns.md#llm. Ranks are numbered as Megatron-LM's
// RankGenerator numbers them: the axes of `order`, fastest-varying first.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "taskmap/workload/comm_graph.h"

namespace taskmap {

// The axes of Megatron-LM's order strings. Context parallelism (cp) has size 1 here: its token
// is accepted so that Megatron's own strings ("tp-cp-ep-dp-pp") read unchanged.
enum class LlmAxis { TP, CP, EP, DP, PP };
inline constexpr std::size_t kLlmAxes = 5;
std::string_view llm_axis_name(LlmAxis axis);  // "tp", ...

struct LlmOptions {
  std::uint32_t tp = 1, pp = 1, dp = 1, ep = 1;
  std::array<LlmAxis, kLlmAxes> order{};  // fastest-varying first; every axis once
  std::uint32_t layers = 0, hidden = 0, seq = 0, micro_batch = 0, micro_batches = 0;
  std::uint32_t moe_layers = 0, top_k = 0;  // read only when ep > 1
  double params = 0;                        // the parameters whose gradients DP all-reduces
  double expert_params = 0;                 // all experts' parameters (ep > 1)
  std::uint32_t bytes = 0, grad_bytes = 0;  // per activation element, per gradient element
};

// Reads "tp-cp-ep-dp-pp": tokens joined by '-', each at most once; the axes left out follow in
// the order tp, cp, ep, dp, pp (Megatron-LM appends them likewise). Returns the problem, for a
// message naming order=, or the empty string.
std::string parse_llm_order(std::string_view text, std::array<LlmAxis, kLlmAxes>& order);

// What is wrong with `o` (naming the parameter), or the empty string: an axis of size > 1
// missing from the written order, ranks beyond 32-bit task ids, ep not dividing dp, layers not
// a multiple of pp, more MoE layers than layers, ep > 1 with pp > 1 and pp not last.
std::string llm_problem(const LlmOptions& o, std::string_view order_text);

// Rank of the coordinates on the dense grid (ep = 1) or on the expert grid (TP x EP x
// expert-DP x PP, expert-DP = dp / ep); coordinates indexed by LlmAxis.
std::uint32_t llm_rank(const LlmOptions& o, bool expert_grid, const std::array<std::uint32_t, kLlmAxes>& coord);
std::array<std::uint32_t, kLlmAxes> llm_coordinates(const LlmOptions& o, bool expert_grid, std::uint32_t rank);

CommGraph make_llm(const LlmOptions& o);

}  // namespace taskmap
