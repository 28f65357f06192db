#include "taskmap/launch/placement.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <utility>

#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"
#include "taskmap/launch/placement_catalog.h"
#include "taskmap/topology/node_model.h"
#include "taskmap/topology/scotch_target.h"

namespace taskmap {
namespace {

// A launcher starts one process per slot: a job with more ranks than slots cannot be
// written, and neither can a many-to-one mapping of a smaller job.
void require_one_rank_per_slot(const Mapping& mapping, const Machine& machine, PlacementFormat format) {
  const char* name = placement_format_name(format);
  check_placement_capacity(format, mapping.num_tasks(), machine);
  std::vector<TaskId> owner(machine.num_slots(), UINT32_MAX);
  for (TaskId t = 0; t < mapping.num_tasks(); ++t) {
    TaskId& o = owner[mapping.slot_of_task[t]];
    if (o != UINT32_MAX) fail("--out-format {}: ranks {} and {} share slot {}", name, o, t, mapping.slot_of_task[t]);
    o = t;
  }
}

// Open MPI's rankfile slot=N: the hwloc logical index of the slot's core (of its PU under
// slots=pu, for mpirun --use-hwthread-cpus), which is the slot's index in the node when no node
// model is given.
std::uint32_t rankfile_index_of_slot(const Machine& machine, SlotId s) {
  const std::uint32_t k = machine.slot_in_node(s);
  return machine.node_model ? machine.node_model->logical_index[k] : k;
}

// A path as one word of a POSIX shell command: as it is when it holds only characters no
// shell treats specially, else in single quotes (a quote inside written '\'').
std::string shell_word(const std::string& path) {
  const bool plain = !path.empty() && path.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                             "0123456789_./+-:,@%") == std::string::npos;
  if (plain) return path;
  std::string out = "'";
  for (char ch : path) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// srun --cpu-bind=map_cpu:LIST and --gpu-bind=map_gpu:LIST bind the i-th task of every node (its
// local task id) to LIST[i] (OS cpu ids, GPU device indices), so the list is only right when each
// node's ranks, in rank order, sit on the same CPUs (GPUs): those of the node holding the most, or
// the first of them on a node holding fewer (srun reuses a list from its start only for a node
// holding more tasks than it has items, which the longest list rules out).
std::string slurm_map_list(const Mapping& m, const Machine& machine, PlacementFormat format) {
  const bool gpus = format == PlacementFormat::SlurmMapGpu;
  const char* what = gpus ? "GPUs" : "CPUs";
  const char* kind = gpus ? "map_gpu" : "map_cpu";
  std::vector<std::vector<std::uint32_t>> items(machine.num_nodes());
  for (TaskId t = 0; t < m.num_tasks(); ++t) {
    const SlotId s = m.slot_of_task[t];
    const std::uint32_t k = machine.slot_in_node(s);
    const std::uint32_t item = gpus ? machine.node_model->gpu->gpus[k].device
                                    : machine.node_model ? machine.node_model->os_cpu[k] : k;
    items[machine.node_of_slot(s)].push_back(item);
  }
  const std::vector<std::uint32_t>* first = nullptr;  // the longest list, the first node's of that length
  NodeId first_node = 0;
  for (NodeId n = 0; n < items.size(); ++n) {
    if (first == nullptr || items[n].size() > first->size()) first = &items[n], first_node = n;
  }
  for (NodeId n = 0; n < items.size(); ++n) {
    if (items[n].empty()) continue;
    if (!std::equal(items[n].begin(), items[n].end(), first->begin())) {
      auto name = [&](NodeId node) {
        return machine.named_nodes() ? fmt::format("host {}", machine.node_name(node)) : fmt::format("node {}", node);
      };
      fail("--out-format {}: the ranks on {} sit on {} {} but those on {} on {}; srun's {} gives every node one "
           "list ({})",
           placement_format_name(format), name(n), what, fmt::join(items[n], ","), name(first_node),
           fmt::join(*first, ","), kind,
           gpus ? "write gpu-env and launch through taskmap-gpu-run"
                : "write openmpi-rankfile, or bind with the slurm hostfile alone");
    }
  }
  return fmt::format("{}:{}\n", kind, fmt::join(*first, ","));
}

// One line per rank, "rank=R host=H local_rank=L gpu=D": a line a POSIX shell can evaluate
// (taskmap-gpu-run does), every value one shell word. L counts the ranks of the rank's node in
// rank order, as launchers number a node's ranks; D is the GPU's device index.
std::string gpu_env(const Mapping& m, const Machine& machine, const HostNames& hosts) {
  std::string out = fmt::format(
      "# taskmap gpu-env: {} ranks on {}; one line per rank: rank, host, local rank (the rank's index among its "
      "host's ranks), gpu (the device index for CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES)\n"
      "# taskmap-gpu-run reads its rank's line; start the ranks on their hosts with this mapping's host file or "
      "rankfile\n",
      m.num_tasks(), machine.description);
  std::vector<std::uint32_t> on_node(machine.num_nodes(), 0);
  for (TaskId t = 0; t < m.num_tasks(); ++t) {
    const SlotId s = m.slot_of_task[t];
    const NodeId n = machine.node_of_slot(s);
    out += fmt::format("rank={} host={} local_rank={} gpu={}\n", t, shell_word(hosts.host_of(machine, n)), on_node[n]++,
                       machine.node_model->gpu->gpus[machine.slot_in_node(s)].device);
  }
  return out;
}

std::string rankfile(const Mapping& m, const Machine& machine, const HostNames& hosts) {
  std::string out;
  for (TaskId t = 0; t < m.num_tasks(); ++t) {
    const SlotId s = m.slot_of_task[t];
    out += fmt::format("rank {}={} slot={}\n", t, hosts.host_of(machine, machine.node_of_slot(s)), rankfile_index_of_slot(machine, s));
  }
  return out;
}

// Hydra fills each "host:count" line with that many consecutive ranks, in file order.
std::string hydra_machinefile(const Mapping& m, const Machine& machine, const HostNames& hosts) {
  std::string out;
  for (TaskId t = 0; t < m.num_tasks();) {
    const std::string host = hosts.host_of(machine, machine.node_of_slot(m.slot_of_task[t]));
    TaskId end = t + 1;
    while (end < m.num_tasks() && hosts.host_of(machine, machine.node_of_slot(m.slot_of_task[end])) == host) ++end;
    out += fmt::format("{}:{}\n", host, end - t);
    t = end;
  }
  return out;
}

std::string slurm_hostfile(const Mapping& m, const Machine& machine, const HostNames& hosts) {
  std::string out;
  for (TaskId t = 0; t < m.num_tasks(); ++t) out += hosts.host_of(machine, machine.node_of_slot(m.slot_of_task[t])) + "\n";
  return out;
}

// Cray MPICH places the listed ranks on the job's slots in order (node by node, core by
// core), so the file is the rank on each slot; runs of consecutive ranks become "a-b".
std::string cray_rank_order(const Mapping& m, const Machine& machine) {
  std::vector<TaskId> on_slot(machine.num_slots(), UINT32_MAX);
  for (TaskId t = 0; t < m.num_tasks(); ++t) on_slot[m.slot_of_task[t]] = t;
  std::vector<TaskId> order;
  for (SlotId s = 0; s < machine.num_slots(); ++s) {
    if (on_slot[s] != UINT32_MAX) {
      if (order.size() != s) {
        fail("--out-format cray-rank-order: slot {} is empty but slot {} holds rank {}; MPICH_RANK_ORDER fills slots "
             "in order, so the mapping must use the first {} slots (give the job exactly as many slots as ranks, "
             "e.g. --nodes @FILE with 'HOST slots=N' lines as the launcher's ranks per node)",
             order.size(), s, on_slot[s], m.num_tasks());
      }
      order.push_back(on_slot[s]);
    }
  }
  std::string out = fmt::format("# MPICH_RANK_ORDER from taskmap: {} ranks on {}, slot order\n", m.num_tasks(),
                                machine.description);
  std::string line;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && order[j + 1] == order[j] + 1) ++j;
    std::string item = j == i ? fmt::format("{}", order[i]) : fmt::format("{}-{}", order[i], order[j]);
    if (!line.empty() && line.size() + item.size() > 78) {
      out += line + ",\n";
      line.clear();
    }
    line += (line.empty() ? "" : ",") + item;
    i = j + 1;
  }
  return out + line + "\n";
}

