#include "clustering.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <functional>

#include "taskmap/core/error.h"

namespace taskmap::rahtm {
namespace {

// Cluster of every element under tile shape `tile` on `grid` (row-major, first dim slowest).
std::vector<std::uint32_t> assign_tiles(const std::vector<std::uint32_t>& grid, const std::vector<std::uint32_t>& tile,
                                        std::uint32_t num_elements) {
  const std::size_t r = grid.size();
  std::vector<std::uint32_t> cluster_of(num_elements), coord(r, 0);
  for (std::uint32_t e = 0; e < num_elements; ++e) {
    std::uint32_t cluster = 0;
    for (std::size_t i = 0; i < r; ++i) cluster = cluster * (grid[i] / tile[i]) + coord[i] / tile[i];
    cluster_of[e] = cluster;
    for (std::size_t i = r; i-- > 0;) {
      if (++coord[i] < grid[i]) break;
      coord[i] = 0;
    }
  }
  return cluster_of;
}

double cut_of(const CommGraph& g, const std::vector<std::uint32_t>& cluster_of) {
  double cut = 0;
  for (TaskId a = 0; a < g.num_tasks(); ++a) {
    auto targets = g.targets(a);
    auto volumes = g.volumes(a);
    for (std::size_t i = 0; i < targets.size(); ++i)
      if (cluster_of[a] != cluster_of[targets[i]]) cut += volumes[i];
  }
  return cut;
}

}  // namespace

Tiling tile_elements(const CommGraph& g, const std::vector<std::uint32_t>& grid, std::uint32_t tile_size) {
  const std::uint32_t n = g.num_tasks();
  if (tile_size == 0 || n % tile_size != 0) fail("RAHTM: {} elements do not split into tiles of {}", n, tile_size);
  Tiling best;
  best.cut = INFINITY;
  std::uint64_t product = 1;
  for (std::uint32_t s : grid) product *= s;
  if (!grid.empty() && product == n) {
    std::vector<std::uint32_t> tile(grid.size(), 1);
    std::function<void(std::size_t, std::uint32_t)> search = [&](std::size_t i, std::uint32_t rest) {
      if (i == grid.size()) {
        if (rest != 1) return;
        auto cluster_of = assign_tiles(grid, tile, n);
        const double cut = cut_of(g, cluster_of);
        if (cut < best.cut * (1 - 1e-12)) {
          best.cut = cut;
          best.cluster_of = std::move(cluster_of);
          best.grid.clear();
          for (std::size_t k = 0; k < grid.size(); ++k) best.grid.push_back(grid[k] / tile[k]);
          best.shape = fmt::format("{}", fmt::join(tile, "x"));
          best.tile = tile;
        }
        return;
      }
      for (std::uint32_t t = 1; t <= rest; ++t) {
        if (rest % t || grid[i] % t) continue;
        tile[i] = t;
        search(i + 1, rest / t);
      }
      tile[i] = 1;
    };
    search(0, tile_size);
  }
  if (best.cluster_of.empty()) {
    best.cluster_of.resize(n);
    for (std::uint32_t e = 0; e < n; ++e) best.cluster_of[e] = e / tile_size;
    best.grid = {n / tile_size};
    best.shape = "1D";
    best.tile = {tile_size};
    best.cut = cut_of(g, best.cluster_of);
  }
  return best;
}

CommGraph cluster_graph(const CommGraph& g, const std::vector<std::uint32_t>& cluster_of, std::uint32_t num_clusters) {
  std::vector<CommEdge> edges;
  for (TaskId a = 0; a < g.num_tasks(); ++a) {
    auto targets = g.targets(a);
    auto volumes = g.volumes(a);
    for (std::size_t i = 0; i < targets.size(); ++i)
      if (cluster_of[a] != cluster_of[targets[i]]) edges.push_back({cluster_of[a], cluster_of[targets[i]], volumes[i]});
  }
  return CommGraph::from_edges(num_clusters, std::move(edges));
}

}  // namespace taskmap::rahtm
