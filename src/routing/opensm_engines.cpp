// OpenSM 3.3's minhop, updn, dnup and dfsssp engines (ftree: opensm_ftree.cpp), as facts of
// OpenSM's behaviour written down in docs/routings.md: minhop's hop tables, destination order
// and least-used port; updn's and dnup's ranks and turn rules on those tables; dfsssp's
// Dijkstra with link weights grown by each destination's routes.
#include "taskmap/routing/opensm_engines.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "opensm_subnet.h"
#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/core/text_source.h"
#include "taskmap/topology/guid_map.h"

namespace taskmap {
namespace {

using detail::kNone;
using detail::OsmView;

ForwardingTables engine_tables(const ib::Subnet& subnet, const OpenSmOptions& options);

constexpr std::uint8_t kInf = 255;  // no hop count: not reachable this way

// Per switch s, per destination switch t, per port p of s: the hops to t leaving through p
// (port 0: s itself, 0 hops), kInf where none; and least(s, t), their minimum.
class HopTables final {
 public:
  explicit HopTables(const OsmView& v) : s_(v.count()) {
    std::uint32_t widest = 1;
    for (std::uint32_t i = 0; i < s_; ++i) widest = std::max(widest, v.ports(i));
    width_ = widest;
    check_memory("the routing engine", saturating_mul(saturating_mul(s_, s_), width_ + 1), "its hop tables");
    hops_.assign(std::size_t{s_} * s_ * width_, kInf);
    least_.assign(std::size_t{s_} * s_, kInf);
  }
  std::uint8_t get(std::uint32_t s, std::uint32_t t, std::uint32_t p) const { return hops_[(std::size_t{s} * s_ + t) * width_ + p]; }
  void set(std::uint32_t s, std::uint32_t t, std::uint32_t p, std::uint8_t h) {
    hops_[(std::size_t{s} * s_ + t) * width_ + p] = h;
    auto& l = least_[std::size_t{s} * s_ + t];
    l = std::min(l, h);
  }
  std::uint8_t least(std::uint32_t s, std::uint32_t t) const { return least_[std::size_t{s} * s_ + t]; }

