#include "summary.h"

#include <fmt/format.h>

#include <iostream>

#include "taskmap/core/atomic_file.h"
#include "taskmap/core/error.h"

namespace taskmap::cli {

std::optional<Baseline> choose_baseline(const Job& job, const MappingProblem& problem) {
  if (job.no_baseline) return std::nullopt;
  if (job.baseline) return Baseline{*job.baseline, job.baseline->text == launcher_default_mapper(problem.machine())};
  MapperSpec spec = parse_mapper_spec(launcher_default_mapper(problem.machine()));
  if (!why_not_applicable(spec, problem).empty()) spec = parse_mapper_spec("default");
  return Baseline{std::move(spec), true};
}

Verdict make_verdict(RecommendationInput input) {
  Recommendation r = recommend(input);
  return {std::move(input), std::move(r)};
}

ReportHeader report_header(const Job& job, const MappingProblem& problem, const Units& units,
                           const std::optional<Verdict>& verdict) {
  ReportHeader h{job.pattern_spec->text, problem.routing_name(), problem.graph().num_tasks(), "", false, units};
  if (verdict) h.recommendation = verdict->recommendation.text, h.recommends_change = verdict->recommendation.better;
  return h;
}

Units run_units(const RunConfig& c, const Machine& machine) {
  return {c.bytes_per_unit.value_or(0), machine.link_bytes_per_s};  // checked by validate()
}

nlohmann::json run_json(const Job& job, const MappingProblem& problem, const Units& units) {
  return {{"machine", problem.machine().description},
          {"pattern", job.pattern_spec->text},
          {"routing", problem.routing_name()},
          {"tasks", problem.graph().num_tasks()},
          {"units", units_to_json(units)}};
}

nlohmann::json placement_json(const std::string& mapper, const Metrics& m) {
  nlohmann::json j = metrics_to_json(m);
  j["mapper"] = mapper;
  return j;
}

void check_report_path(const RunConfig& c) {
  if (c.report.empty()) return;
  if (!c.report.ends_with(".html") && !io::is_stdout_path(c.report)) {
    usage_fail("--report {}: the report is an HTML page; name it *.html (or - for standard output)", c.report);
  }
  io::check_output_path(c.report, io::OutputKind::File, "--report");
}

void write_report(const RunConfig& c, const Machine& machine, const ReportHeader& header,
                  const std::vector<ReportColumn>& columns) {
  io::write_file_atomically(c.report, html_report(machine, header, columns));
  if (!io::is_stdout_path(c.report)) std::cerr << fmt::format("wrote {}\n", c.report);
}

}  // namespace taskmap::cli
