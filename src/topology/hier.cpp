// hier: KaHIP's process-mapping hierarchy as a tree of switches (HierShape).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common_checks.h"
#include "taskmap/topology/builders.h"

namespace taskmap {

Machine build_hier(const HierParams& params, BuildDetail detail) {
  const std::size_t levels = params.sizes.size();
  if (levels == 0) fail("hier: at least one level is needed");
  if (params.dist.size() != levels) {
    fail("hier: {} levels ({}) but {} distances (dist={}); give one distance per level", levels,
         fmt::join(params.sizes, ":"), params.dist.size(), fmt::join(params.dist, ":"));
  }
  for (std::size_t l = 0; l < levels; ++l) {
    if (params.sizes[l] == 0) fail("hier: level {} has size 0", l + 1);
    if (params.dist[l] == 0) fail("hier: the distance of level {} is 0; two distinct slots are at least 1 apart", l + 1);
    if (l > 0 && params.dist[l] < params.dist[l - 1]) {
      fail("hier: distances must not decrease going up, but level {} has {} and level {} has {}", l + 1,
           params.dist[l], l, params.dist[l - 1]);
    }
  }
  HierShape s;
  s.sizes = params.sizes;
  s.dist = params.dist;
  s.span.assign(levels + 1, 1);
  for (std::size_t l = 0; l < levels; ++l) {
    s.span[l + 1] = s.span[l] * params.sizes[l];
    if (s.span[l + 1] > detail::kMaxRouters) {
      fail("hier: {} slots is more than taskmap supports ({} routers)", fmt::join(params.sizes, " x "), detail::kMaxRouters);
    }
  }
  const std::uint64_t leaves = s.span[levels];
  s.first.assign(levels + 2, 0);
  for (std::size_t l = 0; l <= levels; ++l) {
    s.first[l + 1] = static_cast<RouterId>(s.first[l] + leaves / s.span[l]);
  }
  detail::check_machine_size("hier", s.first[levels + 1], 1, params.slots_per_node);

  Machine m;
  m.num_routers = s.first[levels + 1];
  m.host_routers = static_cast<std::uint32_t>(leaves);
  m.nodes_per_router = 1;
  m.slots_per_node = params.slots_per_node;
  // One class per level of links, named by the upper end: l1 joins the slots to their level-1 group.
  std::vector<std::uint16_t> level_class;
  for (std::size_t l = 1; l <= levels; ++l) level_class.push_back(m.add_class(fmt::format("l{}", l), 1.0));
  if (detail == BuildDetail::Outline) {
    m.shape = std::move(s);
    return m;
  }
  const RouterId root = s.first[levels];
  s.up_of.assign(root, kNoChannel);
  s.down_of.assign(root, kNoChannel);
  for (std::size_t l = 0; l < levels; ++l) {
    for (RouterId r = s.first[l]; r < s.first[l + 1]; ++r) {
      const RouterId parent = s.first[l + 1] + (r - s.first[l]) / params.sizes[l];
      s.up_of[r] = m.add_channel(r, parent, level_class[l]);
      s.down_of[r] = m.add_channel(parent, r, level_class[l]);
    }
  }
  m.shape = std::move(s);
  return m;
}

}  // namespace taskmap
