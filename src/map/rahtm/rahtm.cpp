// RAHTM driver [RAHTM §III]: decomposition of the torus into uniform parts and 2-ary
// sub-cubes, clustering by tiling, top-down cube placement, bottom-up merging.
#include "taskmap/map/rahtm/rahtm.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <thread>

#include "clustering.h"
#include "merge.h"
#include "parallel.h"
#include "taskmap/core/error.h"
#include "taskmap/core/progress.h"
#include "taskmap/map/grid_layout.h"
#include "taskmap/topology/distance.h"
#include "taskmap/routing/routing.h"

namespace taskmap {

std::string RahtmStats::summary() const {
  std::string solvers;
  if (search_optimal > 0 || search_nodes > 0) {
    solvers += fmt::format("{} proven optimal by the exact search ({} nodes)", search_optimal, search_nodes);
  }
  if (milp_runs > 0) {
    solvers += fmt::format("{}{} given to the MILP ({} proven optimal{})", solvers.empty() ? "" : ", ", milp_runs,
                           optimal, greedy_kept > 0 ? fmt::format(", {} kept the greedy placement", greedy_kept) : "");
  }
  return fmt::format(
      "rahtm: tiles {}; {} cube sub-problems, {} distinct up to symmetry and scale{}{}; {} merge steps ({} nodes "
      "copied); MCL {:.6g} placed top-down, {:.6g} merged; {:.6g} from the rank order{}, merged; kept: {}",
      clustering, subproblems, solved, solvers.empty() ? "" : ": " + solvers,
      labelling_incomplete > 0 ? fmt::format(" ({} labellings incomplete)", labelling_incomplete) : "", merges,
      merges_reused, pinned_mcl, pinned_mcl - merge_improvement, rank_order_mcl,
      layout_mcl > 0 ? fmt::format(", {:.6g} from the grid layout", layout_mcl) : "", kept);
}

namespace {

using rahtm::Box;

// The torus as RAHTM sees it: parts of side k in the `cube` dimensions (every dimension of
// size >= k), laid out on a grid of parts over the remaining extent (§III-B: "topologies that
// do not satisfy [uniformity] may be partitioned into smaller partitions where it holds").
// Above the parts, the torus halves level by level down to a part: each level a 2-ary cube of
// boxes as well, so the parts are placed and merged by the same hierarchy as their insides.
struct Decomposition {
  std::uint32_t k = 1, levels = 0;
  std::vector<std::size_t> cube;
  std::vector<std::uint32_t> part_extent, part_grid;
  std::uint32_t parts = 1;
  struct Halving {
    std::vector<std::uint32_t> extent;  // the boxes of this level, in routers per dimension
    std::vector<std::size_t> split;     // the dimensions each box halves along
  };
  std::vector<Halving> above;  // [0]: the whole torus; the last halves into parts
};

// Capacities of the 2-ary cube of a box halved along `split`: between the halves along d run
// as many links as the box has routers in a cross-section (the product of the other extents),
// twice as many when the box spans a whole ring (wrapped; for a ring of 2, its two parallel
// links), relative to the least of them. Boxes inside a part have equal cross-sections, so
// there a capacity is 1, or 2 for a whole ring ([RAHTM §III-C]'s double-wide links).
std::vector<double> cube_capacity(const TorusShape& t, const std::vector<std::uint32_t>& extent,
                                  const std::vector<std::size_t>& split) {
  std::vector<double> capacity;
  for (std::size_t d : split) {
    double links = extent[d] == t.sizes[d] && t.wrap[d] ? 2.0 : 1.0;
    for (std::size_t i = 0; i < extent.size(); ++i)
      if (i != d) links *= extent[i];
    capacity.push_back(links);
  }
  const double least = capacity.empty() ? 1.0 : *std::min_element(capacity.begin(), capacity.end());
  for (double& c : capacity) c /= least;
  return capacity;
}

Decomposition decompose(const Machine& m) {
  const TorusShape* t = m.torus();
  if (!t) fail("RAHTM needs a torus, mesh or hypercube machine, not {}", m.kind_name());
  Decomposition d;
  for (std::size_t i = 0; i < t->dims(); ++i) {
    if (!std::has_single_bit(t->sizes[i])) {
      fail("RAHTM cannot decompose '{}': dimension {} has size {}, not a power of two", m.description, t->letters[i],
           t->sizes[i]);
    }
  }
  std::uint32_t k = UINT32_MAX;
  for (std::uint32_t s : t->sizes)
    if (s >= 4) k = std::min(k, s);
  if (k == UINT32_MAX) k = std::find(t->sizes.begin(), t->sizes.end(), 2u) != t->sizes.end() ? 2 : 1;
  d.k = k;
  d.levels = std::countr_zero(k);
  for (std::size_t i = 0; i < t->dims(); ++i) {
    const bool in_cube = k > 1 && t->sizes[i] >= k;
    if (in_cube) d.cube.push_back(i);
    d.part_extent.push_back(in_cube ? k : 1);
    d.part_grid.push_back(t->sizes[i] / d.part_extent.back());
    d.parts *= d.part_grid.back();
  }
  if (d.cube.size() > 5) {
    fail("RAHTM cannot decompose '{}': {} dimensions of size {} make sub-problems of {} clusters (at most 32)",
         m.description, d.cube.size(), k, 1u << d.cube.size());
  }
  // Halve every dimension longer than a part (the 5 longest when there are more, so that
  // sub-problems keep at most 32 clusters) until the boxes are parts.
  for (std::vector<std::uint32_t> box = t->sizes; box != d.part_extent;) {
    std::vector<std::size_t> split;
    for (std::size_t i = 0; i < box.size(); ++i)
      if (box[i] > d.part_extent[i]) split.push_back(i);
    if (split.size() > 5) {
      std::stable_sort(split.begin(), split.end(), [&](auto a, auto b) { return box[a] > box[b]; });
      split.resize(5);
      std::sort(split.begin(), split.end());
    }
    d.above.push_back({box, split});
    for (std::size_t i : split) box[i] /= 2;
  }
  return d;
}

class Rahtm {
 public:
  Rahtm(const MappingProblem& p, const RahtmOptions& o, RahtmStats& s)
      : problem_(p),
        machine_(p.machine()),
        torus_(*p.machine().torus()),
        graph_(p.graph()),
        options_(o),
        threads_(o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency())),
        stats_(s),
        progress_("rahtm", 0, o.progress) {}

