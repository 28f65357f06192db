#include "commands.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <utility>

#include "job.h"
#include "summary.h"
#include "taskmap/eval/evaluator.h"
#include "taskmap/eval/html_report.h"
#include "taskmap/eval/recommendation.h"
#include "taskmap/eval/report.h"
#include "taskmap/core/atomic_file.h"
#include "taskmap/core/error.h"
#include "taskmap/core/progress.h"
#include "taskmap/core/text_source.h"
#include "taskmap/dist/processes.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/launch/placement.h"
#include "taskmap/map/node_order.h"
#include "taskmap/workload/pattern_spec.h"
#include "taskmap/routing/forwarding_tables.h"
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

// The placement a recommendation names: "PATH (FORMAT)" for a written placement file.
std::string placement_phrase(const std::string& path, const std::string& format) {
  return format == "plain" ? path : fmt::format("{} ({})", path, format);
}

// The best row by the recommendation's rule (MCL, then hop-bytes, then node hop-bytes), ties
// to the baseline, then to the earlier row.
std::size_t best_row(const std::vector<CompareRow>& rows, const std::string& baseline) {
  std::size_t best = rows.size();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].skipped.empty()) continue;
    if (best == rows.size()) {
      best = i;
      continue;
    }
    const int order = compare_placements(rows[i].metrics, rows[best].metrics);
    if (order < 0 || (order == 0 && rows[i].mapper == baseline && rows[best].mapper != baseline)) best = i;
  }
  return best;
}

// --out-format, else the default: plain on a machine without host names (the papers' machines,
// whose files no launcher reads); on a machine with host names (a cluster's fabric) no
// default, since the launcher is not in the files: Slurm's srun and Open MPI's mpirun run on
// the same clusters, and each misreads the other's file.
PlacementSpec out_format_of(const RunConfig& c, const Machine& machine) {
  if (!c.out_format.empty()) return parse_placement_spec(c.out_format);
  if (!machine.named_nodes()) return parse_placement_spec("plain");
  usage_fail("map: a machine with host names needs --out-format, the launcher's file: srun (SLURM_HOSTFILE and a "
             "CPU list), openmpi-rankfile (mpirun), hydra (mpiexec -f), cray-rank-order, or plain (taskmap's own); "
             "taskmap list formats");
}

}  // namespace

int run_info(const RunConfig& c) {
  Job job = validate(c, false);
  // A large structured machine is described from its outline, in closed forms: building its
  // channels could take longer than everything info says about it.
  // Small ones are built, so that the partial-cube test can run on their channels.
  constexpr std::uint64_t kBuildUpToChannels = std::uint64_t{1} << 22;
  const bool from_file = job.machine_spec.kind == MachineKind::Graph || job.machine_spec.kind == MachineKind::ScotchTarget ||
                         is_fabric(job.machine_spec.kind);
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
  info.verbose = c.verbose;
  if (job.format == OutputFormat::Json) std::cout << machine_info_json(machine, info).dump(2) << "\n";
  else std::cout << machine_info_table(machine, info);
  return 0;
}

int run_routes(const RunConfig& c) {
  Job job = validate(c, false);
  const std::string out = c.out.empty() ? "-" : c.out;
  io::check_output_path(out, io::OutputKind::File, "--out");
  const Machine machine = job_machine(job, c);
  auto warn = [](const std::string& line) { std::cerr << "taskmap: warning: " << io::printable(line) << "\n"; };
  const auto tables = forwarding_tables_for(machine, *job.routing_spec, warn);
  const ib::Subnet& subnet = tables->subnet ? *tables->subnet : *std::get<FabricShape>(machine.shape).subnet;
  io::AtomicFile file(out);
  write_forwarding_tables(file.stream(), subnet, *tables);
  file.commit();
  std::size_t switches = 0, entries = 0;
  for (std::uint32_t n = 0; n < subnet.nodes.size(); ++n) {
    if (!subnet.nodes[n].is_switch() || !tables->has_table(n)) continue;
    ++switches;
    for (std::uint8_t port : tables->port[n]) entries += port != ib::kNoPort;
  }
  if (!io::is_stdout_path(out)) {
    std::cerr << fmt::format("wrote {}: the tables of {} switches, {} entries ({})\n", out, switches, entries,
                             job.routing_spec->text);
  }
  return 0;
}

