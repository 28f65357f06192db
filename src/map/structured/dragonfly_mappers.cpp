// Dragonfly stencil mappings [Dragonfly-BAC]: the blocked baseline BSM (Bhatele et al.) and
// B-BAC (2x2 task units coloured by a balanced adjacency colouring, colour = group).
#include "taskmap/map/mapper_support.h"
#include "taskmap/map/structured/structured_mappers.h"
#include "taskmap/map/structured/coloring.h"

#include <fmt/ranges.h>

#include <numeric>
#include <optional>

namespace taskmap {
namespace detail {
namespace {

const DragonflyShape& dragonfly_shape(const MapperLabel& label, const Machine& m) {
  return required_shape<DragonflyShape>(label, m, "a dragonfly machine");
}

// The most square rows x cols rectangle of `area` cells that tiles a P x Q region.
std::optional<std::pair<std::uint32_t, std::uint32_t>> squarest_tile(std::uint32_t area, std::uint32_t P,
                                                                     std::uint32_t Q) {
  std::optional<std::pair<std::uint32_t, std::uint32_t>> best;
  for (std::uint32_t r = 1; r <= area; ++r) {
    if (area % r != 0 || P % r != 0 || Q % (area / r) != 0) continue;
    if (!best || r + area / r < best->first + best->second) best = std::pair{r, area / r};
  }
  return best;
}

// BSM: the grid is cut into the squarest blocks of one group's slots (a*p*ppn tasks), blocks
// in row-major order to groups 0, 1, ...; each block into the squarest sub-blocks of one
// router's slots, row-major to the group's routers; tasks row-major within a sub-block.
class BsmMapper final : public ConfiguredMapper<> {
 public:
  using ConfiguredMapper::ConfiguredMapper;
  Mapping run(const MappingProblem& problem) const override {
    const Machine& m = problem.machine();
    const CommGraph& g = problem.graph();
    const DragonflyShape& shape = dragonfly_shape(label_, m);
    check_fits(m, g);
    auto grid = task_grid(label_, g, 2, 2);
    const std::uint32_t P = grid[0], Q = grid[1];
    const std::uint32_t router_slots = m.nodes_per_router * m.slots_per_node;
    const std::uint32_t group_slots = shape.a * router_slots;
    auto block = squarest_tile(group_slots, P, Q);
    if (!block) refuse(label_, "no block of one group's {} slots tiles the {}x{} task grid", group_slots, P, Q);
    auto sub = squarest_tile(router_slots, block->first, block->second);
    if (!sub) {
      refuse(label_, "no sub-block of one router's {} slots tiles the {}x{} group block", router_slots, block->first,
             block->second);
    }
    const auto [R, C] = *block;
    const auto [r, c] = *sub;
    Mapping map;
    map.slot_of_task.resize(g.num_tasks());
    for (std::uint32_t y = 0; y < P; ++y)
      for (std::uint32_t x = 0; x < Q; ++x) {
        const std::uint32_t group = (y / R) * (Q / C) + x / C;
        const std::uint32_t router = ((y % R) / r) * (C / c) + (x % C) / c;
        const std::uint32_t within = (y % r) * c + x % c;
        map.slot_of_task[y * Q + x] = group * group_slots + router * router_slots + within;
      }
    return map;
  }
};

// B-BAC: 2x2 (3D: 2x2x2) task units coloured on the unit mesh, a colour per group (spread, see
// below); each group's units in row-major unit order fill its slots router by router, a
// unit's tasks row-major.
class BbacMapper final : public ConfiguredMapper<bool> {  // options: 2n colours (else n)
 public:
  using ConfiguredMapper::ConfiguredMapper;
  Mapping run(const MappingProblem& problem) const override {
    const Machine& m = problem.machine();
    const CommGraph& g = problem.graph();
    const DragonflyShape& shape = dragonfly_shape(label_, m);
    check_fits(m, g);
    auto grid = task_grid(label_, g, 2, 3);
    const std::uint32_t P = grid[0];
    for (std::uint32_t s : grid) {
      if (s != P) refuse(label_, "B-BAC needs a square (or cubic) task grid, not {}", fmt::join(grid, "x"));
    }
    if (P % 2 != 0) refuse(label_, "B-BAC blocks 2x2 units and needs an even grid side, not {}", P);
    const std::uint32_t n = P / 2;
    const bool three_d = grid.size() == 3;
    // The 3D generalisation colours slices with n colours; colors=2n applies to 2D only.
    const std::uint32_t colors = three_d ? n : (options_ ? 2 * n : n);
    if (!three_d && options_ && n % 2 != 0) {
      refuse(label_, "the 2n-colour colouring needs an even unit-mesh side, but {}/2 = {} is odd (use colors=n)", P, n);
    }
    if (colors > shape.g) refuse(label_, "{} colours need {} groups, the machine has {}", colors, colors, shape.g);
    const Coloring coloring = three_d ? balanced_adjacency_coloring_3d(n) : balanced_adjacency_coloring(n, colors);
    const std::uint32_t group_slots = shape.a * m.nodes_per_router * m.slots_per_node;
    const std::uint32_t unit_tasks = three_d ? 8 : 4;
    // Colours that meet in the colouring are numerically close (neighbouring lines and cycles
    // take consecutive colours), and one router owns the cables to h consecutive groups, so
    // colour c goes to group c * s mod k with s the smallest stride > k/h coprime to k: the
    // groups a unit talks to then hang off different routers of its own group.
    std::uint32_t stride = colors / shape.h + 1;
    while (std::gcd(stride, colors) != 1) ++stride;
    std::vector<std::uint32_t> filled(colors, 0);
    Mapping map;
    map.slot_of_task.resize(g.num_tasks());
    const std::uint32_t units_per_side = n, sides = three_d ? 3 : 2;
    for (std::uint32_t unit = 0; unit < coloring.size(); ++unit) {
      const std::uint32_t group = static_cast<std::uint32_t>((std::uint64_t(coloring[unit]) * stride) % colors);
      if (filled[group] + unit_tasks > group_slots) {
        refuse(label_, "colour {} gets more tasks than a group's {} slots", group, group_slots);
      }
      // Unit coordinates (row-major) and its 2^d tasks in row-major order.
      std::uint32_t coord[3] = {0, 0, 0}, rest = unit;
      for (std::uint32_t d = sides; d-- > 0;) {
        coord[d] = rest % units_per_side;
        rest /= units_per_side;
      }
      for (std::uint32_t k = 0; k < unit_tasks; ++k) {
        TaskId task = 0;
        for (std::uint32_t d = 0; d < sides; ++d) {
          const std::uint32_t bit = (k >> (sides - 1 - d)) & 1;
          task = task * P + 2 * coord[d] + bit;
        }
        map.slot_of_task[task] = group * group_slots + filled[group]++;
      }
    }
    return map;
  }
};

}  // namespace
}  // namespace detail

std::unique_ptr<Mapper> make_dragonfly_bsm_mapper(MapperLabel label) {
  return std::make_unique<detail::BsmMapper>(std::move(label));
}
std::unique_ptr<Mapper> make_dragonfly_bbac_mapper(MapperLabel label, bool double_colors) {
  return std::make_unique<detail::BbacMapper>(std::move(label), double_colors);
}

}  // namespace taskmap
