#include "taskmap/eval/recommendation.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <limits>
#include <utility>

namespace taskmap {
namespace {

double relative_change(double chosen, double baseline) {
  if (compare_within_rounding(chosen, baseline) == 0) return 0;
  if (baseline == 0) return std::numeric_limits<double>::infinity();
  return (chosen - baseline) / baseline;
}

struct Quantity {
  const char* name;  // as the sentence says it
  double chosen, baseline;
  int order() const { return compare_within_rounding(chosen, baseline); }
  // "by 23%", or "from 0 to 12" when the baseline is 0.
  std::string amount() const {
    if (baseline == 0) return fmt::format("from 0 to {:.6g}", chosen);
    return "by " + percent_text(relative_change(chosen, baseline));
  }
};

}  // namespace

int compare_within_rounding(double a, double b) {
  const double scale = std::max({std::abs(a), std::abs(b), 1e-300});
  if (std::abs(a - b) <= 1e-9 * scale) return 0;
  return a < b ? -1 : 1;
}

std::string percent_text(double change) {
  const double percent = std::abs(change) * 100;
  if (!std::isfinite(percent)) return "infinitely";
  const double rounded = std::round(percent);
  if (rounded == 0) return change == 0 ? "0%" : "less than 1%";
  // A fall that rounds to 100% but leaves something.
  if (rounded >= 100 && change < 0 && change > -1) return "more than 99%";
  return fmt::format("{:.0f}%", rounded);
}

int compare_placements(const Metrics& a, const Metrics& b) {
  for (const auto& [x, y] : {std::pair(a.mcl, b.mcl), std::pair(a.hop_bytes, b.hop_bytes),
                             std::pair(a.node_hop_bytes, b.node_hop_bytes)}) {
    if (const int order = compare_within_rounding(x, y); order != 0) return order;
  }
  return 0;
}

Recommendation recommend(const RecommendationInput& in) {
  const Metrics& c = in.chosen_metrics;
  const Metrics& b = in.baseline_metrics;
  const std::array<Quantity, 3> keys = {Quantity{"the maximum link load", c.mcl, b.mcl},
                                        Quantity{"hop-bytes", c.hop_bytes, b.hop_bytes},
                                        Quantity{"the traffic between cores inside nodes", c.node_hop_bytes,
                                                 b.node_hop_bytes}};
  Recommendation r;
  r.mcl_change = relative_change(c.mcl, b.mcl);
  r.hop_bytes_change = relative_change(c.hop_bytes, b.hop_bytes);
  r.node_hop_bytes_change = relative_change(c.node_hop_bytes, b.node_hop_bytes);
  std::size_t decisive = 0;
  while (decisive < keys.size() && keys[decisive].order() == 0) ++decisive;
  const std::string against =
      fmt::format("{}{}", in.baseline, in.baseline_is_launcher_default ? " (the launcher's default)" : "");
  const std::string keep = in.baseline_is_launcher_default ? "the launcher's default" : in.baseline;
  if (in.chosen == in.baseline) {
    r.text = fmt::format("{} is the best placement here; keep {}", against, keep);
    return r;
  }
  if (decisive == keys.size()) {
    r.text = fmt::format("{} is no better than {}: the same maximum link load, hop-bytes and traffic inside nodes; keep {}",
                         in.chosen, against, keep);
    return r;
  }
  r.better = keys[decisive].order() < 0;
  auto verb = [](int order) { return order < 0 ? "lowers" : "raises"; };
  std::string clause;
  if (decisive > 0) {
    clause = "keeps " + std::string(keys[0].name);
    if (decisive > 1) clause += fmt::format(" and {}", keys[1].name);
    clause += r.better ? " and " : " but ";
  }
  const Quantity& d = keys[decisive];
  clause += fmt::format("{} {} {}", verb(d.order()), d.name, d.amount());
  // After a change of the maximum link load, what hop-bytes did.
  if (decisive == 0) {
    const Quantity& h = keys[1];
    if (h.order() == 0) clause += fmt::format(" and keeps {}", h.name);
    else if (h.order() == d.order()) clause += fmt::format(" and {} {}", h.name, h.amount());
    else if (r.better) clause += fmt::format(" but raises {} {}", h.name, h.amount());
    else clause += fmt::format(" though it lowers {} {}", h.name, h.amount());
  }
  r.text = fmt::format("{} {} against {}; ", in.chosen, clause, against);
  r.text += r.better ? "use " + (in.placement.empty() ? in.chosen : in.placement) : "keep " + keep;
  return r;
}

nlohmann::json recommendation_to_json(const RecommendationInput& in, const Recommendation& r) {
  auto change = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  return {{"text", r.text},
          {"chosen", in.chosen},
          {"baseline", in.baseline},
          {"launcher_default", in.baseline_is_launcher_default},
          {"better", r.better},
          {"mcl_change", change(r.mcl_change)},
          {"hop_bytes_change", change(r.hop_bytes_change)},
          {"node_hop_bytes_change", change(r.node_hop_bytes_change)},
          {"placement", in.placement.empty() ? nlohmann::json(nullptr) : nlohmann::json(in.placement)}};
}

}  // namespace taskmap