// Scotch's mapping file, as scotch_gmap writes it: the vertex count, then "vertex\tterminal",
// the terminal numbered as the machine's Scotch target numbers it.
std::string scotch_mapping(const Mapping& m, const Machine& machine, std::uint32_t base) {
  const ScotchTerminals terminals(machine);
  std::string out = fmt::format("{}\n", m.num_tasks());
  for (TaskId t = 0; t < m.num_tasks(); ++t) {
    out += fmt::format("{}\t{}\n", std::uint64_t{t} + base, terminals.number(machine.router_of_slot(m.slot_of_task[t])));
  }
  return out;
}

std::string bgq_mapfile(const Mapping& m, const Machine& machine) {
  const CatalogEntry& entry = *placement_format_catalog().find("bgq-mapfile");
  if (const std::string reason = entry.applies(machine); !reason.empty()) fail("--out-format bgq-mapfile: {}", reason);
  const TorusShape* torus = machine.torus();
  std::string out;
  for (TaskId t = 0; t < m.num_tasks(); ++t) {
    const SlotId s = m.slot_of_task[t];
    const RouterId r = machine.router_of_slot(s);
    out += fmt::format("{} {} {} {} {} {}\n", torus->coord(r, 0), torus->coord(r, 1), torus->coord(r, 2),
                       torus->coord(r, 3), torus->coord(r, 4), machine.slot_in_node(s));
  }
  return out;
}

}  // namespace

