#pragma once
// Routes between hosts hung on one link each, shared by the routings of fabrics read from files
// (ecmp, updn). Every route of such a host leaves by its one channel and every route to one
// arrives by its one channel, so the route between two of them is the route between their
// switches with a channel at each end; those are cached per switch pair (a fabric's hosts
// outnumber its switches many times). The shares are the full search's: one channel at each end
// multiplies no path count, and they come in its order, by the router each channel leaves.
// Where hosts hang on few enough switches, the cache is a table of their pairs read without a
// lock: searches that run at once route millions of flows through it and would otherwise
// queue on its lock (two MCL searches on a tree of 10,000 hosts kept each other waiting half
// the time).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/routing/routing.h"
#include "taskmap/topology/distance.h"

namespace taskmap::detail {

class HostLinkRoutes {
 public:
  HostLinkRoutes(const Machine& m, const ChannelAdjacency& forward, const ChannelAdjacency& backward)
      : m_(m), forward_(forward), backward_(backward) {
    // The switches that hosts hang on, numbered for the table of their pairs.
    index_.assign(m.num_routers, kNoIndex);
    std::uint32_t switches = 0;
    // A route's first hop is its source's single out-channel and its last its destination's
    // single in-channel (ends_of): the routers those lead to and come from, each numbered.
    for (RouterId r = 0; r < m.num_routers; ++r) {
      if (const ChannelId up = single_link(r, false); up != kNoChannel && index_[m.channels[up].dst] == kNoIndex) {
        index_[m.channels[up].dst] = switches++;
      }
      if (const ChannelId down = single_link(r, true); down != kNoChannel && index_[m.channels[down].src] == kNoIndex) {
        index_[m.channels[down].src] = switches++;
      }
    }
    // The table only where it is small beside the memory limit; else the map below.
    const std::uint64_t table_bytes = std::uint64_t{switches} * switches * sizeof(std::atomic<const void*>);
    if (switches > 0 && switches <= kMaxTableSwitches && table_bytes <= memory_limit() / 16) {
      switches_ = switches;
      table_ = std::make_unique<std::atomic<const std::vector<ChannelShare>*>[]>(std::size_t{switches} * switches);
      for (std::size_t i = 0; i < std::size_t{switches} * switches; ++i) table_[i].store(nullptr, std::memory_order_relaxed);
    }
  }

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
    keep(e, std::move(shares));
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
    if (table_) {
      if (const std::vector<ChannelShare>* middle = table_[key(e)].load(std::memory_order_acquire)) {
        append(out, middle, e, src);
        return true;
      }
      if (!spilled_.load(std::memory_order_acquire)) return false;
    }
    std::shared_lock read(cache_mutex_);
    const auto it = cache_.find(std::uint64_t{e.s} << 32 | e.t);
    if (it == cache_.end()) return false;
    append(out, &it->second, e, src);
    return true;
  }

 private:
  static constexpr ChannelId kNoChannel = UINT32_MAX;
  static constexpr std::size_t kMaxCachedShares = std::size_t{1} << 22;
  static constexpr std::uint32_t kNoIndex = UINT32_MAX;
  static constexpr std::uint32_t kMaxTableSwitches = 1024;  // a table of at most 8 MiB

  // The one channel out of (into, when `reverse`) router r when it has exactly one and it joins
  // another router; else kNoChannel.
  ChannelId single_link(RouterId r, bool reverse) const {
    const ChannelAdjacency& adj = reverse ? backward_ : forward_;
    if (adj.offsets[r + 1] - adj.offsets[r] != 1) return kNoChannel;
    const ChannelId c = adj.channels[adj.offsets[r]];
    return (reverse ? m_.channels[c].src : m_.channels[c].dst) == r ? kNoChannel : c;
  }

  struct HostEnds;
  std::size_t key(const HostEnds& e) const { return std::size_t{index_[e.s]} * switches_ + index_[e.t]; }

  // Keeps a searched route (under the routing's lock): in the table while it holds at most
  // kMaxCachedShares shares, for good (a reader may be copying one); beyond, and without the
  // table, in the map, which is emptied and filled again when full.
  void keep(const HostEnds& e, std::vector<ChannelShare> shares) const {
    if (table_ && table_shares_ + shares.size() <= kMaxCachedShares) {
      table_shares_ += shares.size();
      kept_.push_back(std::move(shares));
      table_[key(e)].store(&kept_.back(), std::memory_order_release);
      return;
    }
    std::unique_lock write(cache_mutex_);
    if (cached_shares_ > kMaxCachedShares) cache_.clear(), cached_shares_ = 0;
    cached_shares_ += shares.size();
    cache_.emplace(std::uint64_t{e.s} << 32 | e.t, std::move(shares));
    spilled_.store(true, std::memory_order_release);
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
  std::vector<std::uint32_t> index_;  // per router: its number among the hosts' switches, or kNoIndex
  std::uint32_t switches_ = 0;
  // The table: per pair of the hosts' switches, the route between them once searched (null
  // before); written under the routing's lock, read without any.
  std::unique_ptr<std::atomic<const std::vector<ChannelShare>*>[]> table_;
  mutable std::deque<std::vector<ChannelShare>> kept_;  // the table's routes, at fixed places
  mutable std::size_t table_shares_ = 0;
  mutable std::atomic<bool> spilled_{false};  // routes kept in the map as well, the table being full
  // Without the table (hosts on more switches), or beyond it: a map under a lock of its own.
  mutable std::shared_mutex cache_mutex_;  // readers need not hold the routing's lock; the writer does
  mutable std::unordered_map<std::uint64_t, std::vector<ChannelShare>> cache_;
  mutable std::size_t cached_shares_ = 0;
};

}  // namespace taskmap::detail
