#include "taskmap/topology/distance.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <random>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
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

// Rows are kept up to a budget (an eighth of the memory limit, at most 1 GiB), then all are
// dropped and computed again as needed: memory stays bounded on fabrics of many routers.
// Where every row fits the budget none is ever dropped, so a row once computed is published
// and read without the lock (searches that run at once look distances up millions of times),
// and a missing one is built outside the lock.
// A router hung on one other by a single cable each way (a fabric's host on its switch) is
// one hop from it and reached only through it, so its distances are its switch's plus one:
// rows are needed only for the switches (on a tree of 10,000 hosts, a few hundred rows, not
// 10,000 of 40 KB each).
struct HopDistance::GraphCache {
  explicit GraphCache(const Machine& m)
      : adjacency(m, false),
        rows(m.num_routers),
        max_rows(std::max<std::uint64_t>(1, std::min<std::uint64_t>(memory_limit() / 8, std::uint64_t{1} << 30) /
                                                (std::uint64_t{4} * m.num_routers))) {
    if (max_rows >= m.num_routers) published = std::make_unique<std::atomic<const std::uint32_t*>[]>(m.num_routers);
    const ChannelAdjacency in(m, true);
    attached.resize(m.num_routers);
    for (RouterId r = 0; r < m.num_routers; ++r) {
      attached[r] = r;
      if (adjacency.offsets[r + 1] - adjacency.offsets[r] != 1 || in.offsets[r + 1] - in.offsets[r] != 1) continue;
      const RouterId to = m.channels[adjacency.channels[adjacency.offsets[r]]].dst;
      if (to != r && m.channels[in.channels[in.offsets[r]]].src == to) attached[r] = to;
    }
    // Two routers joined only to each other: one stands for the other, not both (the second
    // for the first, which stays itself).
    for (RouterId r = 0; r < m.num_routers; ++r) {
      if (attached[r] != r && attached[attached[r]] != attached[r]) attached[r] = r;
    }
  }
  ChannelAdjacency adjacency;
  std::vector<RouterId> attached;  // the router one stands for (itself unless hung on one cable)
  std::vector<std::vector<std::uint32_t>> rows;
  std::uint64_t max_rows, kept = 0;
  // Only where every row fits: per row, null until computed.
  std::unique_ptr<std::atomic<const std::uint32_t*>[]> published;
  std::mutex mutex;

  std::vector<std::uint32_t> build(const Machine& m, RouterId a) const {
    std::vector<std::uint32_t> built(m.num_routers);
    std::vector<RouterId> queue(m.num_routers);
    bfs_row(m, adjacency, a, built, queue);
    return built;
  }
  std::uint32_t hops(const Machine& m, RouterId a, RouterId b) {
    if (published) {
      if (const std::uint32_t* row = published[a].load(std::memory_order_acquire)) return row[b];
      std::vector<std::uint32_t> built = build(m, a);  // two threads may build one row; the first kept stays
      std::lock_guard lock(mutex);
      auto& row = rows[a];
      if (row.empty()) {
        row = std::move(built);
        published[a].store(row.data(), std::memory_order_release);
      }
      return row[b];
    }
    std::lock_guard lock(mutex);
    auto& row = rows[a];
    if (row.empty()) {
      // Built aside and kept only when whole: a failed allocation leaves no row counted half made.
      std::vector<std::uint32_t> built = build(m, a);
      if (kept == max_rows) {
        for (auto& r : rows) std::vector<std::uint32_t>().swap(r);
        kept = 0;
      }
      row = std::move(built);
      ++kept;
    }
    return row[b];
  }
};

HopDistance::HopDistance(const Machine& machine) : machine_(machine) {
  if (machine.gpu_links) {  // rows of the network alone: its NICs hang on one cable each
    network_ = std::make_unique<Machine>(network_part(machine));
    graph_ = std::make_unique<GraphCache>(*network_);
    return;
  }
  // Graphs, fat-trees and fabrics read from files (whose switches are routers too) get
  // breadth-first rows.
  if (std::holds_alternative<GraphShape>(machine.shape) || std::holds_alternative<FatTreeShape>(machine.shape) ||
      std::holds_alternative<FabricShape>(machine.shape)) {
    graph_ = std::make_unique<GraphCache>(machine);
  }
}

