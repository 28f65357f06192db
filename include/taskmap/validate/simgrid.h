#pragma once
// Validation against SimGrid (https://simgrid.org, Debian libsimgrid-dev): a placement is
// exported as a SimGrid platform, a host file in rank order and a time-independent trace of
// one iteration of the pattern (every rank posts its irecvs and isends, then waits for all),
// replayed by `smpirun -replay`, and the simulated time is set beside taskmap's MCL bound.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "taskmap/problem/mapping.h"
#include "taskmap/workload/comm_graph.h"
#include "taskmap/routing/routing.h"

namespace taskmap {

struct SimGridOptions {
  double link_bandwidth = 1e9;   // bytes/s of a link of class bandwidth 1
  double link_latency = 1e-6;    // s per link
  double bytes_per_unit = 1e6;   // bytes of one unit of pattern volume (1 for byte-valued files)
};

// Above this many nodes an explicit-route platform (nodes^2 routes) is refused.
inline constexpr std::uint32_t kMaxExplicitRouteNodes = 4096;

struct SimGridExport {
  std::string platform_kind;  // "TORUS cluster", "FAT_TREE cluster" or "explicit routes"
  std::string platform_xml;
  std::string hostfile;              // one host per rank, rank order
  std::vector<std::string> traces;   // per rank
  std::size_t ranks = 0;
};

// The routing SimGrid's clusters follow on this machine, so that taskmap's prediction uses
// the paths SimGrid will: tori dor over the dimensions fastest first with SimGrid's tie rule,
// fat-trees dmodk; otherwise the machine's default, which must route each pair on one path.
RoutingSpec simgrid_routing(const Machine& machine);

// Throws when the routing splits a flow over several paths (SimGrid routes each pair on
// one), or when explicit routes would be needed for more than kMaxExplicitRouteNodes nodes.
SimGridExport export_simgrid(const Machine& machine, const RoutingSpec& routing_spec, const CommGraph& graph,
                             const Mapping& mapping, const SimGridOptions& options);

// Writes platform.xml, hostfile.txt, traces.txt (the per-rank trace list), trace/rank-R.txt
// and run.sh into `dir`, built in a temporary directory and renamed: `dir` must not exist
// or be empty. Returns the smpirun command line (also in run.sh).
std::string write_simgrid_export(const SimGridExport& e, const std::string& dir);

// Fails with one line "OPTION DIR: reason" unless `dir` can take an export (checked before
// any work): a new directory that can be created, or an empty one; "-" is refused.
void check_simgrid_export_dir(const std::string& dir, std::string_view option = "--out");

// smpirun's arguments beyond -np/-platform/-hostfile/-replay: SimGrid's plain max-min fluid
// model (CM02, no TCP factors, no cross traffic) so it shares bandwidth like a flow model.
inline constexpr const char* kSimGridModelOptions =
    "--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=smpi/display-timing:yes";

// Runs the export in `dir` with smpirun ($TASKMAP_SMPIRUN, else smpirun on the PATH) and
// returns the simulated time; throws with SimGrid's last output line when it fails.
double run_simgrid(const std::string& dir);

// Spearman's rank correlation (ties get their average rank); nullopt when either side is
// constant or there are fewer than two values.
std::optional<double> spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace taskmap
