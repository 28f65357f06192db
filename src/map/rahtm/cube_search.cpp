// An exact search for the cube sub-problem: the placement with the least even-split MCL, by
// branch and bound over one placement per orbit of the cube's symmetries.
#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "cube_model.h"
#include "taskmap/map/rahtm/cube.h"

namespace taskmap {
namespace {

using rahtm::CubeFlow;

// Below incumbent x (1 - kGap) counts as better: the search is exact to this relative gap.
constexpr double kGap = 1e-9;

class CubeSearch {
 public:
  CubeSearch(const CubeProblem& p, std::uint64_t max_nodes)
      : p_(p), n_(p.size()), m_(p.dims), max_nodes_(max_nodes), flows_(rahtm::cube_flows(p)) {
    // Per pair of corners, the channels of the even split with the share each carries
    // (over its capacity), in channel order.
    pattern_.resize(std::size_t(n_) * n_);
    std::vector<double> load(std::size_t(n_) * m_);
    for (std::uint32_t s = 0; s < n_; ++s)
      for (std::uint32_t t = 0; t < n_; ++t) {
        if (s == t) continue;
        std::fill(load.begin(), load.end(), 0.0);
        rahtm::add_even_split(p_, s, t, 1.0, load);
        for (std::uint32_t e = 0; e < load.size(); ++e)
          if (load[e] > 0) pattern_[std::size_t(s) * n_ + t].push_back({e, load[e]});
      }
    neighbours_.resize(n_);
    for (const CubeFlow& f : flows_) {
      neighbours_[f.src].push_back({f.dst, f.volume, true});
      neighbours_[f.dst].push_back({f.src, f.volume, false});
    }
  }

  // Searches from the incumbent `start`; returns whether the search finished.
  bool run(const std::vector<std::uint32_t>& start, double start_mcl) {
    best_ = start;
    best_mcl_ = start_mcl;
    if (flows_.empty() || n_ <= 2 || best_mcl_ <= lower_bound() * (1 + kGap)) return true;
    order_clusters();
    corner_of_.assign(n_, kFree);
    cluster_at_.assign(n_, kFree);
    loads_.assign(n_ + 1, std::vector<double>(std::size_t(n_) * m_, 0.0));
    delta_.assign(std::size_t(n_) * m_, 0.0);
    history_.assign(n_ + 1, std::vector<std::uint64_t>(m_, 0));
    // Dimensions of equal capacity start in one class: their history starts equal.
    std::vector<double> caps = p_.capacity;
    std::sort(caps.begin(), caps.end());
    for (std::uint32_t d = 0; d < m_; ++d)
      history_[0][d] = static_cast<std::uint64_t>(std::lower_bound(caps.begin(), caps.end(), p_.capacity[d]) - caps.begin());
    aborted_ = false;
    descend(0, 0.0);
    return !aborted_;
  }

  const std::vector<std::uint32_t>& best() const { return best_; }
  double best_mcl() const { return best_mcl_; }
  std::uint64_t nodes() const { return nodes_; }

 private:
  static constexpr std::uint32_t kFree = UINT32_MAX;
  struct Share {
    std::uint32_t channel;
    double load;
  };
  struct Neighbour {
    std::uint32_t other;
    double volume;
    bool outgoing;
  };

  // Every flow leaves its source through one of the source's channels and enters its
  // destination through one of the destination's: a cluster's outgoing (incoming) volume
  // spread over the capacities of a corner's m channels bounds the MCL of any placement.
  double lower_bound() const {
    std::vector<double> out(n_, 0.0), in(n_, 0.0);
    for (const CubeFlow& f : flows_) out[f.src] += f.volume, in[f.dst] += f.volume;
    const double capacity = std::accumulate(p_.capacity.begin(), p_.capacity.end(), 0.0);
    double bound = 0;
    for (std::uint32_t a = 0; a < n_; ++a) bound = std::max({bound, out[a] / capacity, in[a] / capacity});
    return bound;
  }

  // The busiest cluster first, then always the one with the most traffic to those placed
  // (ties: more traffic in all, then the lower index), so flows enter the bound early.
  void order_clusters() {
    std::vector<double> total(n_, 0.0), to_placed(n_, 0.0);
    for (const CubeFlow& f : flows_) total[f.src] += f.volume, total[f.dst] += f.volume;
    std::vector<bool> placed(n_, false);
    order_.clear();
    for (std::uint32_t i = 0; i < n_; ++i) {
      std::uint32_t next = kFree;
      for (std::uint32_t a = 0; a < n_; ++a) {
        if (placed[a]) continue;
        if (next == kFree || to_placed[a] > to_placed[next] ||
            (to_placed[a] == to_placed[next] && total[a] > total[next])) {
          next = a;
        }
      }
      placed[next] = true;
      order_.push_back(next);
      for (const Neighbour& nb : neighbours_[next]) to_placed[nb.other] += nb.volume;
    }
  }

  // A corner is tried only if it is the first of its orbit under the permutations of
  // dimensions that fix every corner placed so far and keep capacities: dimensions with the
  // same capacity and the same coordinates in all placed corners (the same history) are
  // interchangeable, and among them the corner's ones must come first.
  bool canonical_corner(std::uint32_t depth, std::uint32_t v) const {
    const auto& h = history_[depth];
    for (std::uint32_t d = 0; d < m_; ++d)
      for (std::uint32_t e = d + 1; e < m_; ++e)
        if (h[d] == h[e] && (v >> d & 1) < (v >> e & 1)) return false;
    return true;
  }

