#pragma once
// Geometry of RT(a)/RTT(a) [RTT-map]: reducing points into the 2a x a rectangle and the
// routing records (minimal offsets) between two nodes.
#include <cstdint>
#include <vector>

#include "taskmap/topology/machine.h"

namespace taskmap {

struct RectPoint {
  std::uint32_t x = 0, y = 0;
};
struct RectRecord {
  std::int64_t x = 0, y = 0;
};

RectPoint rect_reduce(const RectTorusShape& s, std::int64_t x, std::int64_t y);
inline RouterId rect_router(const RectTorusShape& s, RectPoint p) { return p.x + s.width() * p.y; }
inline RectPoint rect_point(const RectTorusShape& s, RouterId r) { return {r % s.width(), r / s.width()}; }

// The record of Algorithm 1 (RT) or Algorithm 2 (RTT) for the offset (x, y) = v_d - v_s.
RectRecord rect_algorithm_record(const RectTorusShape& s, std::int64_t x, std::int64_t y);
// Every record of minimal |r_x| + |r_y| for that offset (more than one on ties).
std::vector<RectRecord> rect_minimal_records(const RectTorusShape& s, std::int64_t x, std::int64_t y);

}  // namespace taskmap