std::uint32_t HopDistance::gpu_distance(RouterId a, RouterId b) const {
  const GpuNodeLinks& l = *machine_.gpu_links;
  if (l.node_of_router[a] != kNoNode && l.node_of_router[a] == l.node_of_router[b]) {
    return l.nvlink_channel(a, b) != kNoChannel ? 1 : 2;
  }
  // Each end through the NICs it reaches the network by, and its hops to them: a GPU its own
  // (1 hop), a NIC or a switch itself, a node's CPUs or NVSwitches any NIC of the node (through
  // a GPU: 2 hops).
  auto visit_ends = [&](RouterId r, auto&& visit) -> std::uint32_t {
    if (l.is_gpu(r)) {
      for (std::uint32_t i = l.nic_first[r]; i < l.nic_first[r + 1]; ++i) visit(l.nic_router[i]);
      return 1;
    }
    if (l.node_of_router[r] == kNoNode || l.rail[r] != UINT32_MAX) {
      visit(r);
      return 0;
    }
    const GpuNodeLinks::Node& node = l.nodes[l.node_of_router[r]];
    for (RouterId x = node.first_nic; x < node.first_nic + node.nics; ++x) visit(x);
    return 2;
  };
  std::uint32_t best = UINT32_MAX;
  const std::uint32_t from_a = visit_ends(a, [&](RouterId x) {
    visit_ends(b, [&](RouterId y) {
      const RouterId from = graph_->attached[x], to = graph_->attached[y];
      const std::uint32_t hops = from == to ? 0 : graph_->hops(*network_, from, to);
      if (hops != UINT32_MAX) best = std::min(best, hops + (from != x) + (to != y));
    });
  });
  const std::uint32_t to_b = visit_ends(b, [](RouterId) {});
  if (best == UINT32_MAX) fail("{}: router {} cannot reach router {}", machine_.description, a, b);
  return best + from_a + to_b;
}
HopDistance::~HopDistance() = default;

std::size_t bfs_row(const Machine& machine, const ChannelAdjacency& adjacency, RouterId source,
                    std::vector<std::uint32_t>& row, std::vector<RouterId>& queue) {
  std::fill(row.begin(), row.end(), UINT32_MAX);
  row[source] = 0;
  std::size_t head = 0, tail = 0;
  queue[tail++] = source;
  while (head < tail) {
    const RouterId u = queue[head++];
    for (auto i = adjacency.offsets[u]; i < adjacency.offsets[u + 1]; ++i) {
      const RouterId v = machine.channels[adjacency.channels[i]].dst;
      if (row[v] == UINT32_MAX) row[v] = row[u] + 1, queue[tail++] = v;
    }
  }
  return tail;
}

