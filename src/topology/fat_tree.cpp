#include "common_checks.h"
#include <fmt/format.h>

#include "taskmap/topology/builders.h"

namespace taskmap {

Machine build_fat_tree(std::uint32_t k, std::uint32_t n, std::uint32_t slots_per_node, BuildDetail detail) {
  if (k < 2) fail("fattree: k must be at least 2 (got {})", k);
  if (n < 1) fail("fattree: n must be at least 1 (got {})", n);
  std::uint64_t hosts = 1;
  for (std::uint32_t i = 0; i < n; ++i) {
    hosts *= k;
    if (hosts > detail::kMaxRouters) fail("fattree: {}^{} compute nodes is more than taskmap supports", k, n);
  }
  const std::uint64_t per_level = hosts / k;
  detail::check_machine_size("fattree", hosts + n * per_level, 1, slots_per_node);

  Machine m;
  m.num_routers = static_cast<std::uint32_t>(hosts + n * per_level);
  m.host_routers = static_cast<std::uint32_t>(hosts);
  m.nodes_per_router = 1;
  m.slots_per_node = slots_per_node;
  FatTreeShape s;
  s.k = k;
  s.n = n;
  s.hosts = static_cast<std::uint32_t>(hosts);
  s.per_level = static_cast<std::uint32_t>(per_level);
  // One class per level of links, named by the upper end: l1 joins nodes to leaf switches.
  std::vector<std::uint16_t> level_class;
  for (std::uint32_t l = 1; l <= n; ++l) level_class.push_back(m.add_class(fmt::format("l{}", l), 1.0));
  if (detail == BuildDetail::Outline) {
    m.shape = std::move(s);
    return m;
  }
  s.up_of.assign(std::size_t(m.num_routers) * k, kNoChannel);
  s.down_of.assign(std::size_t(m.num_routers) * k, kNoChannel);
  auto link = [&](RouterId child, std::uint32_t up_digit, RouterId parent, std::uint32_t down_digit,
                  std::uint32_t level) {
    s.up_of[std::size_t(child) * k + up_digit] = m.add_channel(child, parent, level_class[level - 1]);
    s.down_of[std::size_t(parent) * k + down_digit] = m.add_channel(parent, child, level_class[level - 1]);
  };
  // Compute node i: its leaf switch has the same digits 1.. (position i / k); i's digit 0
  // tells the leaf which child it is.
  for (std::uint32_t i = 0; i < hosts; ++i) link(i, 0, s.switch_id(1, i / k), i % k, 1);
  // A switch of level l (position p) has k parents at level l + 1: its digit l replaced by
  // 0..k-1, i.e. position p with digit l (weight k^(l-1)) replaced.
  std::uint64_t weight = 1;
  for (std::uint32_t l = 1; l < n; ++l, weight *= k) {
    for (std::uint32_t p = 0; p < per_level; ++p) {
      const std::uint32_t own = static_cast<std::uint32_t>(p / weight % k);
      for (std::uint32_t x = 0; x < k; ++x) {
        const std::uint32_t parent = static_cast<std::uint32_t>(p - own * weight + x * weight);
        link(s.switch_id(l, p), x, s.switch_id(l + 1, parent), own, l + 1);
      }
    }
  }
  m.shape = std::move(s);
  return m;
}

}  // namespace taskmap
