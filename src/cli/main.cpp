// taskmap: routing-aware task mapping on HPC interconnects (thin CLI over the library).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <optional>

#include <tbb/global_control.h>

#include "commands.h"
#include "version.h"
#include "taskmap/core/catalog.h"
#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/launch/placement_catalog.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/routing/routing_catalog.h"
#include "taskmap/topology/machine_catalog.h"
#include "taskmap/workload/pattern_catalog.h"

int main(int argc, char** argv) {
  using taskmap::cli::RunConfig;
  RunConfig config;
  CLI::App app{"taskmap: routing-aware task mapping on HPC interconnects"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every command");
  app.set_version_flag("--version", taskmap::cli::version_line(), "Print the version and exit");

  auto add_machine = [&](CLI::App* cmd) {
    cmd->add_option("--machine", config.machine, taskmap::catalog_help(taskmap::machine_catalog()))->required();
    cmd->add_option("--nodes", config.nodes,
                    "The job's nodes on a machine with host names (slurm:, ibnet:, aries:): a Slurm host list "
                    "(cn[0012-0015,0102]) or @FILE (one host per line, 'host slots=N' or 'host:N')")
        ->default_str("$SLURM_JOB_NODELIST, else $PBS_NODEFILE, else every node");
    cmd->add_option("--node-topology", config.node_topology,
                    "The inside of every node: hwloc:FILE (hwloc XML); a slot is a core")
        ->default_str("flat nodes of the machine's ppn slots");
  };
  auto add_pattern = [&](CLI::App* cmd) {
    cmd->add_option("--pattern", config.pattern, taskmap::catalog_help(taskmap::pattern_catalog()))->required();
    cmd->add_option("--max-memory", config.max_memory,
                    "Refuse a pattern whose graph would need more memory than SIZE (16G, 512M, 1024K or bytes)")
        ->default_str("80% of the smaller of the physical memory and the cgroup limit");
  };
  auto add_routing = [&](CLI::App* cmd) {
    cmd->add_option("--routing", config.routing,
                    taskmap::catalog_help(taskmap::routing_catalog()) + "; default: the first that applies");
  };
  auto add_imbalance = [&](CLI::App* cmd) {
    cmd->add_option("--imbalance", config.imbalance,
                    "With more tasks than slots: a slot holds at most ceil((1+EPS) x tasks/slots) tasks")
        ->default_str(fmt::format("{}", taskmap::MappingProblem::kDefaultImbalance));
  };
  auto add_threads = [&](CLI::App* cmd) {
    cmd->add_option("--threads", config.threads,
                    "Threads that evaluate channel loads; the results are the same for every count")
        ->check(CLI::Range(1, 4096))
        ->default_str("all cores");
  };
  auto add_format = [&](CLI::App* cmd) {
    cmd->add_option("--format", config.format, "Output: table or json")->default_str("table");
  };

  auto* info = app.add_subcommand("info", "Describe a machine: routers, nodes, slots, channels, diameter");
  add_machine(info);
  add_routing(info);
  add_format(info);

  auto* eval = app.add_subcommand("eval", "Evaluate one mapping: channel loads, MCL, hop-bytes, dilation");
  add_machine(eval);
  add_pattern(eval);
  const std::string mapper_help = taskmap::catalog_help(taskmap::mapper_catalog()) + "; pipelines A+B+...";
  eval->add_option("--mapper", config.mapper, mapper_help + "; default: auto unless --mapping is given");
  eval->add_option("--mapping", config.mapping_file, "Placement file (task slot per line)");
  add_routing(eval);
  add_format(eval);
  add_imbalance(eval);
  add_threads(eval);
  eval->add_option("--loads-csv", config.loads_csv, "Also write per-channel loads as CSV to this file");
  eval->add_option("--report", config.report,
                   "Also write an HTML page (*.html) with metrics, link-load heat maps and histograms, the "
                   "baseline mapping beside this one");
  eval->add_option("--baseline", config.baseline, "Mapper shown beside the evaluated one in --report")
      ->default_str("default");

  auto* map = app.add_subcommand("map", "Compute a mapping and write a placement file");
  add_machine(map);
  add_pattern(map);
  map->add_option("--mapper", config.mapper, mapper_help)->default_str("auto");
  map->add_option("--out", config.out, "Output file")->required();
  map->add_option("--out-format", config.out_format, taskmap::catalog_help(taskmap::placement_format_catalog()))
      ->default_str("plain");
  auto* prefix = map->add_option("--host-prefix", config.host_prefix,
                                 "On a machine without host names: launcher files name node i PREFIX + i")
                     ->default_str("node");
  map->add_option("--hosts", config.hosts_file,
                  "On a machine without host names: one host per node, in node order (machines read from a "
                  "cluster's files carry their own names; give the job's nodes with --nodes)")
      ->excludes(prefix);
  add_routing(map);
  add_imbalance(map);
  add_threads(map);

  auto* compare = app.add_subcommand("compare", "Evaluate several mappers side by side, one row each");
  add_machine(compare);
  add_pattern(compare);
  compare->add_option("--mappers", config.mappers, "Comma-separated mappers. " + mapper_help)->required();
  add_routing(compare);
  add_format(compare);
  add_imbalance(compare);
  add_threads(compare);

  auto add_simgrid_options = [&](CLI::App* cmd) {
    cmd->add_option("--bytes-per-unit", config.bytes_per_unit,
                    "Bytes of one unit of pattern volume (1 for files of bytes)")
        ->default_str("1e6");
    cmd->add_option("--link-bandwidth", config.link_bandwidth, "Bytes/s of a link of class bandwidth 1")
        ->default_str("1e9");
    cmd->add_option("--link-latency", config.link_latency, "Seconds per link")->default_str("1e-6");
  };
  auto* export_cmd = app.add_subcommand("export", "Export a placement for another tool");
  export_cmd->require_subcommand(1);
  auto* export_simgrid = export_cmd->add_subcommand(
      "simgrid", "SimGrid platform, host file and time-independent trace of one iteration, to replay with smpirun");
  add_machine(export_simgrid);
  add_pattern(export_simgrid);
  export_simgrid->add_option("--mapper", config.mapper, mapper_help);
  export_simgrid->add_option("--mapping", config.mapping_file, "Placement file (task slot per line)");
  export_simgrid->add_option("--routing", config.routing,
                             "Routing (default: the one SimGrid's cluster follows; single path)");
  export_simgrid->add_option("--out", config.out, "Output directory (new or empty)")->required();
  add_simgrid_options(export_simgrid);
  add_imbalance(export_simgrid);

  auto* validate_cmd = app.add_subcommand(
      "validate", "Replay each mapping under SimGrid: predicted vs simulated time, Spearman rank correlation");
  add_machine(validate_cmd);
  add_pattern(validate_cmd);
  validate_cmd->add_option("--mappers", config.mappers, "Comma-separated mappers. " + mapper_help)->required();
  validate_cmd->add_option("--routing", config.routing,
                           "Routing (default: the one SimGrid's cluster follows; single path)");
  add_format(validate_cmd);
  add_simgrid_options(validate_cmd);
  add_imbalance(validate_cmd);
  validate_cmd->add_option("--keep", config.keep, "Keep each mapping's SimGrid export in this new directory");

  auto* reproduce = app.add_subcommand("reproduce", "Regenerate a reference paper's table or figure, paper beside taskmap");
  reproduce->add_option("name", config.reproduce_name, "Table or figure, e.g. percs-table1 (see --list)");
  reproduce->add_flag("--list", config.list, "List the reproducible tables and figures");
  reproduce->add_option("--format", config.format, "Output: table, json or csv")->default_str("table");
  reproduce->add_option("--out", config.out, "Directory for the CSV files and SVG pictures");

  std::string listable;
  for (auto catalog : taskmap::cli::listed_catalogs()) {
    listable += (listable.empty() ? "" : ", ") + std::string(catalog().info().plural);
  }
  auto* list = app.add_subcommand("list", "List a catalog's entries with their parameters, defaults and references");
  list->add_option("what", config.list_what, "One of: " + listable)->required();
  list->add_option("--format", config.format, "Output: table, json or markdown (docs/WHAT.md)")->default_str("table");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "taskmap: error: " << e.what() << " (see taskmap --help)\n";
    return 2;
  }
  std::optional<tbb::global_control> threads;
  if (config.threads > 0) threads.emplace(tbb::global_control::max_allowed_parallelism, config.threads);
  try {
    if (*info) return taskmap::cli::run_info(config);
    if (*eval) return taskmap::cli::run_eval(config);
    if (*map) return taskmap::cli::run_map(config);
    if (*compare) return taskmap::cli::run_compare(config);
    if (*reproduce) return taskmap::cli::run_reproduce(config);
    if (*export_simgrid) return taskmap::cli::run_export_simgrid(config);
    if (*validate_cmd) return taskmap::cli::run_validate(config);
    if (*list) return taskmap::cli::run_list(config);
  } catch (const taskmap::Error& e) {
    std::cerr << "taskmap: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "taskmap: error: out of memory (the machine or pattern is too large)\n";
    return 1;
  }
  return 0;
}
