// [PERCS-map] mappings for PERCS: blocking (Bhatele et al.), mod-colouring (Lemma 4.1) and the
// row-wise / column-wise / hybrid Transpose mappings. Tasks live on a P x Q grid
// (task = row * Q + column); supernode s holds nodes s*32 .. s*32+31, node k holds slots
// 4k .. 4k+3 (ppn = 4).
#include "taskmap/map/mapper_support.h"
#include "taskmap/map/structured/structured_mappers.h"
#include "taskmap/map/structured/coloring.h"

#include <numeric>

namespace taskmap {
namespace detail {
namespace {

const PercsShape& percs_shape(const MapperLabel& label, const Machine& m) {
  return required_shape<PercsShape>(label, m, "a PERCS machine");
}

// Slot of task (r, c) of a 2x2 quad placed on `node`: the quad row-major over its 4 slots.
SlotId quad_slot(NodeId node, std::uint32_t r, std::uint32_t c) { return node * 4 + (r % 2) * 2 + c % 2; }

// Block size of each level and its processor block: a 2x2 block per node, 4x8 per drawer,
// 8x16 per supernode [PERCS-map §4.3].
struct BlockLevel {
  std::uint32_t rows, cols, nodes;
};
BlockLevel block_level(PercsBlockLevel level) {
  switch (level) {
    case PercsBlockLevel::Node: return {2, 2, 1};
    case PercsBlockLevel::Drawer: return {4, 8, PercsShape::kDrawerSize};
    case PercsBlockLevel::Supernode: return {8, 16, PercsShape::kNodes};
  }
  return {8, 16, PercsShape::kNodes};
}

// Task blocks in row-major block order go to processor blocks in index order (seq) or in a
// seeded random order; inside a block the tasks fill the processor block's slots in 2x2 quads
// (one quad per node, quads row-major, each quad row-major over the node's 4 slots), the
// same within-block order as mod-colouring.
class PercsBlockMapper final : public ConfiguredMapper<PercsBlockOptions> {
 public:
  using ConfiguredMapper::ConfiguredMapper;
  Mapping run(const MappingProblem& problem) const override {
    const Machine& m = problem.machine();
    const CommGraph& g = problem.graph();
    percs_shape(label_, m);
    check_fits(m, g);
    auto grid = task_grid(label_, g, 2, 2);
    const std::uint32_t P = grid[0], Q = grid[1];
    BlockLevel b = block_level(options_.level);
    if (m.slots_per_node != 4) refuse(label_, "PERCS blocking places a 2x2 quad per node and needs ppn=4");
    if (P % b.rows != 0 || Q % b.cols != 0) {
      if (P % b.cols == 0 && Q % b.rows == 0) {
        std::swap(b.rows, b.cols);  // a tall grid takes the block on its side
      } else {
        refuse(label_, "a {}x{} block does not tile the {}x{} task grid", b.rows, b.cols, P, Q);
      }
    }
    const std::uint32_t blocks_per_row = Q / b.cols;
    const std::uint32_t processor_blocks = m.num_nodes() / b.nodes;
    std::vector<std::uint32_t> target(processor_blocks);
    std::iota(target.begin(), target.end(), 0u);
    if (options_.random_order) seeded_shuffle(target, options_.seed);
    Mapping map;
    map.slot_of_task.resize(g.num_tasks());
    for (std::uint32_t r = 0; r < P; ++r)
      for (std::uint32_t c = 0; c < Q; ++c) {
        const std::uint32_t block = (r / b.rows) * blocks_per_row + c / b.cols;
        const NodeId node = target[block] * b.nodes + quad_index(r % b.rows, c % b.cols, b.cols);
        map.slot_of_task[r * Q + c] = quad_slot(node, r, c);
      }
    return map;
  }

