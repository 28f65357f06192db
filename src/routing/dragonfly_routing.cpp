// Dragonfly routings (seed 004): minimal = local, global, local; Valiant = a minimal route to
// an intermediate group and a minimal route on to the destination, split evenly over every
// intermediate group (all groups but source and destination; for traffic inside one group,
// all groups but that one).
#include "routing_impl.h"

namespace taskmap::detail {
namespace {

class DragonflyRouting final : public Routing {
 public:
  DragonflyRouting(const Machine& m, bool valiant)
      : shape_(std::get<DragonflyShape>(m.shape)), valiant_(valiant) {}

  void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const override {
    const std::uint32_t gs = src / shape_.a, gd = dst / shape_.a;
    const std::uint32_t count = shape_.g - (gs == gd ? 1 : 2);
    if (!valiant_ || count == 0) {  // two groups: no intermediate group exists
      minimal(src, dst, 1.0, out);
      return;
    }
    const double w = 1.0 / count;
    for (std::uint32_t gi = 0; gi < shape_.g; ++gi) {
      if (gi == gs || gi == gd) continue;
      // Enter the intermediate group where the global cable from the source group lands.
      const RouterId landing = shape_.router(gi, shape_.owner[gi * shape_.g + gs]);
      minimal(src, landing, w, out);
      minimal(landing, dst, w, out);
    }
  }

 private:
  void minimal(RouterId src, RouterId dst, double w, std::vector<ChannelShare>& out) const {
    if (src == dst) return;
    const std::uint32_t a = shape_.a, g = shape_.g;
    const std::uint32_t gs = src / a, gd = dst / a;
    if (gs == gd) {
      out.push_back({shape_.local_of[src * a + dst % a], w});
      return;
    }
    const RouterId exit = shape_.router(gs, shape_.owner[gs * g + gd]);
    const RouterId entry = shape_.router(gd, shape_.owner[gd * g + gs]);
    if (src != exit) out.push_back({shape_.local_of[src * a + exit % a], w});
    out.push_back({shape_.global_of[gs * g + gd], w});
    if (entry != dst) out.push_back({shape_.local_of[entry * a + dst % a], w});
  }

  const DragonflyShape& shape_;
  bool valiant_;
};

}  // namespace

std::unique_ptr<Routing> make_dragonfly_routing(const Machine& m, const RoutingSpec& spec) {
  return std::make_unique<DragonflyRouting>(m, spec.kind == RoutingKind::Valiant);
}

}  // namespace taskmap::detail
