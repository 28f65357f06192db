#include "commands.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <utility>

#include "job.h"
#include "taskmap/eval/evaluator.h"
#include "taskmap/eval/html_report.h"
#include "taskmap/eval/report.h"
#include "taskmap/core/atomic_file.h"
#include "taskmap/core/error.h"
#include "taskmap/core/progress.h"
#include "taskmap/dist/processes.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/launch/placement.h"
#include "taskmap/workload/pattern_spec.h"
#include "taskmap/routing/routing.h"
#include "taskmap/topology/distance.h"
#include "taskmap/topology/machine_spec.h"
#include "taskmap/topology/partial_cube.h"

namespace taskmap::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The metrics of a mapping, on every process of the run, which share its routing work.
Metrics evaluate(const MappingProblem& problem, const Mapping& mapping, std::vector<double>* loads = nullptr) {
  return Evaluator(problem, problem.processes()).evaluate(problem.graph(), mapping, loads);
}

// One line each on stderr: the chosen mapping and the launchers' defaults (block in host-name
// order, round robin), so that the user sees what the mapping gained. Every process evaluates,
// the leader prints.
void print_gain(const Job& job, const MappingProblem& problem, const std::string& chosen, const Mapping& mapping) {
  auto line = [&](const std::string& name, const Mapping& m) {
    const Metrics x = evaluate(problem, m);
    if (!job.speaks()) return;
    std::string mcl = fmt::format("MCL {:.6g}", x.mcl);
    if (x.mcl_network != x.mcl) mcl += fmt::format(" (network links {:.6g})", x.mcl_network);
    std::cerr << fmt::format("{:<32} {}, hop-bytes {:.6g}, node hop-bytes {:.6g}\n", name + ":", mcl, x.hop_bytes,
                             x.node_hop_bytes);
  };
  line(chosen, mapping);
  for (const char* baseline : {"hostname-order", "cyclic"}) {
    const MapperSpec spec = parse_mapper_spec(baseline);
    if (!why_not_applicable(spec, problem).empty()) continue;
    line(fmt::format("{} (launcher default)", baseline), make_mapper(spec)->run(problem));
  }
}

// compare's rows over the processes: each process maps its share of the rows (row i of the
// mappers that run on one process goes to process i mod K; a mapper that runs on all processes
// is mapped by all), then the rows are evaluated in their order, each by every process, and
// the leader prints them. The output is the serial run's, timings aside.
struct MappedRow {
  bool mapped = false;
  Mapping mapping;
  double seconds = 0;
  std::string error;  // the mapper's Error: thrown on every process when its row comes
};

void map_row(const MapperSpec& spec, const MappingProblem& problem, MappedRow& row) {
  auto t0 = std::chrono::steady_clock::now();
  try {
    row.mapping = map_checked(spec, problem);
  } catch (const Error& e) {
    row.error = e.what();
  }
  row.seconds = seconds_since(t0);
  row.mapped = true;
}

}  // namespace

int run_info(const RunConfig& c) {
  Job job = validate(c, false);
  // A large structured machine is described from its outline, in closed forms: building its
  // channels could take longer than everything info says about it.
  // Small ones are built, so that the partial-cube test can run on their channels.
  constexpr std::uint64_t kBuildUpToChannels = std::uint64_t{1} << 22;
  const bool from_file = job.machine_spec.kind == MachineKind::Graph || job.machine_spec.kind == MachineKind::Slurm ||
                         job.machine_spec.kind == MachineKind::Ibnet || job.machine_spec.kind == MachineKind::Aries;
  Machine machine;
  if (!from_file && !job.allocation && c.node_topology.empty()) {
    machine = build_machine(job.machine_spec, {}, BuildDetail::Outline);
    std::uint64_t channels = 0;
    for (std::uint64_t n : channels_per_class(machine)) channels += n;
    if (channels <= kBuildUpToChannels) machine = job_machine(job, c);
  } else {
    machine = job_machine(job, c);
  }
  MachineInfo info;
  const RoutingSpec routing = job.routing_spec ? *job.routing_spec : default_routing(machine);
  check_routing_applies(machine, routing);
  info.routing = routing.text;
  info.stats = topology_stats(machine);
  info.partial_cube = partial_cube_answer(machine);
  if (job.format == OutputFormat::Json) std::cout << machine_info_json(machine, info).dump(2) << "\n";
  else std::cout << machine_info_table(machine, info);
  return 0;
}

