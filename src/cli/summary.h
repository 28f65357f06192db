#pragma once
// What eval, compare and map say about a placement beside the launcher's default: the
// baseline, the physical units, the recommendation, the JSON pieces they share and the HTML
// report (docs/report.md).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "job.h"
#include "taskmap/eval/evaluator.h"
#include "taskmap/eval/html_report.h"
#include "taskmap/eval/recommendation.h"
#include "taskmap/eval/report.h"

namespace taskmap::cli {

// The placement a recommendation compares with: --baseline, else the launchers' default for
// the machine (hostname-order where nodes have host names, else default; default when the
// job has more tasks than slots, which hostname-order refuses). None for --baseline none:
// no recommendation, and no baseline to map and evaluate.
struct Baseline {
  MapperSpec spec;
  bool launcher_default = true;
};
std::optional<Baseline> choose_baseline(const Job& job, const MappingProblem& problem);

// A run's recommendation with what it was made from (recommendation_to_json needs both).
struct Verdict {
  RecommendationInput input;
  Recommendation recommendation;
};
Verdict make_verdict(RecommendationInput input);

// The HTML report's header; without a verdict, no recommendation at its top.
ReportHeader report_header(const Job& job, const MappingProblem& problem, const Units& units,
                           const std::optional<Verdict>& verdict);

// --bytes-per-unit and the machine's link rate.
Units run_units(const RunConfig& c, const Machine& machine);

// {"machine", "pattern", "routing", "tasks", "units"}: how every run's JSON starts.
nlohmann::json run_json(const Job& job, const MappingProblem& problem, const Units& units);

// {"mapper": name, ...metrics}: one evaluated placement (compare's rows, the baselines).
nlohmann::json placement_json(const std::string& mapper, const Metrics& m);

// --report: an HTML page, checked before any work.
void check_report_path(const RunConfig& c);
void write_report(const RunConfig& c, const Machine& machine, const ReportHeader& header,
                  const std::vector<ReportColumn>& columns);

}  // namespace taskmap::cli
