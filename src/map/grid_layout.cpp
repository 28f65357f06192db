#include "taskmap/map/grid_layout.h"

namespace taskmap::detail {

std::vector<GridLayout> grid_layouts(const TorusShape& torus, const std::vector<std::uint32_t>& grid, std::size_t limit) {
  std::vector<std::size_t> dims;
  for (std::size_t d = 0; d < torus.dims(); ++d)
    if (torus.sizes[d] > 1) dims.push_back(d);
  const std::size_t k = grid.size();
  std::vector<GridLayout> out;
  if (k == 0) return out;
  std::uint64_t combos = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) combos *= k;
  for (std::uint64_t c = 0; c < combos && out.size() < limit; ++c) {
    GridLayout layout;
    layout.torus_dims.assign(k, {});
    std::vector<std::uint64_t> product(k, 1);
    std::uint64_t digits = c;
    for (std::size_t d : dims) {
      const std::size_t to = digits % k;
      digits /= k;
      layout.torus_dims[to].push_back(d);
      product[to] *= torus.sizes[d];
    }
    bool fits = true;
    for (std::size_t i = 0; i < k; ++i) fits = fits && product[i] == grid[i];
    if (fits) out.push_back(std::move(layout));
  }
  return out;
}

RouterId layout_router(const TorusShape& torus, const GridLayout& layout, const std::vector<std::uint32_t>& q) {
  std::uint64_t router = 0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    // Block index q along dimension i as a snake over its torus dimensions (a reflected
    // mixed-radix Gray code): a digit runs backwards during the odd passes of the slower
    // digit before it, so consecutive blocks differ by one step in one dimension.
    std::uint64_t span = 1;
    for (std::size_t d : layout.torus_dims[i]) span *= torus.sizes[d];
    for (std::size_t d : layout.torus_dims[i]) {
      span /= torus.sizes[d];
      const std::uint64_t passes = q[i] / span;  // steps of this digit so far, unfolded
      std::uint64_t digit = passes % torus.sizes[d];
      if ((passes / torus.sizes[d]) % 2 == 1) digit = torus.sizes[d] - 1 - digit;
      router += digit * torus.strides[d];
    }
  }
  return static_cast<RouterId>(router);
}

}  // namespace taskmap::detail
