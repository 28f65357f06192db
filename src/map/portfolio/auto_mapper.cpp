#include "taskmap/map/portfolio/auto_mapper.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <variant>

#include "taskmap/core/error.h"
#include "taskmap/eval/evaluator.h"
#include "taskmap/map/node_order.h"

namespace taskmap {
namespace {

// Size limits of the costlier candidates, in directed task-graph edges (CommGraph::num_edges)
// or routers. Above them a candidate would take minutes on one core (Scotch maps a 1M-task,
// 6.3M-edge stencil in about 4 minutes); auto then does without it.
constexpr std::size_t kScotchMaxEdges = std::size_t{1} << 21;
constexpr std::size_t kPartitionerMaxEdges = std::size_t{1} << 22;  // greedy, rb
constexpr std::size_t kRefineHbMaxEdges = std::size_t{1} << 23;
constexpr std::size_t kRefineMclMaxEdges = std::size_t{1} << 22;
// ml, with many tasks per slot: it runs Scotch's mapping among its own, so Scotch's limit, and
// anneals levels of up to 8 vertices per router, so at most this many routers hold slots.
constexpr std::size_t kMultilevelMaxEdges = kScotchMaxEdges;
constexpr std::size_t kMultilevelMaxRouters = 4096;
// The first round's best results that refine-hb improves (besides scotch's and rb's): each
// run costs about as much as Scotch's mapping.
constexpr std::size_t kRefinedStarts = 1;

struct Result {
  std::string spec;
  Mapping mapping;
  Metrics metrics;
};

// Equal within rounding: sums of the same loads in another order differ in the last digits.
int compare_values(double a, double b) {
  const double scale = std::max({std::abs(a), std::abs(b), 1e-300});
  if (std::abs(a - b) <= 1e-9 * scale) return 0;
  return a < b ? -1 : 1;
}

// True when x is strictly better than y by the objective, then the other metric, then the
// traffic inside nodes.
bool better(const Metrics& x, const Metrics& y, AutoObjective objective) {
  const bool mcl_first = objective == AutoObjective::Mcl;
  const double keys_x[] = {mcl_first ? x.mcl : x.hop_bytes, mcl_first ? x.hop_bytes : x.mcl, x.node_hop_bytes};
  const double keys_y[] = {mcl_first ? y.mcl : y.hop_bytes, mcl_first ? y.hop_bytes : y.mcl, y.node_hop_bytes};
  for (int k = 0; k < 3; ++k) {
    if (int c = compare_values(keys_x[k], keys_y[k]); c != 0) return c < 0;
  }
  return false;
}

class AutoMapper final : public Mapper {
 public:
  AutoMapper(MapperLabel label, AutoOptions options, MapperFactory factory)
      : label_(std::move(label)), options_(options), factory_(std::move(factory)) {}