 private:
  std::uint32_t s_;
  std::uint32_t width_ = 1;
  std::vector<std::uint8_t> hops_;
  std::vector<std::uint8_t> least_;
};

// minhop's tables: plain switch-to-switch BFS distances (OpenSM relaxes them round by round to
// the same values).
HopTables minhop_hops(const OsmView& v) {
  const std::uint32_t n = v.count();
  std::vector<std::uint8_t> dist(std::size_t{n} * n, kInf);  // dist[t * n + u]
  for (std::uint32_t t = 0; t < n; ++t) {
    std::deque<std::uint32_t> queue{t};
    dist[std::size_t{t} * n + t] = 0;
    while (!queue.empty()) {
      const std::uint32_t u = queue.front();
      queue.pop_front();
      for (std::uint32_t p = 1; p < v.ports(u); ++p) {
        const std::uint32_t w = v.peer_switch(u, p);
        if (w == kNone || w == u || dist[std::size_t{t} * n + w] != kInf) continue;
        dist[std::size_t{t} * n + w] = static_cast<std::uint8_t>(std::min(254, dist[std::size_t{t} * n + u] + 1));
        queue.push_back(w);
      }
    }
  }
  HopTables hops(v);
  for (std::uint32_t s = 0; s < n; ++s) {
    for (std::uint32_t t = 0; t < n; ++t) {
      if (s == t) hops.set(s, t, 0, 0);
      for (std::uint32_t p = 1; p < v.ports(s); ++p) {
        const std::uint32_t w = v.peer_switch(s, p);
        if (w == kNone || w == s || dist[std::size_t{t} * n + w] == kInf) continue;
        hops.set(s, t, p, static_cast<std::uint8_t>(std::min(254, dist[std::size_t{t} * n + w] + 1)));
      }
    }
  }
  return hops;
}

// Ranks: the hop distance to the nearest seed switch (BFS from the seeds in OpenSM's order).
std::vector<std::uint32_t> ranks_from(const OsmView& v, const std::vector<bool>& seed) {
  std::vector<std::uint32_t> rank(v.count(), UINT32_MAX);
  std::deque<std::uint32_t> queue;
  for (std::uint32_t s = 0; s < v.count(); ++s) {
    if (seed[s]) rank[s] = 0, queue.push_back(s);
  }
  while (!queue.empty()) {
    const std::uint32_t u = queue.front();
    queue.pop_front();
    for (std::uint32_t p = 1; p < v.ports(u); ++p) {
      const std::uint32_t w = v.peer_switch(u, p);
      if (w != kNone && rank[w] > rank[u] + 1) rank[w] = rank[u] + 1, queue.push_back(w);
    }
  }
  return rank;
}

// updn's automatic roots: a switch from which more than 90% of the CAs lie at one hop distance
// and no other distance holds more than 5% of them.
std::vector<bool> automatic_roots(const OsmView& v, const HopTables& minhop) {
  std::vector<std::uint64_t> cas_on(v.count(), 0);
  std::uint64_t cas = 0;
  for (const ib::Node& n : v.subnet().nodes) {
    if (n.is_switch()) continue;
    for (const ib::Port& p : n.ports) {
      if (p.peer_node == ib::kNoNode || !v.subnet().nodes[p.peer_node].is_switch()) continue;
      ++cas_on[v.index(p.peer_node)];
      ++cas;
    }
  }
  const double most = 0.9 * static_cast<double>(cas), some = 0.05 * static_cast<double>(cas);
  std::vector<bool> root(v.count(), false);
  for (std::uint32_t s = 0; s < v.count(); ++s) {
    std::map<std::uint32_t, std::uint64_t> histogram;
    for (std::uint32_t t = 0; t < v.count(); ++t) {
      if (cas_on[t] == 0) continue;
      if (const std::uint8_t d = minhop.least(s, t); d < 64) histogram[d] += cas_on[t];
    }
    std::size_t above_most = 0, above_some = 0;
    for (const auto& [d, count] : histogram) {
      above_most += static_cast<double>(count) > most;
      above_some += static_cast<double>(count) > some;
    }
    root[s] = above_most == 1 && above_some == 1;
  }
  return root;
}

enum class Turn : std::uint8_t { Up, Down, Equal };

// The hop tables of updn (up, then only down) or dnup (down, then only up): one BFS per
// destination switch from the destination outward, with OpenSM's queue as it is (a switch's
// direction is set when it is queued; it may be queued again once taken out).
HopTables turn_restricted_hops(const OsmView& v, const std::vector<std::uint32_t>& rank, bool updn) {
  auto turn = [&](std::uint32_t u, std::uint32_t w) {
    const std::uint32_t ru = rank[u], rw = rank[w];
    if (ru == 0 && rw == 0) return updn ? Turn::Up : Turn::Equal;
    if (ru < rw) return Turn::Down;
    if (ru > rw) return Turn::Up;
    if (!updn) return Turn::Equal;
    return v.sw(u).guid > v.sw(w).guid ? Turn::Up : Turn::Down;
  };
  HopTables hops(v);
  std::vector<Turn> direction(v.count(), Turn::Up);
  std::vector<bool> queued(v.count(), false);
  for (std::uint32_t t = 0; t < v.count(); ++t) {
    hops.set(t, t, 0, 0);
    direction[t] = updn ? Turn::Up : Turn::Down;
    std::fill(queued.begin(), queued.end(), false);
    std::deque<std::uint32_t> queue{t};
    while (!queue.empty()) {
      const std::uint32_t u = queue.front();
      queue.pop_front();
      queued[u] = false;
      const Turn current = direction[u];
      for (std::uint32_t p = 1; p < v.ports(u); ++p) {
        const auto r = v.remote(v.node(u), p);
        if (!r || !v.subnet().nodes[r->node].is_switch()) continue;
        const std::uint32_t w = v.index(r->node);
        const Turn next = turn(u, w);
        if (updn && current == Turn::Down && next == Turn::Up) continue;
        if (!updn && current == Turn::Up && next == Turn::Down) continue;
        const std::uint8_t through_u = hops.least(u, t);
        if (through_u == kInf) continue;
        if (through_u + 1 < hops.get(w, t, r->port)) {
          hops.set(w, t, r->port, static_cast<std::uint8_t>(through_u + 1));
          if (!queued[w]) direction[w] = next, queued[w] = true, queue.push_back(w);
        }
      }
    }
  }
  return hops;
}

// The destination ports of minhop, updn and dnup, in OpenSM's order: the switches by how many
// end ports are cabled to them (most first, ties in OpenSM's GUID order), each one's end ports
// in port order; then the switches themselves (port 0) in OpenSM's GUID order.
std::vector<ib::PortRef> destination_order(const OsmView& v, const std::vector<std::uint64_t>& weight) {
  std::vector<std::uint32_t> by_weight(v.count());
  for (std::uint32_t i = 0; i < v.count(); ++i) by_weight[i] = i;
  std::stable_sort(by_weight.begin(), by_weight.end(), [&](std::uint32_t a, std::uint32_t b) { return weight[a] > weight[b]; });
  std::vector<ib::PortRef> order;
  std::set<std::pair<std::uint32_t, std::uint8_t>> seen;
  for (std::uint32_t s : by_weight) {
    for (std::uint32_t p = 1; p < v.ports(s); ++p) {
      if (!v.to_end_port(s, p)) continue;
      const ib::PortRef r = *v.remote(v.node(s), p);
      if (seen.insert({r.node, r.port}).second) order.push_back(r);
    }
  }
  return order;
}

// osm_switch_recommend_path with OpenSM's defaults: among the ports of switch s on a minimal
// route to the destination's switch, the one fewest end-port LIDs were routed through so far
// (ties: the first met scanning from `start`); with an LMC, LIDs of one destination spread over
// other systems, then other nodes, first.
class PortChooser final {
 public:
  PortChooser(const OsmView& v, const HopTables& hops) : v_(v), hops_(hops) {}

