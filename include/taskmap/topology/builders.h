#pragma once
// One builder per machine family. Each validates its parameters and throws Error with the
// reason when the machine is impossible.
#include <string>
#include <vector>

#include "taskmap/topology/machine.h"

namespace taskmap {

// Outline: the routers, nodes, link classes and shape parameters, but no channels and no
// per-router tables: what describing a structured machine of millions of routers needs.
enum class BuildDetail { Full, Outline };

struct TorusParams {
  std::vector<std::uint32_t> sizes;
  std::vector<bool> wrap;
  std::uint32_t nodes_per_router = 1;
  std::uint32_t slots_per_node = 1;
};
Machine build_torus(const TorusParams& params, BuildDetail detail = BuildDetail::Full);
Machine build_hypercube(std::uint32_t d, std::uint32_t nodes_per_router, std::uint32_t slots_per_node,
                        BuildDetail detail = BuildDetail::Full);

Machine build_rect_torus(std::uint32_t a, bool twisted, std::uint32_t nodes_per_router,
                         std::uint32_t slots_per_node, BuildDetail detail = BuildDetail::Full);

struct DragonflyParams {
  std::uint32_t p = 1, a = 1, h = 1;
  DragonflyWiring wiring = DragonflyWiring::Consecutive;
  std::uint32_t slots_per_node = 1;
};
Machine build_dragonfly(const DragonflyParams& params, BuildDetail detail = BuildDetail::Full);

// k-ary n-tree, SimGrid's FAT_TREE "n;k,...,k;1,k,...,k;1,...,1".
Machine build_fat_tree(std::uint32_t k, std::uint32_t n, std::uint32_t slots_per_node,
                       BuildDetail detail = BuildDetail::Full);

// KaHIP's hierarchy (HierShape): sizes and distances per level, bottom up; the distances must
// not decrease going up. slots_per_node: slots of each leaf (1 in KaHIP's convention).
struct HierParams {
  std::vector<std::uint32_t> sizes;
  std::vector<std::uint32_t> dist;
  std::uint32_t slots_per_node = 1;
};
Machine build_hier(const HierParams& params, BuildDetail detail = BuildDetail::Full);

Machine build_percs(std::uint32_t ns, std::uint32_t nd, std::uint32_t slots_per_node = 4,
                    BuildDetail detail = BuildDetail::Full);

// Reads the topology file format documented in docs/topology-file.md.
Machine read_graph_machine(const std::string& path, std::uint32_t nodes_per_router,
                           std::uint32_t slots_per_node);

// Letters of the dimensions of an n-dimensional torus: A, B, ..., skipping T (the slot letter).
std::string torus_letters(std::size_t dims);

}  // namespace taskmap
