// RAHTM's top-down sub-problem: clusters onto the corners of a 2-ary n-cube [RAHTM §III-C]:
// the even-split model, the greedy placement and the MILP of Table II.
#include <CbcModel.hpp>
#include <CoinMessageHandler.hpp>
#include <OsiClpSolverInterface.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>

#include "taskmap/core/error.h"
#include "cube_model.h"
#include "taskmap/map/rahtm/cube.h"

namespace taskmap {

namespace rahtm {

std::vector<CubeFlow> cube_flows(const CubeProblem& p) {
  const std::uint32_t n = p.size();
  if (p.traffic.size() != std::size_t(n) * n || p.capacity.size() != p.dims) {
    fail("RAHTM: inconsistent cube sub-problem ({} dimensions, {} traffic entries)", p.dims, p.traffic.size());
  }
  std::vector<CubeFlow> flows;
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t b = 0; b < n; ++b)
      if (a != b && p.traffic[a * n + b] > 0) flows.push_back({a, b, p.traffic[a * n + b]});
  return flows;
}

// A path flips the differing bits in some order; the edge leaving s^S along bit d (S a subset
// of the differing bits, d not in S) is used by |S|! (k-|S|-1)! of the k! orders.
void add_even_split(const CubeProblem& p, std::uint32_t s, std::uint32_t t, double volume, std::vector<double>& load) {
  const std::uint32_t diff = s ^ t;
  const int k = std::popcount(diff);
  std::vector<double> factorial(k + 1, 1.0);
  for (int i = 1; i <= k; ++i) factorial[i] = factorial[i - 1] * i;
  for (std::uint32_t sub = diff;; sub = (sub - 1) & diff) {  // every subset S of diff
    const int j = std::popcount(sub);
    if (j < k) {
      const double share = volume * factorial[j] * factorial[k - j - 1] / factorial[k];
      const std::uint32_t v = s ^ sub;
      for (std::uint32_t d = 0; d < p.dims; ++d) {
        if ((diff >> d & 1) && !(sub >> d & 1)) load[v * p.dims + d] += share / p.capacity[d];
      }
    }
    if (sub == 0) break;
  }
}

}  // namespace rahtm

using rahtm::add_even_split;
using rahtm::cube_flows;
using Flow = rahtm::CubeFlow;

double cube_even_split_mcl(const CubeProblem& p, const std::vector<std::uint32_t>& vertex_of) {
  std::vector<double> load(std::size_t(p.size()) * p.dims, 0.0);
  for (const Flow& f : cube_flows(p)) add_even_split(p, vertex_of[f.src], vertex_of[f.dst], f.volume, load);
  return load.empty() ? 0.0 : *std::max_element(load.begin(), load.end());
}

CubeSolution solve_cube_greedy(const CubeProblem& p) {
  const std::uint32_t n = p.size();
  const std::vector<Flow> flows = cube_flows(p);
  std::vector<double> weight(n, 0.0);
  for (const Flow& f : flows) weight[f.src] += f.volume, weight[f.dst] += f.volume;
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return weight[a] > weight[b]; });

  constexpr std::uint32_t kFree = UINT32_MAX;
  std::vector<std::uint32_t> vertex_of(n, kFree);
  std::vector<bool> used(n, false);
  std::vector<double> load(std::size_t(n) * p.dims);
  for (std::uint32_t a : order) {
    double best_mcl = INFINITY, best_hops = INFINITY;
    std::uint32_t best = kFree;
    for (std::uint32_t v = 0; v < n; ++v) {
      if (used[v]) continue;
      vertex_of[a] = v;
      std::fill(load.begin(), load.end(), 0.0);
      double hops = 0;
      for (const Flow& f : flows) {
        if (vertex_of[f.src] == kFree || vertex_of[f.dst] == kFree) continue;
        add_even_split(p, vertex_of[f.src], vertex_of[f.dst], f.volume, load);
        hops += f.volume * std::popcount(vertex_of[f.src] ^ vertex_of[f.dst]);
      }
      const double mcl = *std::max_element(load.begin(), load.end());
      if (mcl < best_mcl - 1e-12 || (mcl <= best_mcl + 1e-12 && hops < best_hops - 1e-12)) {
        best_mcl = mcl, best_hops = hops, best = v;
      }
    }
    vertex_of[a] = best;
    used[best] = true;
  }
  CubeSolution s;
  s.model_mcl = cube_swap_descent(p, vertex_of);
  s.vertex_of = std::move(vertex_of);
  return s;
}