  Mapping run();

 private:
  void cluster(const Decomposition& d);
  void place();
  // Solves the sub-problems; `start`: a placement every exact search starts from (the
  // children at their tile coordinates), kept unless the search finds a lower MCL.
  std::vector<CubeSolution> solve_all(const std::vector<CubeProblem>& problems, const std::vector<std::uint32_t>& start);
  // The boxes of a level (1 .. levels inside a part, then the halvings above) and their split.
  Decomposition::Halving halving(std::size_t level) const;
  void merge_all(rahtm::Merger& merger);
  double full_mcl(RouteCache& routes, const std::vector<RouterId>& router_of) const;
  // The level-0 clusters' grid laid onto the torus (detail::grid_layouts), or empty.
  std::vector<RouterId> layout_start() const;
  // Origin of part p, parts in row-major order over the grid of parts.
  std::vector<std::uint32_t> part_origin(std::uint32_t p) const {
    std::vector<std::uint32_t> origin(torus_.dims(), 0);
    for (std::size_t i = origin.size(); i-- > 0;) origin[i] = p % d_.part_grid[i] * d_.part_extent[i], p /= d_.part_grid[i];
    return origin;
  }
  RouterId router_at(const std::vector<std::uint32_t>& coord) const {
    RouterId r = 0;
    for (std::size_t i = 0; i < coord.size(); ++i) r += coord[i] * torus_.strides[i];
    return r;
  }

