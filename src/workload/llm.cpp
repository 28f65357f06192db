// The traffic of one training iteration of a transformer language model under Megatron-LM's
// parallelisms. Volumes [Megatron-PTD §3, §4.1], [Megatron-SP]; rank numbering: Megatron-LM's
// RankGenerator (megatron/core/parallel_state.py). docs/patterns.md#llm states every formula.
#include "taskmap/workload/llm.h"

#include <fmt/format.h>

#include <vector>

#include "taskmap/core/error.h"
#include "taskmap/core/ids.h"
#include "taskmap/core/memory.h"

namespace taskmap {
namespace {

constexpr std::array<LlmAxis, kLlmAxes> kAxes = {LlmAxis::TP, LlmAxis::CP, LlmAxis::EP, LlmAxis::DP, LlmAxis::PP};

std::size_t index(LlmAxis axis) { return static_cast<std::size_t>(axis); }

// The tokens of an order string, split at '-'.
std::vector<std::string_view> tokens(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const std::size_t dash = text.find('-', start);
    out.push_back(text.substr(start, dash == std::string_view::npos ? std::string_view::npos : dash - start));
    if (dash == std::string_view::npos) return out;
    start = dash + 1;
  }
}

// Each axis's size on the dense grid (ep = 1, dp = D) or the expert grid (ep = E, dp = D / E).
std::array<std::uint64_t, kLlmAxes> sizes(const LlmOptions& o, bool expert_grid) {
  std::array<std::uint64_t, kLlmAxes> s{};
  s[index(LlmAxis::TP)] = o.tp;
  s[index(LlmAxis::CP)] = 1;
  s[index(LlmAxis::EP)] = expert_grid ? o.ep : 1;
  s[index(LlmAxis::DP)] = expert_grid ? o.dp / o.ep : o.dp;
  s[index(LlmAxis::PP)] = o.pp;
  return s;
}

// Each axis's stride: the product of the sizes of the axes before it in the order.
std::array<std::uint64_t, kLlmAxes> strides(const LlmOptions& o, bool expert_grid) {
  const auto size = sizes(o, expert_grid);
  std::array<std::uint64_t, kLlmAxes> stride{};
  std::uint64_t product = 1;
  for (LlmAxis axis : o.order) {
    stride[index(axis)] = product;
    product *= size[index(axis)];
  }
  return stride;
}

}  // namespace

std::string_view llm_axis_name(LlmAxis axis) {
  constexpr std::array<std::string_view, kLlmAxes> names = {"tp", "cp", "ep", "dp", "pp"};
  return names[index(axis)];
}

std::string parse_llm_order(std::string_view text, std::array<LlmAxis, kLlmAxes>& order) {
  std::array<bool, kLlmAxes> seen{};
  std::size_t n = 0;
  for (std::string_view token : tokens(text)) {
    const LlmAxis* axis = nullptr;
    for (const LlmAxis& a : kAxes)
      if (llm_axis_name(a) == token) axis = &a;
    if (!axis) {
      return fmt::format("order={}: unknown token '{}'; known: tp, cp, ep, dp, pp (joined by '-', fastest first)", text,
                         token);
    }
    if (seen[index(*axis)]) return fmt::format("order={}: '{}' appears twice", text, token);
    seen[index(*axis)] = true;
    order[n++] = *axis;
  }
  for (LlmAxis axis : kAxes)
    if (!seen[index(axis)]) order[n++] = axis;
  return {};
}

std::string llm_problem(const LlmOptions& o, std::string_view order_text) {
  // Three factors below 2^32: their product may pass 64 bits.
  std::uint64_t ranks = 0;
  if (__builtin_mul_overflow(std::uint64_t(o.tp) * o.pp, std::uint64_t(o.dp), &ranks)) {
    return fmt::format("tp x pp x dp = {} x {} x {} = over 2^64 ranks, more than {} (task ids are 32-bit)", o.tp, o.pp,
                       o.dp, kMaxTaskCount);
  }
  if (ranks > kMaxTaskCount) {
    return fmt::format("tp x pp x dp = {} x {} x {} = {} ranks, more than {} (task ids are 32-bit)", o.tp, o.pp, o.dp,
                       ranks, kMaxTaskCount);
  }
  if (ranks < 2) return "tp x pp x dp = 1 rank: at least 2 are needed";
  if (o.dp % o.ep != 0) return fmt::format("ep={} must divide dp={} (expert groups lie inside data-parallel groups)", o.ep, o.dp);
  if (o.layers % o.pp != 0) return fmt::format("layers={} must be a multiple of pp={} (as many layers per stage)", o.layers, o.pp);
  if (o.ep > 1 && o.moe_layers > o.layers) return fmt::format("moe_layers={} exceeds layers={}", o.moe_layers, o.layers);
  const auto written = tokens(order_text);
  const auto size = sizes(o, true);
  for (LlmAxis axis : {LlmAxis::TP, LlmAxis::EP, LlmAxis::DP, LlmAxis::PP}) {
    const std::uint64_t s = axis == LlmAxis::DP ? o.dp : size[index(axis)];
    bool named = false;
    for (std::string_view token : written) named = named || token == llm_axis_name(axis);
    if (s > 1 && !named) {
      return fmt::format("order={} leaves out {}, whose size is {}", order_text, llm_axis_name(axis), s);
    }
  }
  if (o.ep > 1 && o.pp > 1 && o.order.back() != LlmAxis::PP) {
    return fmt::format("order={}: with ep > 1 and pp > 1, pp must come last (expert and dense pipelines must be the same)",
                       order_text);
  }
  return {};
}

