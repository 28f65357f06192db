// Torus/mesh routings: dimension order (any order) and minimal (even split over all minimal
// paths). In a wrap dimension whose offset is exactly k/2 both directions are minimal and the
// flow is split evenly between them, in both models (for k = 2 these are the two parallel
// channels). dor's ties=simgrid takes one of them instead, as SimGrid's TORUS cluster does.
#include "routing_impl.h"

#include "taskmap/routing/torus_flows.h"

namespace taskmap::detail {
namespace {

class TorusRouting final : public Routing {
 public:
  TorusRouting(const Machine& m, bool minimal, std::vector<std::uint32_t> order, TieRule ties)
      : flows_(m, minimal, std::move(order), ties) {}

  void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const override { flows_.route(src, dst, out); }
  std::uint64_t add_flows_to(RouterId dst, std::span<const SourceFlow> flows, std::span<double> loads) const override {
    return flows_.add_flows_to(dst, flows, loads);
  }
  // SimGrid's tie rule looks at the coordinates themselves.
  bool translation_invariant() const override { return flows_.ties() == TieRule::Split; }

 private:
  TorusFlows flows_;
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