namespace {

std::uint32_t torus_distance(const TorusShape& s, RouterId a, RouterId b) {
  std::uint32_t total = 0;
  for (std::size_t d = s.dims(); d-- > 0;) {  // the last dimension varies fastest
    const std::uint32_t k = s.sizes[d], ca = a % k, cb = b % k;
    a /= k, b /= k;
    const std::uint32_t diff = ca > cb ? ca - cb : cb - ca;
    total += s.wrap[d] ? std::min(diff, k - diff) : diff;
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
  if (const auto* h = std::get_if<HierShape>(&machine_.shape)) return h->distance(a, b);
  if (a == b) return 0;
  if (network_) return gpu_distance(a, b);
  GraphCache& cache = *graph_;
  const RouterId from = cache.attached[a], to = cache.attached[b];
  const std::uint32_t hops = from == to ? 0 : cache.hops(machine_, from, to);
  if (hops == UINT32_MAX) fail("{}: router {} cannot reach router {}", machine_.description, a, b);
  return hops + (from != a) + (to != b);
}

namespace {

// Sums of distances over ordered pairs; divided by the pairs at the end.
struct DistanceSum {
  long double total = 0;
  std::uint32_t diameter = 0;
  void add(std::uint64_t distance, long double pairs) {
    if (pairs <= 0) return;
    total += static_cast<long double>(distance) * pairs;
    diameter = std::max(diameter, static_cast<std::uint32_t>(distance));
  }
  TopologyStats stats(std::uint64_t routers) const {
    TopologyStats s;
    s.diameter = s.diameter_upper = diameter;
    s.avg_distance = static_cast<double>(total / (static_cast<long double>(routers) * static_cast<long double>(routers - 1)));
    return s;
  }
};

TopologyStats torus_stats(const TorusShape& t, std::uint64_t routers) {
  // Dimensions are independent: sum per-dimension means over all ordered pairs (self included),
  // then rescale to distinct pairs.
  TopologyStats stats;
  double sum_all_pairs_mean = 0;
  for (std::size_t d = 0; d < t.dims(); ++d) {
    std::uint64_t k = t.sizes[d], sum = 0, max = 0;
    for (std::uint64_t diff = 0; diff < k; ++diff) {
      // Ordered pairs at offset diff: k per offset on a ring; on a line k for diff = 0, else 2(k - diff).
      std::uint64_t dist = t.wrap[d] ? std::min(diff, k - diff) : diff;
      std::uint64_t pairs = t.wrap[d] ? k : (diff == 0 ? k : 2 * (k - diff));
      sum += dist * pairs;
      max = std::max(max, dist);
    }
    sum_all_pairs_mean += static_cast<double>(sum) / static_cast<double>(k * k);
    stats.diameter += static_cast<std::uint32_t>(max);
  }
  stats.diameter_upper = stats.diameter;
  stats.avg_distance = sum_all_pairs_mean * static_cast<double>(routers) / static_cast<double>(routers - 1);
  return stats;
}

// Local-global-local: whatever the wiring, of the a x a router pairs of two groups one pair
// holds the cable (distance 1 + the local hops at each end), so a^2 + 2a(a-1) in all.
TopologyStats dragonfly_stats(const DragonflyShape& s) {
  const long double a = s.a, g = s.g;
  DistanceSum sum;
  sum.add(1, g * a * (a - 1));
  sum.total += g * (g - 1) * (a * a + 2 * a * (a - 1));
  if (s.g > 1) sum.diameter = std::max(sum.diameter, s.a > 1 ? 3u : 1u);
  return sum.stats(std::uint64_t{s.g} * s.a);
}

// Between two supernodes, the nd D links leave distinct nodes P_j and land on distinct nodes
// Q_j: the pairs (P_j, Q_j) are 1 hop apart, the other pairs with an end among them 2, the rest 3.
TopologyStats percs_stats(const PercsShape& s) {
  const long double nodes = PercsShape::kNodes, nd = s.nd, ns = s.ns;
  const long double one = nd, within_two = 2 * nodes * nd - nd * nd;
  DistanceSum sum;
  sum.add(1, ns * nodes * (nodes - 1));
  const long double pairs = ns * (ns - 1);
  sum.add(1, pairs * one);
  sum.add(2, pairs * (within_two - one));
  sum.add(3, pairs * (nodes * nodes - within_two));
  return sum.stats(std::uint64_t{s.ns} * PercsShape::kNodes);
}

// RT and RTT are vertex-transitive (the distance depends on the offset only): one row is all.
TopologyStats rect_stats(const RectTorusShape& s) {
  const std::int64_t a = s.a, w = 2 * a, bx = s.twisted ? a : 0;
  DistanceSum sum;
  for (std::int64_t y = 0; y < a; ++y) {
    for (std::int64_t x = 0; x < w; ++x) {
      std::int64_t best = INT64_MAX;  // the smallest |offset + lattice vector|, as in rect_minimal_records
      for (std::int64_t i = -2; i <= 2; ++i)
        for (std::int64_t j = -2; j <= 2; ++j) best = std::min<std::int64_t>(best, std::llabs(x + i * w + j * bx) + std::llabs(y + j * a));
      sum.add(static_cast<std::uint64_t>(best), static_cast<long double>(w * a));
    }
  }
  return sum.stats(static_cast<std::uint64_t>(w * a));
}

// k-ary n-tree: a link between levels j and j+1 changes label digit j (digit 0: the host's own;
// switches have digits 1 .. n-1). Two routers at levels l1, l2 whose labels differ in digits
// lo_d .. hi_d (at the ends) are as far apart as the shortest level walk from l1 to l2 that
// covers levels min(l1, l2, lo_d) .. max(l1, l2, hi_d + 1); label counts per (lo_d, hi_d) follow.
TopologyStats fat_tree_stats(const FatTreeShape& s) {
  const std::uint32_t n = s.n;
  const long double k = s.k;
  auto power = [&](std::int64_t e) { return std::pow(k, static_cast<long double>(e)); };
  auto walk = [](std::int64_t l1, std::int64_t l2, std::int64_t lo, std::int64_t hi) {
    lo = std::min({lo, l1, l2}), hi = std::max({hi, l1, l2});
    return static_cast<std::uint64_t>((hi - lo) + std::min((l1 - lo) + (hi - l2), (hi - l1) + (l2 - lo)));
  };
  DistanceSum sum;
  for (std::uint32_t l1 = 0; l1 <= n; ++l1) {
    const long double sources = l1 == 0 ? static_cast<long double>(s.hosts) : static_cast<long double>(s.per_level);
    for (std::uint32_t l2 = 0; l2 <= n; ++l2) {
      // A host target has a free digit 0 unless the source is a host too (then digit 0 counts).
      const std::int64_t first = (l1 == 0 && l2 == 0) ? 0 : 1;
      const long double free = (l2 == 0 && l1 != 0) ? k : 1;
      if (l1 != l2) sum.add(walk(l1, l2, l1, l2), sources * free);
      for (std::int64_t lo = first; lo < n; ++lo) {
        for (std::int64_t hi = lo; hi < n; ++hi) {
          const long double labels = lo == hi ? k - 1 : (k - 1) * (k - 1) * power(hi - lo - 1);
          sum.add(walk(l1, l2, lo, hi + 1), sources * free * labels);
        }
      }
    }
  }
  return sum.stats(s.hosts + std::uint64_t{n} * s.per_level);
}

// Between the slots of a hierarchy: a slot has span[l] - span[l-1] others whose lowest common
// group with it is of level l, each dist[l-1] away.
TopologyStats hier_stats(const HierShape& s) {
  const std::uint64_t slots = s.span[s.levels()];
  DistanceSum sum;
  for (std::uint32_t l = 1; l <= s.levels(); ++l) {
    sum.add(s.dist[l - 1], static_cast<long double>(slots) * static_cast<long double>(s.span[l] - s.span[l - 1]));
  }
  return sum.stats(slots);
}

// Graphs and fabrics: every row when that is cheap, else rows from a uniform sample of routers.
TopologyStats graph_stats(const Machine& machine, std::uint64_t exact_work) {
  const std::uint64_t n = machine.num_routers;
  const ChannelAdjacency adjacency(machine, false);
  std::vector<std::uint32_t> row(n);
  std::vector<RouterId> queue(n);
  const std::uint64_t per_row = n + machine.channels.size();
  auto eccentricity_and_sum = [&](RouterId a) {
    if (bfs_row(machine, adjacency, a, row, queue) != n) {
      fail("{}: router {} cannot reach every router", machine.description, a);
    }
    std::uint64_t sum = 0;
    std::uint32_t ecc = 0;
    for (std::uint32_t d : row) sum += d, ecc = std::max(ecc, d);
    return std::pair{ecc, sum};
  };
  TopologyStats stats;
  if (n * per_row <= exact_work) {
    long double sum = 0;
    for (RouterId a = 0; a < n; ++a) {
      auto [ecc, row_sum] = eccentricity_and_sum(a);
      sum += row_sum, stats.diameter = std::max(stats.diameter, ecc);
    }
    stats.diameter_upper = stats.diameter;
    stats.avg_distance = static_cast<double>(sum / static_cast<long double>(n * (n - 1)));
    return stats;
  }
  // Sources drawn without replacement (a partial Fisher-Yates shuffle with a fixed seed). Each
  // row's mean is one observation of the average; the error bound is the normal 99% interval
  // of their mean, with the finite-population correction.
  const std::uint64_t samples = std::clamp<std::uint64_t>(exact_work / per_row, std::min<std::uint64_t>(64, n), n);
  std::vector<RouterId> order(n);
  for (RouterId r = 0; r < n; ++r) order[r] = r;
  std::mt19937_64 rng(0x7a5c3a9);
  long double mean_sum = 0, square_sum = 0;
  std::uint32_t smallest_ecc = UINT32_MAX;
  RouterId farthest = 0;
  for (std::uint64_t i = 0; i < samples; ++i) {
    std::swap(order[i], order[i + rng() % (n - i)]);
    auto [ecc, row_sum] = eccentricity_and_sum(order[i]);
    const long double mean = static_cast<long double>(row_sum) / static_cast<long double>(n - 1);
    mean_sum += mean, square_sum += mean * mean;
    if (ecc > stats.diameter) {
      stats.diameter = ecc;
      farthest = static_cast<RouterId>(std::max_element(row.begin(), row.end()) - row.begin());
    }
    smallest_ecc = std::min(smallest_ecc, ecc);
  }
  // One more search from the farthest router found often reaches the true diameter.
  stats.diameter = std::max(stats.diameter, eccentricity_and_sum(farthest).first);
  const long double s = static_cast<long double>(samples);
  const long double mean = mean_sum / s;
  const long double variance = std::max<long double>(0, (square_sum - s * mean * mean) / std::max<long double>(1, s - 1));
  const long double correction = 1 - s / static_cast<long double>(n);
  stats.avg_distance = static_cast<double>(mean);
  stats.avg_error = static_cast<double>(2.576 * std::sqrt(variance / s * correction));
  stats.diameter_upper = std::max(stats.diameter, 2 * smallest_ecc);
  stats.estimated = samples < n;
  stats.sources = static_cast<std::uint32_t>(samples);
  return stats;
}

}  // namespace

TopologyStats topology_stats(const Machine& machine, std::uint64_t exact_work) {
  if (machine.num_routers < 2) return {};
  if (const auto* t = std::get_if<TorusShape>(&machine.shape)) return torus_stats(*t, machine.num_routers);
  if (const auto* d = std::get_if<DragonflyShape>(&machine.shape)) return dragonfly_stats(*d);
  if (const auto* p = std::get_if<PercsShape>(&machine.shape)) return percs_stats(*p);
  if (const auto* r = std::get_if<RectTorusShape>(&machine.shape)) return rect_stats(*r);
  if (const auto* f = std::get_if<FatTreeShape>(&machine.shape)) return fat_tree_stats(*f);
  if (const auto* h = std::get_if<HierShape>(&machine.shape)) return h->span[h->levels()] < 2 ? TopologyStats{} : hier_stats(*h);
  return graph_stats(machine, exact_work);
}

}  // namespace taskmap

