#pragma once
// Placement files: a mapping rendered for the launcher that will start the job.
#include <string>
#include <vector>

#include "taskmap/problem/mapping.h"

namespace taskmap {

enum class PlacementFormat {
  Plain,            // "task slot", taskmap's own (reads back with --mapping)
  OpenMpiRankfile,  // "rank R=HOST slot=CORE" (mpirun --rankfile)
  Hydra,            // MPICH/Hydra machine file, "HOST:COUNT" runs in rank order (mpiexec -f)
  Slurm,            // one host per rank, rank order (SLURM_HOSTFILE, srun --distribution=arbitrary)
  SlurmMapCpu,      // "map_cpu:C0,C1,..." for srun --cpu-bind: the CPU of each node's i-th rank
  CrayRankOrder,    // MPICH_RANK_ORDER: the rank on each slot in slot order (MPICH_RANK_REORDER_METHOD=3)
  BgqMapfile,       // "A B C D E T" per rank, rank order (runjob --mapping FILE)
};

// Checked at parse time: an unknown name lists the known ones.
PlacementFormat parse_placement_format(const std::string& name);
const char* placement_format_name(PlacementFormat format);

// Host names of the machine's nodes, in node order. Either generated (prefix + node index)
// or read from a file, one host per line: the first field counts, so an Open MPI hostfile
// ("host slots=4") or `scontrol show hostnames` output can be given as it is.
class HostNames {
 public:
  static HostNames with_prefix(std::string prefix);
  static HostNames from_file(const std::string& path);
  // Throws naming the source when node `n` has no host.
  std::string host_of_node(NodeId n) const;
  // The machine's own name of the node when it has host names (read from a cluster's files),
  // else host_of_node.
  std::string host_of(const Machine& machine, NodeId n) const;

 private:
  std::string prefix_;
  std::string source_;
  std::vector<std::string> hosts_;
};

// Throws unless a job of num_tasks ranks can be written in `format` (launcher formats place
// one rank per slot). Checked before mapping so that a doomed run fails at once.
void check_placement_capacity(PlacementFormat format, std::size_t num_tasks, const Machine& machine);

// Renders a mapping. Launcher formats place one rank per slot, so they refuse a job with
// more tasks than the machine has slots (and any slot holding two tasks); the BG/Q map file
// needs a 5-dimensional torus with one node per router.
std::string format_placement(const Mapping& mapping, const Machine& machine, PlacementFormat format,
                             const HostNames& hosts = HostNames::with_prefix("node"));

}  // namespace taskmap
