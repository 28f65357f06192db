#include "coarsening.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "taskmap/map/mapper_support.h"

namespace taskmap::detail {

LevelGraph finest_level(const CommGraph& graph) {
  LevelGraph level;
  level.graph = undirected_graph(graph);
  level.tasks.assign(graph.num_tasks(), 1);
  return level;
}

std::vector<std::uint32_t> cluster_vertices(const LevelGraph& level, const ClusteringOptions& options,
                                            std::uint32_t& clusters, std::uint64_t& work) {
  const UndirectedGraph& g = level.graph;
  const std::uint32_t n = level.vertices();
  const std::vector<std::uint32_t>* block = options.block;
  constexpr std::uint32_t kNone = UINT32_MAX;
  std::vector<std::uint32_t> cluster(n);
  std::iota(cluster.begin(), cluster.end(), 0u);
  std::vector<std::uint64_t> weight(level.tasks.begin(), level.tasks.end());
  std::vector<std::uint32_t> members(n, 1);
  std::vector<std::uint32_t> favorite(n, kNone);  // the best-rated other cluster, whatever its weight
  std::vector<double> rating(n, 0.0);
  std::vector<std::uint32_t> touched;
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 rng(options.seed);
  for (std::uint32_t round = 0; round < options.rounds; ++round) {
    seeded_shuffle(order, options.seed * 0x9E3779B97F4A7C15ull + round);
    std::uint32_t moved = 0;
    for (const std::uint32_t v : order) {
      const std::uint32_t own = cluster[v];
      for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
        const std::uint32_t u = g.targets[e];
        if (block && (*block)[u] != (*block)[v]) continue;
        const std::uint32_t c = cluster[u];
        if (rating[c] == 0) touched.push_back(c);
        rating[c] += g.weights[e];
      }
      work += g.offsets[v + 1] - g.offsets[v];
      std::uint32_t best = own, ties = 1, fav = kNone;
      double best_rating = rating[own], fav_rating = 0;
      for (const std::uint32_t c : touched) {
        if (c == own) continue;
        if (rating[c] > fav_rating) fav = c, fav_rating = rating[c];
        if (weight[c] + level.tasks[v] > options.max_cluster_tasks) continue;
        if (rating[c] > best_rating) {
          best = c, best_rating = rating[c], ties = 1;
        } else if (rating[c] == best_rating && rng() % ++ties == 0) {  // a uniform choice among equals
          best = c;
        }
      }
      for (const std::uint32_t c : touched) rating[c] = 0;
      rating[own] = 0;
      touched.clear();
      favorite[v] = fav;
      if (best == own) continue;
      weight[own] -= level.tasks[v], --members[own];
      weight[best] += level.tasks[v], ++members[best];
      cluster[v] = best;
      ++moved;
    }
    if (moved <= n / 100) break;
  }
  // Two-hop clustering: a vertex still alone joins another lone vertex that favours the same
  // (full) cluster; both are then neighbours of that cluster, often leaves of one hub.
  std::vector<std::uint32_t> open(n, kNone);  // favoured cluster -> the lone vertices' cluster being filled
  for (std::uint32_t v = 0; v < n; ++v) {
    const std::uint32_t f = favorite[v], own = cluster[v];
    if (members[own] != 1 || f == kNone) continue;
    const std::uint32_t target = open[f];
    if (target != kNone && weight[target] + level.tasks[v] <= options.max_cluster_tasks) {
      weight[own] -= level.tasks[v], --members[own];
      weight[target] += level.tasks[v], ++members[target];
      cluster[v] = target;
    } else {
      open[f] = own;
    }
  }
  std::vector<std::uint32_t> id(n, kNone);
  clusters = 0;
  for (std::uint32_t v = 0; v < n; ++v) {
    std::uint32_t& c = id[cluster[v]];
    if (c == kNone) c = clusters++;
    cluster[v] = c;
  }
  return cluster;
}

std::vector<std::uint32_t> pair_within_blocks(const LevelGraph& level, const std::vector<std::uint32_t>& block,
                                              std::uint32_t max_cluster_tasks, std::uint32_t& clusters,
                                              std::uint64_t& work) {
  constexpr std::uint32_t kNone = UINT32_MAX;
  const UndirectedGraph& g = level.graph;
  const std::uint32_t n = level.vertices();
  std::vector<std::uint32_t> mate(n, kNone);
  std::uint32_t blocks = 0;
  for (std::uint32_t b : block) blocks = std::max(blocks, b + 1);
  std::vector<std::uint32_t> waiting(blocks, kNone);  // per block: a vertex no neighbour took
  for (std::uint32_t v = 0; v < n; ++v) {
    if (mate[v] != kNone) continue;
    std::uint32_t best = kNone;
    double heaviest = 0;
    for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      const std::uint32_t u = g.targets[e];
      if (u == v || mate[u] != kNone || block[u] != block[v] || level.tasks[u] + level.tasks[v] > max_cluster_tasks) continue;
      if (g.weights[e] > heaviest) best = u, heaviest = g.weights[e];
    }
    work += g.offsets[v + 1] - g.offsets[v];
    if (best == kNone) {
      std::uint32_t& w = waiting[block[v]];
      if (w != kNone && mate[w] == kNone && level.tasks[w] + level.tasks[v] <= max_cluster_tasks) {
        best = w, w = kNone;
      } else {
        w = v;
        continue;
      }
    }
    mate[v] = best, mate[best] = v;
  }
  std::vector<std::uint32_t> cluster(n, kNone);
  clusters = 0;
  for (std::uint32_t v = 0; v < n; ++v) {
    if (cluster[v] != kNone) continue;
    cluster[v] = clusters;
    if (mate[v] != kNone) cluster[mate[v]] = clusters;
    ++clusters;
  }
  return cluster;
}

LevelGraph contract(const LevelGraph& level, const std::vector<std::uint32_t>& cluster, std::uint32_t clusters,
                    std::uint64_t& work) {
  const UndirectedGraph& g = level.graph;
  const std::uint32_t n = level.vertices();
  std::vector<std::uint32_t> start(clusters + 1, 0), list(n);
  for (std::uint32_t v = 0; v < n; ++v) ++start[cluster[v] + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  {
    std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
    for (std::uint32_t v = 0; v < n; ++v) list[next[cluster[v]]++] = v;
  }
  LevelGraph coarse;
  coarse.tasks.assign(clusters, 0);
  std::vector<double> row(clusters, 0.0);
  std::vector<std::uint32_t> touched;
  for (std::uint32_t c = 0; c < clusters; ++c) {
    for (std::uint32_t i = start[c]; i < start[c + 1]; ++i) {
      const std::uint32_t v = list[i];
      coarse.tasks[c] += level.tasks[v];
      for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
        const std::uint32_t d = cluster[g.targets[e]];
        if (d == c) continue;
        if (row[d] == 0) touched.push_back(d);
        row[d] += g.weights[e];
      }
    }
    std::sort(touched.begin(), touched.end());
    for (const std::uint32_t d : touched) {
      coarse.graph.targets.push_back(d);
      coarse.graph.weights.push_back(row[d]);
      row[d] = 0;
    }
    touched.clear();
    coarse.graph.offsets.push_back(coarse.graph.targets.size());
  }
  work += g.offsets.back();
  return coarse;
}

}  // namespace taskmap::detail
