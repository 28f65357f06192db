#pragma once
// Routes between hosts hung on one link each, shared by the routings of fabrics read from files
// (ecmp, updn). Every route of such a host leaves by its one channel and every route to one
// arrives by its one channel, so the route between two of them is the route between their
// switches with a channel at each end; those are cached per switch pair (a fabric's hosts
// outnumber its switches many times). The shares are the full search's: one channel at each end
// multiplies no path count, and they come in its order, by the router each channel leaves.
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
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
  // the hosts. The search is not thread-safe: the routing's lock covers this call.
  template <class Search, class Ends>
  bool route(RouterId src, RouterId dst, std::vector<ChannelShare>& out, const Search& search, const Ends& ends) const {
    if (cached_route(src, dst, out, ends)) return true;
    const HostEnds e = ends_of(src, dst, ends);
    if (!e.valid) return false;
    std::vector<ChannelShare> shares;
    try {
      search(e.s, e.t, shares);
    } catch (const Error&) {
      search(src, dst, out);  // fails naming src and dst
      return true;
    }
    append(out, &shares, e, src);
    std::unique_lock write(cache_mutex_);
    if (cached_shares_ > kMaxCachedShares) cache_.clear(), cached_shares_ = 0;
    cached_shares_ += shares.size();
    cache_.emplace(std::uint64_t{e.s} << 32 | e.t, std::move(shares));
    return true;
  }

  // The same route when its switch pair's route is cached already (or the two hosts share a
  // switch); else false, appending nothing. Thread-safe without the routing's lock: a search
  // that runs at once with others takes that lock only for the pairs not cached yet.
  template <class Ends>
  bool cached_route(RouterId src, RouterId dst, std::vector<ChannelShare>& out, const Ends& ends) const {
    const HostEnds e = ends_of(src, dst, ends);
    if (!e.valid) return false;
    if (e.s == e.t) return append(out, nullptr, e, src), true;
    std::shared_lock read(cache_mutex_);
    const auto it = cache_.find(std::uint64_t{e.s} << 32 | e.t);
    if (it == cache_.end()) return false;
    append(out, &it->second, e, src);
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

  // A host pair's end channels (up out of src, down into dst) and their switches s and t.
  struct HostEnds {
    bool valid = false;
    ChannelId up = kNoChannel, down = kNoChannel;
    RouterId s = 0, t = 0;
  };
  template <class Ends>
  HostEnds ends_of(RouterId src, RouterId dst, const Ends& ends) const {
    HostEnds e;
    e.up = single_link(src, false), e.down = single_link(dst, true);
    if (src == dst || e.up == kNoChannel || e.down == kNoChannel) return e;
    e.s = m_.channels[e.up].dst, e.t = m_.channels[e.down].src;
    e.valid = e.s != dst && e.t != src && ends(e.up, e.down);
    return e;
  }
  // The middle is in the search's order already and none of its channels leaves src or t, so
  // the two end channels go in at their places by the router they leave.
  void append(std::vector<ChannelShare>& out, const std::vector<ChannelShare>* middle, const HostEnds& e,
              RouterId src) const {
    const auto by_src = [&](const ChannelShare& a, RouterId r) { return m_.channels[a.channel].src < r; };
    const auto first = static_cast<std::ptrdiff_t>(out.size());
    if (middle != nullptr) out.insert(out.end(), middle->begin(), middle->end());
    out.insert(std::lower_bound(out.begin() + first, out.end(), src, by_src), {e.up, 1.0});
    out.insert(std::lower_bound(out.begin() + first, out.end(), e.t, by_src), {e.down, 1.0});
  }

  const Machine& m_;
  const ChannelAdjacency& forward_;
  const ChannelAdjacency& backward_;
  mutable std::shared_mutex cache_mutex_;  // readers need not hold the routing's lock; the writer does
  mutable std::unordered_map<std::uint64_t, std::vector<ChannelShare>> cache_;
  mutable std::size_t cached_shares_ = 0;
};

}  // namespace taskmap::detail
