#include "distance_split.h"

#include <algorithm>
#include <numeric>

#include "taskmap/topology/distance.h"

namespace taskmap::detail {

DistanceSplit::DistanceSplit(const Machine& machine) : machine_(machine) {
  std::vector<RouterId> rows;
  for (RouterId r = 0; r < machine.num_routers; ++r)
    if (machine.slots_of_router(r) > 0) rows.push_back(r);
  if (rows.size() > kMaxRouters) return;
  n_ = rows.size();
  index_.assign(machine.num_routers, UINT32_MAX);
  for (std::size_t i = 0; i < n_; ++i) index_[rows[i]] = static_cast<std::uint32_t>(i);
  dist_.assign(n_ * n_, 255);
  const ChannelAdjacency adjacency(machine, false);
  std::vector<std::uint32_t> hops(machine.num_routers);
  std::vector<RouterId> queue(machine.num_routers);
  for (std::size_t i = 0; i < n_; ++i) {
    std::fill(hops.begin(), hops.end(), UINT32_MAX);
    hops[rows[i]] = 0;
    std::size_t head = 0, tail = 0;
    queue[tail++] = rows[i];
    while (head < tail) {
      const RouterId u = queue[head++];
      for (auto c = adjacency.offsets[u]; c < adjacency.offsets[u + 1]; ++c) {
        const RouterId v = machine.channels[adjacency.channels[c]].dst;
        if (hops[v] == UINT32_MAX) hops[v] = hops[u] + 1, queue[tail++] = v;
      }
    }
    for (std::size_t j = 0; j < n_; ++j) dist_[i * n_ + j] = static_cast<std::uint8_t>(std::min(hops[rows[j]], 255u));
  }
}

std::pair<std::vector<RouterId>, std::vector<RouterId>> DistanceSplit::split(const std::vector<RouterId>& routers) const {
  const std::size_t k = routers.size();
  if (!usable() || k < 2) return {};
  auto dist = [&](std::size_t a, std::size_t b) { return dist_[index_[routers[a]] * n_ + index_[routers[b]]]; };
  std::uint8_t widest = 0;
  for (std::size_t a = 0; a < k; ++a)
    for (std::size_t b = a + 1; b < k; ++b) widest = std::max(widest, dist(a, b));
  // Groups: routers joined by chains of distances below the widest.
  std::vector<std::size_t> group(k);
  std::iota(group.begin(), group.end(), std::size_t{0});
  auto find = [&group](std::size_t x) {
    while (group[x] != x) x = group[x] = group[group[x]];
    return x;
  };
  for (std::size_t a = 0; a < k; ++a)
    for (std::size_t b = a + 1; b < k; ++b)
      if (dist(a, b) < widest) group[find(a)] = find(b);
  std::vector<std::vector<RouterId>> groups;
  std::vector<std::size_t> slot(k, SIZE_MAX);
  for (std::size_t a = 0; a < k; ++a) {
    const std::size_t root = find(a);
    if (slot[root] == SIZE_MAX) slot[root] = groups.size(), groups.emplace_back();
    groups[slot[root]].push_back(routers[a]);
  }
  if (groups.size() < 2) return {};
  auto slots_of = [&](const std::vector<RouterId>& rs) {
    std::uint64_t sum = 0;
    for (RouterId r : rs) sum += machine_.slots_of_router(r);
    return sum;
  };
  // Largest groups first, each to the side with fewer slots so far.
  std::stable_sort(groups.begin(), groups.end(),
                   [&](const auto& x, const auto& y) { return slots_of(x) > slots_of(y); });
  std::vector<RouterId> first, second;
  std::uint64_t first_slots = 0, second_slots = 0;
  for (const auto& g : groups) {
    auto& side = first_slots <= second_slots ? first : second;
    (first_slots <= second_slots ? first_slots : second_slots) += slots_of(g);
    side.insert(side.end(), g.begin(), g.end());
  }
  std::sort(first.begin(), first.end());
  std::sort(second.begin(), second.end());
  return {std::move(first), std::move(second)};
}

}  // namespace taskmap::detail
