// `export simgrid` and `validate`: taskmap's congestion model beside SimGrid's simulation.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "commands.h"
#include "job.h"
#include "summary.h"
#include "taskmap/eval/evaluator.h"
#include "taskmap/eval/max_min.h"
#include "taskmap/core/error.h"
#include "taskmap/core/progress.h"
#include "taskmap/core/temp_files.h"
#include "taskmap/validate/simgrid.h"

namespace taskmap::cli {
namespace {

SimGridOptions simgrid_options(const RunConfig& c) {
  SimGridOptions o;
  if (c.bytes_per_unit) o.bytes_per_unit = *c.bytes_per_unit;
  if (!(o.bytes_per_unit > 0)) usage_fail("--bytes-per-unit {}: must be positive", o.bytes_per_unit);
  if (!(c.link_bandwidth > 0)) usage_fail("--link-bandwidth {}: must be positive", c.link_bandwidth);
  if (!(c.link_latency >= 0)) usage_fail("--link-latency {}: must not be negative", c.link_latency);
  o.link_bandwidth = c.link_bandwidth;
  o.link_latency = c.link_latency;
  return o;
}

// SimGrid follows one path per pair, so taskmap's prediction must too (see simgrid_routing).
RoutingSpec routing_of(const Job& job, const Machine& machine) {
  return job.routing_spec ? *job.routing_spec : simgrid_routing(machine);
}

}  // namespace

int run_export_simgrid(const RunConfig& c) {
  Job job = validate(c, true);
  if (job.mappers.empty() == c.mapping_file.empty()) usage_fail("export simgrid: give exactly one of --mapper and --mapping");
  const SimGridOptions options = simgrid_options(c);
  check_simgrid_export_dir(c.out, "--out");
  Machine machine = job_machine(job, c);
  CommGraph graph = build_pattern(*job.pattern_spec);
  const RoutingSpec routing = routing_of(job, machine);
  const MappingProblem problem(machine, graph, routing.text, c.imbalance);
  Mapping mapping =
      c.mapping_file.empty() ? map_checked(job.mappers.front(), problem) : read_mapping_argument(job, c, problem);
  const SimGridExport e = export_simgrid(machine, routing, graph, mapping, options);
  const std::string command = write_simgrid_export(e, c.out);
  std::cerr << fmt::format("wrote {}: {} ({} routing), {} ranks; run: cd {} && {}\n", c.out, e.platform_kind,
                           routing.text, e.ranks, c.out, command);
  return 0;
}

int run_validate(const RunConfig& c) {
  Job job = validate(c, true);
  if (job.mappers.empty()) usage_fail("validate: --mappers names no mapper");
  const SimGridOptions options = simgrid_options(c);
  if (!c.keep.empty()) check_simgrid_export_dir(c.keep, "--keep");
  Machine machine = job_machine(job, c);
  CommGraph graph = build_pattern(*job.pattern_spec);
  const RoutingSpec routing_spec = routing_of(job, machine);
  const MappingProblem problem(machine, graph, routing_spec.text, c.imbalance);
  const Evaluator evaluator(problem);
  namespace fs = std::filesystem;
  const fs::path work = c.keep.empty() ? fs::temp_directory_path() / fmt::format("taskmap-validate-{}", ::getpid())
                                       : fs::path(c.keep);
  fs::create_directories(work);
  std::optional<io::TempPathGuard> remove_on_signal;  // the scratch directory, not --keep's
  if (c.keep.empty()) remove_on_signal.emplace(work.string(), true);
  struct Row {
    std::string mapper, platform;
    Metrics metrics;
    double predicted, max_min, simulated;
  };
  std::vector<Row> rows;
  try {
    io::Progress progress("validate", job.mappers.size());
    for (std::size_t i = 0; i < job.mappers.size(); ++i) {
      const MapperSpec& spec = job.mappers[i];
      progress.status(spec.text);
      const Mapping mapping = map_checked(spec, problem);
      const Metrics m = evaluator.evaluate(graph, mapping);
      const SimGridExport e = export_simgrid(machine, routing_spec, graph, mapping, options);
      const std::string dir = (work / fmt::format("mapping-{}", i)).string();
      write_simgrid_export(e, dir);
      // The busiest channel carries MCL x bytes_per_unit bytes at class bandwidth x link
      // bandwidth, and the longest path adds its links' latency: the least time the iteration
      // can take under any bandwidth sharing.
      const double predicted =
          m.mcl * options.bytes_per_unit / options.link_bandwidth + m.max_dilation * options.link_latency;
      // taskmap's own max-min fluid model of the same iteration, latency added likewise.
      const std::optional<double> fluid = max_min_completion_time(machine, problem.routing(), graph, mapping);
      const double max_min = fluid ? *fluid * options.bytes_per_unit / options.link_bandwidth +
                                         m.max_dilation * options.link_latency
                                   : std::nan("");
      rows.push_back({spec.text, e.platform_kind, m, predicted, max_min, run_simgrid(dir)});
      progress.advance();
    }
  } catch (...) {
    if (c.keep.empty()) fs::remove_all(work);
    throw;
  }
  if (c.keep.empty()) fs::remove_all(work);
  std::vector<double> predicted, max_min, simulated;
  bool all_fluid = true;
  for (const Row& r : rows) {
    predicted.push_back(r.predicted);
    max_min.push_back(r.max_min);
    simulated.push_back(r.simulated);
    all_fluid = all_fluid && !std::isnan(r.max_min);
  }
  // NaN: undefined (a constant side, or no max-min estimate).
  const double rho = spearman(predicted, simulated).value_or(std::nan(""));
  const double rho_max_min = all_fluid ? spearman(max_min, simulated).value_or(std::nan("")) : std::nan("");
  auto number_or_null = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
  if (job.format == OutputFormat::Json) {
    Units units{options.bytes_per_unit, options.link_bandwidth};
    nlohmann::json j = run_json(job, problem, units);
    j["platform"] = rows.front().platform;
    j["spearman"] = number_or_null(rho);
    j["spearman_max_min"] = number_or_null(rho_max_min);
    j["rows"] = nlohmann::json::array();
    for (const Row& r : rows) {
      nlohmann::json row = placement_json(r.mapper, r.metrics);
      row.update({{"predicted_s", r.predicted},
                  {"max_min_s", number_or_null(r.max_min)},
                  {"simulated_s", r.simulated},
                  {"ratio", r.simulated / r.predicted},
                  {"ratio_max_min", number_or_null(r.simulated / r.max_min)}});
      j["rows"].push_back(std::move(row));
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << fmt::format("{} on {} ({} routing; SimGrid platform: {})\n\n", job.pattern_spec->text,
                             machine.description, routing_spec.text, rows.front().platform);
    std::cout << fmt::format("{:<28}{:>12}{:>14}{:>14}{:>14}{:>10}{:>10}\n", "mapping", "MCL", "predicted s",
                             "max-min s", "simulated s", "sim/pred", "sim/mm");
    for (const Row& r : rows) {
      std::cout << fmt::format("{:<28}{:>12.6g}{:>14.6g}{:>14.6g}{:>14.6g}{:>10.3f}{:>10.3f}\n", r.mapper, r.metrics.mcl,
                               r.predicted, r.max_min, r.simulated, r.simulated / r.predicted,
                               r.simulated / r.max_min);
    }
    auto show = [](double v) { return std::isnan(v) ? std::string("undefined") : fmt::format("{:.4f}", v); };
    std::cout << fmt::format("\nSpearman rank correlation with SimGrid: MCL bound {}, max-min model {}\n",
                             show(rho), show(rho_max_min));
  }
  return 0;
}

}  // namespace taskmap::cli