std::uint32_t llm_rank(const LlmOptions& o, bool expert_grid, const std::array<std::uint32_t, kLlmAxes>& coord) {
  const auto stride = strides(o, expert_grid);
  std::uint64_t rank = 0;
  for (LlmAxis axis : kAxes) rank += coord[index(axis)] * stride[index(axis)];
  return static_cast<std::uint32_t>(rank);
}

std::array<std::uint32_t, kLlmAxes> llm_coordinates(const LlmOptions& o, bool expert_grid, std::uint32_t rank) {
  const auto size = sizes(o, expert_grid);
  const auto stride = strides(o, expert_grid);
  std::array<std::uint32_t, kLlmAxes> coord{};
  for (LlmAxis axis : kAxes) coord[index(axis)] = static_cast<std::uint32_t>(rank / stride[index(axis)] % size[index(axis)]);
  return coord;
}

CommGraph make_llm(const LlmOptions& o) {
  const std::uint32_t ranks = o.tp * o.pp * o.dp;  // llm_problem checked it
  const std::string name = fmt::format("llm:tp={},pp={},dp={},ep={}", o.tp, o.pp, o.dp, o.ep);
  // Per rank: a TP, a DP and an expert-DP ring successor, two pipeline neighbours, ep - 1 EP peers.
  const std::uint64_t flows = std::uint64_t(ranks) * (4 + o.ep);
  check_memory(name, CommGraph::estimated_bytes(ranks, flows), format_count(flows) + " flows");

  const double T = o.tp, P = o.pp, D = o.dp, E = o.ep, m = o.micro_batches;
  // One activation tensor of a micro-batch: b x s x h elements.
  const double activation = double(o.micro_batch) * o.seq * o.hidden * o.bytes;
  const double layers_per_stage = double(o.layers) / P;
  // TP: per layer and micro-batch, 2 all-reduces forward and 2 backward of b s h elements; a
  // ring all-reduce sends 2 (T - 1) / T of the buffer to the successor.
  const double tp_volume = m * layers_per_stage * 4 * 2 * (T - 1) / T * activation;
  // PP: per micro-batch, the rank's 1/T share of the activation forward to the next stage and
  // its gradient backward to the previous one.
  const double pp_volume = m * activation / T;
  // DP: once per iteration, a ring all-reduce of the rank's gradient shard.
  const double dp_volume = 2 * (D - 1) / D * o.params / (T * P) * o.grad_bytes;
  // EP: per MoE layer and micro-batch, 4 all-to-alls (dispatch and combine, forward and
  // backward) of the rank's b s / T tokens, top_k copies each, spread evenly over the E ranks.
  const double moe_per_stage = o.ep > 1 ? double(o.moe_layers) / P : 0;
  const double ep_volume = m * moe_per_stage * 4 * (double(o.micro_batch) * o.seq / T) * o.top_k * o.hidden * o.bytes / E;
  // Expert DP: the experts' gradients, all-reduced over the dp / ep ranks holding the same experts.
  const double de = D / E;
  const double edp_volume = o.ep > 1 ? 2 * (de - 1) / de * o.expert_params / (T * P * E) * o.grad_bytes : 0;

  const auto dense = sizes(o, false);
  const auto expert = sizes(o, true);
  std::vector<CommEdge> edges;
  edges.reserve(flows);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const auto c = llm_coordinates(o, false, r);
    auto step = [&](LlmAxis axis, std::uint64_t by) {  // the rank `by` further along the axis, cyclically
      auto n = c;
      n[index(axis)] = static_cast<std::uint32_t>((c[index(axis)] + by) % dense[index(axis)]);
      return llm_rank(o, false, n);
    };
    if (o.tp > 1) edges.push_back({r, step(LlmAxis::TP, 1), tp_volume});
    if (o.dp > 1) edges.push_back({r, step(LlmAxis::DP, 1), dp_volume});
    const std::uint32_t stage = c[index(LlmAxis::PP)];
    if (stage + 1 < o.pp) edges.push_back({r, step(LlmAxis::PP, 1), pp_volume});
    if (stage > 0) edges.push_back({r, step(LlmAxis::PP, o.pp - 1), pp_volume});
    if (o.ep > 1) {
      const auto x = llm_coordinates(o, true, r);
      auto n = x;
      for (std::uint32_t e = 0; e < o.ep; ++e) {
        if (e == x[index(LlmAxis::EP)]) continue;
        n[index(LlmAxis::EP)] = e;
        edges.push_back({r, llm_rank(o, true, n), ep_volume});
      }
      n = x;
      n[index(LlmAxis::DP)] = static_cast<std::uint32_t>((x[index(LlmAxis::DP)] + 1) % expert[index(LlmAxis::DP)]);
      if (expert[index(LlmAxis::DP)] > 1) edges.push_back({r, llm_rank(o, true, n), edp_volume});
    }
  }
  CommGraph g = CommGraph::from_edges(ranks, std::move(edges));
  // The task grid: the dense grid's axes of size > 1, slowest first.
  std::vector<std::uint32_t> grid;
  for (auto it = o.order.rbegin(); it != o.order.rend(); ++it)
    if (dense[index(*it)] > 1) grid.push_back(static_cast<std::uint32_t>(dense[index(*it)]));
  g.set_grid(std::move(grid));
  return g;
}

}  // namespace taskmap