void check_placement_capacity(PlacementFormat format, std::size_t num_tasks, const Machine& machine,
                              std::string_view slots_from) {
  const CatalogEntry& entry = *placement_format_catalog().find(placement_format_name(format));
  if (entry.applies) {
    if (const std::string reason = entry.applies(machine); !reason.empty()) fail("--out-format {}: {}", entry.name, reason);
  }
  if (is_launcher_format(format) && num_tasks > machine.num_slots()) {
    fail("--out-format {}: {} ranks but machine '{}' has only {} slots{}; a launcher file places one rank per slot "
         "(write --out-format plain for a many-to-one mapping)",
         placement_format_name(format), num_tasks, machine.description, machine.num_slots(),
         slots_from.empty() ? "" : fmt::format(" (the job's nodes from {})", slots_from));
  }
}

PlacementSpec parse_placement_spec(const std::string& text) {
  const SpecValues v = placement_format_catalog().parse(text);
  PlacementSpec spec;
  spec.format = static_cast<PlacementFormat>(v.entry().tag);
  if (spec.format == PlacementFormat::Scotch) spec.base = static_cast<std::uint32_t>(v.get_int("base"));
  if (spec.format == PlacementFormat::GpuEnv && v.get_choice("launcher") != "none") {
    spec.launcher = parse_placement_format(std::string(v.get_choice("launcher")));
  }
  return spec;
}

PlacementFormat parse_placement_format(const std::string& name) { return parse_placement_spec(name).format; }

bool is_launcher_format(PlacementFormat format) {
  return format != PlacementFormat::Plain && format != PlacementFormat::Scotch && format != PlacementFormat::MetisPart;
}

bool placement_format_reads(PlacementFormat format) {
  switch (format) {
    case PlacementFormat::Plain:
    case PlacementFormat::Scotch:
    case PlacementFormat::MetisPart:
    case PlacementFormat::OpenMpiRankfile: return true;
    default: return false;
  }
}

const char* placement_format_name(PlacementFormat format) {
  for (const CatalogEntry& e : placement_format_catalog().entries()) {
    if (e.tag == static_cast<int>(format)) return e.name.data();  // the table's literals end in '\0'
  }
  return "?";
}

HostNames HostNames::with_prefix(std::string prefix) {
  HostNames h;
  h.prefix_ = std::move(prefix);
  return h;
}

HostNames HostNames::from_file(const std::string& path) {
  HostNames h;
  h.source_ = path;
  io::LineCursor cur(path, io::read_text_file(path));
  while (auto line = cur.next_content_line("#")) {
    const auto fields = io::split_fields(*line);
    // A Hydra machine file's "host:4" would reach a launcher file as a host named so.
    if (fields.front().find(':') != std::string_view::npos) {
      cur.fail_here(fmt::format("'{}' is not a host name (one host name per line, in node order; no ':N' counts)",
                                io::printable(fields.front())));
    }
    h.hosts_.emplace_back(fields.front());
  }
  if (h.hosts_.empty()) fail("--hosts {}: names no host (one host name per line, in node order)", path);
  return h;
}

std::string HostNames::host_of(const Machine& machine, NodeId n) const {
  return machine.named_nodes() ? machine.node_name(n) : host_of_node(n);
}

bool HostNames::names(const Machine& machine, NodeId n) const {
  return machine.named_nodes() || source_.empty() || n < hosts_.size();
}

std::string HostNames::host_of_node(NodeId n) const {
  if (source_.empty()) return prefix_ + std::to_string(n);
  if (n >= hosts_.size()) {
    fail("--hosts {}: names {} hosts but the mapping uses node {} (give one host per node, in node order)", source_,
         hosts_.size(), n);
  }
  return hosts_[n];
}

std::string srun_cpu_list_path(const std::string& out) { return out + ".cpus"; }

std::string srun_gpu_list_path(const std::string& out) { return out + ".gpus"; }

// On GPU slots srun binds each rank to its GPU only: the node model's CPU of a GPU slot is the
// first CPU near the GPU, which the GPUs of one NUMA node share, so map_cpu would stack their
// ranks on one CPU.
PlacementFormat srun_bind_format(const Machine& machine) {
  return has_gpu_slots(machine) ? PlacementFormat::SlurmMapGpu : PlacementFormat::SlurmMapCpu;
}

std::string srun_bind_list_path(const Machine& machine, const std::string& out) {
  return has_gpu_slots(machine) ? srun_gpu_list_path(out) : srun_cpu_list_path(out);
}

