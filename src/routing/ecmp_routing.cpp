// Shortest paths with an even split (ECMP as a flow model): every shortest path from source
// to destination (counting parallel channels as distinct paths) carries an equal share. A
// channel u->v lies on a shortest path iff d(s,u) + 1 + d(v,t) = d(s,t); its share is
// paths(s,u) * paths(v,t) / paths(s,t). Breadth-first rows are cached per router.
#include <algorithm>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "routing_impl.h"
#include "taskmap/topology/distance.h"

namespace taskmap::detail {
namespace {

struct BfsRow {
  std::vector<std::uint32_t> dist;
  std::vector<double> paths;
};

class EcmpRouting final : public Routing {
 public:
  explicit EcmpRouting(const Machine& m) : m_(m), forward_(m, false), backward_(m, true) {}

  void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const override {
    std::lock_guard lock(mutex_);
    // Between hosts on one link each, every shortest path is the source's channel, a shortest
    // path between their switches, and the destination's channel: the switches' route, cached
    // per switch pair (a fabric's hosts outnumber its switches), with a channel at each end. The
    // shares are those of the full search (one channel multiplies no path count), in its order.
    const ChannelId up = single_link(src, false), down = single_link(dst, true);
    if (src != dst && up != kNoChannel && down != kNoChannel) {
      const RouterId s = m_.channels[up].dst, t = m_.channels[down].src;
      if (s != dst && t != src) {
        if (s != t && row(s, false).dist[t] == UINT32_MAX) fail("{}: router {} cannot reach router {}", m_.description, src, dst);
        const std::size_t first = out.size();
        out.push_back({up, 1.0});
        if (s != t) {
          const std::vector<ChannelShare>& middle = switch_route(s, t);
          out.insert(out.end(), middle.begin(), middle.end());
        }
        out.push_back({down, 1.0});
        std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                         [&](const ChannelShare& a, const ChannelShare& b) { return m_.channels[a.channel].src < m_.channels[b.channel].src; });
        return;
      }
    }
    search(src, dst, out);
  }

 private:
  static constexpr ChannelId kNoChannel = UINT32_MAX;
  static constexpr std::size_t kMaxCachedSwitchShares = std::size_t{1} << 22;

  // The one channel out of (into, when `reverse`) router r when it has one to another router;
  // else kNoChannel.
  ChannelId single_link(RouterId r, bool reverse) const {
    const ChannelAdjacency& adj = reverse ? backward_ : forward_;
    if (adj.offsets[r + 1] - adj.offsets[r] != 1) return kNoChannel;
    const ChannelId c = adj.channels[adj.offsets[r]];
    return (reverse ? m_.channels[c].src : m_.channels[c].dst) == r ? kNoChannel : c;
  }

  const std::vector<ChannelShare>& switch_route(RouterId s, RouterId t) const {
    const std::uint64_t key = std::uint64_t{s} << 32 | t;
    if (auto it = switch_routes_.find(key); it != switch_routes_.end()) return it->second;
    if (switch_shares_ > kMaxCachedSwitchShares) switch_routes_.clear(), switch_shares_ = 0;
    std::vector<ChannelShare> shares;
    search(s, t, shares);
    switch_shares_ += shares.size();
    return switch_routes_.emplace(key, std::move(shares)).first->second;
  }

  // The shares of every shortest path from src to dst, by a search along them.
  void search(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const {
    const BfsRow& from = row(src, false);
    const BfsRow& to = row(dst, true);
    const std::uint32_t total = from.dist[dst];
    if (total == UINT32_MAX) fail("{}: router {} cannot reach router {}", m_.description, src, dst);
    const double all = from.paths[dst];
    // The routers on shortest paths, found from src along them (not by a scan of the whole
    // machine), then taken in id order so that shares come out as a full scan gives them.
    ++stamp_;
    if (seen_.size() != m_.num_routers) seen_.assign(m_.num_routers, 0), stamp_ = 1;
    on_paths_.assign(1, src);
    seen_[src] = stamp_;
    for (std::size_t k = 0; k < on_paths_.size(); ++k) {
      const RouterId u = on_paths_[k];
      for (auto i = forward_.offsets[u]; i < forward_.offsets[u + 1]; ++i) {
        const RouterId v = m_.channels[forward_.channels[i]].dst;
        if (seen_[v] != stamp_ && v != dst && to.dist[v] != UINT32_MAX && from.dist[u] + 1 + to.dist[v] == total) {
          seen_[v] = stamp_;
          on_paths_.push_back(v);
        }
      }
    }
    std::sort(on_paths_.begin(), on_paths_.end());
    for (RouterId u : on_paths_) {
      if (from.dist[u] >= total) continue;
      for (auto i = forward_.offsets[u]; i < forward_.offsets[u + 1]; ++i) {
        const ChannelId c = forward_.channels[i];
        const RouterId v = m_.channels[c].dst;
        if (to.dist[v] != UINT32_MAX && from.dist[u] + 1 + to.dist[v] == total) {
          out.push_back({c, from.paths[u] * to.paths[v] / all});
        }
      }
    }
  }

  const BfsRow& row(RouterId r, bool reverse) const {
    auto& cache = reverse ? to_cache_ : from_cache_;
    auto it = cache.find(r);
    if (it != cache.end()) return it->second;
    // Bound memory on big graphs: rows are cheap to recompute.
    if (cache.size() * m_.num_routers > (1u << 26)) cache.clear();
    const ChannelAdjacency& adj = reverse ? backward_ : forward_;
    BfsRow row;
    row.dist.assign(m_.num_routers, UINT32_MAX);
    row.paths.assign(m_.num_routers, 0.0);
    row.dist[r] = 0;
    row.paths[r] = 1.0;
    std::deque<RouterId> queue{r};
    while (!queue.empty()) {
      const RouterId x = queue.front();
      queue.pop_front();
      for (auto i = adj.offsets[x]; i < adj.offsets[x + 1]; ++i) {
        const Channel& ch = m_.channels[adj.channels[i]];
        const RouterId y = reverse ? ch.src : ch.dst;
        if (y == x) continue;
        if (row.dist[y] == UINT32_MAX) {
          row.dist[y] = row.dist[x] + 1;
          queue.push_back(y);
        }
        if (row.dist[y] == row.dist[x] + 1) row.paths[y] += row.paths[x];
      }
    }
    return cache.emplace(r, std::move(row)).first->second;
  }

  const Machine& m_;
  ChannelAdjacency forward_, backward_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<RouterId, BfsRow> from_cache_, to_cache_;
  mutable std::unordered_map<std::uint64_t, std::vector<ChannelShare>> switch_routes_;
  mutable std::size_t switch_shares_ = 0;
  mutable std::vector<std::uint32_t> seen_;  // stamp of the route that reached a router
  mutable std::uint32_t stamp_ = 0;
  mutable std::vector<RouterId> on_paths_;
};

}  // namespace

std::unique_ptr<Routing> make_ecmp_routing(const Machine& m) { return std::make_unique<EcmpRouting>(m); }

}  // namespace taskmap::detail
