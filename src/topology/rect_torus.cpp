#include "taskmap/topology/rect_torus_geometry.h"

#include "common_checks.h"
#include "taskmap/topology/builders.h"

namespace taskmap {

RectPoint rect_reduce(const RectTorusShape& s, std::int64_t x, std::int64_t y) {
  const std::int64_t a = s.a, w = 2 * s.a;
  // Bring y into [0, a) with the lattice vector (a, a) for RTT or (0, a) for RT.
  std::int64_t q = (y >= 0) ? y / a : -((-y + a - 1) / a);
  y -= q * a;
  if (s.twisted) x -= q * a;
  x %= w;
  if (x < 0) x += w;
  return RectPoint{static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y)};
}

Machine build_rect_torus(std::uint32_t a, bool twisted, std::uint32_t nodes_per_router,
                         std::uint32_t slots_per_node, BuildDetail detail) {
  const char* name = twisted ? "rtt" : "rt";
  if (a < 2) fail("{}: a must be at least 2, not {}", name, a);
  const std::uint64_t routers = 2ull * a * a;
  detail::check_machine_size(name, routers, nodes_per_router, slots_per_node);
  Machine m;
  m.num_routers = static_cast<std::uint32_t>(routers);
  m.nodes_per_router = nodes_per_router;
  m.slots_per_node = slots_per_node;
  RectTorusShape shape;
  shape.a = a;
  shape.twisted = twisted;
  const std::uint16_t classes[4] = {m.add_class("x+", 1.0), m.add_class("x-", 1.0), m.add_class("y+", 1.0),
                                    m.add_class("y-", 1.0)};
  if (detail == BuildDetail::Outline) {
    m.shape = std::move(shape);
    return m;
  }
  const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
  shape.channel_of.assign(routers * 4, kNoChannel);
  for (RouterId r = 0; r < routers; ++r) {
    const std::int64_t x = r % shape.width(), y = r / shape.width();
    for (int k = 0; k < 4; ++k) {
      RectPoint n = rect_reduce(shape, x + dx[k], y + dy[k]);
      shape.channel_of[r * 4 + k] = m.add_channel(r, rect_router(shape, n), classes[k]);
    }
  }
  m.shape = std::move(shape);
  return m;
}

std::vector<RectRecord> rect_minimal_records(const RectTorusShape& s, std::int64_t dx, std::int64_t dy) {
  // Candidates: the offset plus small lattice vectors; the lattice is spanned by (2a, 0) and
  // (0, a) for RT, (2a, 0) and (a, a) for RTT. Every minimal record lies within these.
  const std::int64_t a = s.a;
  const std::int64_t bx = s.twisted ? a : 0;
  std::vector<RectRecord> best;
  std::int64_t best_norm = -1;
  for (std::int64_t i = -2; i <= 2; ++i) {
    for (std::int64_t j = -2; j <= 2; ++j) {
      std::int64_t rx = dx + i * 2 * a + j * bx, ry = dy + j * a;
      std::int64_t norm = std::llabs(rx) + std::llabs(ry);
      if (best_norm < 0 || norm < best_norm) {
        best_norm = norm;
        best.clear();
      }
      if (norm == best_norm) {
        RectRecord rec{rx, ry};
        bool seen = false;
        for (const auto& b : best) seen = seen || (b.x == rx && b.y == ry);
        if (!seen) best.push_back(rec);
      }
    }
  }
  return best;
}

RectRecord rect_algorithm_record(const RectTorusShape& s, std::int64_t x, std::int64_t y) {
  auto rem = [](std::int64_t v, std::int64_t m) { return ((v % m) + m) % m; };
  const std::int64_t a = s.a;
  if (!s.twisted) {  // Algorithm 1
    return RectRecord{rem(x + a, 2 * a) - a, rem(y + a / 2, a) - a / 2};
  }
  // Algorithm 2
  std::int64_t p = rem(x + y + a, 2 * a);
  std::int64_t q = rem(y - x + a, 2 * a);
  return RectRecord{(p - q) / 2, (p + q - 2 * a) / 2};
}

}  // namespace taskmap