double cube_swap_descent(const CubeProblem& p, std::vector<std::uint32_t>& vertex_of) {
  const std::uint32_t n = p.size();
  const std::vector<Flow> flows = cube_flows(p);
  std::vector<double> load(std::size_t(n) * p.dims);
  auto score = [&](const std::vector<std::uint32_t>& at) {
    std::fill(load.begin(), load.end(), 0.0);
    for (const Flow& f : flows) add_even_split(p, at[f.src], at[f.dst], f.volume, load);
    double mcl = 0, squares = 0;
    for (double l : load) mcl = std::max(mcl, l), squares += l * l;
    return std::make_pair(mcl, squares);
  };
  auto current = score(vertex_of);
  for (bool improved = true; improved;) {
    improved = false;
    for (std::uint32_t a = 0; a < n; ++a)
      for (std::uint32_t b = a + 1; b < n; ++b) {
        std::swap(vertex_of[a], vertex_of[b]);
        const auto next = score(vertex_of);
        if (next.first < current.first * (1 - 1e-12) ||
            (next.first <= current.first * (1 + 1e-12) && next.second < current.second * (1 - 1e-12))) {
          current = next;
          improved = true;
        } else {
          std::swap(vertex_of[a], vertex_of[b]);
        }
      }
  }
  return current.first;
}

namespace {

// Column-wise assembly of a MILP for an OsiClp solver.
class MilpBuilder {
 public:
  int add_column(double lb, double ub, double objective, bool integer) {
    lower_.push_back(lb), upper_.push_back(ub), objective_.push_back(objective), integer_.push_back(integer);
    return int(lower_.size()) - 1;
  }
  int add_row(double lb, double ub) {
    row_lower_.push_back(lb), row_upper_.push_back(ub);
    return int(row_lower_.size()) - 1;
  }
  void set(int row, int column, double value) { entries_.push_back({column, row, value}); }

  int columns() const { return int(lower_.size()); }
  void load(OsiClpSolverInterface& solver) {
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
      return a.column != b.column ? a.column < b.column : a.row < b.row;
    });
    std::vector<CoinBigIndex> start(lower_.size() + 1, 0);
    std::vector<int> index;
    std::vector<double> value;
    for (const Entry& e : entries_) ++start[e.column + 1], index.push_back(e.row), value.push_back(e.value);
    std::partial_sum(start.begin(), start.end(), start.begin());
    solver.loadProblem(int(lower_.size()), int(row_lower_.size()), start.data(), index.data(), value.data(),
                       lower_.data(), upper_.data(), objective_.data(), row_lower_.data(), row_upper_.data());
    for (std::size_t c = 0; c < integer_.size(); ++c)
      if (integer_[c]) solver.setInteger(int(c));
  }

 private:
  struct Entry {
    int column, row;
    double value;
  };
  std::vector<double> lower_, upper_, objective_, row_lower_, row_upper_;
  std::vector<bool> integer_;
  std::vector<Entry> entries_;
};


}  // namespace

