#pragma once
// RAHTM clustering by tiling [RAHTM §III-B]: group a level's elements into tiles of a fixed
// size over their grid, choosing the tile shape with the least inter-tile traffic.
#include <cstdint>
#include <string>
#include <vector>

#include "taskmap/workload/comm_graph.h"

namespace taskmap::rahtm {

struct Tiling {
  std::vector<std::uint32_t> cluster_of;  // element -> cluster (row-major over the tile grid)
  std::vector<std::uint32_t> grid;        // the clusters' grid
  // The tile's extent per grid dimension ({tile_size} for consecutive blocks): a cluster's
  // elements, in increasing order, run through it row-major.
  std::vector<std::uint32_t> tile;
  std::string shape;                      // "4x2", or "1D" for consecutive blocks
  double cut = 0;                         // traffic between different clusters
};

// Tiles of `tile_size` elements. Every shape t with prod t = tile_size and t_i | grid_i is
// tried; without a grid, or when no shape divides it, the fallback is consecutive blocks of
// element ids (the 1D tiling). graph.num_tasks() must be a multiple of tile_size.
Tiling tile_elements(const CommGraph& graph, const std::vector<std::uint32_t>& grid, std::uint32_t tile_size);

// The traffic between clusters, intra-cluster traffic dropped.
CommGraph cluster_graph(const CommGraph& graph, const std::vector<std::uint32_t>& cluster_of,
                        std::uint32_t num_clusters);

}  // namespace taskmap::rahtm
