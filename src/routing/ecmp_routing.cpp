// Shortest paths with an even split (ECMP as a flow model): every shortest path from source
// to destination (counting parallel channels as distinct paths) carries an equal share. A
// channel u->v lies on a shortest path iff d(s,u) + 1 + d(v,t) = d(s,t); its share is
// paths(s,u) * paths(v,t) / paths(s,t). Breadth-first rows are cached per router.
#include <algorithm>
#include <cmath>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "host_link_routes.h"
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
  explicit EcmpRouting(const Machine& m) : m_(m), forward_(m, false), backward_(m, true), hosts_(m, forward_, backward_) {}

  void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const override {
    const auto any_ends = [](ChannelId, ChannelId) { return true; };
    if (hosts_.cached_route(src, dst, out, any_ends)) return;
    std::lock_guard lock(mutex_);
    const auto search = [this](RouterId a, RouterId b, std::vector<ChannelShare>& shares) { this->search(a, b, shares); };
    if (!hosts_.route(src, dst, out, search, any_ends)) search(src, dst, out);
  }

 private:
  // The shares of every shortest path from src to dst, by a search along them.
  void search(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const {
    const BfsRow& from = row(src, false);
    const BfsRow& to = row(dst, true);
    const std::uint32_t total = from.dist[dst];
    if (total == UINT32_MAX) fail("{}: router {} cannot reach router {}", m_.description, src, dst);
    const double all = from.paths[dst];
    if (!std::isfinite(all)) {
      fail("{}: routers {} and {} have more than 1e308 shortest paths between them ({} hops): too many to split over",
           m_.description, src, dst, total);
    }
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
          // The product overflows only where the counts are huge: then the quotient first.
          const double through = from.paths[u] * to.paths[v];
          out.push_back({c, std::isfinite(through) ? through / all : from.paths[u] / all * to.paths[v]});
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
  HostLinkRoutes hosts_;  // after the adjacencies it refers to
  mutable std::mutex mutex_;
  mutable std::unordered_map<RouterId, BfsRow> from_cache_, to_cache_;
  mutable std::vector<std::uint32_t> seen_;  // stamp of the route that reached a router
  mutable std::uint32_t stamp_ = 0;
  mutable std::vector<RouterId> on_paths_;
};

}  // namespace

std::unique_ptr<Routing> make_ecmp_routing(const Machine& m) { return std::make_unique<EcmpRouting>(m); }

}  // namespace taskmap::detail