  Mapping run(const MappingProblem& problem) const override {
    const Evaluator evaluator(problem);
    std::vector<Result> results;
    std::vector<std::string> skipped;
    // A candidate that fails (a structured mapper without the task grid it needs, a size
    // over the memory limit) is left out with its reason; the baselines never fail.
    auto consider = [&](const std::string& spec, const std::function<Mapping()>& map) {
      try {
        Mapping m = map();
        validate_mapping(m, problem.machine(), problem.graph().num_tasks(), spec, problem.tasks_per_slot());
        Metrics metrics = evaluator.evaluate(problem.graph(), m);
        results.push_back({spec, std::move(m), std::move(metrics)});
      } catch (const Error& e) {
        skipped.push_back(e.what());
      }
    };
    for (const std::string& spec : auto_portfolio(problem)) {
      if (std::string why = factory_.why_not(spec, problem); !why.empty()) {
        skipped.push_back(fmt::format("{}: {}", spec, why));
        continue;
      }
      consider(spec, [&] { return factory_.make(spec)->run(problem); });
    }
    if (results.empty()) fail("--mapper '{}': no mapper of the portfolio applies ({})", label_.text, join(skipped));
    const std::size_t first_round = results.size();

    // The best start by the objective, and the general partitioners' placements (so that
    // auto includes the pipelines scotch+refine-hb and rb+refine-hb), improved for hop-bytes,
    // which also shortens the routes the MCL search then works on.
    const std::size_t graph_edges = problem.graph().num_edges();
    if (graph_edges <= kRefineHbMaxEdges) {
      std::vector<std::size_t> starts = best_indices(results, first_round, kRefinedStarts);
      for (std::size_t i = 0; i < first_round; ++i) {
        const bool partitioner = results[i].spec == "scotch" || results[i].spec == "rb";
        if (partitioner && std::find(starts.begin(), starts.end(), i) == starts.end()) starts.push_back(i);
      }
      for (std::size_t i : starts) {
        const std::string refiner = fmt::format("refine-hb:seed={}", options_.seed);
        const Result start = results[i];
        consider(start.spec + "+" + refiner, [&] { return factory_.make(refiner)->improve(problem, start.mapping); });
      }
    }
    // The MCL search under the run's routing, from the best so far.
    if (options_.objective == AutoObjective::Mcl && options_.budget > 0 && graph_edges <= kRefineMclMaxEdges) {
      const Result start = results[best_indices(results, results.size(), 1).front()];
      const std::string refiner = fmt::format("refine-mcl:work={},seed={}", options_.budget, options_.seed);
      consider(start.spec + "+" + refiner, [&] { return factory_.make(refiner)->improve(problem, start.mapping); });
    }

    Result chosen = std::move(results[best_indices(results, results.size(), 1).front()]);
    // A launcher order that wins keeps its nodes; its tasks may still sit better inside them.
    Mapping ordered = chosen.mapping;
    order_within_nodes(problem, ordered);
    if (ordered.slot_of_task != chosen.mapping.slot_of_task) {
      Metrics m = evaluator.evaluate(problem.graph(), ordered);
      if (better(m, chosen.metrics, options_.objective)) {
        chosen.mapping = std::move(ordered);
        chosen.metrics = std::move(m);
        chosen.spec += " (ranks ordered inside nodes)";
      }
    }
    chosen.mapping.note = fmt::format("{}: chose {} (MCL {:.6g}, hop-bytes {:.6g}) among {} results{}", label_.text,
                                      chosen.spec, chosen.metrics.mcl, chosen.metrics.hop_bytes, results.size(),
                                      skipped.empty() ? "" : fmt::format("; left out: {}", join(skipped)));
    return std::move(chosen.mapping);
  }

 private:
  // Indices of the `count` best of results[0, end), best first; ties keep the earlier.
  std::vector<std::size_t> best_indices(const std::vector<Result>& results, std::size_t end, std::size_t count) const {
    std::vector<std::size_t> order(end);
    for (std::size_t i = 0; i < end; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return better(results[a].metrics, results[b].metrics, options_.objective);
    });
    order.resize(std::min(count, end));
    return order;
  }
  static std::string join(const std::vector<std::string>& items) { return fmt::format("{}", fmt::join(items, "; ")); }

  MapperLabel label_;
  AutoOptions options_;
  MapperFactory factory_;
};

}  // namespace

std::vector<std::string> auto_portfolio(const MappingProblem& problem) {
  const Machine& m = problem.machine();
  const CommGraph& g = problem.graph();
  const bool has_grid = !g.grid().empty();
  std::vector<std::string> specs = {"default", "hostname-order", "cyclic"};
  if (const TorusShape* torus = m.torus()) {
    if (has_grid) specs.push_back("blocks");
    specs.push_back("hilbert");
    if (has_grid && torus->dims() >= 5) specs.push_back("rubik-tiling");
  } else if (std::holds_alternative<PercsShape>(m.shape) && has_grid) {
    for (const char* spec : {"percs-block:level=node", "percs-block:level=drawer", "percs-block:level=supernode",
                             "percs-modcolor", "percs-transpose"}) {
      specs.push_back(spec);
    }
  } else if (std::holds_alternative<RectTorusShape>(m.shape) && has_grid) {
    specs.push_back("rtt-map");
    specs.push_back("rtt-map:f=diag");
  } else if (std::holds_alternative<DragonflyShape>(m.shape) && has_grid) {
    specs.push_back("dragonfly-bsm");
    specs.push_back("dragonfly-bbac");
    specs.push_back("dragonfly-bbac:colors=n");
  }
  const std::size_t edges = g.num_edges();
  if (edges <= kPartitionerMaxEdges) {
    specs.push_back("greedy");
    specs.push_back("rb");
  }
  if (edges <= kScotchMaxEdges) specs.push_back("scotch");
  if (g.num_tasks() > m.num_slots() && edges <= kMultilevelMaxEdges) {
    std::size_t holding = 0;
    for (RouterId r = 0; r < m.num_routers; ++r) holding += m.slots_of_router(r) > 0;
    if (holding <= kMultilevelMaxRouters) specs.push_back("ml");
  }
  return specs;
}

std::unique_ptr<Mapper> make_auto_mapper(MapperLabel label, AutoOptions options, MapperFactory factory) {
  return std::make_unique<AutoMapper>(std::move(label), options, std::move(factory));
}

}  // namespace taskmap