int run_eval(const RunConfig& c, const dist::Processes& processes) {
  Job job = validate(c, true, processes);
  if (!job.mappers.empty() && !c.mapping_file.empty()) fail("eval: give --mapper or --mapping, not both");
  if (job.mappers.empty() && c.mapping_file.empty()) job.mappers.push_back(parse_mapper_spec(kDefaultMapper));
  std::optional<MapperSpec> baseline;
  if (!c.report.empty()) {
    baseline = parse_mapper_spec(c.baseline);
    if (!c.report.ends_with(".html") && !io::is_stdout_path(c.report)) {
      fail("--report {}: the report is an HTML page; name it *.html (or - for standard output)", c.report);
    }
    check_on_leader(job, [&] { io::check_output_path(c.report, io::OutputKind::File, "--report"); });
  }
  if (!c.loads_csv.empty()) {
    check_on_leader(job, [&] { io::check_output_path(c.loads_csv, io::OutputKind::File, "--loads-csv"); });
  }
  Machine machine = job_machine(job, c);
  CommGraph graph = build_pattern(*job.pattern_spec);
  const MappingProblem problem = make_problem(job, c, machine, graph);
  const std::string& routing_name = problem.routing_name();
  const std::string mapping_name = c.mapping_file.empty() ? job.mappers.front().text : "file:" + c.mapping_file;
  // A placement file is checked as it is read.
  Mapping mapping = c.mapping_file.empty()
                        ? map_checked(job.mappers.front(), problem)
                        : read_mapping_file(c.mapping_file, machine, graph.num_tasks(), problem.tasks_per_slot());
  if (!mapping.note.empty() && job.speaks()) std::cerr << mapping.note << "\n";
  const bool want_loads = !c.loads_csv.empty() || baseline;
  std::vector<double> loads;
  Metrics m = evaluate(problem, mapping, want_loads ? &loads : nullptr);
  if (!c.loads_csv.empty() && job.speaks()) io::write_file_atomically(c.loads_csv, channel_loads_csv(machine, loads));
  if (baseline) {
    const Mapping base = map_checked(*baseline, problem);
    std::vector<ReportColumn> columns(2);
    columns[0] = {baseline->text, {}, {}};
    columns[0].metrics = evaluate(problem, base, &columns[0].loads);
    columns[1] = {mapping_name, m, loads};
    if (job.speaks()) {
      io::write_file_atomically(
          c.report, html_report(machine, {job.pattern_spec->text, routing_name, graph.num_tasks()}, columns));
      if (!io::is_stdout_path(c.report)) {
        std::cerr << fmt::format("wrote {} ({} beside {})\n", c.report, mapping_name, baseline->text);
      }
    }
  }
  if (!job.speaks()) return 0;
  if (job.format == OutputFormat::Json) {
    nlohmann::json j = metrics_to_json(m);
    j["machine"] = machine.description;
    j["pattern"] = job.pattern_spec->text;
    j["routing"] = routing_name;
    j["mapping"] = mapping_name;
    j["tasks"] = graph.num_tasks();
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << fmt::format("{} on {} ({} routing), mapping {}\n\n", job.pattern_spec->text, machine.description,
                             routing_name, c.mapping_file.empty() ? job.mappers.front().text : c.mapping_file)
              << metrics_table(m);
  }
  return 0;
}

