#pragma once
// NodeModel: the inside of one compute node as a tree of levels (package, NUMA node, L3
// group, core, hardware thread), read from hwloc XML. Its slots are the cores (or, with
// slots=pu, the hardware threads) that the allowed cpuset holds, in hwloc's logical order;
// with slots=gpu, the node's GPUs (GpuNode: one rank per GPU).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace taskmap {

enum class SlotUnit { Core, Pu, Gpu };

// The GPUs of a node, the slots of a GPU job, with the NICs beside them on the PCIe tree and
// the links between them. Read from hwloc XML (--node-topology hwloc:FILE,slots=gpu) or
// described by counts (--node-topology gpus:N,nics=M). Bandwidths are in GB/s, one way.
struct GpuNode {
  struct Gpu {
    // hwloc's OS device name ("cuda0", "nvml3", "rsmi1", "opencl0d1", "ze0"), or "gpuK". One
    // name per GPU, the first kind it has among cuda, nvml, rsmi, ze, opencl.
    std::string name;
    // The index a launcher selects it by (CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, Slurm's
    // --gpu-bind=map_gpu:): its rank among the node's GPUs in the order of the numbers in their
    // names (cuda0, cuda1, ...: the vendor library's own), not hwloc's tree order.
    std::uint32_t device = 0;
    // The NICs nearest on the PCIe tree (indices into `nics`): those whose smallest common
    // ancestor with the GPU is the deepest; empty when the node has no NIC.
    std::vector<std::uint32_t> nics;
    std::vector<std::uint32_t> os_cpus;  // the PUs near it (its locality cpuset), OS indices
    double pcie_gbs = 0;                 // its PCIe link; 0: not known (the node's default)
  };
  struct Nic {
    // As the OS names it: an OpenFabrics device ("mlx5_0", "hfi1_0"), or on a node without any,
    // a network interface ("hsi0"); empty when described by counts.
    std::string name;
    double pcie_gbs = 0;
  };
  std::string source;  // the file, or the spec text, for messages
  std::vector<Gpu> gpus;
  std::vector<Nic> nics;
  // Direct NVLink (on AMD GPUs, XGMI) from GPU i to GPU j: nvlink_gbs[i * gpus + j] (0: none).
  // Empty: none known.
  std::vector<double> nvlink_gbs;
  // Per GPU: its NVLinks to NVSwitches (0: none). When any is above 0, the node's GPUs reach
  // each other through the switches, one switch router per node.
  std::vector<double> nvswitch_gbs;
  double default_pcie_gbs = 64;  // PCIe 5.0 x16, one way: for links whose speed is not known

  std::uint32_t num_gpus() const { return static_cast<std::uint32_t>(gpus.size()); }
  bool has_nvswitch() const {
    for (double b : nvswitch_gbs) if (b > 0) return true;
    return false;
  }
  // A node of `gpus` GPUs and `nics` NICs, GPU k beside NIC k mod nics, every GPU with
  // `nvlink_gbs` of NVLink to the node's NVSwitches (0: none, PCIe only).
  static GpuNode uniform(std::uint32_t gpus, std::uint32_t nics, double nvlink_gbs, double pcie_gbs);
};

struct NodeModel {
  std::string source;               // the file, for messages
  std::vector<std::string> levels;  // outermost first, e.g. {"package", "numa", "l3", "core"}
  // For each slot, its index at each level (path[slot][level]), numbered node-wide: two slots
  // share level L when their indices at L are equal.
  std::vector<std::vector<std::uint32_t>> path;
  SlotUnit unit = SlotUnit::Core;
  // Per slot: the hwloc logical index of its core, or of its PU when the slots are PUs. It is
  // Open MPI's rankfile slot=N, which mpirun reads as a core index, or as a PU index under
  // --use-hwthread-cpus.
  std::vector<std::uint32_t> logical_index;
  std::vector<std::uint32_t> os_cpu;        // per slot: first PU's OS index (Slurm --cpu-bind=map_cpu)
  std::vector<std::vector<std::uint32_t>> os_cpus;  // per slot: every allowed PU's OS index
  // Cores (PUs with slots=pu) of the whole node, allowed or not (0: not known): a file written
  // inside a job's cgroup allows fewer than the node has.
  std::uint32_t units_in_node = 0;
  // With unit == SlotUnit::Gpu: slot k is GPU k of this (never null then); else null.
  std::shared_ptr<const GpuNode> gpu;

  std::uint32_t num_slots() const { return static_cast<std::uint32_t>(path.size()); }
  // Cost of a hop between two slots of one node: the number of levels below the deepest level
  // they share (0 for the same slot; levels.size() when they share only the node; 1 between
  // two slots of a node with no levels). Throws Error for a slot out of range.
  std::uint32_t distance(std::uint32_t a, std::uint32_t b) const;
  // The slot whose PUs include OS CPU `cpu` (what sched_getcpu returns), if any.
  std::optional<std::uint32_t> slot_of_os_cpu(std::uint32_t cpu) const;
  // The model with only `slots` (distinct, in range), in that order: slot i of the result is
  // slot slots[i] here. Levels and distances stay those of the full node; with GPU slots, `gpu`
  // keeps those GPUs (their device indices and NICs), their links and every NIC.
  NodeModel restricted_to(const std::vector<std::uint32_t>& slots) const;
  // A flat node of n slots: no levels, every pair at distance 1.
  static NodeModel flat(std::uint32_t n);
};

// Reads hwloc XML (v1 or v2) with the hwloc library. Throws Error naming the file and hwloc's
// reason when the library cannot load it (e.g. a topology diff, or a newer format).
NodeModel read_hwloc_node(const std::string& path, SlotUnit unit);

}  // namespace taskmap