  const MappingProblem& problem_;
  const Machine& machine_;
  const TorusShape& torus_;
  const CommGraph& graph_;
  const RahtmOptions& options_;
  const unsigned threads_;
  RahtmStats& stats_;
  io::Progress progress_;
  Decomposition d_;
  std::uint32_t concentration_ = 1;
  std::vector<CommGraph> level_graph_;                       // [0] = routers' clusters, ... [levels] = parts
  std::vector<std::vector<std::uint32_t>> task_cluster_;     // task -> level-0 cluster
  std::vector<std::vector<std::vector<std::uint32_t>>> members_;  // [level][cluster] -> level-1 clusters
  std::vector<RouterId> router_of_cluster_;
  std::vector<std::vector<std::uint32_t>> tile_;                 // [level]: the tile of its clustering
  std::vector<std::uint32_t> cluster_grid_;                      // the level-0 clusters' grid (empty: none)
  std::map<std::vector<double>, CubeSolution> solved_;
};

void Rahtm::cluster(const Decomposition& d) {
  const std::uint32_t routers = machine_.num_routers;
  concentration_ = (graph_.num_tasks() + routers - 1) / routers;
  const std::uint64_t padded = std::uint64_t(concentration_) * routers;
  // Idle tasks pad the job to a whole number per router; they have no coordinates.
  std::vector<CommEdge> edges;
  for (TaskId a = 0; a < graph_.num_tasks(); ++a) {
    auto targets = graph_.targets(a);
    auto volumes = graph_.volumes(a);
    for (std::size_t i = 0; i < targets.size(); ++i) edges.push_back({a, targets[i], volumes[i]});
  }
  CommGraph tasks = CommGraph::from_edges(static_cast<std::uint32_t>(padded), std::move(edges));
  std::vector<std::uint32_t> grid = padded == graph_.num_tasks() ? graph_.grid() : std::vector<std::uint32_t>{};

  std::vector<std::string> shapes;
  rahtm::Tiling t = rahtm::tile_elements(tasks, grid, concentration_);
  shapes.push_back(t.shape);
  task_cluster_.push_back(t.cluster_of);
  tile_.assign(1, t.tile);
  if (t.shape != "1D") cluster_grid_ = t.grid;
  level_graph_.push_back(rahtm::cluster_graph(tasks, t.cluster_of, routers));
  grid = t.grid;
  // Levels 1 .. levels inside the parts, then one per halving above them, bottom up.
  const std::size_t top = d.levels + d.above.size();
  members_.assign(top + 1, {});
  for (std::size_t level = 1; level <= top; ++level) {
    const std::size_t split = level <= d.levels ? d.cube.size() : d.above[top - level].split.size();
    const std::uint32_t fan_out = 1u << split;
    const CommGraph& below = level_graph_.back();
    rahtm::Tiling up = rahtm::tile_elements(below, grid, fan_out);
    shapes.push_back(up.shape);
    tile_.push_back(up.tile);
    const std::uint32_t count = below.num_tasks() / fan_out;
    members_[level].assign(count, {});
    for (std::uint32_t c = 0; c < below.num_tasks(); ++c) members_[level][up.cluster_of[c]].push_back(c);
    level_graph_.push_back(rahtm::cluster_graph(below, up.cluster_of, count));
    grid = up.grid;
  }
  stats_.clustering = fmt::format("{}", fmt::join(shapes, " | "));
}

std::vector<CubeSolution> Rahtm::solve_all(const std::vector<CubeProblem>& problems,
                                           const std::vector<std::uint32_t>& start) {
  // Sub-problems equal up to a relabelling of clusters, a scaling of volumes and a permutation
  // of dimensions of equal capacity have one canonical form, solved once; the distinct new
  // forms are independent and solved in parallel, each from its form and the first of its
  // sub-problems in their fixed order (whose tile geometry gives the start), so the result
  // does not depend on the threads.
  std::vector<CanonicalCube> forms(problems.size());
  rahtm::run_parallel(problems.size(), threads_, [&](std::size_t i, unsigned) { forms[i] = canonical_cube(problems[i]); });
  auto key_of = [](const CubeProblem& p) {
    std::vector<double> key = p.capacity;
    key.insert(key.end(), p.traffic.begin(), p.traffic.end());
    return key;
  };
  std::vector<std::vector<double>> keys;  // per problem
  std::vector<std::size_t> todo;          // problems whose form is new: the first of each
  std::set<std::vector<double>> in_batch;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    ++stats_.subproblems;
    stats_.labelling_incomplete += !forms[i].canonical;
    keys.push_back(key_of(forms[i].problem));
    if (solved_.count(keys[i]) || !in_batch.insert(keys[i]).second) continue;
    todo.push_back(i);
  }
  struct Outcome {
    CubeSolution solution;
    bool search_optimal = false, milp_run = false, milp_optimal = false, greedy_kept = false;
    std::uint64_t nodes = 0;
  };
  std::vector<Outcome> outcomes(todo.size());
  std::atomic<std::uint32_t> finished{0};
  rahtm::run_parallel(todo.size(), threads_, [&](std::size_t i, unsigned) {
    const CubeProblem& p = forms[todo[i]].problem;
    Outcome& out = outcomes[i];
    out.solution = solve_cube_greedy(p);
    switch (options_.leaf) {
      case RahtmLeafSolver::Greedy:
        break;
      case RahtmLeafSolver::Milp: {
        // The MILP optimises the best split over minimal paths; the mapping is judged by the
        // even split, so the greedy placement stays when it is better under that model.
        out.milp_run = true;
        CubeSolution milp = solve_cube_milp(p, options_.milp_iterations, options_.milp_seconds);
        out.milp_optimal = milp.optimal;
        if (cube_even_split_mcl(p, milp.vertex_of) <= cube_even_split_mcl(p, out.solution.vertex_of)) {
          out.solution = std::move(milp);
        } else {
          out.greedy_kept = true;
        }
        break;
      }
      case RahtmLeafSolver::Exact: {
        // From the children at their tile coordinates, unless the greedy placement is better:
        // among placements of equal MCL, the one that keeps the task grid's geometry lets the
        // merge line blocks up with their neighbours.
        std::vector<std::uint32_t> from = forms[todo[i]].from_original(start);
        if (out.solution.model_mcl >= cube_even_split_mcl(p, from) * (1 - 1e-9)) out.solution.vertex_of = std::move(from);
        CubeSearchStats search;
        out.solution = solve_cube_exact(p, out.solution.vertex_of, options_.search_nodes, &search);
        out.nodes = search.nodes;
        out.search_optimal = out.solution.optimal;
        if (!out.search_optimal && options_.milp_iterations > 0) {
          // Out of budget: the MILP, started from the search's best, may still find better.
          out.milp_run = true;
          CubeSolution milp = solve_cube_milp(p, options_.milp_iterations, options_.milp_seconds, &out.solution.vertex_of);
          out.milp_optimal = milp.optimal;
          if (cube_even_split_mcl(p, milp.vertex_of) < cube_even_split_mcl(p, out.solution.vertex_of)) {
            out.solution = std::move(milp);
          }
        }
        break;
      }
    }
    ++finished;
  }, [&] {
    progress_.status(fmt::format("placing clusters: {} sub-problems, {} of {} new ones solved", stats_.subproblems,
                          finished.load(), todo.size()));
  });
  for (std::size_t i = 0; i < todo.size(); ++i) {
    stats_.search_optimal += outcomes[i].search_optimal;
    stats_.milp_runs += outcomes[i].milp_run;
    stats_.optimal += outcomes[i].milp_optimal;
    stats_.greedy_kept += outcomes[i].greedy_kept;
    stats_.search_nodes += outcomes[i].nodes;
    ++stats_.solved;
    solved_.emplace(keys[todo[i]], std::move(outcomes[i].solution));
  }
  std::vector<CubeSolution> solutions;
  for (std::size_t i = 0; i < problems.size(); ++i) solutions.push_back(forms[i].to_original(solved_.at(keys[i])));
  return solutions;
}

