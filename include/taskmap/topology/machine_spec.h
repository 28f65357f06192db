#pragma once
// Machine specs as given on the command line ("torus:4x4x4x8x2,mesh=D,ppn=16", "rtt:a=4,c=2",
// "dragonfly:p=2,a=4,h=2", "percs:ns=32,nd=4", "graph:FILE", ...): parsed and checked into a
// MachineSpec before anything runs, then built by build_machine().
#include <string>
#include <string_view>

#include "taskmap/topology/builders.h"
#include "taskmap/topology/machine.h"

namespace taskmap {

enum class MachineKind { Torus, Hypercube, RectTorus, RectTwistedTorus, Dragonfly, Percs, FatTree, Graph };

struct MachineSpec {
  std::string text;
  MachineKind kind = MachineKind::Torus;
  TorusParams torus;          // Torus (also "mesh:")
  std::uint32_t hypercube_d = 0;
  std::uint32_t rect_a = 0;   // RectTorus, RectTwistedTorus
  DragonflyParams dragonfly;  // Dragonfly
  std::uint32_t percs_ns = 0, percs_nd = 0;
  std::uint32_t fat_tree_k = 0, fat_tree_n = 0;
  std::string graph_path;     // Graph
  std::uint32_t nodes_per_router = 1;
  std::uint32_t slots_per_node = 1;
};

MachineSpec parse_machine_spec(std::string_view text);
Machine build_machine(const MachineSpec& spec);
inline Machine make_machine(std::string_view text) { return build_machine(parse_machine_spec(text)); }

}  // namespace taskmap
