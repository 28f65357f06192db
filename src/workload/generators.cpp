#include "taskmap/workload/generators.h"

#include <fmt/format.h>

#include <array>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"

namespace taskmap {
namespace {

// "halo3d:4x4x4": the pattern as its generator was asked for it, for messages.
std::string grid_name(std::string_view name, std::initializer_list<std::uint64_t> sizes) {
  return fmt::format("{}:{}", name, fmt::join(sizes, "x"));
}

// The product of the sizes, with one line naming the pattern when it exceeds kMaxTaskCount
// (or 64 bits).
std::uint64_t checked_tasks(const std::string& name, std::initializer_list<std::uint64_t> sizes) {
  std::uint64_t tasks = 1;
  for (std::uint64_t s : sizes) {
    if (__builtin_mul_overflow(tasks, s, &tasks) || tasks > kMaxTaskCount) {
      throw LimitError(fmt::format("{} has more than {} tasks (task ids are 32-bit)", name, kMaxTaskCount));
    }
  }
  return tasks;
}

// Refuses, before anything is allocated, a pattern whose edge list of `flows` entries over
// `tasks` tasks needs more than memory_limit().
void check_pattern_memory(const std::string& name, std::uint64_t tasks, std::uint64_t flows) {
  check_memory(name, CommGraph::estimated_bytes(tasks, flows), format_count(flows) + " flows");
}

// Stencil over a 3D box (2D uses nz = 1): offsets with |d| <= 1 per axis, either the
// face neighbours only or the full cube.
CommGraph make_stencil(const std::string& name, std::array<std::uint32_t, 3> n, bool full_cube, bool periodic,
                       double per_neighbour) {
  const std::uint64_t tasks = checked_tasks(name, {n[0], n[1], n[2]});
  // The edge list's length, exactly: per offset, the tasks whose neighbour there exists.
  std::uint64_t flows = 0;
  for (int dx = -1; dx <= 1; ++dx)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dz = -1; dz <= 1; ++dz) {
        const int delta[3] = {dx, dy, dz};
        const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
        if (nonzero == 0 || (!full_cube && nonzero != 1)) continue;
        std::uint64_t sources = 1;
        for (int k = 0; k < 3; ++k) {
          const std::uint64_t along = delta[k] == 0 ? n[k] : n[k] == 1 ? 0 : periodic ? n[k] : n[k] - 1;
          sources *= along;  // at most tasks: no overflow
        }
        flows += sources;  // at most 26 x tasks < 2^36
      }
  check_pattern_memory(name, tasks, flows);
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
  std::string name = grid_name("halo2d", {rows, cols});
  if (points != 5) name += fmt::format(",points={}", points);
  if (!periodic) name += ",periodic=false";
  CommGraph g = make_stencil(name, {rows, cols, 1}, points == 9, periodic, 1.0 / (points - 1));
  g.set_grid({rows, cols});
  return g;
}

CommGraph make_halo3d(std::uint32_t nx, std::uint32_t ny, std::uint32_t nz, std::uint32_t points, bool periodic) {
  if (nx == 0 || ny == 0 || nz == 0) fail("halo3d: grid sizes must be at least 1");
  if (points != 7 && points != 27) fail("halo3d: points must be 7 or 27, not {}", points);
  std::string name = grid_name("halo3d", {nx, ny, nz});
  if (points != 7) name += fmt::format(",points={}", points);
  if (!periodic) name += ",periodic=false";
  CommGraph g = make_stencil(name, {nx, ny, nz}, points == 27, periodic, 1.0 / (points - 1));
  g.set_grid({nx, ny, nz});
  return g;
}

CommGraph make_transpose(std::uint32_t rows, std::uint32_t cols) {
  if (rows == 0 || cols == 0) fail("transpose: grid sizes must be at least 1");
  const std::string name = grid_name("transpose", {rows, cols});
  const std::uint64_t tasks = checked_tasks(name, {rows, cols});
  const std::uint64_t flows = saturating_mul(tasks, std::uint64_t(rows) + cols - 2);
  check_pattern_memory(name, tasks, flows);
  std::vector<CommEdge> edges;
  edges.reserve(flows);
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
  const std::string name = fmt::format("alltoall:{}", n);
  const std::uint64_t tasks = checked_tasks(name, {n});
  const std::uint64_t flows = tasks * (tasks - 1);  // tasks < 2^31: no overflow
  check_pattern_memory(name, tasks, flows);
  std::vector<CommEdge> edges;
  edges.reserve(flows);
  for (TaskId s = 0; s < n; ++s)
    for (TaskId d = 0; d < n; ++d)
      if (s != d) edges.push_back({s, d, 1.0 / (n - 1)});
  return CommGraph::from_edges(n, std::move(edges));
}

CommGraph make_localmix(std::uint32_t rows, std::uint32_t cols, double alpha) {
  if (rows == 0 || cols == 0) fail("localmix: grid sizes must be at least 1");
  if (!(alpha >= 0 && alpha <= 1)) fail("localmix: alpha must be in [0, 1], not {}", alpha);
  const std::string name = fmt::format("{},alpha={}", grid_name("localmix", {rows, cols}), alpha);
  const std::uint64_t n = checked_tasks(name, {rows, cols});
  // Dense: every task to every task when alpha < 1, plus the 4 neighbours when alpha > 0.
  const std::uint64_t flows = saturating_mul(n, (alpha > 0 ? 4 : 0) + (alpha < 1 ? n : 0));
  check_pattern_memory(name, n, flows);
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
