#pragma once
// What a report tells the user to do: the chosen placement beside a baseline (the launcher's
// default), in one sentence, e.g. "auto lowers the maximum link load by 23% but raises node
// hop-bytes by 13% against hostname-order (the launcher's default); decided by the maximum link
// load: use job.rankfile (openmpi-rankfile)".
//
// The rule (docs/report.md):
// - The chosen placement is better when it is lower by MCL, then by hop-bytes, then by the
//   node hop-bytes (traffic between the cores of a node), each compared within 1e-9 relative
//   (sums of the same loads in another order differ in the last digits); equal otherwise. The
//   first of the three that differs decides.
// - The sentence names the deciding metric first, then every other metric shown that changed:
//   the MCL of the network links alone (when it differs from the MCL, i.e. the nodes' own
//   links count), hop-bytes, node hop-bytes and the leaf uplink volume (on fabrics with leaf
//   switches); those that moved the deciding one's way after it ("lowers A by x% and B by
//   y%"), those that moved the other way after "but raises" (or "though it lowers"), and
//   then, when some did, "decided by A" before the action. On a tie, the metrics that still
//   changed follow "the same ...".
// - A change is (chosen - baseline) / baseline, shown as a whole percent, rounded half away
//   from zero; a change that rounds to 0% but is not equal is "less than 1%". From a baseline
//   of 0 to more than 0 it is "from 0 to X".
// - The action: "use <placement>" when better; "keep <baseline>" otherwise ("keep the
//   launcher's default" when the baseline is it), with ": <placement> holds it" when the
//   placement written is the baseline's (map, when auto ties it) and ", not <placement>" when it is the
//   chosen one.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "taskmap/eval/evaluator.h"

namespace taskmap {

struct RecommendationInput {
  std::string chosen;     // the placement's name: a mapper ("auto") or "file:PATH"
  Metrics chosen_metrics;
  std::string baseline;   // e.g. "hostname-order"
  Metrics baseline_metrics;
  bool baseline_is_launcher_default = true;
  // What to use when the chosen placement is better, e.g. "job.rankfile (openmpi-rankfile)";
  // empty: the chosen placement's name ("use auto").
  std::string placement;
  // The placement file holds the baseline's mapping, not the chosen one's (map writes the
  // baseline's when auto ties it).
  bool placement_holds_baseline = false;
};

struct Recommendation {
  bool better = false;     // the chosen placement is strictly better (the rule above)
  // Relative changes (chosen - baseline) / baseline; +inf from a baseline of 0; 0 when both are 0.
  double mcl_change = 0;
  double hop_bytes_change = 0;
  double node_hop_bytes_change = 0;
  double mcl_network_change = 0;
  double leaf_uplink_volume_change = 0;
  // The metric that decides ("mcl", "hop_bytes" or "node_hop_bytes", as the JSON names them);
  // empty when the three are equal (a tie) or the chosen placement is the baseline.
  std::string deciding;
  // The metrics shown that are higher (worse) and lower (better) than the baseline's, in the
  // order mcl, mcl_network, hop_bytes, node_hop_bytes, leaf_uplink_volume.
  std::vector<std::string> worse, improved;
  std::string text;        // the sentence
  bool tie() const { return deciding.empty(); }
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

// {"text", "chosen", "baseline", "launcher_default", "better", "deciding", "worse", "improved",
//  "mcl_change", "mcl_network_change", "hop_bytes_change", "node_hop_bytes_change",
//  "leaf_uplink_volume_change", "placement", "placement_holds_baseline"} (a change of +inf is
//  null; "deciding" null on a tie).
nlohmann::json recommendation_to_json(const RecommendationInput& input, const Recommendation& r);

}  // namespace taskmap