  // Whether every cluster still to place has a free corner where its flows with the placed
  // clusters keep the loads below the bound (else no completion can beat the incumbent).
  bool every_cluster_fits(std::uint32_t depth) {
    const std::vector<double>& load = loads_[depth];
    const double bound = best_mcl_ * (1 - kGap);
    for (std::uint32_t i = depth; i < n_; ++i) {
      const std::uint32_t c = order_[i];
      bool fits = false, linked = false;
      for (std::uint32_t w = 0; w < n_ && !fits; ++w) {
        if (cluster_at_[w] != kFree) continue;
        fits = true;
        for (const Neighbour& nb : neighbours_[c]) {
          const std::uint32_t u = corner_of_[nb.other];
          if (u == kFree) continue;
          linked = true;
          const auto& shares = nb.outgoing ? pattern_[std::size_t(w) * n_ + u] : pattern_[std::size_t(u) * n_ + w];
          for (const Share& s : shares) {
            if (delta_[s.channel] == 0) touched_.push_back(s.channel);
            delta_[s.channel] += nb.volume * s.load;
            if (load[s.channel] + delta_[s.channel] >= bound) fits = false;
          }
        }
        for (std::uint32_t ch : touched_) delta_[ch] = 0;
        touched_.clear();
        if (!linked) break;  // no flow with the placed clusters: it fits anywhere
      }
      if (!fits && linked) return false;
    }
    return true;
  }

  void descend(std::uint32_t depth, double mcl) {
    if (depth == n_) {
      best_mcl_ = mcl;
      for (std::uint32_t a = 0; a < n_; ++a) best_[a] = corner_of_[a];
      return;
    }
    if (depth > 0 && !every_cluster_fits(depth)) return;
    const std::uint32_t a = order_[depth];
    struct Child {
      double mcl;
      std::uint32_t corner;
    };
    std::vector<Child> children;
    const std::vector<double>& load = loads_[depth];
    std::vector<double>& next = loads_[depth + 1];
    for (std::uint32_t v = 0; v < n_; ++v) {
      if (cluster_at_[v] != kFree || !canonical_corner(depth, v)) continue;
      if (++nodes_ > max_nodes_) {
        aborted_ = true;
        return;
      }
      const double child = place_loads(a, v, load, next, mcl);
      if (child < best_mcl_ * (1 - kGap)) children.push_back({child, v});
      if (depth == 0) break;  // the cube is vertex-transitive: the first cluster on corner 0
    }
    std::sort(children.begin(), children.end(),
              [](const Child& x, const Child& y) { return x.mcl != y.mcl ? x.mcl < y.mcl : x.corner < y.corner; });
    for (const Child& c : children) {
      if (aborted_) return;
      if (c.mcl >= best_mcl_ * (1 - kGap)) break;  // the incumbent improved meanwhile
      place_loads(a, c.corner, load, next, mcl);
      corner_of_[a] = c.corner;
      cluster_at_[c.corner] = a;
      for (std::uint32_t d = 0; d < m_; ++d) history_[depth + 1][d] = history_[depth][d] << 1 | (c.corner >> d & 1);
      descend(depth + 1, c.mcl);
      corner_of_[a] = kFree;
      cluster_at_[c.corner] = kFree;
    }
  }

  // `next` = `load` plus the flows between cluster a at corner v and the placed clusters;
  // returns its maximum (at least `mcl`, the maximum of `load`).
  double place_loads(std::uint32_t a, std::uint32_t v, const std::vector<double>& load, std::vector<double>& next,
                     double mcl) const {
    next = load;
    for (const Neighbour& nb : neighbours_[a]) {
      const std::uint32_t w = corner_of_[nb.other];
      if (w == kFree) continue;
      const auto& shares = nb.outgoing ? pattern_[std::size_t(v) * n_ + w] : pattern_[std::size_t(w) * n_ + v];
      for (const Share& s : shares) {
        next[s.channel] += nb.volume * s.load;
        mcl = std::max(mcl, next[s.channel]);
      }
    }
    return mcl;
  }

  const CubeProblem& p_;
  const std::uint32_t n_, m_;
  const std::uint64_t max_nodes_;
  const std::vector<CubeFlow> flows_;
  std::vector<std::vector<Share>> pattern_;
  std::vector<std::vector<Neighbour>> neighbours_;
  std::vector<std::uint32_t> order_, corner_of_, cluster_at_;
  std::vector<std::vector<double>> loads_;          // per depth: channel loads of the placed clusters
  std::vector<double> delta_;                       // every_cluster_fits' scratch, zero between uses
  std::vector<std::uint32_t> touched_;
  std::vector<std::vector<std::uint64_t>> history_;  // per depth and dimension: capacity class, then coordinates
  std::vector<std::uint32_t> best_;
  double best_mcl_ = 0;
  std::uint64_t nodes_ = 0;
  bool aborted_ = false;
};

}  // namespace

CubeSolution solve_cube_exact(const CubeProblem& p, const std::vector<std::uint32_t>& start, std::uint64_t max_nodes,
                              CubeSearchStats* stats) {
  CubeSearch search(p, max_nodes);
  const double start_mcl = cube_even_split_mcl(p, start);
  const bool finished = search.run(start, start_mcl);
  CubeSolution s;
  s.vertex_of = search.best();
  // A start the search could not beat is kept as it is (the caller's choice among equals).
  s.model_mcl = search.best_mcl() < start_mcl ? cube_swap_descent(p, s.vertex_of) : start_mcl;
  s.optimal = finished;
  if (stats) stats->nodes = search.nodes();
  return s;
}

}  // namespace taskmap
