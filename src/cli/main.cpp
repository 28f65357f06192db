// taskmap: routing-aware task mapping on HPC interconnects (thin CLI over the library).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <memory>
#include <optional>

#include <tbb/global_control.h>
#include <tbb/info.h>

#include "app_docs.h"
#include "commands.h"
#include "version.h"
#include "taskmap/core/catalog.h"
#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"
#include "taskmap/core/memory.h"
#include "taskmap/dist/launch.h"
#include "taskmap/launch/placement.h"
#include "taskmap/launch/placement_catalog.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/routing/routing_catalog.h"
#include "taskmap/topology/node_topology.h"
#include "taskmap/topology/machine_catalog.h"
#include "taskmap/validate/simgrid.h"
#include "taskmap/workload/pattern_catalog.h"

namespace {

// After an error under an MPI launch, how long a process waits for the others to meet an error
// too (the same bad input, seen by every process at the same point) before it ends them all.
constexpr double kFailureAgreementSeconds = 10;

// The one error line. Under an MPI launch: printed once, by the leader, when every process met
// the error; else by the process that met it alone, which then ends the launch (no process is
// left waiting for it).
// `message` quotes what the user gave: its control bytes are shown escaped (a carriage return
// from a file would otherwise overwrite the line on a terminal).
int report_error(const std::string& message, bool speaks, taskmap::dist::MpiLaunch* mpi, int status = 1) {
  const std::string line = taskmap::io::printable(message);
  if (mpi == nullptr || mpi->all_failed(kFailureAgreementSeconds)) {
    if (speaks) std::cerr << "taskmap: error: " << line << "\n";
    return status;
  }
  const taskmap::dist::Processes& world = mpi->world();
  std::cerr << "taskmap: error: process " << world.rank() << " of " << world.size() << ": " << line << "\n";
  mpi->abort_all(1);
}

}  // namespace