CubeProblem sub_problem(const CommGraph& g, const std::vector<std::uint32_t>& members, std::vector<double> capacity) {
  CubeProblem p;
  p.dims = static_cast<std::uint32_t>(capacity.size());
  p.capacity = std::move(capacity);
  const std::uint32_t n = p.size();
  p.traffic.assign(std::size_t(n) * n, 0.0);
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t b = 0; b < n; ++b)
      if (a != b) p.traffic[a * n + b] = g.volume(members[a], members[b]);
  return p;
}

// Top-down: the parts, then level by level each cluster's children onto the corners of the
// cluster's 2-ary sub-cube.
Decomposition::Halving Rahtm::halving(std::size_t level) const {
  if (level > d_.levels) return d_.above[d_.levels + d_.above.size() - level];
  Decomposition::Halving h{d_.part_extent, d_.cube};
  for (std::size_t dim : d_.cube) h.extent[dim] = 1u << level;
  return h;
}

// The 2^s halves of the box at `origin` under halving h, corner i's bit j along h.split[j].
std::vector<Box> halves(const std::vector<std::uint32_t>& origin, const Decomposition::Halving& h) {
  std::vector<Box> children;
  for (std::uint32_t corner = 0; corner < (1u << h.split.size()); ++corner) {
    Box b{origin, h.extent};
    for (std::size_t i = 0; i < h.split.size(); ++i) {
      b.extent[h.split[i]] /= 2;
      b.origin[h.split[i]] += (corner >> i & 1) * b.extent[h.split[i]];
    }
    children.push_back(std::move(b));
  }
  return children;
}

