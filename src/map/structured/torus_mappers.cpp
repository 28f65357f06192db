// The comparison mappings of RAHTM §IV for (BG/Q-like) tori: a Hilbert-curve order and the
// Rubik-style hierarchical tiling.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "taskmap/map/mapper_support.h"
#include "taskmap/map/structured/structured_mappers.h"

namespace taskmap {
namespace detail {
namespace {

// Point `index` of the n-dimensional Hilbert curve over a cube of side 2^bits (J. Skilling's
// transposed-index method: de-interleave, Gray-decode, undo the excess rotations).
std::vector<std::uint32_t> hilbert_point(std::uint64_t index, std::size_t n, std::uint32_t bits) {
  std::vector<std::uint32_t> x(n, 0);
  for (std::uint32_t level = 0; level < bits; ++level)
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t bit = index >> (level * n + (n - 1 - i)) & 1;
      x[i] |= static_cast<std::uint32_t>(bit) << level;
    }
  const std::uint32_t top = 1u << bits;
  std::uint32_t t = x[n - 1] >> 1;
  for (std::size_t i = n - 1; i > 0; --i) x[i] ^= x[i - 1];
  x[0] ^= t;
  for (std::uint32_t q = 2; q != top; q <<= 1) {
    const std::uint32_t p = q - 1;
    for (std::size_t i = n; i-- > 0;) {
      if (x[i] & q) {
        x[0] ^= p;
      } else {
        t = (x[0] ^ x[i]) & p;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  return x;
}

// Hilbert order over the largest group of equal power-of-two dimensions (BG/Q's A-D), the
// other dimensions then T in order inside each curve point (§IV: "ET order for the rest").
class HilbertMapper final : public ConfiguredMapper<> {
 public:
  using ConfiguredMapper::ConfiguredMapper;
  Mapping run(const MappingProblem& problem) const override {
    const Machine& m = problem.machine();
    const CommGraph& g = problem.graph();
    check_fits(m, g);
    const TorusShape& t = required_shape<TorusShape>(label_, m, "a torus, mesh or hypercube");
    std::map<std::uint32_t, std::vector<std::size_t>, std::greater<>> by_size;
    for (std::size_t d = 0; d < t.dims(); ++d)
      if (t.sizes[d] > 1 && (t.sizes[d] & (t.sizes[d] - 1)) == 0) by_size[t.sizes[d]].push_back(d);
    std::vector<std::size_t> curve;
    for (const auto& [size, dims] : by_size)
      if (dims.size() > curve.size()) curve = dims;
    if (curve.empty()) refuse(label_, "needs a dimension whose size is a power of two");
    std::vector<std::size_t> rest;
    for (std::size_t d = 0; d < t.dims(); ++d)
      if (std::find(curve.begin(), curve.end(), d) == curve.end()) rest.push_back(d);
    const std::uint32_t side = t.sizes[curve.front()];
    const std::uint32_t bits = static_cast<std::uint32_t>(std::countr_zero(side));
    const std::uint32_t per_router = m.nodes_per_router * m.slots_per_node;
    std::uint64_t points = 1, rest_routers = 1;
    for (std::size_t i = 0; i < curve.size(); ++i) points *= side;
    for (std::size_t d : rest) rest_routers *= t.sizes[d];

    Mapping mapping;
    mapping.slot_of_task.reserve(g.num_tasks());
    for (std::uint64_t h = 0; h < points && mapping.slot_of_task.size() < g.num_tasks(); ++h) {
      const auto x = hilbert_point(h, curve.size(), bits);
      RouterId base = 0;
      for (std::size_t i = 0; i < curve.size(); ++i) base += x[i] * t.strides[curve[i]];
      for (std::uint64_t r = 0; r < rest_routers; ++r) {
        RouterId router = base;
        std::uint64_t left = r;
        for (std::size_t i = rest.size(); i-- > 0;) {
          router += static_cast<std::uint32_t>(left % t.sizes[rest[i]]) * t.strides[rest[i]];
          left /= t.sizes[rest[i]];
        }
        for (std::uint32_t s = 0; s < per_router && mapping.slot_of_task.size() < g.num_tasks(); ++s) {
          mapping.slot_of_task.push_back(router * per_router + s);
        }
      }
    }
    return mapping;
  }
};

// Rubik-style hierarchical tiling (§IV): the 2D task grid is cut into 4x4 tiles, the torus
// into 4x2x2 boxes in A, B and E; tile i fills slot layer i % L of box i / L (L = slots per
// router), task (r, c) of a tile on A offset r and (B, E) offset (c / 2, c % 2).
class RubikTilingMapper final : public ConfiguredMapper<> {
 public:
  using ConfiguredMapper::ConfiguredMapper;
  Mapping run(const MappingProblem& problem) const override {
    const Machine& m = problem.machine();
    const CommGraph& g = problem.graph();
    check_fits(m, g);
    const TorusShape& t = required_shape<TorusShape>(label_, m, "a torus with dimensions A, B and E");
    if (t.dims() < 5) refuse(label_, "needs a torus with dimensions A, B and E (5 or more), not {}", m.description);
    if (t.sizes[0] % 4 || t.sizes[1] % 2 || t.sizes[4] % 2) {
      refuse(label_, "needs A divisible by 4 and B and E by 2 for its 4x2x2 boxes, not {}", m.description);
    }
    const auto grid = task_grid(label_, g, 2, 2);
    if (grid[0] % 4 || grid[1] % 4) refuse(label_, "needs a task grid divisible by 4x4 tiles, not {}x{}", grid[0], grid[1]);
    const std::uint32_t per_router = m.nodes_per_router * m.slots_per_node;
    // Boxes in row-major order over (A/4, B/2, C, D, ..., E/2, ...).
    std::vector<std::uint32_t> box_grid = t.sizes, box_extent(t.dims(), 1);
    box_extent[0] = 4, box_extent[1] = 2, box_extent[4] = 2;
    for (std::size_t d = 0; d < t.dims(); ++d) box_grid[d] /= box_extent[d];
    const std::uint32_t tile_cols = grid[1] / 4;
    Mapping mapping;
    mapping.slot_of_task.resize(g.num_tasks());
    for (std::uint32_t task = 0; task < g.num_tasks(); ++task) {
      const std::uint32_t row = task / grid[1], col = task % grid[1];
      const std::uint32_t tile = (row / 4) * tile_cols + col / 4;
      std::uint32_t box = tile / per_router;
      const std::uint32_t layer = tile % per_router;
      std::vector<std::uint32_t> coord(t.dims(), 0);
      for (std::size_t d = t.dims(); d-- > 0;) coord[d] = box % box_grid[d] * box_extent[d], box /= box_grid[d];
      coord[0] += row % 4;
      coord[1] += (col % 4) / 2;
      coord[4] += col % 2;
      RouterId router = 0;
      for (std::size_t d = 0; d < t.dims(); ++d) router += coord[d] * t.strides[d];
      mapping.slot_of_task[task] = router * per_router + layer;
    }
    return mapping;
  }
};

}  // namespace
}  // namespace detail

std::unique_ptr<Mapper> make_hilbert_mapper(MapperLabel label) {
  return std::make_unique<detail::HilbertMapper>(std::move(label));
}
std::unique_ptr<Mapper> make_rubik_tiling_mapper(MapperLabel label) {
  return std::make_unique<detail::RubikTilingMapper>(std::move(label));
}

}  // namespace taskmap
