#include "common_checks.h"
#include "taskmap/topology/builders.h"

namespace taskmap {

Machine build_dragonfly(const DragonflyParams& params, BuildDetail detail) {
  const std::uint32_t p = params.p, a = params.a, h = params.h;
  if (p == 0 || a == 0 || h == 0) fail("dragonfly: p, a and h must be at least 1 (got p={}, a={}, h={})", p, a, h);
  const std::uint64_t g = static_cast<std::uint64_t>(a) * h + 1;
  const std::uint64_t routers = g * a;
  detail::check_machine_size("dragonfly", routers, p, params.slots_per_node);

  Machine m;
  m.num_routers = static_cast<std::uint32_t>(routers);
  m.nodes_per_router = p;
  m.slots_per_node = params.slots_per_node;
  DragonflyShape s;
  s.p = p;
  s.a = a;
  s.h = h;
  s.g = static_cast<std::uint32_t>(g);
  s.wiring = params.wiring;
  const std::uint16_t local = m.add_class("local", 1.0);
  const std::uint16_t global = m.add_class("global", 1.0);
  if (detail == BuildDetail::Outline) {
    m.shape = std::move(s);
    return m;
  }

  s.local_of.assign(routers * a, kNoChannel);
  for (std::uint32_t G = 0; G < s.g; ++G) {
    for (std::uint32_t i = 0; i < a; ++i) {
      for (std::uint32_t t = 0; t < a; ++t) {
        if (i != t) s.local_of[s.router(G, i) * a + t] = m.add_channel(s.router(G, i), s.router(G, t), local);
      }
    }
  }
  // Port l (0 <= l < a*h) of a group belongs to router l / h. Consecutive wiring sends port l
  // of group G to group G+1+l; palm-tree wiring to group G-1-l (both mod g). Either way every
  // pair of groups gets exactly one cable.
  s.owner.assign(g * g, 0);
  s.global_of.assign(g * g, kNoChannel);
  for (std::uint32_t G = 0; G < s.g; ++G) {
    for (std::uint32_t l = 0; l < a * h; ++l) {
      std::uint32_t H = (params.wiring == DragonflyWiring::Consecutive) ? (G + 1 + l) % s.g
                                                                        : (G + s.g - 1 - l % s.g) % s.g;
      s.owner[G * g + H] = l / h;
    }
  }
  for (std::uint32_t G = 0; G < s.g; ++G) {
    for (std::uint32_t H = 0; H < s.g; ++H) {
      if (G == H) continue;
      s.global_of[G * g + H] =
          m.add_channel(s.router(G, s.owner[G * g + H]), s.router(H, s.owner[H * g + G]), global);
    }
  }
  std::vector<std::uint32_t> group_of(routers);
  for (RouterId r = 0; r < routers; ++r) group_of[r] = r / a;
  std::vector<std::string> names(g);
  for (std::uint32_t G = 0; G < s.g; ++G) names[G] = std::to_string(G);
  s.groups = make_dragonfly_groups(m, std::move(group_of), std::move(names));
  m.shape = std::move(s);
  return m;
}

}  // namespace taskmap
