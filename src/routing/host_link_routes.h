#pragma once
// Routes between hosts hung on one link each, shared by the routings of fabrics read from files
// (ecmp, updn). Every route of such a host leaves by its one channel and every route to one
// arrives by its one channel, so the route between two of them is the route between their
// switches with a channel at each end; those are cached per switch pair (a fabric's hosts
// outnumber its switches many times). The shares are the full search's: one channel at each end
// multiplies no path count, and they come in its order, by the router each channel leaves.
#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "taskmap/core/error.h"
#include "taskmap/routing/routing.h"
#include "taskmap/topology/distance.h"

namespace taskmap::detail {

class HostLinkRoutes {
 public:
  HostLinkRoutes(const Machine& m, const ChannelAdjacency& forward, const ChannelAdjacency& backward)
      : m_(m), forward_(forward), backward_(backward) {}

  // Appends the route src -> dst to `out` when both are hosts on one link each (and neither is
  // the other's switch) and `ends(up, down)` accepts their two channels as a route's first and
  // last hop; returns false, appending nothing, otherwise. `search(a, b, shares)` is
  // the routing's full search, which fails with its own message when b cannot be reached: a
  // pair whose switches cannot reach each other is searched in full, so that the message names
  // the hosts. Not thread-safe: the routing's lock covers it.
  template <class Search, class Ends>
  bool route(RouterId src, RouterId dst, std::vector<ChannelShare>& out, const Search& search, const Ends& ends) const {
    const ChannelId up = single_link(src, false), down = single_link(dst, true);
    if (src == dst || up == kNoChannel || down == kNoChannel) return false;
    const RouterId s = m_.channels[up].dst, t = m_.channels[down].src;
    if (s == dst || t == src || !ends(up, down)) return false;
    const std::vector<ChannelShare>* middle = nullptr;
    if (s != t) {
      const std::uint64_t key = std::uint64_t{s} << 32 | t;
      auto it = cache_.find(key);
      if (it == cache_.end()) {
        std::vector<ChannelShare> shares;
        try {
          search(s, t, shares);
        } catch (const Error&) {
          search(src, dst, out);  // fails naming src and dst
          return true;
        }
        if (cached_shares_ > kMaxCachedShares) cache_.clear(), cached_shares_ = 0;
        cached_shares_ += shares.size();
        it = cache_.emplace(key, std::move(shares)).first;
      }
      middle = &it->second;
    }
    // The middle is in the search's order already and none of its channels leaves src or t, so
    // the two end channels go in at their places by the router they leave.
    const auto by_src = [&](const ChannelShare& a, RouterId r) { return m_.channels[a.channel].src < r; };
    const auto first = static_cast<std::ptrdiff_t>(out.size());
    if (middle != nullptr) out.insert(out.end(), middle->begin(), middle->end());
    out.insert(std::lower_bound(out.begin() + first, out.end(), src, by_src), {up, 1.0});
    out.insert(std::lower_bound(out.begin() + first, out.end(), t, by_src), {down, 1.0});
    return true;
  }

 private:
  static constexpr ChannelId kNoChannel = UINT32_MAX;
  static constexpr std::size_t kMaxCachedShares = std::size_t{1} << 22;

  // The one channel out of (into, when `reverse`) router r when it has exactly one and it joins
  // another router; else kNoChannel.
  ChannelId single_link(RouterId r, bool reverse) const {
    const ChannelAdjacency& adj = reverse ? backward_ : forward_;
    if (adj.offsets[r + 1] - adj.offsets[r] != 1) return kNoChannel;
    const ChannelId c = adj.channels[adj.offsets[r]];
    return (reverse ? m_.channels[c].src : m_.channels[c].dst) == r ? kNoChannel : c;
  }

  const Machine& m_;
  const ChannelAdjacency& forward_;
  const ChannelAdjacency& backward_;
  mutable std::unordered_map<std::uint64_t, std::vector<ChannelShare>> cache_;
  mutable std::size_t cached_shares_ = 0;
};

}  // namespace taskmap::detail