// The corners of a tile's elements (in their row-major order) that keep the tile's geometry:
// each coordinate in Gray code, so that neighbours along a dimension (and the ends of a
// dimension of 4, as on a ring) are one cube edge apart; the first dimension's bits lowest.
std::vector<std::uint32_t> tile_corners(const std::vector<std::uint32_t>& tile) {
  const std::uint32_t n = std::accumulate(tile.begin(), tile.end(), 1u, std::multiplies<>());
  std::vector<std::uint32_t> corner(n, 0);
  for (std::uint32_t j = 0; j < n; ++j) {
    std::uint32_t rest = j, shift = 0;
    std::vector<std::uint32_t> x(tile.size());
    for (std::size_t i = tile.size(); i-- > 0;) x[i] = rest % tile[i], rest /= tile[i];
    for (std::size_t i = 0; i < tile.size(); ++i) {
      corner[j] |= (x[i] ^ (x[i] >> 1)) << shift;
      shift += static_cast<std::uint32_t>(std::countr_zero(tile[i]));
    }
  }
  return corner;
}

// Top-down: from the whole torus, level by level each cluster's children onto the corners of
// the 2-ary cube of its box's halves.
void Rahtm::place() {
  struct Node {
    std::uint32_t cluster;
    std::vector<std::uint32_t> origin;
  };
  std::vector<Node> nodes{{0, std::vector<std::uint32_t>(torus_.dims(), 0)}};
  for (std::size_t level = d_.levels + d_.above.size(); level >= 1; --level) {
    const Decomposition::Halving h = halving(level);
    const std::vector<double> capacity = cube_capacity(torus_, h.extent, h.split);
    std::vector<CubeProblem> problems;
    for (const Node& node : nodes) problems.push_back(sub_problem(level_graph_[level - 1], members_[level][node.cluster], capacity));
    const std::vector<CubeSolution> solutions = solve_all(problems, tile_corners(tile_[level]));
    std::vector<Node> below;
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      const auto& children = members_[level][nodes[n].cluster];
      const std::vector<Box> boxes = halves(nodes[n].origin, h);
      for (std::size_t j = 0; j < children.size(); ++j) below.push_back({children[j], boxes[solutions[n].vertex_of[j]].origin});
    }
    nodes = std::move(below);
  }
  for (const Node& node : nodes) router_of_cluster_[node.cluster] = router_at(node.origin);
}