int run_eval(const RunConfig& c, const dist::Processes& processes) {
  Job job = validate(c, true, processes);
  if (!job.mappers.empty() && !c.mapping_file.empty()) usage_fail("eval: give --mapper or --mapping, not both");
  if (job.mappers.empty() && c.mapping_file.empty()) job.mappers.push_back(parse_mapper_spec(kDefaultMapper));
  check_on_leader(job, [&] { check_report_path(c); });
  if (!c.loads_csv.empty()) {
    check_on_leader(job, [&] { io::check_output_path(c.loads_csv, io::OutputKind::File, "--loads-csv"); });
  }
  if (!c.mapping_file.empty()) {
    if (const auto hosts = placement_hosts(c.mapping_file, job.mapping_format); !hosts.empty()) {
      Allocation named;  // each host with all its slots, as the rankfile's slot= numbers them
      named.source = fmt::format("the hosts of {}", c.mapping_file);
      for (const auto& [host, line] : hosts) {
        named.hosts.push_back(host);
        named.slots.push_back(0);
        named.lines.push_back(fmt::format("{}:{}", c.mapping_file, line));
      }
      job.allocation_of_mapping = std::move(named);
    }
  }
  Machine machine = job_machine(job, c);
  const Units units = run_units(c, machine);
  CommGraph graph = build_pattern(*job.pattern_spec);
  const MappingProblem problem = make_problem(job, c, machine, graph);
  const std::optional<Baseline> baseline = choose_baseline(job, problem);
  const std::string mapping_name = c.mapping_file.empty() ? job.mappers.front().text : "file:" + c.mapping_file;
  // A placement file is checked as it is read.
  Mapping mapping =
      c.mapping_file.empty() ? map_checked(job.mappers.front(), problem) : read_mapping_argument(job, c, problem);
  if (!mapping.note.empty() && job.speaks()) std::cerr << mapping.note << "\n";
  const bool report = !c.report.empty();
  ReportColumn evaluated{mapping_name, {}, {}};
  evaluated.metrics = evaluate(problem, mapping, report || !c.loads_csv.empty() ? &evaluated.loads : nullptr);
  if (!c.loads_csv.empty() && job.speaks()) io::write_file_atomically(c.loads_csv, channel_loads_csv(machine, evaluated.loads));
  std::vector<ReportColumn> columns;  // the baseline (unless it is the evaluated one), then the evaluated
  if (baseline && baseline->spec.text != mapping_name) {
    columns.push_back({baseline->spec.text, {}, {}});
    columns.back().metrics = evaluate(problem, map_checked(baseline->spec, problem), report ? &columns.back().loads : nullptr);
  }
  columns.push_back(std::move(evaluated));
  std::optional<Verdict> verdict;
  if (baseline) {
    verdict = make_verdict({mapping_name, columns.back().metrics, baseline->spec.text, columns.front().metrics,
                            baseline->launcher_default, c.mapping_file});
  }
  if (!job.speaks()) return 0;
  if (report) write_report(c, machine, report_header(job, problem, units, verdict), columns);
  if (job.format == OutputFormat::Json) {
    nlohmann::json j = run_json(job, problem, units);
    j.update(placement_json(mapping_name, columns.back().metrics));
    j["baselines"] = nlohmann::json::array();
    if (baseline) j["baselines"].push_back(placement_json(baseline->spec.text, columns.front().metrics));
    if (verdict) j["recommendation"] = recommendation_to_json(verdict->input, verdict->recommendation);
    std::cout << j.dump(2) << "\n";
  } else {
    if (verdict) std::cout << verdict->recommendation.text << "\n\n";
    std::cout << fmt::format("{} on {} ({} routing), mapping {}\n\n", job.pattern_spec->text, machine.description,
                             problem.routing_name(), c.mapping_file.empty() ? job.mappers.front().text : c.mapping_file)
              << metrics_table(columns.back().metrics);
  }
  note_model_routing(job, machine);
  return 0;
}


