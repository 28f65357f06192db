#pragma once
// What a report tells the user to do: the chosen placement beside a baseline (the launcher's
// default), in one sentence, e.g. "auto lowers the maximum link load by 41% and hop-bytes by 23%
// against hostname-order (the launcher's default); use rankfile job.rankfile".
//
// The rule (docs/report.md):
// - The chosen placement is better when it is lower by MCL, then by hop-bytes, then by the
//   node hop-bytes (traffic between the cores of a node), each compared within 1e-9 relative
//   (sums of the same loads in another order differ in the last digits); equal otherwise.
// - A change is (chosen - baseline) / baseline, shown as a whole percent, rounded half away
//   from zero; a change that rounds to 0% but is not equal is "less than 1%". From a baseline
//   of 0 to more than 0 it is "from 0 to X".
// - Better: "<chosen> lowers the maximum link load by A% and hop-bytes by B% against
//   <baseline>; use <placement>" (the metrics that did not fall say "keeps" or "but raises").
//   Not better: "<chosen> does not improve on <baseline> (...); keep <baseline>", and "keep
//   the launcher's default" when the baseline is it.
#include <string>

#include <nlohmann/json.hpp>

#include "taskmap/eval/evaluator.h"

namespace taskmap {

struct RecommendationInput {
  std::string chosen;     // the placement's name: a mapper ("auto") or "file:PATH"
  Metrics chosen_metrics;
  std::string baseline;   // e.g. "hostname-order"
  Metrics baseline_metrics;
  bool baseline_is_launcher_default = true;
  // What to use when the chosen placement is better, e.g. "rankfile job.rankfile"; empty: the
  // chosen placement's name ("use auto").
  std::string placement;
};

struct Recommendation {
  bool better = false;     // the chosen placement is strictly better (the rule above)
  // Relative changes (chosen - baseline) / baseline; +inf from a baseline of 0; 0 when both are 0.
  double mcl_change = 0;
  double hop_bytes_change = 0;
  double node_hop_bytes_change = 0;
  std::string text;        // the sentence
};

Recommendation recommend(const RecommendationInput& input);

// The rule's order: < 0 when a is better than b, 0 when they are equal, > 0 when a is worse.
int compare_placements(const Metrics& a, const Metrics& b);

// -1, 0 or 1 as a is below, equal to (within 1e-9 relative: sums of the same loads in another
// order differ in the last digits) or above b. The one comparison of metrics and loads that
// auto, the recommendation and the refiners use.
int compare_within_rounding(double a, double b);

// A change as the sentence shows it, without its sign: "41%", "less than 1%", "0%".
std::string percent_text(double change);

// {"text", "chosen", "baseline", "launcher_default", "better", "mcl_change",
//  "hop_bytes_change", "node_hop_bytes_change", "placement"} (a change of +inf is null).
nlohmann::json recommendation_to_json(const RecommendationInput& input, const Recommendation& r);

}  // namespace taskmap
