#include "taskmap/eval/recommendation.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace taskmap {
namespace {

double relative_change(double chosen, double baseline) {
  if (compare_within_rounding(chosen, baseline) == 0) return 0;
  if (baseline == 0) return std::numeric_limits<double>::infinity();
  return (chosen - baseline) / baseline;
}

struct Quantity {
  const char* key;   // as the JSON names it
  const char* name;  // as the sentence says it
  double chosen, baseline;
  int order() const { return compare_within_rounding(chosen, baseline); }
  // "by 23%", or "from 0 to 12" when the baseline is 0.
  std::string amount() const {
    if (baseline == 0) return fmt::format("from 0 to {:.6g}", chosen);
    return "by " + percent_text(relative_change(chosen, baseline));
  }
  std::string changed() const { return fmt::format("{} {}", name, amount()); }
};

// "A by x", "A by x and B by y", "A by x, B by y and C by z".
std::string changes(const std::vector<const Quantity*>& qs) {
  std::string out;
  for (std::size_t i = 0; i < qs.size(); ++i) {
    if (i > 0) out += i + 1 == qs.size() ? " and " : ", ";
    out += qs[i]->changed();
  }
  return out;
}

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
  // The three that decide, in the rule's order.
  const std::array<Quantity, 3> keys = {Quantity{"mcl", "the maximum link load", c.mcl, b.mcl},
                                        Quantity{"hop_bytes", "hop-bytes", c.hop_bytes, b.hop_bytes},
                                        Quantity{"node_hop_bytes", "node hop-bytes", c.node_hop_bytes,
                                                 b.node_hop_bytes}};
  // Every metric the summary shows, in its order: the network links' MCL where the nodes' own
  // links make it differ from the MCL, the leaf uplink volume on fabrics with leaf switches.
  std::vector<const Quantity*> shown = {&keys[0]};
  const Quantity network{"mcl_network", "the maximum load on network links", c.mcl_network, b.mcl_network};
  if (c.mcl_network != c.mcl || b.mcl_network != b.mcl) shown.push_back(&network);
  shown.push_back(&keys[1]);
  shown.push_back(&keys[2]);
  const Quantity uplink{"leaf_uplink_volume", "the leaf uplink volume", c.leaf_uplink_volume, b.leaf_uplink_volume};
  if (c.leaf_uplink_volume > 0 || b.leaf_uplink_volume > 0) shown.push_back(&uplink);

  Recommendation r;
  r.mcl_change = relative_change(c.mcl, b.mcl);
  r.hop_bytes_change = relative_change(c.hop_bytes, b.hop_bytes);
  r.node_hop_bytes_change = relative_change(c.node_hop_bytes, b.node_hop_bytes);
  r.mcl_network_change = relative_change(c.mcl_network, b.mcl_network);
  r.leaf_uplink_volume_change = relative_change(c.leaf_uplink_volume, b.leaf_uplink_volume);
  const std::string against =
      fmt::format("{}{}", in.baseline, in.baseline_is_launcher_default ? " (the launcher's default)" : "");
  std::string keep = "keep " + (in.baseline_is_launcher_default ? "the launcher's default" : in.baseline);
  if (!in.placement.empty()) keep += in.placement_holds_baseline ? ": " + in.placement + " holds it" : ", not " + in.placement;
  if (in.chosen == in.baseline) {
    r.text = fmt::format("{} is the best placement here; {}", against, keep);
    return r;
  }
  for (const Quantity* q : shown) {
    if (q->order() > 0) r.worse.push_back(q->key);
    if (q->order() < 0) r.improved.push_back(q->key);
  }
  std::size_t decisive = 0;
  while (decisive < keys.size() && keys[decisive].order() == 0) ++decisive;
  if (decisive == keys.size()) {
    std::vector<const Quantity*> lower, higher;
    for (const Quantity* q : shown) {
      if (q->order() < 0) lower.push_back(q);
      if (q->order() > 0) higher.push_back(q);
    }
    std::string still;
    if (!lower.empty()) still += ", though it lowers " + changes(lower);
    if (!higher.empty()) still += (lower.empty() ? ", and it raises " : " and raises ") + changes(higher);
    r.text = fmt::format("{} is no better than {}: the same maximum link load, hop-bytes and node hop-bytes{}; {}",
                         in.chosen, against, still, keep);
    return r;
  }
  const Quantity& d = keys[decisive];
  r.deciding = d.key;
  r.better = d.order() < 0;
  // The deciding metric first, then the others that changed: its way, then the other way.
  std::vector<const Quantity*> along = {&d}, against_it;
  for (const Quantity* q : shown) {
    if (q == &d || q->order() == 0) continue;
    (q->order() == d.order() ? along : against_it).push_back(q);
  }
  std::string clause;
  if (decisive > 0) {
    clause = "keeps " + std::string(keys[0].name);
    if (decisive > 1) clause += fmt::format(" and {}", keys[1].name);
    clause += r.better ? " and " : " but ";
  }
  clause += (r.better ? "lowers " : "raises ") + changes(along);
  if (!against_it.empty()) clause += (r.better ? " but raises " : " though it lowers ") + changes(against_it);
  r.text = fmt::format("{} {} against {}; ", in.chosen, clause, against);
  if (!against_it.empty()) r.text += fmt::format("decided by {}: ", d.name);
  r.text += r.better ? "use " + (in.placement.empty() ? in.chosen : in.placement) : keep;
  return r;
}

nlohmann::json recommendation_to_json(const RecommendationInput& in, const Recommendation& r) {
  auto change = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  return {{"text", r.text},
          {"chosen", in.chosen},
          {"baseline", in.baseline},
          {"launcher_default", in.baseline_is_launcher_default},
          {"better", r.better},
          {"deciding", r.deciding.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.deciding)},
          {"worse", r.worse},
          {"improved", r.improved},
          {"mcl_change", change(r.mcl_change)},
          {"mcl_network_change", change(r.mcl_network_change)},
          {"hop_bytes_change", change(r.hop_bytes_change)},
          {"node_hop_bytes_change", change(r.node_hop_bytes_change)},
          {"leaf_uplink_volume_change", change(r.leaf_uplink_volume_change)},
          {"placement", in.placement.empty() ? nlohmann::json(nullptr) : nlohmann::json(in.placement)},
          {"placement_holds_baseline", in.placement_holds_baseline}};
}

}  // namespace taskmap
