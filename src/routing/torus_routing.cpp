// Torus/mesh routings: dimension order (any order) and minimal (even split over all minimal
// paths). In a wrap dimension whose offset is exactly k/2 both directions are minimal and the
// flow is split evenly between them, in both models (for k = 2 these are the two parallel
// channels). dor's ties=simgrid takes one of them instead, as SimGrid's TORUS cluster does.
#include "routing_impl.h"

#include "lattice_walk.h"

namespace taskmap::detail {
namespace {

struct DimChoice {
  std::uint32_t dim = 0;
  std::uint32_t steps = 0;
  bool tie = false;     // both directions minimal
  int dir = 0;          // 0 = "+", 1 = "-" (first choice when tie)
};

class TorusRouting final : public Routing {
 public:
  TorusRouting(const Machine& m, bool minimal, std::vector<std::uint32_t> order, TieRule ties)
      : machine_(m), shape_(*m.torus()), minimal_(minimal), order_(std::move(order)), ties_(ties) {}

  void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const override {
    std::vector<DimChoice> choices;
    std::size_t ties = 0;
    for (std::uint32_t d : order_) {
      const std::uint32_t k = shape_.sizes[d];
      const std::int64_t cs = shape_.coord(src, d), cd = shape_.coord(dst, d);
      if (cs == cd) continue;
      DimChoice c{d, 0, false, 0};
      if (!shape_.wrap[d]) {
        c.steps = static_cast<std::uint32_t>(std::llabs(cd - cs));
        c.dir = cd > cs ? 0 : 1;
      } else {
        const std::uint32_t fwd = static_cast<std::uint32_t>((cd - cs + k) % k);
        if (2 * fwd < k) {
          c.steps = fwd;
        } else if (2 * fwd > k) {
          c.steps = k - fwd;
          c.dir = 1;
        } else if (ties_ == TieRule::SimGrid) {
          c.steps = fwd;
          c.dir = (2 * cs == k && cd == 0) ? 1 : 0;
        } else {
          c.steps = fwd;
          c.tie = true;
          ++ties;
        }
      }
      choices.push_back(c);
    }
    const MoveTable moves{shape_.channel_of, static_cast<std::uint32_t>(shape_.dims() * 2), machine_.channels};
    const double weight = 1.0 / static_cast<double>(1u << ties);
    std::vector<Leg> legs(choices.size());
    // Enumerate the 2^ties direction combinations, each with an equal share.
    for (std::uint32_t combo = 0; combo < (1u << ties); ++combo) {
      std::size_t tie_index = 0;
      for (std::size_t i = 0; i < choices.size(); ++i) {
        int dir = choices[i].dir;
        if (choices[i].tie) dir = (combo >> tie_index++) & 1;
        legs[i] = Leg{choices[i].dim * 2 + static_cast<std::uint32_t>(dir), choices[i].steps};
      }
      if (minimal_) spread_over_orderings(moves, src, legs, weight, out);
      else walk_in_order(moves, src, legs, weight, out);
    }
  }

 private:
  const Machine& machine_;
  const TorusShape& shape_;
  bool minimal_;
  std::vector<std::uint32_t> order_;
  TieRule ties_;
};

}  // namespace

std::unique_ptr<Routing> make_torus_routing(const Machine& m, const RoutingSpec& spec) {
  const TorusShape& s = *m.torus();
  std::vector<std::uint32_t> order;
  if (spec.kind == RoutingKind::DimensionOrder && !spec.dimension_order.empty()) {
    if (spec.dimension_order.size() != s.dims()) {
      fail("--routing '{}': the order must name each of the {} dimensions {} once", spec.text, s.dims(), s.letters);
    }
    for (char c : spec.dimension_order) {
      std::size_t d = s.letters.find(c);
      if (d == std::string::npos) {
        fail("--routing '{}': '{}' is not a dimension letter of this machine ({})", spec.text, c, s.letters);
      }
      order.push_back(static_cast<std::uint32_t>(d));
    }
  } else {
    for (std::uint32_t d = 0; d < s.dims(); ++d) order.push_back(d);
  }
  if (spec.ties == TieRule::SimGrid && spec.kind != RoutingKind::DimensionOrder) {
    fail("--routing '{}': ties= applies to dor only", spec.text);
  }
  return std::make_unique<TorusRouting>(m, spec.kind == RoutingKind::Minimal, std::move(order), spec.ties);
}

}  // namespace taskmap::detail