  struct Used {
    std::uint32_t node;
    std::uint32_t forwarded;
  };

  std::uint8_t choose(std::uint32_t s, ib::PortRef dest, std::uint32_t start, const std::vector<std::uint32_t>& paths,
                      const std::vector<Used>& used) const {
    std::uint32_t target = 0;
    const ib::Subnet& subnet = v_.subnet();
    if (subnet.nodes[dest.node].is_switch()) {
      target = v_.index(dest.node);
      if (target == s) return 0;
    } else {
      const auto r = v_.remote(dest.node, dest.port);
      if (!r || !subnet.nodes[r->node].is_switch()) return ib::kNoPort;
      if (v_.index(r->node) == s) return r->port;
      target = v_.index(r->node);
    }
    const std::uint8_t least = hops_.least(s, target);
    if (least == kInf) return ib::kNoPort;
    const std::uint32_t n = v_.ports(s);
    const bool lmc = v_.lmc() != 0;
    std::uint32_t best = 0, other_system = 0, other_node = 0;
    std::optional<std::uint32_t> least_paths, least_system, least_node;
    std::uint32_t least_forwarded = UINT32_MAX;
    for (std::uint32_t i = start; i < start + n; ++i) {
      const std::uint32_t port = i % n;
      if (port == 0 || hops_.get(s, target, port) != least || !v_.remote(v_.node(s), port)) continue;
      const std::uint32_t c = paths[port];
      const Used* same_node = nullptr;
      if (lmc) {
        const std::uint32_t far = v_.remote(v_.node(s), port)->node;
        const std::uint64_t system = subnet.nodes[far].system_guid;
        const bool same_system = std::any_of(used.begin(), used.end(),
                                             [&](const Used& u) { return subnet.nodes[u.node].system_guid == system; });
        if (!same_system) {
          if (!least_system || c < *least_system) least_system = c, other_system = port, least_forwarded = 0;
        } else {
          for (const Used& u : used) {
            if (u.node == far) {
              same_node = &u;
              break;
            }
          }
          if (!same_node && (!least_node || c < *least_node)) least_node = c, other_node = port, least_forwarded = 0;
        }
      }
      if (!least_paths || c < *least_paths) {
        best = port;
        least_paths = c;
        if (same_node && same_node->forwarded < least_forwarded) least_forwarded = same_node->forwarded;
      } else if (same_node && c == *least_paths && same_node->forwarded < least_forwarded) {
        least_forwarded = same_node->forwarded;
        best = port;
      }
    }
    if (!least_paths) return ib::kNoPort;
    if (lmc && best != 0) {
      if (other_system != 0) best = other_system;
      else if (other_node != 0) best = other_node;
    }
    return static_cast<std::uint8_t>(best);
  }

