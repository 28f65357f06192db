// Dragonfly routings [Dragonfly-BAC] on a machine's DragonflyGroups: the balanced dragonfly of
// (p, a, h) and the Dragonflies read from files (Cray Aries wiring, the plain format), whose
// groups differ in size, may be joined by several global cables, and may need several local
// hops inside a group (an Aries group is a 2D all-to-all: green links along a chassis, black
// ones along a column, so two routers in neither are two local hops apart).
//
// Local route (inside one group): every shortest path over the group's local channels carries
// an equal share, parallel cables counting as distinct paths (ecmp restricted to the group).
// Minimal: inside a group, the local route; between groups, an even split over the global
// channels from the source's group to the destination's, each preceded by the local route from
// the source to the router holding the cable and followed by the local route from the router it
// lands on to the destination. It never leaves the two groups; ecmp, which takes every shortest
// router path, crosses a third group wherever that is fewer hops.
// Valiant: an even split over every intermediate group (all groups but source's and
// destination's; for traffic inside one group, all groups but that one); into each, minimally
// (an even split over the global channels from the source's group to it, entering the group at
// the router each lands on), then minimally to the destination.
// UGAL-like (flow level, after UGAL-L of Kim et al.): each router pair goes whole either
// minimally or through one intermediate group, whichever has the lower (hops x highest channel
// load/bandwidth on it) under the loads placed so far, hops being the route's mean hop count
// (its fractions' sum); the intermediate group is the one with the lowest such cost (ties: the
// first group after the source's); ties between minimal and Valiant go minimal, so an idle
// network routes minimally.
//
// On the balanced dragonfly every route is a single path (one local link, one cable per pair of
// groups), so the shares are those of local, global, local with fraction 1.
#include <fmt/format.h>

#include <algorithm>

#include "routing_impl.h"
#include "taskmap/core/memory.h"

namespace taskmap::detail {
namespace {

class DragonflyRouting final : public Routing {
 public:
  DragonflyRouting(const Machine& m, const DragonflyGroups& groups, RoutingKind kind)
      : machine_(m), groups_(groups), valiant_(kind == RoutingKind::Valiant), ugal_(kind == RoutingKind::Ugal) {
    build_local_routes();
  }

  bool adaptive() const override { return ugal_; }

  void route_adaptive(RouterId src, RouterId dst, const std::vector<double>& loads,
                      std::vector<ChannelShare>& out) const override {
    if (!ugal_) {
      route(src, dst, out);
      return;
    }
    std::vector<ChannelShare> path;
    auto cost = [&](const std::vector<ChannelShare>& p) {
      double worst = 0, hops = 0;
      for (const ChannelShare& s : p) {
        worst = std::max(worst, loads[s.channel] / machine_.classes[machine_.channels[s.channel].link_class].bandwidth);
        hops += s.fraction;
      }
      return worst * hops;
    };
    minimal(src, dst, 1.0, path);
    const double minimal_cost = cost(path);
    const std::uint32_t g = groups_.num_groups();
    const std::uint32_t gs = groups_.group_of[src], gd = groups_.group_of[dst];
    double best_cost = minimal_cost;
    std::uint32_t best_group = g;  // g = minimal
    for (std::uint32_t k = 1; k < g; ++k) {
      const std::uint32_t gi = (gs + k) % g;
      if (gi == gd) continue;
      path.clear();
      via(src, dst, gi, 1.0, path);
      const double c = cost(path);
      if (c < best_cost) {
        best_cost = c;
        best_group = gi;
      }
    }
    if (best_group == g) minimal(src, dst, 1.0, out);
    else via(src, dst, best_group, 1.0, out);
  }

  void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const override {
    const std::uint32_t g = groups_.num_groups();
    const std::uint32_t gs = groups_.group_of[src], gd = groups_.group_of[dst];
    const std::uint32_t count = g - (gs == gd ? 1 : 2);
    if (!valiant_ || count == 0) {  // one or two groups: no intermediate group exists
      minimal(src, dst, 1.0, out);
      return;
    }
    const double w = 1.0 / count;
    for (std::uint32_t gi = 0; gi < g; ++gi) {
      if (gi != gs && gi != gd) via(src, dst, gi, w, out);
    }
  }