 private:
  static std::uint32_t quad_index(std::uint32_t r, std::uint32_t c, std::uint32_t block_cols) {
    return (r / 2) * (block_cols / 2) + c / 2;
  }
};

// Mod-colouring: 8x8 blocks coloured by Lemma 4.1, colour = supernode; of a supernode's two
// blocks the first in row-major block order takes nodes 0-15, the second nodes 16-31; each
// block's sixteen 2x2 quads go to those nodes in row-major order.
class PercsModColorMapper final : public ConfiguredMapper<> {
 public:
  using ConfiguredMapper::ConfiguredMapper;
  Mapping run(const MappingProblem& problem) const override {
    const Machine& m = problem.machine();
    const CommGraph& g = problem.graph();
    const PercsShape& shape = percs_shape(label_, m);
    check_fits(m, g);
    auto grid = task_grid(label_, g, 2, 2);
    const std::uint32_t P = grid[0], Q = grid[1];
    if (m.slots_per_node != 4) refuse(label_, "mod-colouring places a 2x2 quad per node and needs ppn=4");
    const bool q_ok = Q >= 64 && (Q & (Q - 1)) == 0;
    if (P % 32 != 0 || !q_ok) {
      refuse(label_, "mod-colouring needs P a multiple of 32 and Q a power of two >= 64, not {}x{}", P, Q);
    }
    const std::uint32_t p = P / 8, q = Q / 8;
    const Coloring colors = mod_coloring(p, q);
    if (p * q / 2 > shape.ns) refuse(label_, "{} colours need {} supernodes, the machine has {}", p * q / 2, p * q / 2, shape.ns);
    std::vector<std::uint32_t> half(std::size_t(p) * q);  // 0 or 1: which half of its supernode
    std::vector<std::uint32_t> seen(p * q / 2, 0);
    for (std::size_t block = 0; block < colors.size(); ++block) half[block] = seen[colors[block]]++;
    Mapping map;
    map.slot_of_task.resize(g.num_tasks());
    for (std::uint32_t r = 0; r < P; ++r)
      for (std::uint32_t c = 0; c < Q; ++c) {
        const std::size_t block = std::size_t(r / 8) * q + c / 8;
        const NodeId node = colors[block] * PercsShape::kNodes + half[block] * 16 + ((r % 8) / 2) * 4 + (c % 8) / 2;
        map.slot_of_task[r * Q + c] = quad_slot(node, r, c);
      }
    return map;
  }
};

// Row-wise: tasks in row-major order onto consecutive slots (128/Q rows per supernode);
// column-wise: in column-major order. Hybrid (Appendix C.1): a line of 64 tasks spans two
// drawers and loads LR links with 1/8 more, so keep together the lines that are not 64 long,
// and the only feasible layout when the other kind of line exceeds a supernode's 128 slots.
class PercsTransposeMapper final : public ConfiguredMapper<TransposeLayout> {
 public:
  using ConfiguredMapper::ConfiguredMapper;
  Mapping run(const MappingProblem& problem) const override {
    const Machine& m = problem.machine();
    const CommGraph& g = problem.graph();
    check_fits(m, g);
    auto grid = task_grid(label_, g, 2, 2);
    const std::uint32_t P = grid[0], Q = grid[1];
    const TransposeLayout layout = options_ == TransposeLayout::Hybrid ? hybrid(P, Q) : options_;
    Mapping map;
    map.slot_of_task.resize(g.num_tasks());
    for (std::uint32_t r = 0; r < P; ++r)
      for (std::uint32_t c = 0; c < Q; ++c) {
        map.slot_of_task[r * Q + c] = layout == TransposeLayout::Row ? r * Q + c : c * P + r;
      }
    return map;
  }

  static TransposeLayout hybrid(std::uint32_t P, std::uint32_t Q) {
    if (Q > 128 && P <= 128) return TransposeLayout::Column;
    if (P > 128) return TransposeLayout::Row;
    if (Q == 64 && P != 64) return TransposeLayout::Column;
    return TransposeLayout::Row;
  }
};

}  // namespace
}  // namespace detail

std::unique_ptr<Mapper> make_percs_block_mapper(MapperLabel label, PercsBlockOptions options) {
  return std::make_unique<detail::PercsBlockMapper>(std::move(label), options);
}
std::unique_ptr<Mapper> make_percs_modcolor_mapper(MapperLabel label) {
  return std::make_unique<detail::PercsModColorMapper>(std::move(label));
}
std::unique_ptr<Mapper> make_percs_transpose_mapper(MapperLabel label, TransposeLayout layout) {
  return std::make_unique<detail::PercsTransposeMapper>(std::move(label), layout);
}

}  // namespace taskmap