 private:
  const OsmView& v_;
  const HopTables& hops_;
};

// OpenSM's ucast_mgr_build_lfts on the given hop tables: every switch routes every LID in the
// destination order, base LIDs first, then each next LID of the LMC ranges.
ForwardingTables tables_by_least_used_port(const OsmView& v, const HopTables& hops) {
  std::vector<std::uint64_t> end_ports(v.count(), 0);
  for (std::uint32_t s = 0; s < v.count(); ++s) {
    for (std::uint32_t p = 1; p < v.ports(s); ++p) end_ports[s] += v.to_end_port(s, p);
  }
  std::vector<ib::PortRef> order = destination_order(v, end_ports);
  {
    std::vector<std::uint32_t> by_key(v.count());
    for (std::uint32_t i = 0; i < v.count(); ++i) by_key[i] = i;  // OpenSM's order already
    for (std::uint32_t s : by_key) order.push_back({v.node(s), 0});
  }
  ForwardingTables tables = v.empty_tables();
  const PortChooser chooser(v, hops);
  const ib::Subnet& subnet = v.subnet();
  std::vector<std::uint32_t> paths;
  std::vector<std::vector<PortChooser::Used>> used(order.size());
  for (std::uint32_t s = 0; s < v.count(); ++s) {
    auto& table = tables.port[v.node(s)];
    paths.assign(v.ports(s), 0);
    for (auto& u : used) u.clear();
    for (std::uint32_t offset = 0; offset < (1u << v.lmc()); ++offset) {
      for (std::size_t d = 0; d < order.size(); ++d) {
        const ib::Port& dest = subnet.port(order[d]);
        if (dest.lid == 0) continue;
        const std::uint32_t lmc = subnet.nodes[order[d].node].is_switch() ? 0 : dest.lmc;
        if (offset >= (1u << lmc) || dest.lid + offset > ib::kMaxLid) continue;
        const std::uint32_t lid = dest.lid + offset;
        const std::uint32_t start = offset == 0 ? 1 : std::uint32_t{table[lid - 1]} + 1;
        const std::uint8_t port = chooser.choose(s, order[d], start, paths, used[d]);
        table[lid] = port;
        if (port == ib::kNoPort || subnet.nodes[order[d].node].is_switch()) continue;
        ++paths[port];
        if (port == 0) continue;
        const std::uint32_t far = v.remote(v.node(s), port)->node;
        auto it = std::find_if(used[d].begin(), used[d].end(), [&](const PortChooser::Used& u) { return u.node == far; });
        if (it != used[d].end()) {
          ++it->forwarded;
        } else {
          used[d].push_back({far, 1});
        }
      }
    }
  }
  return tables;
}

// complib's cl_heap with four children per node, step for step: dfsssp's ties are its ties.
class QuaternaryHeap final {
 public:
  explicit QuaternaryHeap(std::vector<std::size_t>& position) : position_(position) {}
  void insert(std::uint64_t key, std::uint32_t vertex) {
    items_.push_back({key, vertex});
    position_[vertex] = items_.size() - 1;
    up(items_.size() - 1);
  }
  void modify(std::uint64_t key, std::size_t i) {
    const std::uint64_t old = items_[i].key;
    items_[i].key = key;
    if (key < old) up(i);
    else if (key > old) down(i);
  }
  std::optional<std::uint32_t> extract() {
    if (items_.empty()) return std::nullopt;
    if (items_.size() == 1) {
      const std::uint32_t v = items_.back().vertex;
      items_.pop_back();
      return v;
    }
    const Item last = items_.back();
    items_.pop_back();
    const std::uint32_t root = items_[0].vertex;
    place(0, last);
    down(0);
    return root;
  }