// Bottom-up: every box whose halves are larger than one router merges them. Nodes of one
// level are merged in order, each with the flows to the nodes merged before it (left in
// place) as context; nodes whose own flows are identical reuse the orientations found for the
// first (only the node's own flows make them identical, not their surroundings).
void Rahtm::merge_all(rahtm::Merger& merger) {
  const std::size_t dims = torus_.dims();
  std::map<std::pair<std::size_t, std::vector<double>>, std::vector<std::uint32_t>> done;
  auto merge_node = [&](std::size_t level, const Box& box, const Decomposition::Halving& h, std::uint32_t beam,
                        bool fix_first, std::vector<Box>& merged) {
    const std::vector<Box> children = halves(box.origin, h);
    auto key = std::make_pair(level, merger.signature(children));
    if (auto it = done.find(key); it != done.end()) {
      merger.apply(children, it->second);
      ++stats_.merges_reused;
    } else {
      const rahtm::MergeResult r = merger.merge(children, beam, fix_first, merged);
      stats_.merges += r.steps;
      done.emplace(std::move(key), r.orientation);
    }
    merged.push_back(box);
  };
  // Inside the parts, levels 2 .. levels, part by part.
  for (std::size_t level = 2; level <= d_.levels; ++level) {
    const Decomposition::Halving h = halving(level);
    const std::uint32_t side = 1u << level, per_dim = d_.k / side;
    const auto nodes = static_cast<std::uint32_t>(std::pow(per_dim, d_.cube.size()) + 0.5);
    std::vector<Box> merged;
    for (std::uint32_t p = 0; p < d_.parts; ++p) {
      const std::vector<std::uint32_t> part = part_origin(p);
      for (std::uint32_t node = 0; node < nodes; ++node) {
        Box box{part, h.extent};
        std::uint32_t rest = node;
        for (std::size_t i = 0; i < d_.cube.size(); ++i) box.origin[d_.cube[i]] += rest % per_dim * side, rest /= per_dim;
        merge_node(level, box, h, options_.beam, false, merged);
      }
    }
  }
  // Above the parts, boxes in row-major order. Every candidate carries a whole part's traffic
  // or more, so the beam is capped at 8, and the first half keeps its orientation (at the top a
  // symmetry applied to all halves at once is a machine symmetry; below, the box is re-oriented
  // as a whole one level up).
  for (std::size_t j = d_.above.size(); j-- > 0;) {
    const Decomposition::Halving& h = d_.above[j];
    std::vector<std::uint32_t> grid(dims);
    std::uint32_t boxes = 1;
    for (std::size_t i = 0; i < dims; ++i) grid[i] = torus_.sizes[i] / h.extent[i], boxes *= grid[i];
    std::vector<Box> merged;
    for (std::uint32_t b = 0; b < boxes; ++b) {
      Box box{std::vector<std::uint32_t>(dims, 0), h.extent};
      for (std::size_t i = dims, rest = b; i-- > 0;) box.origin[i] = static_cast<std::uint32_t>(rest % grid[i]) * h.extent[i], rest /= grid[i];
      merge_node(d_.levels + d_.above.size() - j, box, h, std::min<std::uint32_t>(options_.beam, 8), true, merged);
    }
  }
}

std::vector<RouterId> Rahtm::layout_start() const {
  std::uint64_t cells = 1;
  for (std::uint32_t s : cluster_grid_) cells *= s;
  if (cluster_grid_.empty() || cells != machine_.num_routers) return {};
  // Of the layouts (at most 256), the one with the fewest hop-bytes; ties keep the first.
  const HopDistance& distance = problem_.hop_distance();
  const CommGraph& g = level_graph_.front();
  std::vector<RouterId> best, at(machine_.num_routers);
  double best_cost = INFINITY;
  for (const detail::GridLayout& layout : detail::grid_layouts(torus_, cluster_grid_, 256)) {
    std::vector<std::uint32_t> q(cluster_grid_.size(), 0);
    for (std::uint32_t c = 0; c < machine_.num_routers; ++c) {  // clusters row-major over their grid
      at[c] = detail::layout_router(torus_, layout, q);
      for (std::size_t i = q.size(); i-- > 0;) {
        if (++q[i] < cluster_grid_[i]) break;
        q[i] = 0;
      }
    }
    double cost = 0;
    for (TaskId a = 0; a < g.num_tasks(); ++a) {
      auto targets = g.targets(a);
      auto volumes = g.volumes(a);
      for (std::size_t i = 0; i < targets.size(); ++i) cost += volumes[i] * distance(at[a], at[targets[i]]);
    }
    if (cost < best_cost) best_cost = cost, best = at;
  }
  return best;
}

