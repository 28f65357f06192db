#include "taskmap/routing/route_cache.h"

#include <algorithm>

#include <fmt/format.h>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"

namespace taskmap {

namespace {
constexpr std::size_t kMaxPooledShares = std::size_t(1) << 26;  // 512 MiB (float) or 1 GiB (double) of cached routes
constexpr std::size_t kChunk = std::size_t(1) << 20;
}  // namespace

template <typename Load>
BasicRouteCache<Load>::BasicRouteCache(const Machine& machine, const Routing& routing)
    : routing_(routing) {
  // Tasks sit only on routers with slots, so only those are indexed (on a fabric read from
  // files: the job's nodes, not the switches or the other nodes).
  index_.assign(machine.num_routers, UINT32_MAX);
  routers_ = 0;
  for (RouterId r = 0; r < machine.num_routers; ++r)
    if (machine.slots_of_router(r) > 0) index_[r] = routers_++;
  if (routers_ > 4096) {
    fail("route cache: at most 4096 routers holding slots are supported, machine '{}' has {}", machine.description,
         routers_);
  }
  inv_bandwidth_.reserve(machine.channels.size());
  for (const Channel& c : machine.channels) inv_bandwidth_.push_back(1.0 / machine.classes[c.link_class].bandwidth);
  const std::size_t pairs = std::size_t(routers_) * routers_;
  // The pair table is allocated up front; the routes are pooled up to a quarter of the memory
  // limit (then computed again on every call).
  check_memory(fmt::format("the route cache of '{}'", machine.description),
               saturating_mul(pairs, sizeof(std::atomic<const Share*>) + sizeof(std::uint32_t)),
               fmt::format("routes between {} routers", routers_));
  max_pooled_ = std::min<std::size_t>(kMaxPooledShares, memory_limit() / 4 / sizeof(Share));
  begin_ = std::make_unique<std::atomic<const Share*>[]>(pairs);
  for (std::size_t i = 0; i < pairs; ++i) begin_[i].store(nullptr, std::memory_order_relaxed);
  count_.assign(pairs, 0);
}

template <typename Load>
auto BasicRouteCache<Load>::route(RouterId u, RouterId v) -> std::pair<const Share*, const Share*> {
  static const Share kNoShares[1] = {};  // marks computed empty routes
  if (index_[u] == UINT32_MAX || index_[v] == UINT32_MAX) {
    fail("route cache: router {} or {} holds no slot", u, v);
  }
  const std::size_t pair = std::size_t(index_[u]) * routers_ + index_[v];
  if (const Share* first = begin_[pair].load(std::memory_order_acquire)) return {first, first + count_[pair]};
  thread_local std::vector<ChannelShare> shares;
  thread_local std::vector<Share> computed;
  shares.clear();
  if (u != v) routing_.route(u, v, shares);
  computed.clear();
  for (const ChannelShare& s : shares) computed.push_back({s.channel, static_cast<Load>(s.fraction * inv_bandwidth_[s.channel])});
  std::lock_guard lock(mutex_);
  if (const Share* first = begin_[pair].load(std::memory_order_acquire)) return {first, first + count_[pair]};
  if (pooled_ + computed.size() > max_pooled_) return {computed.data(), computed.data() + computed.size()};
  const Share* first = kNoShares;
  if (!computed.empty()) {
    if (room_ - used_ < computed.size()) {
      room_ = std::max(kChunk, computed.size());
      chunks_.push_back(std::make_unique<Share[]>(room_));
      used_ = 0;
    }
    Share* at = chunks_.back().get() + used_;
    std::copy(computed.begin(), computed.end(), at);
    used_ += computed.size();
    pooled_ += computed.size();
    first = at;
  }
  count_[pair] = static_cast<std::uint32_t>(computed.size());
  begin_[pair].store(first, std::memory_order_release);
  return {first, first + computed.size()};
}

template class BasicRouteCache<float>;
template class BasicRouteCache<double>;

}  // namespace taskmap