 private:
  struct Item {
    std::uint64_t key;
    std::uint32_t vertex;
  };
  static constexpr std::size_t kArity = 4;
  void place(std::size_t i, const Item& item) {
    items_[i] = item;
    position_[item.vertex] = i;
  }
  void up(std::size_t i) {
    if (i == 0) return;
    const Item moving = items_[i];
    std::size_t parent = i, hole = 0;
    bool moved = false;
    while (true) {
      const std::size_t child = parent;
      parent = (child - 1) / kArity;
      if (moving.key < items_[parent].key) {
        place(child, items_[parent]);
        hole = parent;
        moved = true;
      } else {
        break;
      }
      if (parent == 0) break;
    }
    if (moved) place(hole, moving);
  }
  void down(std::size_t i) {
    const Item moving = items_[i];
    std::size_t parent = i;
    bool moved = false;
    while (parent * kArity + 1 < items_.size()) {
      const std::size_t first = parent * kArity + 1;
      std::size_t smallest = first;
      for (std::size_t c = first + 1; c < std::min(first + kArity, items_.size()); ++c) {
        if (items_[c].key <= items_[smallest].key) smallest = c;
      }
      if (moving.key > items_[smallest].key) {
        place(parent, items_[smallest]);
        parent = smallest;
        moved = true;
      } else {
        break;
      }
    }
    if (moved) place(parent, moving);
  }
  std::vector<Item> items_;
  std::vector<std::size_t>& position_;
};

// dfsssp: for each destination LID in OpenSM's order, a Dijkstra from the destination outward
// over switch-to-switch links (vertex 0 is a destination CA), then every link on a switch's
// path gains that switch's end-port LIDs as weight, so later destinations avoid the links
// earlier ones load.
ForwardingTables dfsssp_tables(const OsmView& v) {
  const ib::Subnet& subnet = v.subnet();
  const std::uint32_t n = v.count();
  struct Link {
    std::uint32_t from, to;
    std::uint8_t to_port;
    std::uint64_t weight;
  };
  std::uint64_t lids = n;  // every switch's one LID, every CA port's range
  for (const ib::Node& node : subnet.nodes) {
    if (node.kind != ib::NodeKind::Ca) continue;
    for (const ib::Port& p : node.ports) {
      if (p.peer_node != ib::kNoNode) lids += 1u << v.lmc();
    }
  }
  const std::uint64_t infinity = 0x7FFFFFFF;
  std::vector<std::vector<Link>> links(std::size_t{n} + 1);  // vertex i + 1 = switch i
  std::vector<std::uint64_t> end_lids(std::size_t{n} + 1, 0);
  for (std::uint32_t s = 0; s < n; ++s) {
    end_lids[s + 1] = 1;
    for (std::uint32_t p = 1; p < v.ports(s); ++p) {
      const auto r = v.remote(v.node(s), p);
      if (!r || r->node == v.node(s)) continue;
      if (!subnet.nodes[r->node].is_switch()) {
        end_lids[s + 1] += 1u << v.lmc();
        continue;
      }
      links[s + 1].push_back({s + 1, v.index(r->node) + 1, r->port, lids * lids});
    }
  }
  std::vector<std::uint64_t> weight_by_switch(n);
  for (std::uint32_t s = 0; s < n; ++s) weight_by_switch[s] = end_lids[s + 1];
  std::vector<ib::PortRef> order = destination_order(v, weight_by_switch);
  {
    std::vector<std::uint32_t> by_weight(n);
    for (std::uint32_t i = 0; i < n; ++i) by_weight[i] = i;
    std::stable_sort(by_weight.begin(), by_weight.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return weight_by_switch[a] > weight_by_switch[b]; });
    for (std::uint32_t s : by_weight) order.push_back({v.node(s), 0});
  }
  ForwardingTables tables = v.empty_tables();
  for (std::uint32_t s = 0; s < n; ++s) {
    if (v.lid(s) != 0) tables.port[v.node(s)][v.lid(s)] = 0;
  }
  std::vector<std::size_t> position(std::size_t{n} + 1);
  std::vector<std::uint64_t> dist(std::size_t{n} + 1);
  std::vector<Link*> used(std::size_t{n} + 1);
  std::vector<bool> done(std::size_t{n} + 1);
  for (const ib::PortRef& dest : order) {
    if (subnet.nodes[dest.node].kind == ib::NodeKind::Router) continue;
    const ib::Port& port = subnet.port(dest);
    if (port.lid == 0) continue;
    const bool to_ca = !subnet.nodes[dest.node].is_switch();
    const std::uint32_t range = to_ca ? 1u << port.lmc : 1;
    for (std::uint32_t lid = port.lid; lid < port.lid + range && lid <= ib::kMaxLid; ++lid) {
      QuaternaryHeap heap(position);
      std::fill(dist.begin(), dist.end(), infinity);
      std::fill(used.begin(), used.end(), nullptr);
      std::fill(done.begin(), done.end(), false);
      for (std::uint32_t i = 1; i <= n; ++i) heap.insert(infinity, i);
      std::uint32_t source = 0;
      links[0].clear();
      if (to_ca) {
        const auto r = v.remote(dest.node, dest.port);
        if (r && subnet.nodes[r->node].is_switch()) links[0].push_back({0, v.index(r->node) + 1, r->port, 1});
        heap.insert(infinity, 0);
      } else {
        source = v.index(dest.node) + 1;
      }
      dist[source] = 0;
      done[source] = true;
      heap.modify(0, position[source]);
      while (const auto current = heap.extract()) {
        const std::uint32_t cur = *current;
        done[cur] = true;
        for (Link& l : links[cur]) {
          if (!done[l.to] && dist[cur] + l.weight < dist[l.to]) {
            used[l.to] = &l;
            dist[l.to] = dist[cur] + l.weight;
            heap.modify(dist[l.to], position[l.to]);
          }
        }
      }
      for (std::uint32_t i = 1; i <= n; ++i) {
        if (used[i]) tables.port[v.node(i - 1)][lid] = used[i]->to_port;
      }
      for (std::uint32_t i = 1; i <= n; ++i) {
        if (!used[i]) continue;
        for (std::uint32_t j = i; used[j]; j = used[j]->from) used[j]->weight += end_lids[i];
      }
    }
  }
  return tables;
}

}  // namespace

