// PERCS routing [PERCS-map §4.1, §5.1]. Inside a supernode traffic is striped over the 8
// bounce nodes of the source's drawer (L-L paths, 1/8 each, self-loops used when the bounce
// node is source or destination). Between supernodes: direct = the n_d L-D-L paths over the
// bundle between the two supernodes; indirect = one L-D-L-D-L path per D link leaving the
// source supernode (n_s*n_d of them, self-loops and links to the destination included), whose
// second D hop leaves from the bucket the first one lands in. First and last L hops use the
// node's self-loop when the port node is the node itself; the middle L hop is skipped when
// the landing node is the leaving node.
#include "routing_impl.h"

namespace taskmap::detail {
namespace {

class PercsRouting final : public Routing {
 public:
  PercsRouting(const Machine& m, bool indirect) : s_(std::get<PercsShape>(m.shape)), indirect_(indirect) {}

  void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const override {
    constexpr std::uint32_t kNodes = PercsShape::kNodes, kDrawer = PercsShape::kDrawerSize;
    const std::uint32_t a = src / kNodes, u = src % kNodes, b = dst / kNodes, v = dst % kNodes;
    if (a == b) {
      const std::uint32_t first = (u / kDrawer) * kDrawer;
      for (std::uint32_t x = first; x < first + kDrawer; ++x) {
        out.push_back({s_.l_channel(a, u, x), 1.0 / kDrawer});
        out.push_back({s_.l_channel(a, x, v), 1.0 / kDrawer});
      }
      return;
    }
    if (!indirect_) {
      const double w = 1.0 / s_.nd;
      for (std::uint32_t j = 0; j < s_.nd; ++j) {
        out.push_back({s_.l_channel(a, u, s_.port_node(j, b)), w});
        out.push_back({s_.d_channel(a, j, b), w});
        out.push_back({s_.l_channel(b, s_.port_node(j, a), v), w});
      }
      return;
    }
    const double w = 1.0 / (static_cast<double>(s_.ns) * s_.nd);
    for (std::uint32_t j = 0; j < s_.nd; ++j) {
      const std::uint32_t landing = s_.port_node(j, a), leaving = s_.port_node(j, b);
      for (std::uint32_t c = 0; c < s_.ns; ++c) {
        out.push_back({s_.l_channel(a, u, s_.port_node(j, c)), w});
        out.push_back({s_.d_channel(a, j, c), w});
        if (landing != leaving) out.push_back({s_.l_channel(c, landing, leaving), w});
        out.push_back({s_.d_channel(c, j, b), w});
        out.push_back({s_.l_channel(b, s_.port_node(j, c), v), w});
      }
    }
  }

 private:
  const PercsShape& s_;
  bool indirect_;
};

}  // namespace

std::unique_ptr<Routing> make_percs_routing(const Machine& m, const RoutingSpec& spec) {
  return std::make_unique<PercsRouting>(m, spec.kind == RoutingKind::Indirect);
}

}  // namespace taskmap::detail