int run_map(const RunConfig& c, const dist::Processes& processes) {
  Job job = validate(c, true, processes);
  if (!c.out_format.empty()) job.placement = parse_placement_spec(c.out_format).format;
  const HostNames hosts = job_hosts(c);
  if (job.mappers.empty()) job.mappers.push_back(parse_mapper_spec(kDefaultMapper));
  if (job.format == OutputFormat::Json && io::is_stdout_path(c.out)) {
    usage_fail("map: --format json prints the summary on standard output; write the placement to a file, not --out -");
  }
  check_on_leader(job, [&] { check_report_path(c); });
  check_on_leader(job, [&] { io::check_output_path(c.out, io::OutputKind::File, "--out"); });
  Machine machine = job_machine(job, c);
  const PlacementSpec placement = out_format_of(c, machine);
  job.placement = placement.format;
  const std::string format_name = c.out_format.empty() ? std::string(placement_format_name(placement.format)) : c.out_format;
  // Two files: srun's host file at --out and the CPU list (on GPU slots, the GPU list) beside it;
  // gpu-env and its launcher's file.
  const bool srun = placement.format == PlacementFormat::Srun;
  const std::optional<CompanionFile> companion = companion_file(machine, placement, c.out);
  if (companion && io::is_stdout_path(c.out)) {
    usage_fail("map: --out-format {} writes two files (FILE and {}); name --out FILE", format_name,
               companion_file(machine, placement, "FILE")->path);
  }
  if (companion) check_on_leader(job, [&] { io::check_output_path(companion->path, io::OutputKind::File, "--out"); });
  const Units units = run_units(c, machine);
  CommGraph graph = build_pattern(*job.pattern_spec);
  check_placement_capacity(*job.placement, graph.num_tasks(), machine, job.allocation ? job.allocation->source : "");
  const MappingProblem problem = make_problem(job, c, machine, graph);
  // A mapper that does not apply stops here, in one line.
  if (const std::string why = why_not_applicable(job.mappers.front(), problem); !why.empty()) {
    fail("--mapper '{}': {}", job.mappers.front().text, why);
  }
  // More ranks than slots is most often a slip (a pattern's size, the job's nodes): said first.
  if (const std::size_t tasks = graph.num_tasks(), slots = machine.num_slots(); tasks > slots && slots > 0 && job.speaks()) {
    std::cerr << fmt::format("taskmap: warning: {} tasks for {} slots, {:.3g} per slot (up to {} on one): more ranks "
                             "than slots, which no launcher starts; check --pattern's size and the job's nodes\n",
                             tasks, slots, static_cast<double>(tasks) / static_cast<double>(slots),
                             problem.tasks_per_slot());
  }
  const std::optional<Baseline> baseline = choose_baseline(job, problem);
  const std::string& mapper = job.mappers.front().text;
  Mapping mapping = map_checked(job.mappers.front(), problem);
  const std::string note = mapping.note;  // the mapper's, also when the baseline's placement is written
  // srun's map_cpu (map_gpu) binds the i-th rank of every node to one list's i-th CPU (GPU).
  const PlacementFormat bind = srun ? companion->format : *job.placement;
  const bool map_list = bind == PlacementFormat::SlurmMapCpu || bind == PlacementFormat::SlurmMapGpu;
  if (map_list && share_one_layout_across_nodes(problem, mapping) && job.speaks()) {
    const bool gpus = bind == PlacementFormat::SlurmMapGpu;
    std::cerr << fmt::format("taskmap: {}: the ranks of every node now sit on one list of {}, in rank order "
                             "(srun's {} has one list for all nodes); the nodes keep their ranks\n",
                             format_name, gpus ? "GPUs" : "CPUs", gpus ? "map_gpu" : "map_cpu");
  }
  // The placement beside the launchers' defaults: the baseline (block in host-name order), and
  // round robin, so that the user sees what the mapping gained. Every process evaluates, the
  // leader prints. The mapper's note and the placement come once they are evaluated: a run
  // that fails there (a routing with no route for some flow) says so in one line, no file.
  const bool report = !c.report.empty();
  ReportColumn chosen{mapper, {}, {}};
  chosen.metrics = evaluate(problem, mapping, report ? &chosen.loads : nullptr);
  std::vector<ReportColumn> baselines;  // the baseline, then cyclic
  std::optional<Verdict> verdict;
  bool wrote_baseline = false;
  const std::string written_phrase = io::is_stdout_path(c.out) ? "" : placement_phrase(c.out, format_name);
  if (baseline) {
    Mapping baseline_mapping = map_checked(baseline->spec, problem);
    baselines.push_back({baseline->spec.text, {}, {}});
    baselines.back().metrics = evaluate(problem, baseline_mapping, report ? &baselines.back().loads : nullptr);
    if (const MapperSpec cyclic = parse_mapper_spec("cyclic"); why_not_applicable(cyclic, problem).empty()) {
      baselines.push_back({cyclic.text, evaluate(problem, make_mapper(cyclic)->run(problem)), {}});
    }
    // auto tying the baseline by the recommendation's rule: the baseline's placement is as good,
    // and it is the one the sentence says to keep, so it is the one written (auto's portfolio
    // holds the launchers' orders and keeps the first of equals, e.g. the fabric file's order).
    // A mapper or file:PLACEMENT named by the user is written as asked.
    const bool is_baseline = mapper == baseline->spec.text;
    const MapperSpec& spec = job.mappers.front();
    const bool is_auto = spec.stages.size() == 1 && spec.stages.front().entry().name == kDefaultMapper;
    wrote_baseline = is_auto && !is_baseline && compare_placements(chosen.metrics, baselines.front().metrics) == 0;
    if (wrote_baseline) mapping = std::move(baseline_mapping);
    verdict = make_verdict({mapper, chosen.metrics, baseline->spec.text, baselines.front().metrics,
                            baseline->launcher_default, written_phrase, is_baseline || wrote_baseline});
  }
  const Metrics& written = wrote_baseline ? baselines.front().metrics : chosen.metrics;
  // Everything rendered before anything is written: a file that cannot be written leaves none.
  const std::string content = format_placement(mapping, machine, placement, hosts);
  const std::string second = companion ? format_placement(mapping, machine, companion->format, hosts) : "";
  const std::string launch = io::is_stdout_path(c.out) ? "" : launch_command(mapping, machine, placement, c.out);
  if (!job.speaks()) return 0;
  if (!note.empty()) std::cerr << note << "\n";
  if (wrote_baseline) {
    std::cerr << fmt::format("{} ties {} by the maximum link load, hop-bytes and node hop-bytes: writing {}'s placement\n",
                             mapper, baseline->spec.text, baseline->spec.text);
  }
  io::write_file_atomically(c.out, content);
  if (companion) io::write_file_atomically(companion->path, second);
  if (!io::is_stdout_path(c.out)) {
    std::cerr << fmt::format("wrote {}{} ({} tasks, {})\n", c.out, companion ? " and " + companion->path : "",
                             graph.num_tasks(), format_name);
  }
  // Its slot= numbers are PU indexes, which mpirun reads as such only with this flag.
  if (placement.format == PlacementFormat::OpenMpiRankfile && machine.node_model &&
      machine.node_model->unit == SlotUnit::Pu) {
    std::cerr << "the rankfile's slot= numbers are hardware threads (slots=pu): launch with mpirun "
                 "--use-hwthread-cpus --rankfile\n";
  }
  if (report) {
    std::vector<ReportColumn> columns;  // the baselines, then the mapper's (once when it is one of them)
    for (const ReportColumn& b : baselines)
      if (b.label != mapper) columns.push_back(b);
    columns.push_back(chosen);
    write_report(c, machine, report_header(job, problem, units, verdict), columns);
  }
  if (job.format == OutputFormat::Json) {
    nlohmann::json j = run_json(job, problem, units);
    j.update(placement_json(mapper, written));
    j["written"] = wrote_baseline ? baseline->spec.text : mapper;
    j["out"] = c.out;
    j["out_format"] = format_name;
    j["launch"] = launch.empty() ? nlohmann::json(nullptr) : nlohmann::json(launch);
    j["baselines"] = nlohmann::json::array();
    for (const ReportColumn& b : baselines) j["baselines"].push_back(placement_json(b.label, b.metrics));
    if (verdict) j["recommendation"] = recommendation_to_json(verdict->input, verdict->recommendation);
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  if (verdict) std::cerr << verdict->recommendation.text << "\n";
  auto line = [&](const std::string& name, const Metrics& x) {
    std::string mcl = fmt::format("MCL {:.6g}", x.mcl);
    if (x.mcl_network != x.mcl) mcl += fmt::format(" (network links {:.6g})", x.mcl_network);
    std::cerr << fmt::format("{:<32} {}, hop-bytes {:.6g}, J {:.6g}, node hop-bytes {:.6g}\n", name + ":", mcl,
                             x.hop_bytes, x.j, x.node_hop_bytes);
  };
  line(wrote_baseline ? mapper + " (not written)" : mapper, chosen.metrics);
  for (const ReportColumn& b : baselines) {
    const bool launcher = b.label == launcher_default_mapper(machine) || b.label == "cyclic";
    line(launcher ? b.label + " (launcher default)" : b.label + " (baseline)", b.metrics);
  }
  note_model_routing(job, machine);
  // Last, what to run.
  if (!launch.empty()) std::cerr << "launch: " << launch << "\n";
  return 0;
}

int run_compare(const RunConfig& c, const dist::Processes& processes) {
  Job job = validate(c, true, processes);
  if (job.mappers.empty()) usage_fail("compare: --mappers names no mapper");
  check_on_leader(job, [&] { check_report_path(c); });
  Machine machine = job_machine(job, c);
  const Units units = run_units(c, machine);
  CommGraph graph = build_pattern(*job.pattern_spec);
  const MappingProblem problem = make_problem(job, c, machine, graph);
  const std::optional<Baseline> baseline = choose_baseline(job, problem);
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
  std::vector<Mapping> mappings(n);  // per row (empty when skipped), for the report's pictures
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
    if (!c.report.empty()) mappings[i] = std::move(row.mapping);
    row.mapping = {};
    progress.advance();
  }
  if (reasons.size() == rows.size()) fail("compare: no mapper applies ({})", fmt::join(reasons, "; "));
  // The baseline: its row when it has one, else mapped and evaluated here.
  const std::string base_name = baseline ? baseline->spec.text : "";
  std::size_t base_row = rows.size();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (baseline && rows[i].mapper == base_name && rows[i].skipped.empty()) base_row = i;
  }
  std::optional<ReportColumn> extra_base;  // the baseline when it is not a row (its loads for the report)
  if (baseline && base_row == rows.size()) {
    extra_base = ReportColumn{base_name, {}, {}};
    extra_base->metrics =
        evaluate(problem, map_checked(baseline->spec, problem), c.report.empty() ? nullptr : &extra_base->loads);
  }
  const std::size_t best = best_row(rows, base_name);
  std::optional<Verdict> verdict;
  if (baseline) {
    verdict = make_verdict({rows[best].mapper, rows[best].metrics, base_name,
                            extra_base ? extra_base->metrics : rows[base_row].metrics, baseline->launcher_default, ""});
  }
  if (!c.report.empty()) {
    // Every row in the metrics table; pictures for the baseline and the best.
    std::vector<ReportColumn> columns;
    if (extra_base) columns.push_back(*extra_base);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i].skipped.empty()) continue;
      columns.push_back({rows[i].mapper, rows[i].metrics, {}});
      if (i == base_row || i == best) evaluate(problem, mappings[i], &columns.back().loads);
    }
    if (job.speaks()) write_report(c, machine, report_header(job, problem, units, verdict), columns);
  }
  if (!job.speaks()) return 0;
  if (job.format == OutputFormat::Json) {
    nlohmann::json j = run_json(job, problem, units);
    j["rows"] = compare_to_json(rows);
    j["baselines"] = nlohmann::json::array();
    if (extra_base) j["baselines"].push_back(placement_json(base_name, extra_base->metrics));
    if (verdict) j["recommendation"] = recommendation_to_json(verdict->input, verdict->recommendation);
    std::cout << j.dump(2) << "\n";
  } else {
    if (verdict) std::cout << verdict->recommendation.text << "\n\n";
    std::cout << fmt::format("{} ({} tasks) on {} ({} slots), {} routing\n\n", job.pattern_spec->text,
                             graph.num_tasks(), machine.description, machine.num_slots(), problem.routing_name())
              << compare_table(rows);
  }
  note_model_routing(job, machine);
  return 0;
}

}  // namespace taskmap::cli
