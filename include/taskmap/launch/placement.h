#pragma once
// Placement files: a mapping rendered for the launcher that will start the job or for another
// mapping tool, and read back (`eval --mapping FILE --mapping-format F`).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "taskmap/problem/mapping.h"

namespace taskmap {

enum class PlacementFormat {
  Plain,            // "task slot", taskmap's own (reads back with --mapping)
  Scotch,           // Scotch's mapping file: a count line, then "vertex terminal" (scotch_gmap, gmtst)
  MetisPart,        // a METIS partition file: one part per task; part p is slot p
  OpenMpiRankfile,  // "rank R=HOST slot=CORE" (mpirun --rankfile)
  Hydra,            // MPICH/Hydra machine file, "HOST:COUNT" runs in rank order (mpiexec -f)
  Slurm,            // one host per rank, rank order (SLURM_HOSTFILE, srun --distribution=arbitrary)
  SlurmMapCpu,      // "map_cpu:C0,C1,..." for srun --cpu-bind: the CPU of each node's i-th rank
  SlurmMapGpu,      // "map_gpu:G0,G1,..." for srun --gpu-bind: the GPU of each node's i-th rank
  Srun,             // the Slurm host file and, beside it, the map_cpu list (srun_cpu_list_path) or, on
                    // GPU slots, the map_gpu list (srun_gpu_list_path)
  GpuEnv,           // "rank=R host=H local_rank=L gpu=D" per rank: each rank's GPU (taskmap-gpu-run)
  CrayRankOrder,    // MPICH_RANK_ORDER: the rank on each slot in slot order (MPICH_RANK_REORDER_METHOD=3)
  BgqMapfile,       // "A B C D E T" per rank, rank order (runjob --mapping FILE)
};

// A format with its parameters, as --out-format gives it ("scotch:base=1").
struct PlacementSpec {
  PlacementFormat format = PlacementFormat::Plain;
  std::uint32_t base = 0;  // scotch: the number of task 0 (the Scotch graph's baseval)
  // gpu-env: the launcher's file written beside it, openmpi-rankfile or hydra; Plain: none.
  PlacementFormat launcher = PlacementFormat::Plain;
};

// Checked at parse time: an unknown name lists the known ones.
PlacementSpec parse_placement_spec(const std::string& text);
PlacementFormat parse_placement_format(const std::string& name);
const char* placement_format_name(PlacementFormat format);
// Launcher formats start one process per slot; the others (plain, scotch, metis-part) may put
// several tasks on a slot.
bool is_launcher_format(PlacementFormat format);
// The formats `--mapping` reads back: plain, scotch, metis-part and openmpi-rankfile.
bool placement_format_reads(PlacementFormat format);
// --mapping-format NAME: a format read back, else an error listing them.
PlacementFormat parse_mapping_format(const std::string& name);

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
  // True when host_of(machine, n) names node n (a --hosts file may name fewer nodes).
  bool names(const Machine& machine, NodeId n) const;

 private:
  std::string prefix_;
  std::string source_;
  std::vector<std::string> hosts_;
};

// Throws unless a job of num_tasks ranks can be written in `format` on this machine (launcher
// formats place one rank per slot; a format with a machine check in its catalog entry, such as
// bgq-mapfile, applies). Checked before mapping so that a doomed run fails at once.
// `slots_from`: where the job's nodes and slots came from (Allocation::source), for the message.
void check_placement_capacity(PlacementFormat format, std::size_t num_tasks, const Machine& machine,
                              std::string_view slots_from = "");

// Renders a mapping. Launcher formats place one rank per slot, so they refuse a job with
// more tasks than the machine has slots (and any slot holding two tasks); the BG/Q map file
// needs a 5-dimensional torus with one node per router.
std::string format_placement(const Mapping& mapping, const Machine& machine, PlacementFormat format,
                             const HostNames& hosts = HostNames::with_prefix("node"));
std::string format_placement(const Mapping& mapping, const Machine& machine, const PlacementSpec& spec,
                             const HostNames& hosts = HostNames::with_prefix("node"));

// srun: where the map_cpu list goes beside the host file at `out` (OUT.cpus), or on GPU slots
// the map_gpu list (OUT.gpus).
std::string srun_cpu_list_path(const std::string& out);
std::string srun_gpu_list_path(const std::string& out);
// srun's second file: the map_gpu list on GPU slots, else the map_cpu list.
PlacementFormat srun_bind_format(const Machine& machine);
std::string srun_bind_list_path(const Machine& machine, const std::string& out);

// The second file a format writes beside the one at `out`, in its own format: srun's map_cpu
// (map_gpu) list; gpu-env's launcher file (`launcher=`: OUT.rankfile for openmpi-rankfile,
// OUT.hosts for hydra). nullopt for the other formats.
struct CompanionFile {
  std::string path;
  PlacementFormat format;
};
std::optional<CompanionFile> companion_file(const Machine& machine, const PlacementSpec& spec, const std::string& out);

// The command line that starts the job with the placement written at `out` in `spec`'s format
// (paths quoted for a POSIX shell, the program as ./app), or empty for a format no launcher
// takes alone (plain, scotch, metis-part, slurm-map-cpu or slurm-map-gpu without its host file,
// gpu-env without the launcher's file, cray-rank-order, bgq-mapfile). srun:
// SLURM_HOSTFILE=OUT srun --distribution=arbitrary --cpu-bind=map_cpu:LIST -n RANKS, the host
// file's line count (on GPU slots --gpu-bind=map_gpu:LIST instead); openmpi-rankfile: mpirun -np RANKS --rankfile OUT
// (--use-hwthread-cpus under slots=pu); hydra: mpiexec -f OUT -n RANKS; gpu-env with its
// launcher's file: that launcher's command running taskmap-gpu-run with TASKMAP_GPU_ENV=OUT.
std::string launch_command(const Mapping& mapping, const Machine& machine, const PlacementSpec& spec,
                           const std::string& out);

// Reads a placement file of a job of num_tasks tasks on `machine`, at most per_slot tasks per
// slot, in `format`, or, without one, in the format its content shows; *note (when given) is
// then one line "FILE: ..." saying which format was guessed (and how a Scotch file's vertices
// are numbered when from 1), else empty. Content that fits no format or several is refused with the
// reason; so is a format that is not read back (a launcher's host list). Errors name FILE:LINE.
// openmpi-rankfile: hosts are the machine's node names, else `hosts`'s; "+nK" is the K-th node
// with slots; slot=N is the core's logical index (the node model's, else the slot's in its node).
// scotch: vertices numbered from 0 or from 1 (found from the content), terminals as
// ScotchTerminals numbers them; a terminal's tasks fill its slots in turn.
Mapping read_placement(const std::string& path, std::optional<PlacementFormat> format, const Machine& machine,
                       std::size_t num_tasks, std::uint32_t per_slot = 1,
                       const HostNames& hosts = HostNames::with_prefix("node"), std::string* note = nullptr);

// The hosts a placement file names, in the order they first appear, with the line of that
// first appearance, when it is an Open MPI rankfile (`format`, or without one its content)
// whose every line names a host (no "+nK"): the job's nodes as that file's run had them. Else
// empty (any other file, or one that does not read: read_placement then says why).
std::vector<std::pair<std::string, std::size_t>> placement_hosts(const std::string& path,
                                                                 std::optional<PlacementFormat> format);

}  // namespace taskmap
