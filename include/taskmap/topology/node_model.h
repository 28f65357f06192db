#pragma once
// NodeModel: the inside of one compute node as a tree of levels (package, NUMA node, L3
// group, core, hardware thread), read from hwloc XML. Its slots are the cores (or, with
// slots=pu, the hardware threads) that the allowed cpuset holds, in hwloc's logical order.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace taskmap {

enum class SlotUnit { Core, Pu };

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

  std::uint32_t num_slots() const { return static_cast<std::uint32_t>(path.size()); }
  // Cost of a hop between two slots of one node: the number of levels below the deepest level
  // they share (0 for the same slot; levels.size() when they share only the node; 1 between
  // two slots of a node with no levels). Throws Error for a slot out of range.
  std::uint32_t distance(std::uint32_t a, std::uint32_t b) const;
  // The slot whose PUs include OS CPU `cpu` (what sched_getcpu returns), if any.
  std::optional<std::uint32_t> slot_of_os_cpu(std::uint32_t cpu) const;
  // The model with only `slots` (distinct, in range), in that order: slot i of the result is
  // slot slots[i] here. Levels and distances stay those of the full node.
  NodeModel restricted_to(const std::vector<std::uint32_t>& slots) const;
  // A flat node of n slots: no levels, every pair at distance 1.
  static NodeModel flat(std::uint32_t n);
};

// Reads hwloc XML (v1 or v2) with the hwloc library. Throws Error naming the file and hwloc's
// reason when the library cannot load it (e.g. a topology diff, or a newer format).
NodeModel read_hwloc_node(const std::string& path, SlotUnit unit);

}  // namespace taskmap
