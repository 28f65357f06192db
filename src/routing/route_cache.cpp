#include "taskmap/routing/route_cache.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"

namespace taskmap {

namespace {
constexpr std::size_t kMaxPooledShares = std::size_t(1) << 26;  // 512 MiB (float) or 1 GiB (double) of cached routes
constexpr std::size_t kChunk = std::size_t(1) << 20;

// Takes `count` elements from the back chunk of `chunks`, starting a new chunk when it is full.
template <typename T>
T* take(std::vector<std::unique_ptr<T[]>>& chunks, std::size_t& used, std::size_t& room, std::size_t count) {
  if (room - used < count) {
    room = std::max(kChunk, count);
    chunks.push_back(std::make_unique<T[]>(room));
    used = 0;
  }
  T* at = chunks.back().get() + used;
  used += count;
  return at;
}
}  // namespace

template <typename Load>
BasicRouteCache<Load>::BasicRouteCache(const Machine& machine, const Routing& routing)
    : machine_(machine), routing_(routing) {
  // Tasks sit only on routers with slots, so only those are indexed (on a fabric read from
  // files: the job's nodes, not the switches or the other nodes).
  index_.assign(machine.num_routers, UINT32_MAX);
  for (RouterId r = 0; r < machine.num_routers; ++r)
    if (machine.slots_of_router(r) > 0) index_[r] = routers_++;
  inv_bandwidth_.reserve(machine.channels.size());
  for (const Channel& c : machine.channels) inv_bandwidth_.push_back(1.0 / machine.classes[c.link_class].bandwidth);
  std::uint64_t keys = std::uint64_t(routers_) * routers_;
  std::string what = fmt::format("routes between {} routers", routers_);
  if (routers_ > kMaxPairRouters) {
    keys_ = Keys::None;
    keys = 0;
    if (const TorusShape* torus = machine.torus(); torus && routing.translation_invariant()) {
      std::uint64_t offsets = 1;
      for (std::size_t d = 0; d < torus->dims(); ++d) {
        radix_.push_back(torus->wrap[d] ? torus->sizes[d] : 2 * torus->sizes[d] - 1);
        offsets = saturating_mul(offsets, radix_.back());
      }
      // Beyond a table of an eighth of the memory limit, routes are computed on every call.
      constexpr std::uint64_t kBytesPerKey = sizeof(std::atomic<const Share*>) + sizeof(const std::int32_t*) + 4;
      if (saturating_mul(offsets, kBytesPerKey) <= memory_limit() / 8) {
        keys_ = Keys::Offsets;
        // With every size a power of two, a router id is its coordinates as bit fields.
        packed_ = std::all_of(torus->sizes.begin(), torus->sizes.end(), [](std::uint32_t k) { return std::has_single_bit(k); });
        for (std::size_t d = 0; packed_ && d < torus->dims(); ++d) high_bits_ |= torus->sizes[d] / 2 * torus->strides[d];
        keys = offsets;
        what = fmt::format("routes of {} offsets between routers", offsets);
      }
    }
  }
  // The key table is allocated up front; the routes are pooled up to a quarter of the memory
  // limit (then computed again on every call).
  check_memory(fmt::format("the route cache of '{}'", machine.description),
               saturating_mul(keys, sizeof(std::atomic<const Share*>) + sizeof(const std::int32_t*) + sizeof(std::uint32_t)),
               what);
  const std::size_t share_bytes = sizeof(Share) + (keys_ == Keys::Offsets ? sizeof(std::int32_t) * position_size() : 0);
  max_pooled_ = std::min<std::size_t>(kMaxPooledShares, memory_limit() / 4 / share_bytes);
  begin_ = std::make_unique<std::atomic<const Share*>[]>(keys);
  for (std::size_t i = 0; i < keys; ++i) begin_[i].store(nullptr, std::memory_order_relaxed);
  count_.assign(keys, 0);
  if (keys_ == Keys::Offsets) position_.assign(keys, nullptr);
}

template <typename Load>
std::size_t BasicRouteCache<Load>::key_of(RouterId u, RouterId v) const {
  if (keys_ == Keys::Pairs) return std::size_t(index_[u]) * routers_ + index_[v];
  if (keys_ == Keys::None) return 0;
  const TorusShape& t = *machine_.torus();
  std::size_t key = 0;
  for (std::size_t d = 0; d < t.dims(); ++d) {
    const std::int64_t k = t.sizes[d], offset = std::int64_t(t.coord(v, d)) - t.coord(u, d);
    key = key * radix_[d] + static_cast<std::size_t>(t.wrap[d] ? (offset + k) % k : offset + k - 1);
  }
  return key;
}

template <typename Load>
void BasicRouteCache<Load>::compute(RouterId u, RouterId v, std::vector<Share>& shares,
                                    std::vector<std::int32_t>& positions) const {
  thread_local std::vector<ChannelShare> routed;
  routed.clear();
  if (u != v) routing_.route(u, v, routed);
  shares.clear();
  positions.clear();
  if (keys_ != Keys::Offsets) {
    for (const ChannelShare& s : routed) shares.push_back({s.channel, static_cast<Load>(s.fraction * inv_bandwidth_[s.channel])});
    return;
  }
  const TorusShape& t = *machine_.torus();
  const std::size_t dims = t.dims(), moves = 2 * dims;
  for (const ChannelShare& s : routed) {
    const RouterId from = machine_.channels[s.channel].src;
    std::uint32_t move = 0;
    while (t.channel_of[from * moves + move] != s.channel) ++move;
    shares.push_back({move, static_cast<Load>(s.fraction * inv_bandwidth_[s.channel])});
    std::uint32_t packed = 0;  // the offset modulo the sizes, as bit fields
    for (std::size_t d = 0; d < dims; ++d) {
      const std::int64_t k = t.sizes[d], offset = std::int64_t(t.coord(from, d)) - t.coord(u, d);
      if (packed_) packed += static_cast<std::uint32_t>((offset + k) % k) * t.strides[d];
      else positions.push_back(static_cast<std::int32_t>(t.wrap[d] ? (offset + k) % k : offset));
    }
    if (packed_) positions.push_back(static_cast<std::int32_t>(packed));
  }
}

template <typename Load>
auto BasicRouteCache<Load>::moved(RouterId u, const Share* first, const std::int32_t* position,
                                  std::size_t count) const -> std::pair<const Share*, const Share*> {
  thread_local std::vector<Share> out;
  thread_local std::vector<std::int64_t> at;
  const TorusShape& t = *machine_.torus();
  const std::size_t dims = t.dims();
  out.resize(count);
  if (packed_) {
    // Field-wise addition modulo each size: the top bit of every field is added apart, so no
    // carry crosses into the next field (on a mesh the route stays inside, so none wraps).
    const std::uint32_t high = high_bits_, from = u;
    for (std::size_t i = 0; i < count; ++i) {
      const auto p = static_cast<std::uint32_t>(position[i]);
      const std::uint32_t router = ((from & ~high) + (p & ~high)) ^ ((from ^ p) & high);
      out[i] = {t.channel_of[std::size_t(router) * 2 * dims + first[i].channel], first[i].load};
    }
    return {out.data(), out.data() + count};
  }
  at.resize(dims);
  for (std::size_t d = 0; d < dims; ++d) at[d] = t.coord(u, d);
  for (std::size_t i = 0; i < count; ++i, position += dims) {
    std::uint64_t router = 0;
    for (std::size_t d = 0; d < dims; ++d) {
      std::int64_t c = at[d] + position[d];  // a mesh's route stays inside the mesh
      if (c >= std::int64_t(t.sizes[d])) c -= t.sizes[d];
      router += static_cast<std::uint64_t>(c) * t.strides[d];
    }
    out[i] = {t.channel_of[router * 2 * dims + first[i].channel], first[i].load};
  }
  return {out.data(), out.data() + count};
}

template <typename Load>
auto BasicRouteCache<Load>::route(RouterId u, RouterId v) -> std::pair<const Share*, const Share*> {
  static const Share kNoShares[1] = {};  // marks computed empty routes
  if (index_[u] == UINT32_MAX || index_[v] == UINT32_MAX) {
    fail("route cache: router {} or {} holds no slot", u, v);
  }
  thread_local std::vector<Share> computed;
  thread_local std::vector<std::int32_t> positions;
  if (keys_ == Keys::None) {
    compute(u, v, computed, positions);
    return {computed.data(), computed.data() + computed.size()};
  }
  const std::size_t key = key_of(u, v);
  auto kept = [&](const Share* first) -> std::pair<const Share*, const Share*> {
    if (keys_ == Keys::Offsets) return moved(u, first, position_[key], count_[key]);
    return {first, first + count_[key]};
  };
  if (const Share* first = begin_[key].load(std::memory_order_acquire)) return kept(first);
  compute(u, v, computed, positions);
  std::lock_guard lock(mutex_);
  if (const Share* first = begin_[key].load(std::memory_order_acquire)) return kept(first);
  if (pooled_ + computed.size() > max_pooled_) {
    if (keys_ == Keys::Offsets) return moved(u, computed.data(), positions.data(), computed.size());
    return {computed.data(), computed.data() + computed.size()};
  }
  const Share* first = kNoShares;
  if (!computed.empty()) {
    Share* at = take(chunks_, used_, room_, computed.size());
    std::copy(computed.begin(), computed.end(), at);
    pooled_ += computed.size();
    first = at;
    if (keys_ == Keys::Offsets) {
      std::int32_t* p = take(position_chunks_, position_used_, position_room_, positions.size());
      std::copy(positions.begin(), positions.end(), p);
      position_[key] = p;
    }
  }
  count_[key] = static_cast<std::uint32_t>(computed.size());
  begin_[key].store(first, std::memory_order_release);
  return kept(first);
}

template class BasicRouteCache<float>;
template class BasicRouteCache<double>;

}  // namespace taskmap
