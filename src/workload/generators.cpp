#include "taskmap/workload/generators.h"

#include <array>

#include "taskmap/core/error.h"

namespace taskmap {
namespace {

// Stencil over a 3D box (2D uses nz = 1): offsets with |d| <= 1 per axis, either the
// face neighbours only or the full cube.
CommGraph make_stencil(std::array<std::uint32_t, 3> n, bool full_cube, bool periodic, double per_neighbour) {
  const std::uint64_t tasks = std::uint64_t(n[0]) * n[1] * n[2];
  if (tasks > (1u << 30)) fail("pattern has {} tasks, more than taskmap supports", tasks);
  std::vector<CommEdge> edges;
  for (std::int64_t x = 0; x < n[0]; ++x)
    for (std::int64_t y = 0; y < n[1]; ++y)
      for (std::int64_t z = 0; z < n[2]; ++z) {
        const TaskId self = static_cast<TaskId>((x * n[1] + y) * n[2] + z);
        for (int dx = -1; dx <= 1; ++dx)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dz = -1; dz <= 1; ++dz) {
              const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
              if (nonzero == 0 || (!full_cube && nonzero != 1)) continue;
              std::int64_t p[3] = {x + dx, y + dy, z + dz};
              const int delta[3] = {dx, dy, dz};
              bool inside = true;
              for (int k = 0; k < 3; ++k) {
                if (delta[k] != 0 && n[k] == 1) inside = false;  // flat axis: no neighbour there
                if (p[k] < 0 || p[k] >= n[k]) {
                  if (!periodic) inside = false;
                  p[k] = (p[k] + n[k]) % n[k];
                }
              }
              if (!inside) continue;
              edges.push_back({self, static_cast<TaskId>((p[0] * n[1] + p[1]) * n[2] + p[2]), per_neighbour});
            }
      }
  return CommGraph::from_edges(static_cast<std::uint32_t>(tasks), std::move(edges));
}

}  // namespace

CommGraph make_halo2d(std::uint32_t rows, std::uint32_t cols, std::uint32_t points, bool periodic) {
  if (rows == 0 || cols == 0) fail("halo2d: grid sizes must be at least 1");
  if (points != 5 && points != 9) fail("halo2d: points must be 5 or 9, not {}", points);
  CommGraph g = make_stencil({rows, cols, 1}, points == 9, periodic, 1.0 / (points - 1));
  g.set_grid({rows, cols});
  return g;
}

CommGraph make_halo3d(std::uint32_t nx, std::uint32_t ny, std::uint32_t nz, std::uint32_t points, bool periodic) {
  if (nx == 0 || ny == 0 || nz == 0) fail("halo3d: grid sizes must be at least 1");
  if (points != 7 && points != 27) fail("halo3d: points must be 7 or 27, not {}", points);
  CommGraph g = make_stencil({nx, ny, nz}, points == 27, periodic, 1.0 / (points - 1));
  g.set_grid({nx, ny, nz});
  return g;
}

CommGraph make_transpose(std::uint32_t rows, std::uint32_t cols) {
  if (rows == 0 || cols == 0) fail("transpose: grid sizes must be at least 1");
  const std::uint64_t tasks = std::uint64_t(rows) * cols;
  const std::uint64_t edges_needed = tasks * (rows + cols);
  if (edges_needed > (1ull << 28)) fail("transpose:{}x{} has {} edges, more than taskmap supports", rows, cols, edges_needed);
  std::vector<CommEdge> edges;
  edges.reserve(edges_needed);
  const double row_share = 1.0 / (2.0 * cols), col_share = 1.0 / (2.0 * rows);
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t c = 0; c < cols; ++c) {
      const TaskId self = r * cols + c;
      for (std::uint32_t c2 = 0; c2 < cols; ++c2) {
        if (c2 != c) edges.push_back({self, r * cols + c2, row_share});
      }
      for (std::uint32_t r2 = 0; r2 < rows; ++r2) {
        if (r2 != r) edges.push_back({self, r2 * cols + c, col_share});
      }
    }
  CommGraph g = CommGraph::from_edges(static_cast<std::uint32_t>(tasks), std::move(edges));
  g.set_grid({rows, cols});
  return g;
}

CommGraph make_alltoall(std::uint32_t n) {
  if (n < 2) fail("alltoall: needs at least 2 tasks");
  if (std::uint64_t(n) * n > (1ull << 28)) fail("alltoall:{} has too many edges for taskmap", n);
  std::vector<CommEdge> edges;
  edges.reserve(std::uint64_t(n) * (n - 1));
  for (TaskId s = 0; s < n; ++s)
    for (TaskId d = 0; d < n; ++d)
      if (s != d) edges.push_back({s, d, 1.0 / (n - 1)});
  return CommGraph::from_edges(n, std::move(edges));
}

CommGraph make_localmix(std::uint32_t rows, std::uint32_t cols, double alpha) {
  if (rows == 0 || cols == 0) fail("localmix: grid sizes must be at least 1");
  if (!(alpha >= 0 && alpha <= 1)) fail("localmix: alpha must be in [0, 1], not {}", alpha);
  const std::uint64_t n = std::uint64_t(rows) * cols;
  if (alpha < 1 && n * n > (1ull << 28)) fail("localmix:{}x{} has too many edges for taskmap", rows, cols);
  std::vector<CommEdge> edges;
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t c = 0; c < cols; ++c) {
      const TaskId self = r * cols + c;
      if (alpha > 0) {
        const TaskId neighbours[4] = {((r + 1) % rows) * cols + c, ((r + rows - 1) % rows) * cols + c,
                                      r * cols + (c + 1) % cols, r * cols + (c + cols - 1) % cols};
        for (TaskId u : neighbours) edges.push_back({self, u, alpha / 4});
      }
      if (alpha < 1) {
        for (TaskId u = 0; u < n; ++u) edges.push_back({self, u, (1 - alpha) / double(n)});
      }
    }
  CommGraph g = CommGraph::from_edges(static_cast<std::uint32_t>(n), std::move(edges));
  g.set_grid({rows, cols});
  return g;
}

}  // namespace taskmap
