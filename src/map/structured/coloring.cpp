#include "taskmap/map/structured/coloring.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "taskmap/core/error.h"

namespace taskmap {
namespace {

bool power_of_two(std::uint32_t x) { return x != 0 && (x & (x - 1)) == 0; }

// One line or cycle of [Dragonfly-BAC]'s construction: cells in path order (row-major indices, row 0
// = the reference row) and, for cycles, which of the four legs between reflections each is on.
struct MeshPath {
  bool cycle = false;
  std::vector<std::uint32_t> cells;
  std::vector<std::uint8_t> leg;
};

// Geometry in the paper's frame: column i, height j (j = n-1 is the top, reference row).
std::vector<MeshPath> lines_and_cycles(std::uint32_t n) {
  auto index = [n](std::int64_t i, std::int64_t j) { return static_cast<std::uint32_t>((n - 1 - j) * n + i); };
  std::vector<MeshPath> paths;
  MeshPath anti;  // from the top-left corner down to the bottom-right one
  for (std::uint32_t i = 0; i < n; ++i) anti.cells.push_back(index(i, n - 1 - i));
  paths.push_back(anti);
  if (n % 2 == 0) {  // odd n uses one line only
    MeshPath diag;
    for (std::uint32_t i = 0; i < n; ++i) diag.cells.push_back(index(i, i));
    paths.push_back(diag);
  }
  // A cycle starts where the top edge meets x0 (even, 1 < x0 < n), runs at slope -1 and
  // reflects off the edges like a billiard ball until it is back.
  for (std::int64_t x0 = 2; x0 < n; x0 += 2) {
    MeshPath c;
    c.cycle = true;
    std::int64_t i = x0, j = n - 1, di = 1, dj = -1;
    std::uint8_t leg = 0;
    do {
      c.cells.push_back(index(i, j));
      c.leg.push_back(leg);
      std::int64_t ni = i + di, nj = j + dj;
      bool turned = false;
      if (ni < 0 || ni >= n) { di = -di; ni = i; turned = true; }
      if (nj < 0 || nj >= n) { dj = -dj; nj = j; turned = true; }
      leg = static_cast<std::uint8_t>(leg + turned);
      i = ni;
      j = nj;
    } while (!(i == x0 && j == n - 1 && di == 1 && dj == -1));
    paths.push_back(std::move(c));
  }
  return paths;
}

}  // namespace

Coloring mod_coloring(std::uint32_t p, std::uint32_t q) {
  if (p == 0 || p % 4 != 0) fail("mod-coloring needs the block-grid row count p to be a multiple of 4, not {}", p);
  if (q < 8 || !power_of_two(q)) fail("mod-coloring needs the block-grid column count q to be a power of two >= 8, not {}", q);
  Coloring colors(std::size_t(p) * q);
  for (std::uint32_t x = 0; x < p; ++x) {
    const std::uint32_t group = x / 2;
    for (std::uint32_t y = 0; y < q; ++y) {
      const std::uint32_t in_group = x % 2 == 0 ? y : (5 * y + 2) % q;
      colors[std::size_t(x) * q + y] = group * q + in_group;
    }
  }
  return colors;
}

ColoringCheck check_perfect_coloring(const Coloring& colors, std::uint32_t p, std::uint32_t q) {
  if (colors.size() != std::size_t(p) * q) return {false, fmt::format("{} colours for a {}x{} grid", colors.size(), p, q)};
  std::map<std::uint32_t, std::vector<std::uint32_t>> neighbours;
  for (std::uint32_t x = 0; x < p; ++x)
    for (std::uint32_t y = 0; y < q; ++y) {
      const std::uint32_t c = colors[std::size_t(x) * q + y];
      auto& list = neighbours[c];
      list.push_back(colors[std::size_t((x + 1) % p) * q + y]);
      list.push_back(colors[std::size_t((x + p - 1) % p) * q + y]);
      list.push_back(colors[std::size_t(x) * q + (y + 1) % q]);
      list.push_back(colors[std::size_t(x) * q + (y + q - 1) % q]);
    }
  for (auto& [c, list] : neighbours) {
    if (std::find(list.begin(), list.end(), c) != list.end()) {
      return {false, fmt::format("colour {} is its own neighbour", c)};
    }
    std::sort(list.begin(), list.end());
    auto dup = std::adjacent_find(list.begin(), list.end());
    if (dup != list.end()) return {false, fmt::format("colour {} has colour {} as a neighbour twice", c, *dup)};
  }
  return {};
}

Coloring balanced_adjacency_coloring(std::uint32_t n, std::uint32_t colors) {
  if (n < 2) fail("balanced adjacency colouring needs a mesh side of at least 2, not {}", n);
  if (colors != n && colors != 2 * n) fail("balanced adjacency colouring of an {0}x{0} mesh uses {0} or {1} colours, not {2}", n, 2 * n, colors);
  if (colors == 2 * n && n % 2 != 0) {
    fail("the 2n-colour balanced adjacency colouring needs an even mesh side, not {}", n);
  }
  Coloring result(std::size_t(n) * n, UINT32_MAX);
  std::uint32_t next = 0;
  for (const MeshPath& path : lines_and_cycles(n)) {
    for (std::size_t t = 0; t < path.cells.size(); ++t) {
      std::uint32_t c = next + t % 2;  // lines: one colour (n) or two alternating (2n)
      if (!path.cycle && colors == n) c = next;
      // 2n colours: the first two legs of a cycle alternate two colours, the last two legs
      // two others, so each crossing with another path meets a distinct colour pair.
      if (path.cycle && colors == 2 * n && path.leg[t] >= 2) c += 2;
      result[path.cells[t]] = c;
    }
    next += path.cycle ? (colors == n ? 2 : 4) : (colors == n ? 1 : 2);
  }
  if (next != colors || std::count(result.begin(), result.end(), UINT32_MAX) != 0) {
    fail("internal error: lines and cycles of the {0}x{0} mesh do not cover it", n);
  }
  return result;
}

Coloring balanced_adjacency_coloring_3d(std::uint32_t n) {
  const Coloring slice = balanced_adjacency_coloring(n, n);
  Coloring result(std::size_t(n) * n * n);
  for (std::uint64_t z = 0; z < n; ++z) {
    const std::uint64_t shift = (z * (z + 1) / 2) % n;
    for (std::size_t cell = 0; cell < slice.size(); ++cell) {
      result[z * slice.size() + cell] = static_cast<std::uint32_t>((slice[cell] + shift) % n);
    }
  }
  return result;
}

ColoringCheck check_balanced_adjacency(const Coloring& colors, const std::vector<std::uint32_t>& sizes,
                                       std::uint32_t k) {
  std::uint64_t cells = 1;
  for (std::uint32_t s : sizes) cells *= s;
  if (colors.size() != cells) return {false, fmt::format("{} colours for a mesh of {} cells", colors.size(), cells)};
  if (k < 2) return {false, "fewer than 2 colours"};
  std::vector<std::uint64_t> use(k, 0);
  std::vector<std::uint64_t> pair(std::size_t(k) * k, 0);
  std::uint64_t adjacent = 0;
  std::vector<std::uint64_t> stride(sizes.size(), 1);
  for (std::size_t d = sizes.size(); d-- > 1;) stride[d - 1] = stride[d] * sizes[d];
  for (std::uint64_t cell = 0; cell < cells; ++cell) {
    const std::uint32_t c = colors[cell];
    if (c >= k) return {false, fmt::format("cell {} has colour {}, outside [0, {})", cell, c, k)};
    ++use[c];
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      if ((cell / stride[d]) % sizes[d] + 1 >= sizes[d]) continue;  // no neighbour past the border
      const std::uint32_t u = colors[cell + stride[d]];
      if (u == c) continue;
      ++adjacent;
      ++pair[std::size_t(std::min(c, u)) * k + std::max(c, u)];
    }
  }
  const std::uint64_t use_lo = cells / k, use_hi = (cells + k - 1) / k;
  for (std::uint32_t c = 0; c < k; ++c) {
    if (use[c] < use_lo || use[c] > use_hi) {
      return {false, fmt::format("colour {} is used {} times, not {} or {}", c, use[c], use_lo, use_hi)};
    }
  }
  const std::uint64_t pairs = std::uint64_t(k) * (k - 1) / 2;
  const std::uint64_t lo = adjacent / pairs, hi = (adjacent + pairs - 1) / pairs;
  for (std::uint32_t c = 0; c < k; ++c)
    for (std::uint32_t u = c + 1; u < k; ++u) {
      const std::uint64_t count = pair[std::size_t(c) * k + u];
      if (count < lo || count > hi) {
        return {false, fmt::format("colours {} and {} are adjacent {} times, not {} or {}", c, u, count, lo, hi)};
      }
    }
  return {};
}

}  // namespace taskmap
