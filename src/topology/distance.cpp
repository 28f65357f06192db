#include "taskmap/topology/distance.h"

#include <algorithm>
#include <deque>
#include <mutex>

#include "taskmap/core/error.h"
#include "taskmap/topology/rect_torus_geometry.h"

namespace taskmap {

ChannelAdjacency::ChannelAdjacency(const Machine& m, bool reverse) {
  offsets.assign(m.num_routers + 1, 0);
  for (const Channel& c : m.channels) ++offsets[(reverse ? c.dst : c.src) + 1];
  for (std::size_t r = 0; r < m.num_routers; ++r) offsets[r + 1] += offsets[r];
  channels.resize(m.channels.size());
  std::vector<std::uint32_t> fill(offsets.begin(), offsets.end() - 1);
  for (ChannelId id = 0; id < m.channels.size(); ++id) {
    const Channel& c = m.channels[id];
    channels[fill[reverse ? c.dst : c.src]++] = id;
  }
}

struct HopDistance::GraphCache {
  explicit GraphCache(const Machine& m) : adjacency(m, false), rows(m.num_routers) {}
  ChannelAdjacency adjacency;
  std::vector<std::vector<std::uint32_t>> rows;
  std::mutex mutex;
};

HopDistance::HopDistance(const Machine& machine) : machine_(machine) {
  // Graphs, fat-trees and fabrics read from files (whose switches are routers too) get
  // breadth-first rows.
  if (std::holds_alternative<GraphShape>(machine.shape) || std::holds_alternative<FatTreeShape>(machine.shape) ||
      std::holds_alternative<FabricShape>(machine.shape)) {
    graph_ = std::make_unique<GraphCache>(machine);
  }
}
HopDistance::~HopDistance() = default;

namespace {

std::uint32_t torus_distance(const TorusShape& s, RouterId a, RouterId b) {
  std::uint32_t total = 0;
  for (std::size_t d = 0; d < s.dims(); ++d) {
    std::uint32_t ca = s.coord(a, d), cb = s.coord(b, d);
    std::uint32_t diff = ca > cb ? ca - cb : cb - ca;
    total += s.wrap[d] ? std::min(diff, s.sizes[d] - diff) : diff;
  }
  return total;
}

std::uint32_t dragonfly_distance(const DragonflyShape& s, RouterId a, RouterId b) {
  if (a == b) return 0;
  std::uint32_t ga = a / s.a, gb = b / s.a;
  if (ga == gb) return 1;
  std::uint32_t out = s.owner[ga * s.g + gb], in = s.owner[gb * s.g + ga];
  return (a % s.a != out) + 1 + (b % s.a != in);
}

std::uint32_t percs_distance(const PercsShape& s, RouterId a, RouterId b) {
  if (a == b) return 0;
  std::uint32_t sa = a / PercsShape::kNodes, sb = b / PercsShape::kNodes;
  std::uint32_t u = a % PercsShape::kNodes, v = b % PercsShape::kNodes;
  if (sa == sb) return 1;
  std::uint32_t best = 3;
  for (std::uint32_t j = 0; j < s.nd; ++j) {
    best = std::min<std::uint32_t>(best, (u != s.port_node(j, sb)) + 1 + (v != s.port_node(j, sa)));
  }
  return best;
}

std::uint32_t rect_distance(const RectTorusShape& s, RouterId a, RouterId b) {
  RectPoint pa = rect_point(s, a), pb = rect_point(s, b);
  RectRecord r = rect_minimal_records(s, std::int64_t(pb.x) - pa.x, std::int64_t(pb.y) - pa.y).front();
  return static_cast<std::uint32_t>(std::llabs(r.x) + std::llabs(r.y));
}

}  // namespace

std::uint32_t HopDistance::operator()(RouterId a, RouterId b) const {
  if (const auto* t = std::get_if<TorusShape>(&machine_.shape)) return torus_distance(*t, a, b);
  if (const auto* d = std::get_if<DragonflyShape>(&machine_.shape)) return dragonfly_distance(*d, a, b);
  if (const auto* p = std::get_if<PercsShape>(&machine_.shape)) return percs_distance(*p, a, b);
  if (const auto* r = std::get_if<RectTorusShape>(&machine_.shape)) return rect_distance(*r, a, b);
  std::lock_guard lock(graph_->mutex);
  auto& row = graph_->rows[a];
  if (row.empty()) {
    row.assign(machine_.num_routers, UINT32_MAX);
    std::deque<RouterId> queue{a};
    row[a] = 0;
    while (!queue.empty()) {
      RouterId u = queue.front();
      queue.pop_front();
      const auto& adj = graph_->adjacency;
      for (auto i = adj.offsets[u]; i < adj.offsets[u + 1]; ++i) {
        RouterId v = machine_.channels[adj.channels[i]].dst;
        if (row[v] == UINT32_MAX) {
          row[v] = row[u] + 1;
          queue.push_back(v);
        }
      }
    }
  }
  if (row[b] == UINT32_MAX) fail("{}: router {} cannot reach router {}", machine_.description, a, b);
  return row[b];
}

TopologyStats topology_stats(const Machine& machine) {
  TopologyStats stats;
  const std::uint64_t n = machine.num_routers;
  if (n < 2) return stats;
  if (const auto* t = std::get_if<TorusShape>(&machine.shape)) {
    // Dimensions are independent: sum per-dimension means over all ordered pairs (self included),
    // then rescale to distinct pairs.
    double sum_all_pairs_mean = 0;
    for (std::size_t d = 0; d < t->dims(); ++d) {
      std::uint64_t k = t->sizes[d], sum = 0, max = 0;
      for (std::uint64_t diff = 0; diff < k; ++diff) {
        // Ordered pairs at offset diff: k per offset on a ring; on a line k for diff = 0, else 2(k - diff).
        std::uint64_t dist = t->wrap[d] ? std::min(diff, k - diff) : diff;
        std::uint64_t pairs = t->wrap[d] ? k : (diff == 0 ? k : 2 * (k - diff));
        sum += dist * pairs;
        max = std::max(max, dist);
      }
      sum_all_pairs_mean += static_cast<double>(sum) / static_cast<double>(k * k);
      stats.diameter += static_cast<std::uint32_t>(max);
    }
    stats.avg_distance = sum_all_pairs_mean * static_cast<double>(n) / static_cast<double>(n - 1);
    return stats;
  }
  if (std::holds_alternative<GraphShape>(machine.shape) || std::holds_alternative<FatTreeShape>(machine.shape) ||
      std::holds_alternative<FabricShape>(machine.shape)) {
    // One breadth-first search per router, none kept: memory stays linear in the machine.
    const ChannelAdjacency adjacency(machine, false);
    std::vector<std::uint32_t> row(n);
    std::vector<RouterId> queue(n);
    long double sum = 0;
    for (RouterId a = 0; a < n; ++a) {
      std::fill(row.begin(), row.end(), UINT32_MAX);
      row[a] = 0;
      std::size_t head = 0, tail = 0;
      queue[tail++] = a;
      while (head < tail) {
        const RouterId u = queue[head++];
        for (auto i = adjacency.offsets[u]; i < adjacency.offsets[u + 1]; ++i) {
          const RouterId v = machine.channels[adjacency.channels[i]].dst;
          if (row[v] == UINT32_MAX) row[v] = row[u] + 1, queue[tail++] = v;
        }
      }
      if (tail != n) fail("{}: router {} cannot reach every router", machine.description, a);
      for (RouterId b = 0; b < n; ++b) sum += row[b], stats.diameter = std::max(stats.diameter, row[b]);
    }
    stats.avg_distance = static_cast<double>(sum / static_cast<long double>(n * (n - 1)));
    return stats;
  }
  HopDistance dist(machine);
  long double sum = 0;
  for (RouterId a = 0; a < n; ++a) {
    for (RouterId b = 0; b < n; ++b) {
      if (a == b) continue;
      std::uint32_t d = dist(a, b);
      sum += d;
      stats.diameter = std::max(stats.diameter, d);
    }
  }
  stats.avg_distance = static_cast<double>(sum / static_cast<long double>(n * (n - 1)));
  return stats;
}

}  // namespace taskmap

