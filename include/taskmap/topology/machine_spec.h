#pragma once
// Machine specs as given on the command line ("torus:4x4x4x8x2,mesh=D,ppn=16", "rtt:a=4,c=2",
// "dragonfly:p=2,a=4,h=2", "percs:ns=32,nd=4", "graph:FILE", ...): parsed and checked into a
// MachineSpec before anything runs, then built by build_machine().
#include <memory>
#include <string>
#include <string_view>

#include "taskmap/topology/builders.h"
#include "taskmap/topology/fabric.h"
#include "taskmap/topology/node_model.h"
#include "taskmap/topology/node_topology.h"
#include "taskmap/topology/machine.h"

namespace taskmap {

enum class MachineKind {
  Torus, Hypercube, RectTorus, RectTwistedTorus, Dragonfly, Percs, FatTree, Hier, ScotchTarget, Graph, Slurm, Ibnet, Aries
};

struct MachineSpec {
  std::string text;
  MachineKind kind = MachineKind::Torus;
  TorusParams torus;          // Torus (also "mesh:")
  std::uint32_t hypercube_d = 0;
  std::uint32_t rect_a = 0;   // RectTorus, RectTwistedTorus
  DragonflyParams dragonfly;  // Dragonfly
  std::uint32_t percs_ns = 0, percs_nd = 0;
  std::uint32_t fat_tree_k = 0, fat_tree_n = 0;
  HierParams hier;            // Hier
  std::string graph_path;     // Graph; ScotchTarget: the target file
  std::string fabric_path;    // Slurm, Ibnet, Aries: the fabric file
  std::string fabric_map;     // Slurm, Ibnet: GUID-to-host map; Aries: the xtdb2proc node file
  std::string fabric_topology;  // Slurm: the topology of a topology.yaml to read; empty: its default
  std::string fabric_tables;    // Ibnet: the forwarding tables (lft=), the default routing's; empty: none
  std::string node_topology;  // "hwloc:FILE" or empty (flat nodes of ppn slots)
  SlotUnit slot_unit = SlotUnit::Core;
  std::uint32_t nodes_per_router = 1;
  std::uint32_t slots_per_node = 1;
  bool ppn_given = false;  // ppn= written in the spec, not its default
};

MachineSpec parse_machine_spec(std::string_view text);
// True for the machines read from a cluster's files (slurm:, ibnet:, aries:).
inline bool is_fabric(MachineKind kind) {
  return kind == MachineKind::Slurm || kind == MachineKind::Ibnet || kind == MachineKind::Aries;
}
// Readers of cluster files report oddities they accept through `warn` (ignored when empty).
// An outline (structured families only; machines read from files are always built in full)
// has no channels: channels_per_class() and topology_stats() describe it in closed form.
Machine build_machine(const MachineSpec& spec, const WarningSink& warn = {}, BuildDetail detail = BuildDetail::Full);
inline Machine make_machine(std::string_view text, const WarningSink& warn = {}) {
  return build_machine(parse_machine_spec(text), warn);
}

// `machine` with the node model of `node_spec` ("hwloc:FILE"), slots counted in `spec`'s unit;
// a ppn= in `spec` that disagrees with the model's slots per node is replaced, with a warning.
Machine apply_node_topology(Machine machine, const MachineSpec& spec, std::string_view node_spec,
                            const WarningSink& warn);

}  // namespace taskmap
