#include <fmt/format.h>

#include "common_checks.h"
#include "taskmap/topology/builders.h"

namespace taskmap {

std::string torus_letters(std::size_t dims) {
  std::string letters;
  for (char c = 'A'; letters.size() < dims && c <= 'Z'; ++c) {
    if (c != 'T') letters.push_back(c);
  }
  if (letters.size() < dims) fail("a torus has at most 25 dimensions (letters A-Z without T), not {}", dims);
  return letters;
}

Machine build_torus(const TorusParams& params, BuildDetail detail) {
  const std::size_t dims = params.sizes.size();
  if (dims == 0) fail("torus: at least one dimension is needed");
  if (params.wrap.size() != dims) fail("torus: {} wrap flags for {} dimensions", params.wrap.size(), dims);
  std::uint64_t routers = 1;
  for (std::size_t d = 0; d < dims; ++d) {
    if (params.sizes[d] == 0) fail("torus: dimension {} has size 0", d);
    routers *= params.sizes[d];
    if (routers > detail::kMaxRouters) break;
  }
  detail::check_machine_size("torus", routers, params.nodes_per_router, params.slots_per_node);

  Machine m;
  m.num_routers = static_cast<std::uint32_t>(routers);
  m.nodes_per_router = params.nodes_per_router;
  m.slots_per_node = params.slots_per_node;
  TorusShape shape;
  shape.sizes = params.sizes;
  shape.wrap = params.wrap;
  shape.letters = torus_letters(dims);
  shape.strides.assign(dims, 1);
  for (std::size_t d = dims - 1; d > 0; --d) shape.strides[d - 1] = shape.strides[d] * shape.sizes[d];

  // Link classes per dimension and direction ("A+", "A-"), only for dimensions with links.
  std::vector<std::uint16_t> class_of(dims * 2, 0);
  for (std::size_t d = 0; d < dims; ++d) {
    if (shape.sizes[d] < 2) continue;
    class_of[d * 2] = m.add_class(fmt::format("{}+", shape.letters[d]), 1.0);
    class_of[d * 2 + 1] = m.add_class(fmt::format("{}-", shape.letters[d]), 1.0);
  }
  if (detail == BuildDetail::Outline) {
    m.shape = std::move(shape);
    return m;
  }
  shape.channel_of.assign(routers * dims * 2, kNoChannel);
  for (RouterId r = 0; r < routers; ++r) {
    for (std::size_t d = 0; d < dims; ++d) {
      const std::uint32_t k = shape.sizes[d];
      if (k < 2) continue;
      const std::uint32_t c = shape.coord(r, d);
      for (int dir = 0; dir < 2; ++dir) {
        std::uint32_t next;
        if (dir == 0) {
          if (c + 1 < k) next = c + 1;
          else if (shape.wrap[d]) next = 0;
          else continue;
        } else {
          if (c > 0) next = c - 1;
          else if (shape.wrap[d]) next = k - 1;
          else continue;
        }
        // Size-2 wrap dimensions get two parallel channels per direction ("double-wide" links).
        RouterId neighbour = r - c * shape.strides[d] + next * shape.strides[d];
        shape.channel_of[(static_cast<std::size_t>(r) * dims + d) * 2 + dir] =
            m.add_channel(r, neighbour, class_of[d * 2 + dir]);
      }
    }
  }
  m.shape = std::move(shape);
  return m;
}

Machine build_hypercube(std::uint32_t d, std::uint32_t nodes_per_router, std::uint32_t slots_per_node,
                        BuildDetail detail) {
  if (d == 0) fail("hypercube: dimension d must be at least 1");
  if (d > 22) fail("hypercube: d={} is more than taskmap supports (22)", d);
  TorusParams p;
  p.sizes.assign(d, 2);
  p.wrap.assign(d, false);  // one channel per direction between the two nodes of a dimension
  p.nodes_per_router = nodes_per_router;
  p.slots_per_node = slots_per_node;
  return build_torus(p, detail);
}

}  // namespace taskmap
