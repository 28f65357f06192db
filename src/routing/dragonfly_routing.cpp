// Dragonfly routings [Dragonfly-BAC]: minimal = local, global, local; Valiant = a minimal route to
// an intermediate group and a minimal route on to the destination, split evenly over every
// intermediate group (all groups but source and destination; for traffic inside one group,
// all groups but that one). UGAL-like (flow level, after UGAL-L of Kim et al.): each router
// pair goes whole either minimally or through one intermediate group, whichever path has the
// lower (hops x highest channel load/bandwidth on it) under the loads placed so far; the
// intermediate group is the one with the lowest such cost (ties: the first group after the
// source's); ties between minimal and Valiant go minimal, so an idle network routes minimally.
#include <algorithm>

#include "routing_impl.h"

namespace taskmap::detail {
namespace {

class DragonflyRouting final : public Routing {
 public:
  DragonflyRouting(const Machine& m, RoutingKind kind)
      : machine_(m), shape_(std::get<DragonflyShape>(m.shape)), valiant_(kind == RoutingKind::Valiant),
        ugal_(kind == RoutingKind::Ugal) {}

  bool adaptive() const override { return ugal_; }

  void route_adaptive(RouterId src, RouterId dst, const std::vector<double>& loads,
                      std::vector<ChannelShare>& out) const override {
    if (!ugal_) {
      route(src, dst, out);
      return;
    }
    std::vector<ChannelShare> path;
    auto cost = [&](const std::vector<ChannelShare>& p) {
      double worst = 0;
      for (const ChannelShare& s : p) {
        worst = std::max(worst, loads[s.channel] / machine_.classes[machine_.channels[s.channel].link_class].bandwidth);
      }
      return worst * static_cast<double>(p.size());
    };
    minimal(src, dst, 1.0, path);
    const double minimal_cost = cost(path);
    const std::uint32_t gs = src / shape_.a, gd = dst / shape_.a;
    double best_cost = minimal_cost;
    std::uint32_t best_group = shape_.g;  // g = minimal
    for (std::uint32_t k = 1; k < shape_.g; ++k) {
      const std::uint32_t gi = (gs + k) % shape_.g;
      if (gi == gd) continue;
      path.clear();
      via(src, dst, gi, 1.0, path);
      const double c = cost(path);
      if (c < best_cost) {
        best_cost = c;
        best_group = gi;
      }
    }
    if (best_group == shape_.g) minimal(src, dst, 1.0, out);
    else via(src, dst, best_group, 1.0, out);
  }

  void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const override {
    const std::uint32_t gs = src / shape_.a, gd = dst / shape_.a;
    const std::uint32_t count = shape_.g - (gs == gd ? 1 : 2);
    if (!valiant_ || count == 0) {  // two groups: no intermediate group exists
      minimal(src, dst, 1.0, out);
      return;
    }
    const double w = 1.0 / count;
    for (std::uint32_t gi = 0; gi < shape_.g; ++gi) {
      if (gi != gs && gi != gd) via(src, dst, gi, w, out);
    }
  }

 private:
  // Through intermediate group gi, entering it where the global cable from the source group lands.
  void via(RouterId src, RouterId dst, std::uint32_t gi, double w, std::vector<ChannelShare>& out) const {
    const RouterId landing = shape_.router(gi, shape_.owner[gi * shape_.g + src / shape_.a]);
    minimal(src, landing, w, out);
    minimal(landing, dst, w, out);
  }

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

  const Machine& machine_;
  const DragonflyShape& shape_;
  bool valiant_, ugal_;
};

}  // namespace

std::unique_ptr<Routing> make_dragonfly_routing(const Machine& m, const RoutingSpec& spec) {
  return std::make_unique<DragonflyRouting>(m, spec.kind);
}

}  // namespace taskmap::detail