 private:
  // Into group gi and on to dst: over each global channel from the source's group to gi, an
  // equal share: the local route to the channel, the channel, then minimally on from the router
  // it lands on (the local route when dst is in gi: minimal between groups is via(gd)).
  void via(RouterId src, RouterId dst, std::uint32_t gi, double w, std::vector<ChannelShare>& out) const {
    const auto [begin, end] = groups_.cables(groups_.group_of[src], gi);
    const double share = w / static_cast<double>(end - begin);
    for (const ChannelId* c = begin; c != end; ++c) {
      const Channel& cable = machine_.channels[*c];
      local(src, cable.src, share, out);
      out.push_back({*c, share});
      minimal(cable.dst, dst, share, out);
    }
  }

  void minimal(RouterId src, RouterId dst, double w, std::vector<ChannelShare>& out) const {
    if (src == dst) return;
    const std::uint32_t gs = groups_.group_of[src], gd = groups_.group_of[dst];
    if (gs == gd) local(src, dst, w, out);
    else via(src, dst, gd, w, out);
  }

  // The local route src -> dst (one group) with weight w.
  void local(RouterId src, RouterId dst, double w, std::vector<ChannelShare>& out) const {
    if (src == dst) return;
    const std::size_t pair = row_[src] + index_[dst];
    const ChannelShare* end = local_shares_.data() + local_first_[pair + 1];
    for (const ChannelShare* s = local_shares_.data() + local_first_[pair]; s != end; ++s) {
      out.push_back({s->channel, s->fraction * w});
    }
  }