int run_map(const RunConfig& c, const dist::Processes& processes) {
  Job job = validate(c, true, processes);
  job.placement = parse_placement_format(c.out_format);
  const HostNames hosts = c.hosts_file.empty() ? HostNames::with_prefix(c.host_prefix) : HostNames::from_file(c.hosts_file);
  if (job.mappers.empty()) job.mappers.push_back(parse_mapper_spec(kDefaultMapper));
  check_on_leader(job, [&] { io::check_output_path(c.out, io::OutputKind::File, "--out"); });
  Machine machine = job_machine(job, c);
  CommGraph graph = build_pattern(*job.pattern_spec);
  check_placement_capacity(*job.placement, graph.num_tasks(), machine);
  const MappingProblem problem = make_problem(job, c, machine, graph);
  Mapping mapping = map_checked(job.mappers.front(), problem);
  if (job.speaks()) {
    if (!mapping.note.empty()) std::cerr << mapping.note << "\n";
    io::write_file_atomically(c.out, format_placement(mapping, machine, *job.placement, hosts));
    if (!io::is_stdout_path(c.out)) {
      std::cerr << fmt::format("wrote {} ({} tasks, {})\n", c.out, graph.num_tasks(), c.out_format);
    }
  }
  print_gain(job, problem, job.mappers.front().text, mapping);
  return 0;
}

int run_compare(const RunConfig& c, const dist::Processes& processes) {
  Job job = validate(c, true, processes);
  if (job.mappers.empty()) fail("compare: --mappers names no mapper");
  Machine machine = job_machine(job, c);
  CommGraph graph = build_pattern(*job.pattern_spec);
  const MappingProblem problem = make_problem(job, c, machine, graph);
  const std::string& routing_name = problem.routing_name();
  const std::size_t n = job.mappers.size();
  // A mapper that does not apply to this machine or job gets a row saying why.
  std::vector<std::string> why(n);
  for (std::size_t i = 0; i < n; ++i) why[i] = why_not_applicable(job.mappers[i], problem);
  // Who maps each row: -1 all processes together, else one process.
  std::vector<int> owner(n, -1);
  for (std::size_t i = 0, spread = 0; i < n; ++i) {
    if (why[i].empty() && !runs_on_all_processes(job.mappers[i])) owner[i] = static_cast<int>(spread++ % processes.size());
  }
  const MappingProblem on_own = problem.on_processes(processes.alone());
  std::vector<MappedRow> mapped(n);
  if (processes.size() > 1) {
    for (std::size_t i = 0; i < n; ++i) {
      if (owner[i] == processes.rank()) map_row(job.mappers[i], on_own, mapped[i]);
    }
  }
  std::vector<CompareRow> rows;
  io::Progress progress("compare", n, job.speaks());
  std::vector<std::string> reasons;
  for (std::size_t i = 0; i < n; ++i) {
    const MapperSpec& spec = job.mappers[i];
    if (!why[i].empty()) {
      rows.push_back({spec.text, {}, 0, why[i]});
      reasons.push_back(fmt::format("{}: {}", spec.text, why[i]));
      progress.advance();
      continue;
    }
    progress.status(spec.text);
    MappedRow& row = mapped[i];
    if (owner[i] < 0) map_row(spec, problem, row);
    else if (owner[i] == processes.rank() && !row.mapped) map_row(spec, on_own, row);  // one process: map, then evaluate
    if (owner[i] >= 0) {
      processes.broadcast(row.error, owner[i]);
      processes.broadcast(&row.seconds, sizeof row.seconds, owner[i]);
      if (row.error.empty()) broadcast_mapping(row.mapping, processes, owner[i]);
    }
    if (!row.error.empty()) throw Error(row.error);
    progress.erase();
    if (!row.mapping.note.empty() && job.speaks()) std::cerr << row.mapping.note << "\n";
    rows.push_back({spec.text, evaluate(problem, row.mapping), row.seconds, {}});
    row.mapping = {};
    progress.advance();
  }
  if (reasons.size() == rows.size()) fail("compare: no mapper applies ({})", fmt::join(reasons, "; "));
  if (!job.speaks()) return 0;
  if (job.format == OutputFormat::Json) {
    nlohmann::json j = {{"machine", machine.description},
                        {"pattern", job.pattern_spec->text},
                        {"routing", routing_name},
                        {"tasks", graph.num_tasks()},
                        {"rows", compare_to_json(rows)}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << fmt::format("{} ({} tasks) on {} ({} slots), {} routing\n\n", job.pattern_spec->text,
                             graph.num_tasks(), machine.description, machine.num_slots(), routing_name)
              << compare_table(rows);
  }
  return 0;
}

}  // namespace taskmap::cli
