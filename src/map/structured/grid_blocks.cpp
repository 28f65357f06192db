// blocks (taskmap's own): a task grid that fills a torus or mesh, cut into equal blocks of one
// router's slots, the grid of blocks laid onto the routers. Each task dimension goes onto one
// torus dimension, or onto several walked as a snake (boustrophedon), so that neighbouring
// blocks always sit on neighbouring routers. Of every block shape and assignment of
// dimensions that fits, the one with the fewest hop-bytes on the task graph is kept.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>

#include "taskmap/map/grid_layout.h"
#include "taskmap/map/mapper_support.h"
#include "taskmap/map/router_placement.h"
#include "taskmap/map/structured/structured_mappers.h"

namespace taskmap {
namespace detail {
namespace {

// Layouts scored at most; a 6-dimensional torus with 64 slots per router has a few hundred.
constexpr std::size_t kMaxLayouts = 256;

struct Layout {
  std::vector<std::uint32_t> block;  // per task dimension: its extent inside one router
  GridLayout grid;                   // the grid of blocks on the torus
};

// Every way to write `slots` as a product of one factor per task dimension, each dividing the
// grid's size in that dimension.
void block_shapes(const std::vector<std::uint32_t>& grid, std::size_t i, std::uint32_t slots,
                  std::vector<std::uint32_t>& block, std::vector<std::vector<std::uint32_t>>& out) {
  if (i == grid.size()) {
    if (slots == 1) out.push_back(block);
    return;
  }
  for (std::uint32_t b = 1; b <= slots; ++b) {
    if (slots % b != 0 || grid[i] % b != 0) continue;
    block[i] = b;
    block_shapes(grid, i + 1, slots / b, block, out);
  }
}

class GridBlocksMapper final : public ConfiguredMapper<> {
 public:
  using ConfiguredMapper::ConfiguredMapper;
  Mapping run(const MappingProblem& problem) const override {
    const Machine& m = problem.machine();
    const CommGraph& g = problem.graph();
    const TorusShape& torus = required_shape<TorusShape>(label_, m, "a torus, mesh or hypercube");
    if (!m.uniform() || m.num_host_routers() != m.num_routers) {
      refuse(label_, "needs every router of the machine with the same slots (not a job's allocation)");
    }
    const std::vector<std::uint32_t> grid = task_grid(label_, g, 1, 8);
    if (g.num_tasks() != m.num_slots()) {
      refuse(label_, "needs the task grid to fill the machine: {} tasks for {} slots", g.num_tasks(), m.num_slots());
    }
    const std::uint32_t slots = m.nodes_per_router * m.slots_per_node;
    std::vector<std::vector<std::uint32_t>> shapes;
    std::vector<std::uint32_t> block(grid.size(), 1);
    block_shapes(grid, 0, slots, block, shapes);
    std::vector<Layout> layouts;
    for (const auto& shape : shapes) {
      std::vector<std::uint32_t> along(grid.size());
      for (std::size_t i = 0; i < grid.size(); ++i) along[i] = grid[i] / shape[i];
      for (GridLayout& layout : grid_layouts(torus, along, kMaxLayouts - layouts.size())) {
        layouts.push_back({shape, std::move(layout)});
      }
    }
    if (layouts.empty()) {
      refuse(label_, "the {} grid cut into blocks of {} slots does not match the torus {}", fmt::join(grid, "x"), slots,
             fmt::join(torus.sizes, "x"));
    }
    // The layout with the fewest hop-bytes; ties keep the first found.
    Mapping best;
    double best_cost = std::numeric_limits<double>::infinity();
    for (const Layout& layout : layouts) {
      Mapping candidate = place(m, torus, grid, layout, slots);
      const double cost = detail::placement_hop_bytes(problem, candidate);
      if (cost < best_cost) {
        best_cost = cost;
        best = std::move(candidate);
      }
    }
    return best;
  }

 private:
  static Mapping place(const Machine& m, const TorusShape& torus, const std::vector<std::uint32_t>& grid,
                       const Layout& layout, std::uint32_t slots) {
    const std::size_t k = grid.size();
    Mapping map;
    map.slot_of_task.resize(m.num_slots());
    std::vector<std::uint32_t> x(k, 0), q(k);  // the task's grid coordinates (last fastest), its block's
    for (TaskId t = 0; t < map.slot_of_task.size(); ++t) {
      std::uint64_t inner = 0;
      for (std::size_t i = 0; i < k; ++i) {
        inner = inner * layout.block[i] + x[i] % layout.block[i];
        q[i] = x[i] / layout.block[i];
      }
      const std::uint64_t router = layout_router(torus, layout.grid, q);
      map.slot_of_task[t] = static_cast<SlotId>(router * slots + inner);
      for (std::size_t i = k; i-- > 0;) {  // next task: odometer over the grid
        if (++x[i] < grid[i]) break;
        x[i] = 0;
      }
    }
    return map;
  }
};

}  // namespace
}  // namespace detail

std::unique_ptr<Mapper> make_grid_blocks_mapper(MapperLabel label) {
  return std::make_unique<detail::GridBlocksMapper>(std::move(label));
}

}  // namespace taskmap