std::string_view opensm_engine_name(OpenSmEngine engine) {
  switch (engine) {
    case OpenSmEngine::MinHop: return "minhop";
    case OpenSmEngine::UpDn: return "updn";
    case OpenSmEngine::DnUp: return "dnup";
    case OpenSmEngine::Dfsssp: return "dfsssp";
    case OpenSmEngine::FatTree: return "ftree";
  }
  return "?";
}

ib::Subnet opensm_lids(const ib::Subnet& file, std::uint8_t lmc, std::optional<ib::PortRef> sm_port) {
  ib::Subnet s = file;
  struct Claim {
    ib::PortRef port;
    std::uint32_t size;
  };
  std::vector<Claim> ports;
  for (std::uint32_t n = 0; n < s.nodes.size(); ++n) {
    ib::Node& node = s.nodes[n];
    if (node.is_switch()) {
      node.ports[0].lmc = 0;
      ports.push_back({{n, 0}, 1});
      continue;
    }
    for (std::uint32_t p = 1; p < node.ports.size(); ++p) {
      ib::Port& port = node.ports[p];
      port.lmc = 0;
      if (port.peer_node == ib::kNoNode) {
        port.lid = 0;  // a port that is down gets no LID
        continue;
      }
      port.lmc = lmc;
      ports.push_back({{n, static_cast<std::uint8_t>(p)}, 1u << lmc});
    }
  }
  std::stable_sort(ports.begin(), ports.end(), [&](const Claim& a, const Claim& b) {
    const bool a_sm = sm_port && a.port == *sm_port, b_sm = sm_port && b.port == *sm_port;
    if (a_sm != b_sm) return a_sm;  // the subnet manager's own port first
    return ib::opensm_key(s.port(a.port).guid) < ib::opensm_key(s.port(b.port).guid);
  });
  auto keepable = [&](const Claim& c) {
    const std::uint32_t lid = s.port(c.port).lid;
    return lid != 0 && lid % c.size == 0 && lid + c.size - 1 <= ib::kMaxLid;
  };
  // LIDs a port holds and could keep are not free; new LIDs come from the others, lowest first.
  std::vector<bool> held(std::size_t{ib::kMaxLid} + 1, false), taken(std::size_t{ib::kMaxLid} + 1, false);
  for (const Claim& c : ports) {
    if (!keepable(c)) continue;
    for (std::uint32_t l = s.port(c.port).lid; l < s.port(c.port).lid + c.size; ++l) held[l] = true;
  }
  std::vector<const Claim*> moved;
  for (const Claim& c : ports) {
    const std::uint32_t lid = s.port(c.port).lid;
    bool free = keepable(c);
    for (std::uint32_t l = lid; free && l < lid + c.size; ++l) free = !taken[l];
    if (!free) {
      moved.push_back(&c);
      continue;
    }
    for (std::uint32_t l = lid; l < lid + c.size; ++l) taken[l] = true;
  }
  // The free LIDs as OpenSM lists them at the start of the sweep: the runs of LIDs no port can
  // keep, ascending. A moved port takes the first run that holds its range once its start is
  // aligned; the LIDs skipped by aligning are lost, a run too short stays for later ports.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> free_runs;  // first, last
  for (std::uint32_t l = 1; l <= ib::kMaxLid; ++l) {
    if (held[l]) continue;
    if (!free_runs.empty() && free_runs.back().second + 1 == l) free_runs.back().second = l;
    else free_runs.emplace_back(l, l);
  }
  for (const Claim* c : moved) {
    auto run = free_runs.begin();
    std::uint32_t lid = 0;
    for (; run != free_runs.end(); ++run) {
      lid = run->first;
      if (c->size > 1 && lid % c->size != 0) lid = (lid + c->size) & ~(c->size - 1);
      if (lid + c->size - 1 <= run->second) break;
    }
    if (run == free_runs.end()) fail("opensm: {} has more ports than unicast LIDs", file.source);
    if (lid + c->size - 1 == run->second) free_runs.erase(run);
    else run->first = lid + c->size;
    s.nodes[c->port.node].ports[c->port.port].lid = lid;
  }
  s.index_lids();
  return s;
}

