// up*/down* on a fabric read from files: routers are ranked by their distance from the top
// switches (ties by id); a channel towards a lower rank goes up. A legal route makes its up
// hops first, then only down hops, so it cannot deadlock; among the shortest legal routes the
// flow is split evenly (parallel channels count as distinct), as ecmp does among all shortest
// paths. Searches run over states (router, gone down yet) and are cached per router.
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

#include "host_link_routes.h"
#include "routing_impl.h"
#include "taskmap/topology/distance.h"

namespace taskmap::detail {
namespace {

struct StateRow {
  std::vector<std::uint32_t> dist;  // [router * 2 + phase]
  std::vector<double> paths;
};

class UpDownRouting final : public Routing {
 public:
  explicit UpDownRouting(const Machine& m) : m_(m), forward_(m, false), backward_(m, true), hosts_(m, forward_, backward_) {
    const auto& fabric = std::get<FabricShape>(m.shape);
    level_.assign(m.num_routers, UINT32_MAX);
    std::deque<RouterId> queue;
    for (RouterId r : fabric.top_switches) level_[r] = 0, queue.push_back(r);
    while (!queue.empty()) {
      const RouterId r = queue.front();
      queue.pop_front();
      for (auto i = forward_.offsets[r]; i < forward_.offsets[r + 1]; ++i) {
        const RouterId x = m.channels[forward_.channels[i]].dst;
        if (level_[x] == UINT32_MAX) level_[x] = level_[r] + 1, queue.push_back(x);
      }
    }
  }

  // A host's one link goes up to its switch and the destination's comes down from its switch,
  // legal in either phase: the route between their switches, with a channel at each end.
  void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const override {
    const auto up_then_down = [this](ChannelId first, ChannelId last) {
      return up(m_.channels[first].src, m_.channels[first].dst) && !up(m_.channels[last].src, m_.channels[last].dst);
    };
    if (hosts_.cached_route(src, dst, out, up_then_down)) return;
    std::lock_guard lock(mutex_);
    const auto search = [this](RouterId a, RouterId b, std::vector<ChannelShare>& shares) { this->search(a, b, shares); };
    if (!hosts_.route(src, dst, out, search, up_then_down)) search(src, dst, out);
  }

 private:
  // The shares of every shortest legal route from src to dst.
  void search(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const {
    const StateRow& from = row(src, false);
    const StateRow& to = row(dst, true);
    const std::uint32_t total = std::min(from.dist[dst * 2], from.dist[dst * 2 + 1]);
    if (total == UINT32_MAX) {
      fail("{}: up*/down* from the {} top switches has no route from {} to {} (no top switch is above both); use "
           "ecmp, or a job without one of them (--nodes)",
           m_.description, std::get<FabricShape>(m_.shape).top_switches.size(), name(src), name(dst));
    }
    double all = 0;
    for (int phase = 0; phase < 2; ++phase)
      if (from.dist[dst * 2 + phase] == total) all += from.paths[dst * 2 + phase];
    for (RouterId u = 0; u < m_.num_routers; ++u) {
      for (int p = 0; p < 2; ++p) {
        const std::size_t su = u * 2 + p;
        if (from.dist[su] >= total) continue;
        for (auto i = forward_.offsets[u]; i < forward_.offsets[u + 1]; ++i) {
          const ChannelId c = forward_.channels[i];
          const RouterId v = m_.channels[c].dst;
          const int q = next_phase(u, v, p);
          if (q < 0) continue;
          const std::size_t sv = v * 2 + q;
          if (to.dist[sv] != UINT32_MAX && from.dist[su] + 1 + to.dist[sv] == total) {
            out.push_back({c, from.paths[su] * to.paths[sv] / all});
          }
        }
      }
    }
  }

  // A router's host or switch name, for messages.
  std::string name(RouterId r) const {
    const auto& fabric = std::get<FabricShape>(m_.shape);
    if (r >= fabric.first_switch && r - fabric.first_switch < fabric.switch_names.size()) {
      return "switch '" + fabric.switch_names[r - fabric.first_switch] + "'";
    }
    for (NodeId n = 0; m_.named_nodes() && n < m_.num_nodes(); ++n) {
      if (m_.router_of_node(n) == r) return "host '" + m_.node_name(n) + "'";
    }
    return "router " + std::to_string(r);
  }
  bool up(RouterId u, RouterId v) const { return level_[v] < level_[u] || (level_[v] == level_[u] && v < u); }
  // The phase after crossing u -> v in phase p (0: may still go up, 1: going down); -1 if illegal.
  int next_phase(RouterId u, RouterId v, int p) const {
    if (up(u, v)) return p == 0 ? 0 : -1;
    return 1;
  }

  const StateRow& row(RouterId r, bool reverse) const {
    auto& cache = reverse ? to_cache_ : from_cache_;
    auto it = cache.find(r);
    if (it != cache.end()) return it->second;
    if (cache.size() * m_.num_routers > (1u << 25)) cache.clear();  // rows are cheap to recompute
    StateRow row;
    row.dist.assign(std::size_t(m_.num_routers) * 2, UINT32_MAX);
    row.paths.assign(std::size_t(m_.num_routers) * 2, 0.0);
    std::deque<std::size_t> queue;
    if (!reverse) {
      row.dist[r * 2] = 0, row.paths[r * 2] = 1, queue.push_back(r * 2);
    } else {
      for (int p = 0; p < 2; ++p) row.dist[r * 2 + p] = 0, row.paths[r * 2 + p] = 1, queue.push_back(r * 2 + p);
    }
    const ChannelAdjacency& adj = reverse ? backward_ : forward_;
    while (!queue.empty()) {
      const std::size_t s = queue.front();
      queue.pop_front();
      const auto x = static_cast<RouterId>(s / 2);
      const int phase = static_cast<int>(s % 2);
      for (auto i = adj.offsets[x]; i < adj.offsets[x + 1]; ++i) {
        const Channel& ch = m_.channels[adj.channels[i]];
        if (!reverse) {
          const int q = next_phase(ch.src, ch.dst, phase);
          if (q >= 0) relax(row, s, std::size_t(ch.dst) * 2 + q, queue);
          continue;
        }
        // Backwards: every state (src, p) that crossing src -> x leaves in this phase (a down
        // hop is legal from both phases).
        for (int p = 0; p < 2; ++p)
          if (next_phase(ch.src, x, p) == phase) relax(row, s, std::size_t(ch.src) * 2 + p, queue);
      }
    }
    return cache.emplace(r, std::move(row)).first->second;
  }

  static void relax(StateRow& row, std::size_t from, std::size_t to, std::deque<std::size_t>& queue) {
    if (row.dist[to] == UINT32_MAX) row.dist[to] = row.dist[from] + 1, queue.push_back(to);
    if (row.dist[to] == row.dist[from] + 1) row.paths[to] += row.paths[from];
  }

  const Machine& m_;
  ChannelAdjacency forward_, backward_;
  HostLinkRoutes hosts_;  // after the adjacencies it refers to
  std::vector<std::uint32_t> level_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<RouterId, StateRow> from_cache_, to_cache_;
};

}  // namespace

std::unique_ptr<Routing> make_updn_routing(const Machine& m) { return std::make_unique<UpDownRouting>(m); }

}  // namespace taskmap::detail
