#pragma once
// A grid of router-sized blocks laid onto a torus or mesh: each grid dimension goes onto one
// torus dimension, or onto several walked as a snake (boustrophedon), so that neighbouring
// blocks always sit on neighbouring routers. Shared by the blocks mapper and RAHTM.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "taskmap/core/ids.h"
#include "taskmap/topology/machine.h"

namespace taskmap::detail {

struct GridLayout {
  std::vector<std::vector<std::size_t>> torus_dims;  // per grid dimension: its torus dimensions, slowest first
};

// Every assignment of the torus dimensions (of size > 1) to the grid's dimensions in which the
// sizes of a grid dimension's torus dimensions multiply to its extent, at most `limit` of them.
std::vector<GridLayout> grid_layouts(const TorusShape& torus, const std::vector<std::uint32_t>& grid, std::size_t limit);

// The router of the block at grid coordinates q under `layout`.
RouterId layout_router(const TorusShape& torus, const GridLayout& layout, const std::vector<std::uint32_t>& q);

}  // namespace taskmap::detail