std::optional<CompanionFile> companion_file(const Machine& machine, const PlacementSpec& spec, const std::string& out) {
  if (spec.format == PlacementFormat::Srun) return CompanionFile{srun_bind_list_path(machine, out), srun_bind_format(machine)};
  if (spec.format == PlacementFormat::GpuEnv && spec.launcher != PlacementFormat::Plain) {
    return CompanionFile{out + (spec.launcher == PlacementFormat::OpenMpiRankfile ? ".rankfile" : ".hosts"), spec.launcher};
  }
  return std::nullopt;
}

std::string launch_command(const Mapping& mapping, const Machine& machine, const PlacementSpec& spec,
                           const std::string& out) {
  const std::size_t ranks = mapping.num_tasks();
  if (const auto companion = companion_file(machine, spec, out); companion && spec.format == PlacementFormat::GpuEnv) {
    const std::string launcher = launch_command(mapping, machine, PlacementSpec{.format = companion->format}, companion->path);
    constexpr std::string_view kProgram = " ./app";  // every launcher's command ends with it
    if (!launcher.ends_with(kProgram)) return "";
    const std::string head = launcher.substr(0, launcher.size() - kProgram.size());
    return companion->format == PlacementFormat::OpenMpiRankfile
               ? fmt::format("{} -x TASKMAP_GPU_ENV={} taskmap-gpu-run ./app", head, shell_word(out))
               : fmt::format("{} -genv TASKMAP_GPU_ENV {} taskmap-gpu-run ./app", head, shell_word(out));
  }
  switch (spec.format) {
    case PlacementFormat::Srun: {
      const PlacementFormat bind = srun_bind_format(machine);
      std::string list = slurm_map_list(mapping, machine, bind);
      list.pop_back();  // its newline
      return fmt::format("SLURM_HOSTFILE={} srun --distribution=arbitrary --{}-bind={} -n {} ./app", shell_word(out),
                         bind == PlacementFormat::SlurmMapGpu ? "gpu" : "cpu", list, ranks);
    }
    case PlacementFormat::Slurm:
      return fmt::format("SLURM_HOSTFILE={} srun --distribution=arbitrary -n {} ./app", shell_word(out), ranks);
    case PlacementFormat::OpenMpiRankfile:
      return fmt::format("mpirun -np {}{} --rankfile {} ./app", ranks,
                         machine.node_model && machine.node_model->unit == SlotUnit::Pu ? " --use-hwthread-cpus" : "",
                         shell_word(out));
    case PlacementFormat::Hydra: return fmt::format("mpiexec -f {} -n {} ./app", shell_word(out), ranks);
    default: return "";
  }
}

std::string format_placement(const Mapping& mapping, const Machine& machine, PlacementFormat format,
                             const HostNames& hosts) {
  return format_placement(mapping, machine, PlacementSpec{.format = format}, hosts);
}

std::string format_placement(const Mapping& mapping, const Machine& machine, const PlacementSpec& spec,
                             const HostNames& hosts) {
  const PlacementFormat format = spec.format;
  if (format == PlacementFormat::Plain) {
    std::string out =
        fmt::format("# taskmap placement: task slot ({} tasks on {})\n", mapping.num_tasks(), machine.description);
    for (std::size_t t = 0; t < mapping.num_tasks(); ++t) out += fmt::format("{} {}\n", t, mapping.slot_of_task[t]);
    return out;
  }
  if (format == PlacementFormat::Scotch) return scotch_mapping(mapping, machine, spec.base);
  if (format == PlacementFormat::MetisPart) {
    std::string out;
    for (std::size_t t = 0; t < mapping.num_tasks(); ++t) out += fmt::format("{}\n", mapping.slot_of_task[t]);
    return out;
  }
  require_one_rank_per_slot(mapping, machine, format);
  switch (format) {
    case PlacementFormat::OpenMpiRankfile: return rankfile(mapping, machine, hosts);
    case PlacementFormat::Hydra: return hydra_machinefile(mapping, machine, hosts);
    case PlacementFormat::Slurm:
    case PlacementFormat::Srun: return slurm_hostfile(mapping, machine, hosts);
    case PlacementFormat::SlurmMapCpu:
    case PlacementFormat::SlurmMapGpu: return slurm_map_list(mapping, machine, format);
    case PlacementFormat::GpuEnv: return gpu_env(mapping, machine, hosts);
    case PlacementFormat::CrayRankOrder: return cray_rank_order(mapping, machine);
    case PlacementFormat::BgqMapfile: return bgq_mapfile(mapping, machine);
    case PlacementFormat::Plain:
    case PlacementFormat::Scotch:
    case PlacementFormat::MetisPart: break;
  }
  return {};
}

}  // namespace taskmap