int main(int argc, char** argv) {
  using taskmap::cli::RunConfig;
  // Started by an MPI launcher? Then only its rank 0 prints, and eval, map and compare spread
  // their work over the launch's processes (docs/scaling.md).
  std::optional<taskmap::dist::LaunchEnvironment> launch;
  try {
    launch = taskmap::dist::detect_launch();
  } catch (const taskmap::Error& e) {
    std::cerr << "taskmap: error: " << e.what() << "\n";
    return 1;
  }
  const bool speaks = !launch || launch->rank == 0;
  RunConfig config;
  CLI::App app{"taskmap: routing-aware task mapping on HPC interconnects"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every command");
  app.set_version_flag("--version", taskmap::cli::version_line(), "Print the version and exit");

  auto add_machine = [&](CLI::App* cmd) {
    cmd->add_option("--machine", config.machine, taskmap::catalog_help(taskmap::machine_catalog()))
        ->required()
        ->type_name("MACHINE");
    cmd->add_option("--nodes", config.nodes,
                    "The job's nodes on a machine with host names (slurm:, ibnet:, aries:): a Slurm host list "
                    "(cn[0012-0015,0102]), @FILE (one host per line, 'host slots=N' or 'host:N'), or all (every "
                    "node, whatever the scheduler's environment says)")
        ->check(
            [](const std::string& value) -> std::string {
              // Left out, --nodes means the environment or every node; given empty ("$VAR" unset) it is a slip.
              return value.find_first_not_of(" \t") == std::string::npos ? "an empty host list" : "";
            })
        ->type_name("HOSTLIST|@FILE")
        ->default_str("$SLURM_JOB_NODELIST, else $PBS_NODEFILE, else every node");
    cmd->add_option("--node-topology", config.node_topology, taskmap::catalog_help(taskmap::node_topology_catalog()))
        ->type_name("NODE-TOPOLOGY")
        ->default_str("flat nodes of the machine's ppn slots");
  };
  auto add_pattern = [&](CLI::App* cmd) {
    cmd->add_option("--pattern", config.pattern, taskmap::catalog_help(taskmap::pattern_catalog()))
        ->required()
        ->type_name("PATTERN");
    cmd->add_option("--max-memory", config.max_memory,
                    "Refuse a pattern whose graph would need more memory than SIZE (16G, 512M, 1024K or bytes)")
        ->type_name("SIZE")
        ->default_str("80% of the smaller of the physical memory and the cgroup limit, shared by the processes of "
                      "a node under an MPI launch");
  };
  auto add_routing = [&](CLI::App* cmd) {
    cmd->add_option("--routing", config.routing,
                    taskmap::catalog_help(taskmap::routing_catalog()) +
                        "; default: the first that applies (ecmp on fabrics read from files)")
        ->type_name("ROUTING");
  };
  auto add_imbalance = [&](CLI::App* cmd) {
    cmd->add_option("--imbalance", config.imbalance,
                    "With more tasks than slots: a slot holds at most ceil((1+EPS) x tasks/slots) tasks")
        ->type_name("EPS")
        ->default_str(fmt::format("{}", taskmap::MappingProblem::kDefaultImbalance));
  };
  auto add_threads = [&](CLI::App* cmd) {
    cmd->add_option("--threads", config.threads,
                    "Threads (1 to 4096) that evaluate channel loads and run auto's MCL searches at once; the results are the same for every count")
        ->check(CLI::Range(1, 4096).description(""))
        ->type_name("N")
        ->default_str("all cores; under an MPI launch, the node's cores shared by its processes");
  };
  auto add_format = [&](CLI::App* cmd) {
    cmd->add_option("--format", config.format, "Output: table or json")->type_name("table|json")->default_str("table");
  };
  // eval, compare, map: what the first line of the summary (and the report's top) compares with.
  auto add_summary_options = [&](CLI::App* cmd) {
    cmd->add_option("--baseline", config.baseline,
                    "Mapper the recommendation compares with (and the report shows beside the chosen one); none: "
                    "no recommendation, and no baseline to map and evaluate")
        ->type_name("MAPPER")
        ->default_str("the launcher's default: hostname-order on machines with host names, else default");
    cmd->add_option("--bytes-per-unit", config.bytes_per_unit,
                    "Bytes of one unit of pattern volume (1 for files of bytes): loads in bytes, and in seconds "
                    "where the machine gives link rates (fabrics, PERCS)")
        ->type_name("BYTES")
        ->default_str("none: the pattern's own units");
  };

  auto* info = app.add_subcommand("info", "Describe a machine: routers, nodes, slots, channels, diameter");
  add_machine(info);
  add_routing(info);
  add_format(info);
  info->add_flag("--verbose", config.verbose,
                 "Also say why the router graph is not a partial cube (the timer mapper's precondition), on "
                 "machines where it is not");

  auto* routes = app.add_subcommand(
      "routes", "Write an InfiniBand fabric's forwarding tables, as ibroute prints them: read (lft:) or as an OpenSM "
                "engine computes them (opensm:)");
  add_machine(routes);
  add_routing(routes);
  routes->get_option("--routing")->required();
  routes->add_option("--out", config.out, "Output file (- for standard output)")->type_name("FILE")->default_str("-");

  auto* eval = app.add_subcommand("eval", "Evaluate one mapping: channel loads, MCL, hop-bytes, dilation");
  add_machine(eval);
  add_pattern(eval);
  const std::string mapper_help = taskmap::catalog_help(taskmap::mapper_catalog()) + "; pipelines A+B+...";
  eval->add_option("--mapper", config.mapper, mapper_help + "; default: auto unless --mapping is given")
      ->type_name("MAPPER");
  const std::string mapping_help =
      "Placement file: taskmap's plain 'task slot' lines, a Scotch mapping, a METIS partition file or an Open MPI "
      "rankfile (see --mapping-format)";
  std::string read_formats;  // the formats --mapping-format accepts: those taskmap reads back
  for (const taskmap::CatalogEntry& e : taskmap::placement_format_catalog().entries()) {
    if (taskmap::placement_format_reads(static_cast<taskmap::PlacementFormat>(e.tag))) {
      read_formats += (read_formats.empty() ? "" : "|") + std::string(e.name);
    }
  }
  const std::string mapping_format_help =
      "Format of the --mapping file: plain, scotch, metis-part or openmpi-rankfile (docs/formats.md)";
  eval->add_option("--mapping", config.mapping_file, mapping_help)->type_name("FILE");
  eval->add_option("--mapping-format", config.mapping_format, mapping_format_help)
      ->type_name(read_formats)
      ->default_str("guessed from the content (said on stderr)");
  auto* eval_prefix = eval->add_option("--host-prefix", config.host_prefix,
                                       "On a machine without host names: an openmpi-rankfile's node i is PREFIX + i")
                          ->type_name("PREFIX")
                          ->default_str("node");
  eval->add_option("--hosts", config.hosts_file,
                   "On a machine without host names: the openmpi-rankfile's hosts, one per node in node order")
      ->type_name("FILE")
      ->excludes(eval_prefix);
  add_routing(eval);
  add_format(eval);
  add_imbalance(eval);
  add_threads(eval);
  eval->add_option("--loads-csv", config.loads_csv, "Also write per-channel loads as CSV to this file")
      ->type_name("FILE");
  eval->add_option("--report", config.report,
                   "Also write an HTML page (*.html): what to do, the metrics, pictures of the link loads, the "
                   "baseline beside this mapping")
      ->type_name("FILE");
  add_summary_options(eval);

  auto* map = app.add_subcommand("map", "Compute a mapping and write a placement file");
  add_machine(map);
  add_pattern(map);
  map->add_option("--mapper", config.mapper, mapper_help)->type_name("MAPPER")->default_str("auto");
  map->add_option("--out", config.out, "Output file")->required()->type_name("FILE");
  map->add_option("--out-format", config.out_format, taskmap::catalog_help(taskmap::placement_format_catalog()))
      ->type_name("FORMAT")
      ->default_str("plain on machines without host names; on a cluster's fabric (slurm:, ibnet:, aries:) none: name "
                    "the launcher's");
  auto* prefix = map->add_option("--host-prefix", config.host_prefix,
                                 "On a machine without host names: launcher files name node i PREFIX + i")
                     ->type_name("PREFIX")
                     ->default_str("node");
  map->add_option("--hosts", config.hosts_file,
                  "On a machine without host names: one host per node, in node order (machines read from a "
                  "cluster's files carry their own names; give the job's nodes with --nodes)")
      ->type_name("FILE")
      ->excludes(prefix);
  add_routing(map);
  add_imbalance(map);
  add_threads(map);
  map->add_option("--format", config.format,
                  "Summary: table (lines on stderr) or json (on stdout; the placement then goes to a file)")
      ->type_name("table|json")
      ->default_str("table");
  map->add_option("--report", config.report,
                  "Also write an HTML page (*.html): what to do, the metrics, pictures of the link loads, the "
                  "baseline beside the mapping")
      ->type_name("FILE");
  add_summary_options(map);

  auto* compare = app.add_subcommand("compare", "Evaluate several mappers side by side, one row each");
  add_machine(compare);
  add_pattern(compare);
  compare->add_option("--mappers", config.mappers, "Comma-separated mappers. " + mapper_help)
      ->required()
      ->type_name("MAPPER,...");
  add_routing(compare);
  add_format(compare);
  add_imbalance(compare);
  add_threads(compare);
  compare->add_option("--report", config.report,
                      "Also write an HTML page (*.html): what to do, every mapper's metrics, pictures of the link "
                      "loads of the best and of the baseline")
      ->type_name("FILE");
  add_summary_options(compare);

  auto add_simgrid_options = [&](CLI::App* cmd) {
    cmd->add_option("--bytes-per-unit", config.bytes_per_unit,
                    "Bytes of one unit of pattern volume (1 for files of bytes)")
        ->type_name("BYTES")
        ->default_str(fmt::format("{}", taskmap::SimGridOptions{}.bytes_per_unit));
    cmd->add_option("--link-bandwidth", config.link_bandwidth, "Bytes/s of a link of class bandwidth 1")
        ->type_name("BYTES/S")
        ->default_str("1e9");
    cmd->add_option("--link-latency", config.link_latency, "Seconds per link")
        ->type_name("SECONDS")
        ->default_str("1e-6");
  };
  auto* reorder_plan = app.add_subcommand(
      "reorder-plan", "Plan an MPI job's rank order as the reorder library does inside the job, offline");
  reorder_plan->add_option("--machine", config.machine, taskmap::catalog_help(taskmap::machine_catalog()))
      ->required()
      ->type_name("MACHINE");
  reorder_plan->add_option("--nodes", config.nodes,
                           "The job's processes: a Slurm host list, @FILE or all (as map's --nodes), each host's "
                           "processes after the previous host's, as many as its count or its node's slots")
      ->required()
      ->type_name("HOSTLIST|@FILE|all");
  reorder_plan->add_option("--node-topology", config.node_topology, "The inside of every node: hwloc:FILE")
      ->type_name("hwloc:FILE");
  reorder_plan->add_option("--pattern", config.pattern,
                           "The graph a distributed-graph call describes: " +
                               taskmap::catalog_help(taskmap::pattern_catalog()))
      ->type_name("PATTERN");
  reorder_plan->add_option("--cart", config.cart,
                           "Or the grid MPI_Cart_create describes: sizes, then ',periodic' or ',periods=1x0x...'")
      ->type_name("D1xD2...[,periodic]");
  add_routing(reorder_plan);
  reorder_plan->add_option("--mapper", config.mapper, "As TASKMAP_MAPPER: " + mapper_help)
      ->type_name("MAPPER")
      ->default_str("auto with the work that fits half of --seconds");
  reorder_plan->add_option("--seconds", config.seconds, "As TASKMAP_REORDER_SECONDS: the time limit")
      ->type_name("SECONDS")
      ->default_str("10");
  reorder_plan->add_option("--workers", config.workers,
                           "The plan spread over N workers as N of the job's processes would share it, each "
                           "worker's jobs run here in turn and timed")
      ->check(CLI::Range(1, 65536).description(""))
      ->type_name("N")
      ->default_str("1");
  reorder_plan->add_option("--out", config.out, "The plan: line r holds the process (old rank) that becomes rank r")
      ->type_name("FILE");
  reorder_plan->add_option("--report", config.report, "The library's JSON report (TASKMAP_REORDER_REPORT)")
      ->type_name("FILE");

  auto* export_cmd = app.add_subcommand("export", "Export a placement for another tool");
  export_cmd->require_subcommand(1);
  auto* export_simgrid = export_cmd->add_subcommand(
      "simgrid", "SimGrid platform, host file and time-independent trace of one iteration, to replay with smpirun");
  add_machine(export_simgrid);
  add_pattern(export_simgrid);
  export_simgrid->add_option("--mapper", config.mapper, mapper_help)->type_name("MAPPER");
  export_simgrid->add_option("--mapping", config.mapping_file, mapping_help)->type_name("FILE");
  export_simgrid->add_option("--mapping-format", config.mapping_format, mapping_format_help)
      ->type_name(read_formats)
      ->default_str("guessed from the content (said on stderr)");
  export_simgrid->add_option("--routing", config.routing,
                             "Routing (default: the one SimGrid's cluster follows; single path)")
      ->type_name("ROUTING");
  export_simgrid->add_option("--out", config.out, "Output directory (new or empty)")->required()->type_name("DIR");
  add_simgrid_options(export_simgrid);
  add_imbalance(export_simgrid);

  auto* validate_cmd = app.add_subcommand(
      "validate", "Replay each mapping under SimGrid: predicted vs simulated time, Spearman rank correlation");
  add_machine(validate_cmd);
  add_pattern(validate_cmd);
  validate_cmd->add_option("--mappers", config.mappers, "Comma-separated mappers. " + mapper_help)
      ->required()
      ->type_name("MAPPER,...");
  validate_cmd->add_option("--routing", config.routing,
                           "Routing (default: the one SimGrid's cluster follows; single path)")
      ->type_name("ROUTING");
  add_format(validate_cmd);
  add_simgrid_options(validate_cmd);
  add_imbalance(validate_cmd);
  validate_cmd->add_option("--keep", config.keep, "Keep each mapping's SimGrid export in this new directory")
      ->type_name("DIR");

  auto* reproduce = app.add_subcommand("reproduce", "Regenerate a reference paper's table or figure, paper beside taskmap");
  reproduce->add_option("name", config.reproduce_name, "Table or figure, e.g. percs-table1 (see --list)")
      ->type_name("REPRODUCTION");
  reproduce->add_flag("--list", config.list, "List the reproducible tables and figures");
  reproduce->add_option("--format", config.format, "Output: table, json or csv")
      ->type_name("table|json|csv")
      ->default_str("table");
  reproduce->add_option("--out", config.out, "Directory for the CSV files and SVG pictures")->type_name("DIR");

  std::string listable, list_choices;
  for (auto catalog : taskmap::cli::listed_catalogs()) {
    listable += (listable.empty() ? "" : ", ") + std::string(catalog().info().plural);
    list_choices += (list_choices.empty() ? "" : "|") + std::string(catalog().info().plural);
  }
  auto* list = app.add_subcommand("list", "List a catalog's entries with their parameters, defaults and references");
  list->add_option("what", config.list_what, "One of: " + listable)->required()->type_name(list_choices);
  list->add_option("--format", config.format, "Output: table, json or markdown (docs/WHAT.md)")
      ->type_name("table|json|markdown")
      ->default_str("table");

  // Hidden (no group): what the build runs to write the man page and the completion script
  // (src/cli/app_docs.h), from this very definition of the command line.
  auto* generate = app.add_subcommand("generate", "Print taskmap(1) or the bash completion script")->group("");
  generate->add_option("what", config.generate_what, "man or bash-completion")
      ->required()
      ->type_name("man|bash-completion");
  generate->add_option("--out", config.out, "Output file")->type_name("FILE")->default_str("-");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return speaks ? app.exit(e) : 0;
  } catch (const CLI::CallForAllHelp& e) {
    return speaks ? app.exit(e) : 0;
  } catch (const CLI::CallForVersion& e) {
    return speaks ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    // CLI11 2.1 joins the unexpected arguments in reverse order ("r.html --report"): named
    // here as given, with the command they were given to.
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
      const std::vector<std::string> extras = app.remaining(true);
      std::string command;
      for (const CLI::App* cmd = &app; !cmd->get_subcommands().empty();) {
        cmd = cmd->get_subcommands().front();
        command += (command.empty() ? "" : " ") + cmd->get_name();
      }
      what = fmt::format("{}unexpected argument{}: {}", command.empty() ? "" : command + ": ",
                         extras.size() == 1 ? "" : "s", fmt::join(extras, " "));
    }
    // A misspelt command ("taskmap mpa ..."): CLI11 only says that one is required.
    if (app.get_subcommands().empty() && argc > 1 && argv[1][0] != '-') {
      std::vector<std::string> names;
      for (const CLI::App* cmd : app.get_subcommands({})) {
        if (!cmd->get_group().empty()) names.push_back(cmd->get_name());
      }
      what = fmt::format("unknown command '{}'; the commands are {}", argv[1], fmt::join(names, ", "));
    }
    if (speaks) std::cerr << "taskmap: error: " << what << " (see taskmap --help)\n";
    return 2;
  }
  const bool spreads = *eval || *map || *compare;
  // Other commands run on the launch's rank 0 alone, without MPI.
  if (launch && !spreads && !speaks) return 0;
  // --threads, else every core; under a launch the processes of one node share its cores.
  int thread_count = config.threads;
  if (thread_count == 0 && launch && spreads && launch->local_size > 1) {
    thread_count = std::max(1, tbb::info::default_concurrency() / launch->local_size);
  }
  std::optional<tbb::global_control> threads;
  if (thread_count > 0) threads.emplace(tbb::global_control::max_allowed_parallelism, thread_count);
  std::unique_ptr<taskmap::dist::MpiLaunch> mpi;
  try {
    if (launch && spreads) {
      // The processes of one node share its memory: each gets its share of the default limit.
      if (config.max_memory.empty() && launch->local_size > 1) {
        taskmap::set_memory_limit(taskmap::default_memory_limit() / static_cast<std::uint64_t>(launch->local_size));
      }
      mpi = taskmap::dist::MpiLaunch::start(*launch);
    }
    const taskmap::dist::Processes& processes = mpi ? mpi->world() : taskmap::dist::this_process_only();
    if (*info) return taskmap::cli::run_info(config);
    if (*routes) return taskmap::cli::run_routes(config);
    if (*eval) return taskmap::cli::run_eval(config, processes);
    if (*map) return taskmap::cli::run_map(config, processes);
    if (*compare) return taskmap::cli::run_compare(config, processes);
    if (*reorder_plan) return taskmap::cli::run_reorder_plan(config);
    if (*reproduce) return taskmap::cli::run_reproduce(config);
    if (*export_simgrid) return taskmap::cli::run_export_simgrid(config);
    if (*validate_cmd) return taskmap::cli::run_validate(config);
    if (*list) return taskmap::cli::run_list(config);
    if (*generate) return taskmap::cli::run_generate(app, config);
  } catch (const taskmap::UsageError& e) {
    return report_error(fmt::format("{} (see taskmap --help)", e.what()), speaks, mpi.get(), 2);
  } catch (const taskmap::Error& e) {
    return report_error(e.what(), speaks, mpi.get());
  } catch (const std::bad_alloc&) {
    return report_error("out of memory (the machine or pattern is too large)", speaks, mpi.get());
  }
  return 0;
}