  // Every ordered pair of routers of a group gets its local route, from breadth-first searches
  // over the group's local channels (ecmp's rule: channel u->v is on a shortest path from s
  // to t iff d(s,u) + 1 + d(v,t) = d(s,t), and carries paths(s,u) paths(v,t) / paths(s,t)).
  void build_local_routes() {
    const Machine& m = machine_;
    const std::uint32_t g = groups_.num_groups();
    group_size_.assign(g, 0);
    index_.resize(m.num_routers);
    for (RouterId r = 0; r < m.num_routers; ++r) index_[r] = group_size_[groups_.group_of[r]]++;
    std::vector<std::uint32_t> member_first(g + 1, 0);
    for (std::uint32_t G = 0; G < g; ++G) member_first[G + 1] = member_first[G] + group_size_[G];
    std::vector<RouterId> members(m.num_routers);
    for (RouterId r = 0; r < m.num_routers; ++r) members[member_first[groups_.group_of[r]] + index_[r]] = r;
    pair_base_.assign(g + 1, 0);
    std::uint64_t largest = 0;
    for (std::uint32_t G = 0; G < g; ++G) {
      pair_base_[G + 1] = pair_base_[G] + std::size_t{group_size_[G]} * group_size_[G];
      largest = std::max<std::uint64_t>(largest, group_size_[G]);
    }
    // Per pair an offset and about one share per local hop; per group being built, its
    // distances and path counts.
    check_memory(fmt::format("Dragonfly routing on '{}'", m.description),
                 saturating_add(saturating_mul(pair_base_[g], sizeof(std::size_t) + 2 * sizeof(ChannelShare)),
                                saturating_mul(largest * largest, sizeof(std::uint32_t) + sizeof(double))),
                 fmt::format("the local routes of {} groups", g));
    // Local out-channels per router (CSR).
    std::vector<std::uint32_t> out_first(m.num_routers + 1, 0);
    for (const Channel& c : m.channels) {
      if (groups_.group_of[c.src] == groups_.group_of[c.dst]) ++out_first[c.src + 1];
    }
    for (RouterId r = 0; r < m.num_routers; ++r) out_first[r + 1] += out_first[r];
    std::vector<ChannelId> out_channels(out_first.back());
    {
      std::vector<std::uint32_t> fill(out_first.begin(), out_first.end() - 1);
      for (ChannelId id = 0; id < m.channels.size(); ++id) {
        const Channel& c = m.channels[id];
        if (groups_.group_of[c.src] == groups_.group_of[c.dst]) out_channels[fill[c.src]++] = id;
      }
    }
    row_.resize(m.num_routers);
    for (RouterId r = 0; r < m.num_routers; ++r) {
      const std::uint32_t group = groups_.group_of[r];
      row_[r] = pair_base_[group] + std::size_t{index_[r]} * group_size_[group];
    }
    local_first_.assign(pair_base_[g] + 1, 0);
    std::vector<std::uint32_t> dist;
    std::vector<double> paths;
    std::vector<std::uint32_t> queue, seen, on_paths;
    std::uint32_t stamp = 0;
    for (std::uint32_t G = 0; G < g; ++G) {
      const std::uint32_t n = group_size_[G];
      const RouterId* member = members.data() + member_first[G];
      // dist[i * n + j], paths[i * n + j]: from member i to member j over local channels.
      dist.assign(std::size_t{n} * n, UINT32_MAX);
      paths.assign(std::size_t{n} * n, 0.0);
      for (std::uint32_t i = 0; i < n; ++i) {
        std::uint32_t* d = dist.data() + std::size_t{i} * n;
        double* p = paths.data() + std::size_t{i} * n;
        d[i] = 0, p[i] = 1.0;
        queue.assign(1, i);
        for (std::size_t head = 0; head < queue.size(); ++head) {
          const std::uint32_t x = queue[head];
          for (std::uint32_t k = out_first[member[x]]; k < out_first[member[x] + 1]; ++k) {
            const std::uint32_t y = index_[m.channels[out_channels[k]].dst];
            if (d[y] == UINT32_MAX) d[y] = d[x] + 1, queue.push_back(y);
            if (d[y] == d[x] + 1) p[y] += p[x];
          }
        }
      }
      seen.assign(n, 0);
      for (std::uint32_t i = 0; i < n; ++i) {
        for (std::uint32_t j = 0; j < n; ++j) {
          const std::size_t pair = pair_base_[G] + std::size_t{i} * n + j;
          const std::uint32_t total = dist[std::size_t{i} * n + j];
          if (i != j && total != UINT32_MAX) {  // groups_ is routable: every pair is joined
            // The members on shortest paths from i to j, found along them, taken in id order.
            auto on_path = [&](std::uint32_t u, std::uint32_t v) {
              return dist[std::size_t{i} * n + u] + 1 + dist[std::size_t{v} * n + j] == total;
            };
            ++stamp;
            on_paths.assign(1, i);
            seen[i] = stamp;
            for (std::size_t k = 0; k < on_paths.size(); ++k) {
              const std::uint32_t u = on_paths[k];
              for (std::uint32_t c = out_first[member[u]]; c < out_first[member[u] + 1]; ++c) {
                const std::uint32_t v = index_[m.channels[out_channels[c]].dst];
                if (seen[v] != stamp && v != j && dist[std::size_t{v} * n + j] != UINT32_MAX && on_path(u, v)) {
                  seen[v] = stamp;
                  on_paths.push_back(v);
                }
              }
            }
            std::sort(on_paths.begin(), on_paths.end());
            const double all = paths[std::size_t{i} * n + j];
            for (std::uint32_t u : on_paths) {
              for (std::uint32_t c = out_first[member[u]]; c < out_first[member[u] + 1]; ++c) {
                const std::uint32_t v = index_[m.channels[out_channels[c]].dst];
                if (dist[std::size_t{v} * n + j] != UINT32_MAX && on_path(u, v)) {
                  local_shares_.push_back(
                      {out_channels[c], paths[std::size_t{i} * n + u] * paths[std::size_t{v} * n + j] / all});
                }
              }
            }
          }
          local_first_[pair + 1] = local_shares_.size();
        }
      }
    }
  }

  const Machine& machine_;
  const DragonflyGroups& groups_;
  bool valiant_, ugal_;
  std::vector<std::uint32_t> group_size_;
  std::vector<std::uint32_t> index_;     // per router: its index in its group (groups list routers in id order)
  std::vector<std::size_t> pair_base_;   // per group: where its size x size pairs start in local_first_
  std::vector<std::size_t> row_;         // per router r: where the pairs (r, *) start in local_first_
  std::vector<std::size_t> local_first_;  // per pair (i, j) of a group: its shares in local_shares_
  std::vector<ChannelShare> local_shares_;
};

}  // namespace

std::unique_ptr<Routing> make_dragonfly_routing(const Machine& m, const RoutingSpec& spec) {
  const DragonflyGroups* groups = m.dragonfly_groups();
  if (!groups) fail("machine '{}': Dragonfly routing needs its groups", m.description);
  if (!groups->unroutable.empty()) fail("machine '{}': {}", m.description, groups->unroutable);
  return std::make_unique<DragonflyRouting>(m, *groups, spec.kind);
}

}  // namespace taskmap::detail
