// RT(a)/RTT(a) routing [RTT-map]: the routing record of Algorithms 1/2, followed either in
// dimension order (x first) or spread over all orderings of its unit steps. When several
// records have the same minimal length the flow is split evenly among them.
#include "lattice_walk.h"
#include "routing_impl.h"
#include "taskmap/topology/rect_torus_geometry.h"

namespace taskmap::detail {
namespace {

class RectTorusRouting final : public Routing {
 public:
  RectTorusRouting(const Machine& m, bool minimal)
      : machine_(m), shape_(std::get<RectTorusShape>(m.shape)), minimal_(minimal) {}

  void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const override {
    RectPoint ps = rect_point(shape_, src), pd = rect_point(shape_, dst);
    auto records = rect_minimal_records(shape_, std::int64_t(pd.x) - ps.x, std::int64_t(pd.y) - ps.y);
    const MoveTable moves{shape_.channel_of, 4, machine_.channels};
    const double weight = 1.0 / static_cast<double>(records.size());
    for (const RectRecord& r : records) {
      const Leg legs[2] = {Leg{r.x >= 0 ? 0u : 1u, static_cast<std::uint32_t>(std::llabs(r.x))},
                           Leg{r.y >= 0 ? 2u : 3u, static_cast<std::uint32_t>(std::llabs(r.y))}};
      if (minimal_) spread_over_orderings(moves, src, legs, weight, out);
      else walk_in_order(moves, src, legs, weight, out);
    }
  }

 private:
  const Machine& machine_;
  const RectTorusShape& shape_;
  bool minimal_;
};

}  // namespace

std::unique_ptr<Routing> make_rect_torus_routing(const Machine& m, const RoutingSpec& spec) {
  if (spec.kind == RoutingKind::DimensionOrder && !spec.dimension_order.empty() && spec.dimension_order != "XY") {
    fail("--routing '{}': RT/RTT dimension order is fixed (x then y); use plain 'dor'", spec.text);
  }
  return std::make_unique<RectTorusRouting>(m, spec.kind == RoutingKind::Minimal);
}

}  // namespace taskmap::detail
