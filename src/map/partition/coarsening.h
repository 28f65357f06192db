#pragma once
// The coarsening of the multilevel mapper (ml): size-constrained label propagation clusters
// the vertices of a level (each vertex joins the neighbouring cluster it shares the most
// volume with, while the cluster stays under a weight limit), vertices left alone are paired
// with others that favour the same cluster (two-hop clustering, for the leaves around a hub of
// a power-law graph), and each cluster becomes a vertex of the next level.
#include <cstdint>
#include <vector>

#include "taskmap/map/router_placement.h"

namespace taskmap::detail {

// A level of the hierarchy: clusters of tasks and the volume between them (both directions
// summed, stored on each side), with the tasks each vertex holds.
struct LevelGraph {
  UndirectedGraph graph;
  std::vector<std::uint32_t> tasks;
  std::uint32_t vertices() const { return graph.vertices(); }
};

// The task graph itself: one task per vertex.
LevelGraph finest_level(const CommGraph& graph);

struct ClusteringOptions {
  std::uint32_t max_cluster_tasks = 1;  // the weight limit of a cluster
  std::uint32_t rounds = 4;             // label propagation passes at most
  std::uint64_t seed = 1;               // of the visiting order and tie-breaks
  // When set, a vertex joins only clusters of its own block (block[v]): a V-cycle's
  // coarsening, which keeps the current mapping representable on every level.
  const std::vector<std::uint32_t>* block = nullptr;
};

// The cluster of each vertex, numbered 0.. in the order of their lowest vertex; `clusters` is
// set to their count. Adds adjacency entries scanned to `work`.
std::vector<std::uint32_t> cluster_vertices(const LevelGraph& level, const ClusteringOptions& options,
                                            std::uint32_t& clusters, std::uint64_t& work);

// Pairs of vertices of one block (block[v]), whether or not they share an edge: each vertex
// with its heaviest neighbour of the block still unpaired, else with the next unpaired vertex
// of the block, while the pair holds at most max_cluster_tasks. For a V-cycle whose label
// propagation stalls on blocks whose tasks barely talk to each other (a social graph's parts):
// the levels above then move and exchange halves, quarters, ... and whole blocks' contents.
std::vector<std::uint32_t> pair_within_blocks(const LevelGraph& level, const std::vector<std::uint32_t>& block,
                                              std::uint32_t max_cluster_tasks, std::uint32_t& clusters,
                                              std::uint64_t& work);

// The next level: one vertex per cluster, the volume between clusters summed.
LevelGraph contract(const LevelGraph& level, const std::vector<std::uint32_t>& cluster, std::uint32_t clusters,
                    std::uint64_t& work);

}  // namespace taskmap::detail