std::optional<ib::PortRef> opensm_sm_port(const ib::Subnet& s, std::uint64_t guid) {
  auto cabled = [&](std::uint32_t n, std::uint32_t p) { return p < s.nodes[n].ports.size() && s.nodes[n].ports[p].peer_node != ib::kNoNode; };
  auto first_cabled = [&](std::uint32_t n) -> std::optional<ib::PortRef> {
    if (s.nodes[n].is_switch()) return ib::PortRef{n, 0};
    for (std::uint32_t p = 1; p < s.nodes[n].ports.size(); ++p)
      if (cabled(n, p)) return ib::PortRef{n, static_cast<std::uint8_t>(p)};
    return std::nullopt;
  };
  // The CA (or switch) a GUID names and the port it names, if any: a port's GUID exactly,
  // else a node's, else, where a port list keys a CA by its port GUID, the node GUID Mellanox
  // adapters derive from it (port GUID - port number).
  auto named = [&](std::uint64_t g) -> std::optional<std::pair<std::uint32_t, std::uint32_t>> {
    for (std::uint32_t n = 0; n < s.nodes.size(); ++n)
      for (std::uint32_t p = 1; p < s.nodes[n].ports.size(); ++p)
        if (!s.nodes[n].is_switch() && s.nodes[n].ports[p].guid == g) return std::pair{n, p};
    if (const std::uint32_t n = s.node_of_guid(g); n != ib::kNoNode) return std::pair{n, 0u};
    for (std::uint32_t n = 0; n < s.nodes.size(); ++n)
      for (std::uint32_t p = 1; p < s.nodes[n].ports.size(); ++p)
        if (!s.nodes[n].is_switch() && s.nodes[n].ports[p].guid != 0 && s.nodes[n].ports[p].guid - p == g) return std::pair{n, 0u};
    return std::nullopt;
  };
  if (guid != 0) {
    if (const auto at = named(guid)) {
      if (at->second != 0 && cabled(at->first, at->second)) return ib::PortRef{at->first, static_cast<std::uint8_t>(at->second)};
      if (at->second == 0)
        if (auto p = first_cabled(at->first)) return p;
    }
    fail("opensm: sm=0x{:016x}: {} has no cabled port or node with this GUID", guid, s.source);
  }
  // By default on the CA that ran the discovery: its port 1 (where a subnet manager binds by
  // default, and ibsim attaches it), else its first cabled port.
  if (s.discovering_port != 0)
    if (const auto at = named(s.discovering_port); at && !s.nodes[at->first].is_switch()) {
      if (cabled(at->first, 1)) return ib::PortRef{at->first, 1};
      if (auto p = first_cabled(at->first)) return p;
    }
  std::optional<std::uint32_t> lowest_ca, lowest_switch;
  for (std::uint32_t n = 0; n < s.nodes.size(); ++n) {
    auto& lowest = s.nodes[n].is_switch() ? lowest_switch : lowest_ca;
    if (s.nodes[n].is_switch() || cabled(n, 1)) {
      if (!lowest || s.nodes[n].guid < s.nodes[*lowest].guid) lowest = n;
    }
  }
  if (lowest_ca) return ib::PortRef{*lowest_ca, 1};
  if (lowest_switch) return ib::PortRef{*lowest_switch, 0};
  return std::nullopt;
}

