#pragma once
// The taskmap subcommands. Each takes a validated configuration and writes to stdout/files.
#include <optional>
#include <string>
#include <vector>

#include "taskmap/problem/problem.h"

namespace taskmap {
class Catalog;
}
namespace taskmap::dist {
class Processes;
}

namespace taskmap::cli {

enum class OutputFormat { Table, Json };

// One configuration object per run: filled by the option parser, validated before any work.
struct RunConfig {
  std::string machine;
  std::string nodes;                  // --nodes: host list or @FILE; empty: the scheduler's environment
  std::string node_topology;          // --node-topology hwloc:FILE
  std::string pattern;
  std::string mapper;                 // eval, map
  std::string mapping_file;           // eval (instead of mapper)
  std::string mapping_format;         // eval: the mapping file's format; empty: guessed from its content
  std::vector<std::string> mappers;   // compare
  std::string routing;                // empty: machine default
  double imbalance = MappingProblem::kDefaultImbalance;  // balance of many-to-one mappings
  std::string format = "table";
  std::string loads_csv;              // eval: per-channel loads
  std::string report;                 // eval, compare, map: HTML report path
  std::string baseline;               // eval, compare, map: the recommendation's; empty: the launcher's default
  std::string out;                    // map: file; reproduce: directory
  std::string out_format;             // map; empty: plain, or none on a machine with host names
  std::string host_prefix = "node";   // map, eval: host names prefix + node index ...
  std::string hosts_file;             // map, eval: ... or one host per node from this file
  // Bytes of one pattern volume unit: eval, compare, map (none: the pattern's own units),
  // export simgrid and validate (none: SimGridOptions' default).
  std::optional<double> bytes_per_unit;
  double link_bandwidth = 1e9;        // export simgrid, validate: bytes/s of a bandwidth-1 link
  double link_latency = 1e-6;         // export simgrid, validate: s per link
  std::string keep;                   // validate: keep each mapping's export under this directory
  std::string reproduce_name;         // reproduce
  bool list = false;                  // reproduce --list
  std::string list_what;              // list: a catalog's plural ("machines", ...)
  std::string generate_what;          // generate (hidden): "man" or "bash-completion"
  std::string max_memory;             // commands reading a pattern: memory_limit() ("16G"); empty: the default
  bool verbose = false;               // info: also what is only a mapping researcher's (the partial-cube test)
  unsigned threads = 0;               // eval, map, compare: evaluation threads; 0: all cores
  std::string cart;                   // reorder-plan: a Cartesian grid, "32x32x16[,periodic]"
  double seconds = 10;                // reorder-plan: the reorder library's time limit
  unsigned workers = 1;               // reorder-plan: the workers the plan is spread over
};

int run_info(const RunConfig& config);
// routes: the forwarding tables of an lft: or opensm: routing, written as ibroute prints them.
int run_routes(const RunConfig& config);
// eval, map and compare spread their work over `processes` (an MPI launch), else run alone.
int run_eval(const RunConfig& config, const dist::Processes& processes);
int run_map(const RunConfig& config, const dist::Processes& processes);
int run_compare(const RunConfig& config, const dist::Processes& processes);
int run_reproduce(const RunConfig& config);
int run_export_simgrid(const RunConfig& config);
int run_validate(const RunConfig& config);
int run_list(const RunConfig& config);
// reorder-plan: the MPI reorder library's planning for a given job, without MPI.
int run_reorder_plan(const RunConfig& config);

// The catalogs `taskmap list` shows (list_command.cpp), in order.
const std::vector<const Catalog& (*)()>& listed_catalogs();


}  // namespace taskmap::cli
