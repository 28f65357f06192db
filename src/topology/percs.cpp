#include "common_checks.h"
#include "taskmap/topology/builders.h"

namespace taskmap {

Machine build_percs(std::uint32_t ns, std::uint32_t nd, std::uint32_t slots_per_node, BuildDetail detail) {
  constexpr std::uint32_t kNodes = PercsShape::kNodes;
  if (ns == 0) fail("percs: ns (number of supernodes) must be at least 1");
  if (nd == 0 || kNodes % nd != 0) fail("percs: nd={} does not divide 32 (use 1, 2, 4, 8, 16 or 32)", nd);
  if ((static_cast<std::uint64_t>(ns) * nd) % kNodes != 0) {
    fail("percs: h = ns*nd/32 = {}*{}/32 is not an integer", ns, nd);
  }
  const std::uint32_t h = ns * nd / kNodes;
  if (h > 16) fail("percs: h = ns*nd/32 = {} exceeds the 16 D ports of a node", h);
  detail::check_machine_size("percs", static_cast<std::uint64_t>(ns) * kNodes, 1, slots_per_node);

  Machine m;
  m.num_routers = ns * kNodes;
  m.nodes_per_router = 1;
  m.slots_per_node = slots_per_node;
  PercsShape s;
  s.ns = ns;
  s.nd = nd;
  s.bucket_size = kNodes / nd;
  s.h = h;
  m.link_bytes_per_s = 1e9;  // the bandwidths below are in GB/s [PERCS-map §2]
  const std::uint16_t ll = m.add_class("LL", 21.0);
  const std::uint16_t lr = m.add_class("LR", 5.0);
  const std::uint16_t d = m.add_class("D", 10.0);
  if (detail == BuildDetail::Outline) {
    m.shape = s;
    return m;
  }
  // L links: every ordered node pair of a supernode, self-loops included (LL), ids as in l_channel().
  for (std::uint32_t a = 0; a < ns; ++a) {
    for (std::uint32_t u = 0; u < kNodes; ++u) {
      for (std::uint32_t v = 0; v < kNodes; ++v) {
        bool same_drawer = u / PercsShape::kDrawerSize == v / PercsShape::kDrawerSize;
        m.add_channel(a * kNodes + u, a * kNodes + v, same_drawer ? ll : lr);
      }
    }
  }
  // D links: bucket j of every supernode a has one link to every supernode b (self-loop when
  // b == a), leaving node j*W + (b mod W) of a and landing on node j*W + (a mod W) of b.
  s.d_base = static_cast<ChannelId>(m.channels.size());
  for (std::uint32_t a = 0; a < ns; ++a) {
    for (std::uint32_t j = 0; j < nd; ++j) {
      for (std::uint32_t b = 0; b < ns; ++b) {
        m.add_channel(a * kNodes + s.port_node(j, b), b * kNodes + s.port_node(j, a), d);
      }
    }
  }
  m.shape = s;
  return m;
}

}  // namespace taskmap