ForwardingTables compute_opensm_tables(const ib::Subnet& file_subnet, const OpenSmOptions& options) {
  auto with_lids =
      std::make_shared<const ib::Subnet>(opensm_lids(file_subnet, options.lmc, opensm_sm_port(file_subnet, options.sm_guid)));
  ForwardingTables tables = engine_tables(*with_lids, options);
  tables.subnet = std::move(with_lids);
  return tables;
}

namespace {

ForwardingTables engine_tables(const ib::Subnet& subnet, const OpenSmOptions& options) {
  const OsmView v(subnet);
  const std::string_view name = opensm_engine_name(options.engine);
  if (v.count() == 0) fail("opensm:{}: {} has no switch: nothing to route", name, subnet.source);
  switch (options.engine) {
    case OpenSmEngine::MinHop: return tables_by_least_used_port(v, minhop_hops(v));
    case OpenSmEngine::UpDn: {
      std::vector<bool> root(v.count(), false);
      if (options.roots.empty()) {
        root = automatic_roots(v, minhop_hops(v));
      } else {
        for (std::uint32_t s = 0; s < v.count(); ++s) {
          root[s] = std::find(options.roots.begin(), options.roots.end(), v.sw(s).guid) != options.roots.end();
        }
      }
      if (std::none_of(root.begin(), root.end(), [](bool r) { return r; })) {
        fail("opensm:updn: no root switch ({}): OpenSM disables updn and routes with minhop instead; give the roots "
             "(roots=FILE) or use opensm:minhop",
             options.roots.empty() ? "none has more than 90% of the CAs at one distance and at most 5% at any other"
                                   : "no GUID of the roots file is a switch");
      }
      return tables_by_least_used_port(v, turn_restricted_hops(v, ranks_from(v, root), true));
    }
    case OpenSmEngine::DnUp: {
      std::vector<bool> leaf(v.count(), false);
      for (std::uint32_t s = 0; s < v.count(); ++s) {
        for (std::uint32_t p = 0; p < v.ports(s); ++p) leaf[s] = leaf[s] || v.to_end_port(s, p);
      }
      if (std::none_of(leaf.begin(), leaf.end(), [](bool l) { return l; })) {
        fail("opensm:dnup: no switch has a CA: OpenSM's dnup fails and routes with minhop instead");
      }
      return tables_by_least_used_port(v, turn_restricted_hops(v, ranks_from(v, leaf), false));
    }
    case OpenSmEngine::Dfsssp: return dfsssp_tables(v);
    case OpenSmEngine::FatTree: return detail::fat_tree_tables(v, options.roots);
  }
  fail("opensm: unknown engine");
}

}  // namespace

std::vector<std::uint64_t> read_root_guids(const std::string& path) {
  io::LineCursor cur(path, io::read_text_file(path));
  std::vector<std::uint64_t> guids;
  while (auto line = cur.next_content_line("#")) {
    const auto fields = io::split_fields(*line);
    // "0x0008f105001086a2", or as ibnetdiscover names switches, "S-0008f105001086a2".
    const auto guid = guid_value(fields[0]);
    if (!guid) cur.fail_here(fmt::format("'{}' is not a GUID (hex digits, after 0x, S- or H- or alone)", io::printable(fields[0])));
    guids.push_back(*guid);
  }
  if (guids.empty()) fail("{}: no GUID in it", path);
  return guids;
}

}  // namespace taskmap