double Rahtm::full_mcl(RouteCache& routes, const std::vector<RouterId>& router_of) const {
  std::vector<double> load(routes.num_channels(), 0.0);
  const CommGraph& g = level_graph_.front();
  for (TaskId a = 0; a < g.num_tasks(); ++a) {
    auto targets = g.targets(a);
    auto volumes = g.volumes(a);
    for (std::size_t i = 0; i < targets.size(); ++i) {
      auto [first, last] = routes.route(router_of[a], router_of[targets[i]]);
      for (auto* p = first; p != last; ++p) load[p->channel] += volumes[i] * p->load;
    }
  }
  return load.empty() ? 0.0 : *std::max_element(load.begin(), load.end());
}

Mapping Rahtm::run() {
  if (graph_.num_tasks() > machine_.num_slots()) {
    fail("the pattern has {} tasks but machine '{}' has only {} slots", graph_.num_tasks(), machine_.description,
         machine_.num_slots());
  }
  d_ = decompose(machine_);
  cluster(d_);
  router_of_cluster_.assign(machine_.num_routers, 0);
  place();

  if (machine_.num_routers > 1) {
    RouteCache& routes = problem_.route_cache();
    auto merged = [&](std::vector<RouterId> start, double* improvement) {
      const double before = full_mcl(routes, start);
      std::vector<RouterId> placement = start;
      rahtm::Merger merger(machine_, routes, level_graph_.front(), placement, threads_,
                           [this](const std::string& m) { progress_.status(m); });
      merge_all(merger);
      const double after = full_mcl(routes, placement);
      if (after > before) return start;  // never worse than its input
      *improvement = before - after;
      return placement;
    };
    double improvement = 0, unused = 0;
    stats_.pinned_mcl = full_mcl(routes, router_of_cluster_);
    router_of_cluster_ = merged(router_of_cluster_, &improvement);
    stats_.merge_improvement = improvement;
    // The clusters in rank order (cluster i on router i: for 1D tiles exactly the default
    // ABCDET mapping) are merged too, and the better of the two placements is kept: the
    // top-down phase only sees each node's internal traffic, which can mislead it on
    // patterns whose traffic is mostly global (CG's transpose).
    std::vector<RouterId> rank_order(machine_.num_routers);
    std::iota(rank_order.begin(), rank_order.end(), RouterId{0});
    rank_order = merged(std::move(rank_order), &unused);
    stats_.rank_order_mcl = full_mcl(routes, rank_order);
    stats_.final_mcl = full_mcl(routes, router_of_cluster_);
    if (stats_.rank_order_mcl < stats_.final_mcl) {
      router_of_cluster_ = std::move(rank_order);
      stats_.final_mcl = stats_.rank_order_mcl;
      stats_.kept = "rank order";
    }
    // With a grid of clusters, the grid laid onto the torus (each grid dimension on one torus
    // dimension or snaking over several, neighbours on neighbouring routers) is merged too:
    // a stencil's traffic is local, which no node's internal traffic tells the top-down phase.
    std::vector<RouterId> layout = layout_start();
    if (!layout.empty()) {
      layout = merged(std::move(layout), &unused);
      stats_.layout_mcl = full_mcl(routes, layout);
      if (stats_.layout_mcl < stats_.final_mcl) {
        router_of_cluster_ = std::move(layout);
        stats_.final_mcl = stats_.layout_mcl;
        stats_.kept = "grid layout";
      }
    }
  }

  const std::uint32_t per_router = machine_.nodes_per_router * machine_.slots_per_node;
  std::vector<std::uint32_t> used(machine_.num_routers, 0);
  Mapping mapping;
  mapping.slot_of_task.resize(graph_.num_tasks());
  for (TaskId t = 0; t < graph_.num_tasks(); ++t) {
    const RouterId r = router_of_cluster_[task_cluster_.front()[t]];
    mapping.slot_of_task[t] = r * per_router + used[r]++;
  }
  return mapping;
}

}  // namespace

Mapping rahtm_map(const MappingProblem& problem, const RahtmOptions& options, RahtmStats* stats) {
  RahtmStats local;
  RahtmStats& s = stats ? *stats : local;
  s = RahtmStats{};
  // Checked before the Rahtm object takes the torus shape.
  if (!problem.machine().torus()) fail("RAHTM needs a torus, mesh or hypercube machine, not {}", problem.machine().kind_name());
  return Rahtm(problem, options, s).run();
}

}  // namespace taskmap