CubeSolution solve_cube_milp(const CubeProblem& p, std::uint32_t max_iterations, double seconds,
                             const std::vector<std::uint32_t>* start_placement) {
  const std::uint32_t n = p.size(), m = p.dims;
  // Table II has a flow variable per flow and channel; beyond ~50 flows CBC's root LP alone
  // takes many seconds, so only the heaviest flows enter the model (the placement of the
  // light remainder matters least) and optimality is then not claimed.
  constexpr std::size_t kMaxFlows = 48;
  std::vector<Flow> flows = cube_flows(p);
  const bool complete = flows.size() <= kMaxFlows;
  if (!complete) {
    std::stable_sort(flows.begin(), flows.end(), [](const Flow& a, const Flow& b) { return a.volume > b.volume; });
    flows.resize(kMaxFlows);
  }
  // The MIP start, and the answer without traffic or when CBC finds no integer solution.
  CubeSolution initial;
  if (start_placement) {
    initial.vertex_of = *start_placement;
    initial.model_mcl = cube_even_split_mcl(p, initial.vertex_of);
  } else {
    initial = solve_cube_greedy(p);
  }
  if (flows.empty() || n <= 2) {
    initial.optimal = true;  // n <= 2: every placement is the same up to symmetry
    if (!flows.empty()) initial.model_mcl = cube_even_split_mcl(p, initial.vertex_of);
    return initial;
  }
  // Volumes scaled to at most 1 keep the LP well conditioned.
  double scale = 0;
  for (const Flow& f : flows) scale = std::max(scale, f.volume);
  const double inf = std::numeric_limits<double>::max();

  MilpBuilder b;
  const int z = b.add_column(0, inf, 1.0, false);
  std::vector<int> g(std::size_t(n) * n);  // g[a * n + v]
  // Corners are all alike (the cube is vertex-transitive): pin the busiest cluster to corner 0.
  std::vector<double> weight(n, 0.0);
  for (const Flow& f : flows) weight[f.src] += f.volume, weight[f.dst] += f.volume;
  const auto busiest = static_cast<std::uint32_t>(std::max_element(weight.begin(), weight.end()) - weight.begin());
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t v = 0; v < n; ++v) {
      const double ub = a == busiest ? (v == 0 ? 1 : 0) : 1;
      const double lb = a == busiest && v == 0 ? 1 : 0;
      g[a * n + v] = b.add_column(lb, ub, 0, true);
    }
  // C1: each cluster on one corner, each corner holds one cluster.
  for (std::uint32_t a = 0; a < n; ++a) {
    const int row = b.add_row(1, 1);
    for (std::uint32_t v = 0; v < n; ++v) b.set(row, g[a * n + v], 1);
  }
  for (std::uint32_t v = 0; v < n; ++v) {
    const int row = b.add_row(1, 1);
    for (std::uint32_t a = 0; a < n; ++a) b.set(row, g[a * n + v], 1);
  }
  // Objective rows: sum_i f_i(e) / cap(e) - Z <= 0 for every directed edge e = (v, d).
  std::vector<int> edge_row(std::size_t(n) * m);
  for (std::uint32_t e = 0; e < n * m; ++e) {
    edge_row[e] = b.add_row(-inf, 0);
    b.set(edge_row[e], z, -1);
  }
  std::vector<int> r_columns;
  std::vector<std::vector<int>> flow_columns;
  for (const Flow& f : flows) {
    const double l = f.volume / scale;
    std::vector<int>& fcol = flow_columns.emplace_back(std::size_t(n) * m);
    for (std::uint32_t e = 0; e < n * m; ++e) {
      fcol[e] = b.add_column(0, l, 0, false);
      b.set(edge_row[e], fcol[e], 1.0 / p.capacity[e % m]);
    }
    // C2: l g[s][v] + inflow(v) - l g[d][v] - outflow(v) = 0.
    for (std::uint32_t v = 0; v < n; ++v) {
      const int row = b.add_row(0, 0);
      b.set(row, g[f.src * n + v], l);
      b.set(row, g[f.dst * n + v], -l);
      for (std::uint32_t d = 0; d < m; ++d) {
        b.set(row, fcol[(v ^ (1u << d)) * m + d], 1);  // into v along d
        b.set(row, fcol[v * m + d], -1);                // out of v along d
      }
    }
    // C3: per dimension one direction: r = 1 allows only 0 -> 1 moves, r = 0 only 1 -> 0.
    for (std::uint32_t d = 0; d < m; ++d) {
      const int r = b.add_column(0, 1, 0, true);
      r_columns.push_back(r);
      for (std::uint32_t v = 0; v < n; ++v) {
        const int row = b.add_row(-inf, (v >> d & 1) ? l : 0);
        b.set(row, fcol[v * m + d], 1);
        b.set(row, r, (v >> d & 1) ? l : -l);
      }
    }
  }
  // MIP start: the initial placement, relabelled so the busiest cluster sits on corner 0 (XOR
  // by its corner is a cube automorphism), each flow on its dimension-order path, Z its MCL.
  std::vector<std::uint32_t> start = initial.vertex_of;
  const std::uint32_t shift = start[busiest];
  for (auto& v : start) v ^= shift;
  std::vector<double> incumbent(b.columns(), 0.0), edge_load(std::size_t(n) * m, 0.0);
  for (std::uint32_t a = 0; a < n; ++a) incumbent[g[a * n + start[a]]] = 1;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const double l = flows[i].volume / scale;
    const std::uint32_t to = start[flows[i].dst];
    for (std::uint32_t d = 0; d < m; ++d) incumbent[r_columns[i * m + d]] = to >> d & 1;
    for (std::uint32_t at = start[flows[i].src], d = 0; d < m; ++d) {
      if (((at ^ to) >> d & 1) == 0) continue;
      incumbent[flow_columns[i][at * m + d]] = l;
      edge_load[at * m + d] += l / p.capacity[d];
      at ^= 1u << d;
    }
  }
  incumbent[z] = *std::max_element(edge_load.begin(), edge_load.end());

  // CBC's C++ model directly: no presolve or primal heuristics (the incumbent above is the
  // start), whose phases CBC does not interrupt for its limits, and no global state, so
  // sub-problems can be solved on several threads. No strong branching either: CBC does not
  // count its simplex iterations against the limit, and at the root of a 16-corner cube it
  // alone took over ten seconds. The limit is a count of simplex iterations, checked between
  // nodes (the root LP is always solved); with one thread per model and CBC's fixed random
  // seeds, the search and its result are the same on every run.
  OsiClpSolverInterface lp;
  lp.messageHandler()->setLogLevel(0);
  b.load(lp);
  CbcModel model(lp);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  model.solver()->messageHandler()->setLogLevel(0);
  model.setNumberThreads(0);
  model.setNumberStrong(0);
  model.setNumberBeforeTrust(0);
  model.setMaximumNumberIterations(
      static_cast<int>(std::min<std::uint32_t>(max_iterations, std::numeric_limits<int>::max())));
  if (seconds > 0) {
    model.setUseElapsedTime(true);
    model.setMaximumSeconds(std::max(0.01, seconds));
  }
  model.setBestSolution(incumbent.data(), b.columns(), incumbent[z], true);
  model.branchAndBound();
  if (model.status() < 0 || model.isProvenInfeasible() || model.isAbandoned()) {
    fail("RAHTM: CBC failed on a {}-cluster sub-problem (status {}, secondary status {})", n, model.status(),
         model.secondaryStatus());
  }
  const double* x = model.bestSolution();
  CubeSolution s;
  s.vertex_of.assign(n, n);
  std::vector<bool> taken(n, false);
  bool valid = x != nullptr;
  for (std::uint32_t a = 0; valid && a < n; ++a) {
    for (std::uint32_t v = 0; v < n; ++v)
      if (x[g[a * n + v]] > 0.5) s.vertex_of[a] = v;
    valid = s.vertex_of[a] < n && !taken[s.vertex_of[a]];
    if (valid) taken[s.vertex_of[a]] = true;
  }
  if (!valid) {  // no integer solution within the limit: keep the MIP start
    initial.optimal = false;
    return initial;
  }
  s.model_mcl = model.getObjValue() * scale;
  s.optimal = complete && model.isProvenOptimal();
  return s;
}

}  // namespace taskmap
