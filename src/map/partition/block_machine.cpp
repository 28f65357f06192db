#include "block_machine.h"

#include <algorithm>
#include <optional>

namespace taskmap::detail {

BlockMachine::BlockMachine(const Machine& machine, const HopDistance& hops, std::uint32_t tasks_per_slot)
    : hops_(hops), block_of_router_(machine.num_routers, UINT32_MAX) {
  for (RouterId r = 0; r < machine.num_routers; ++r) {
    if (machine.slots_of_router(r) == 0) continue;
    block_of_router_[r] = blocks();
    router_.push_back(r);
    capacity_.push_back(std::uint64_t(machine.slots_of_router(r)) * tasks_per_slot);
  }
  const std::uint32_t k = blocks();
  if (k <= kMaxTable) {
    table_.resize(std::size_t(k) * k);
    for (std::uint32_t a = 0; a < k; ++a)
      for (std::uint32_t b = 0; b < k; ++b)
        table_[std::size_t(a) * k + b] = static_cast<std::uint16_t>(std::min<std::uint32_t>(hops(router_[a], router_[b]), 65535));
  }
  // Nearest blocks: from the table's row, or by breadth-first search over the channels until
  // a depth holds routers with slots.
  std::optional<ChannelAdjacency> adjacency;
  if (table_.empty()) adjacency.emplace(machine, false);
  std::vector<std::uint32_t> depth(table_.empty() ? machine.num_routers : 0, UINT32_MAX);
  std::vector<RouterId> queue;
  nearby_start_.push_back(0);
  for (std::uint32_t a = 0; a < k; ++a) {
    const std::size_t first = nearby_.size();
    if (!table_.empty()) {
      std::uint32_t nearest = UINT32_MAX;
      for (std::uint32_t b = 0; b < k; ++b)
        if (b != a && distance(a, b) > 0) nearest = std::min(nearest, distance(a, b));
      for (std::uint32_t b = 0; b < k && nearby_.size() - first < kMostNearby; ++b)
        if (b != a && distance(a, b) == nearest) nearby_.push_back(b);
    } else {
      queue.assign(1, router_[a]);
      depth[router_[a]] = 0;
      std::uint32_t found_at = UINT32_MAX;
      for (std::size_t head = 0; head < queue.size(); ++head) {
        const RouterId u = queue[head];
        if (depth[u] >= found_at) break;
        for (auto c = adjacency->offsets[u]; c < adjacency->offsets[u + 1]; ++c) {
          const RouterId v = machine.channels[adjacency->channels[c]].dst;
          if (depth[v] != UINT32_MAX) continue;
          depth[v] = depth[u] + 1;
          queue.push_back(v);
          if (block_of_router_[v] != UINT32_MAX && nearby_.size() - first < kMostNearby) {
            nearby_.push_back(block_of_router_[v]);
            found_at = depth[v];
          }
        }
      }
      for (RouterId r : queue) depth[r] = UINT32_MAX;
      std::sort(nearby_.begin() + std::ptrdiff_t(first), nearby_.end());
    }
    nearby_start_.push_back(static_cast<std::uint32_t>(nearby_.size()));
  }
}

}  // namespace taskmap::detail
