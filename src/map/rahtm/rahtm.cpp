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
#include "taskmap/routing/routing.h"

namespace taskmap {

std::string RahtmStats::summary() const {
  return fmt::format(
      "rahtm: tiles {}; {} cube sub-problems, {} solved ({} proven optimal by the MILP, {} kept the greedy "
      "placement), {} reused; {} merge steps ({} nodes copied); merging lowered the MCL by {:.6g}{}",
      clustering, subproblems, solved, optimal, greedy_kept, subproblems - solved, merges, merges_reused,
      merge_improvement, kept_rank_order ? "; the rank-order placement of the clusters was better and was kept" : "");
}

namespace {

using rahtm::Box;

// The torus as RAHTM sees it: parts of side k in the `cube` dimensions (every dimension of
// size >= k), laid out on a grid of parts over the remaining extent (§III-B: "topologies that
// do not satisfy [uniformity] may be partitioned into smaller partitions where it holds").
struct Decomposition {
  std::uint32_t k = 1, levels = 0;
  std::vector<std::size_t> cube;
  std::vector<std::uint32_t> part_extent, part_grid;
  std::uint32_t parts = 1;
};

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
  std::vector<CubeSolution> solve_all(const std::vector<CubeProblem>& problems);
  void merge_all(rahtm::Merger& merger);
  double full_mcl(RouteCache& routes, const std::vector<RouterId>& router_of) const;
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
  level_graph_.push_back(rahtm::cluster_graph(tasks, t.cluster_of, routers));
  grid = t.grid;
  members_.assign(d.levels + 1, {});
  const std::uint32_t fan_out = 1u << d.cube.size();
  for (std::uint32_t level = 1; level <= d.levels; ++level) {
    const CommGraph& below = level_graph_.back();
    rahtm::Tiling up = rahtm::tile_elements(below, grid, fan_out);
    shapes.push_back(up.shape);
    const std::uint32_t count = below.num_tasks() / fan_out;
    members_[level].assign(count, {});
    for (std::uint32_t c = 0; c < below.num_tasks(); ++c) members_[level][up.cluster_of[c]].push_back(c);
    level_graph_.push_back(rahtm::cluster_graph(below, up.cluster_of, count));
    grid = up.grid;
  }
  stats_.clustering = fmt::format("{}", fmt::join(shapes, " | "));
}

std::vector<CubeSolution> Rahtm::solve_all(const std::vector<CubeProblem>& problems) {
  // Identical sub-problems (same traffic, same capacities) are solved once (symmetry reuse);
  // the distinct new ones are independent and solved in parallel.
  auto key_of = [](const CubeProblem& p) {
    std::vector<double> key = p.capacity;
    key.insert(key.end(), p.traffic.begin(), p.traffic.end());
    return key;
  };
  std::vector<std::vector<double>> keys;  // per problem
  std::vector<std::size_t> todo;          // problems to solve: the first of each new key
  std::set<std::vector<double>> in_batch;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    ++stats_.subproblems;
    keys.push_back(key_of(problems[i]));
    if (solved_.count(keys[i]) || !in_batch.insert(keys[i]).second) continue;
    todo.push_back(i);
  }
  struct Outcome {
    CubeSolution solution;
    bool milp_optimal = false, greedy_kept = false;
  };
  std::vector<Outcome> outcomes(todo.size());
  std::atomic<std::uint32_t> finished{0};
  rahtm::run_parallel(todo.size(), threads_, [&](std::size_t i, unsigned) {
    const CubeProblem& p = problems[todo[i]];
    Outcome& out = outcomes[i];
    out.solution = solve_cube_greedy(p);
    if (options_.leaf == RahtmLeafSolver::Milp) {
      // The MILP optimises the best split over minimal paths; the mapping is judged by the
      // even split, so the greedy placement stays when it is better under that model.
      CubeSolution milp = solve_cube_milp(p, options_.milp_iterations, options_.milp_seconds);
      out.milp_optimal = milp.optimal;
      if (cube_even_split_mcl(p, milp.vertex_of) <= cube_even_split_mcl(p, out.solution.vertex_of)) {
        out.solution = std::move(milp);
      } else {
        out.greedy_kept = true;
      }
    }
    ++finished;
  }, [&] {
    progress_.status(fmt::format("placing clusters: {} sub-problems, {} of {} new ones solved", stats_.subproblems,
                          finished.load(), todo.size()));
  });
  for (std::size_t i = 0; i < todo.size(); ++i) {
    stats_.optimal += outcomes[i].milp_optimal;
    stats_.greedy_kept += outcomes[i].greedy_kept;
    ++stats_.solved;
    solved_.emplace(keys[todo[i]], std::move(outcomes[i].solution));
  }
  std::vector<CubeSolution> solutions;
  for (const auto& key : keys) solutions.push_back(solved_.at(key));
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
void Rahtm::place() {
  const std::size_t dims = torus_.dims();
  std::vector<std::size_t> split;  // dimensions along which there are several parts
  bool binary = true;
  for (std::size_t i = 0; i < dims; ++i) {
    if (d_.part_grid[i] > 1) split.push_back(i);
    if (d_.part_grid[i] > 2) binary = false;
  }
  struct Node {
    std::uint32_t cluster;
    std::vector<std::uint32_t> origin;
  };
  std::vector<Node> nodes;
  if (d_.parts > 1 && binary && split.size() <= 5) {
    // The parts form a 2-ary cube as well: place them with the same solver.
    std::vector<double> capacity;
    for (std::size_t i : split) capacity.push_back(torus_.wrap[i] ? 2.0 : 1.0);
    std::vector<std::uint32_t> all(d_.parts);
    std::iota(all.begin(), all.end(), 0u);
    const CubeSolution s = solve_all({sub_problem(level_graph_[d_.levels], all, std::move(capacity))}).front();
    for (std::uint32_t p = 0; p < d_.parts; ++p) {
      nodes.push_back({p, std::vector<std::uint32_t>(dims, 0)});
      for (std::size_t i = 0; i < split.size(); ++i)
        nodes.back().origin[split[i]] = (s.vertex_of[p] >> i & 1) * d_.part_extent[split[i]];
    }
  } else {
    // Larger grids of parts: row-major order; merging may still re-orient them.
    for (std::uint32_t p = 0; p < d_.parts; ++p) nodes.push_back({p, part_origin(p)});
  }
  for (std::uint32_t level = d_.levels; level >= 1; --level) {
    const std::uint32_t side = 1u << level, half = side / 2;
    std::vector<double> capacity;
    for (std::size_t dim : d_.cube) capacity.push_back(side == torus_.sizes[dim] && torus_.wrap[dim] ? 2.0 : 1.0);
    std::vector<CubeProblem> problems;
    for (const Node& node : nodes) problems.push_back(sub_problem(level_graph_[level - 1], members_[level][node.cluster], capacity));
    const std::vector<CubeSolution> solutions = solve_all(problems);
    std::vector<Node> below;
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      const auto& children = members_[level][nodes[n].cluster];
      for (std::size_t j = 0; j < children.size(); ++j) {
        below.push_back({children[j], nodes[n].origin});
        for (std::size_t i = 0; i < d_.cube.size(); ++i)
          below.back().origin[d_.cube[i]] += (solutions[n].vertex_of[j] >> i & 1) * half;
      }
    }
    nodes = std::move(below);
  }
  for (const Node& node : nodes) router_of_cluster_[node.cluster] = router_at(node.origin);
}

void Rahtm::merge_all(rahtm::Merger& merger) {
  const std::size_t dims = torus_.dims();
  std::map<std::pair<std::uint32_t, std::vector<double>>, std::vector<std::uint32_t>> done;
  std::vector<std::vector<std::uint32_t>> part_origins;
  for (std::uint32_t p = 0; p < d_.parts; ++p) part_origins.push_back(part_origin(p));
  auto node_extent = [&](std::uint32_t side) {
    std::vector<std::uint32_t> extent(dims, 1);
    for (std::size_t dim : d_.cube) extent[dim] = side;
    return extent;
  };
  auto children_of = [&](const std::vector<std::uint32_t>& origin, std::uint32_t child_side) {
    std::vector<Box> children;
    const std::uint32_t n = 1u << d_.cube.size();
    for (std::uint32_t corner = 0; corner < n; ++corner) {
      Box b{origin, std::vector<std::uint32_t>(dims, 1)};
      for (std::size_t i = 0; i < d_.cube.size(); ++i) {
        b.origin[d_.cube[i]] += (corner >> i & 1) * child_side;
        b.extent[d_.cube[i]] = child_side;
      }
      children.push_back(std::move(b));
    }
    return children;
  };
  // Levels 2 .. levels: a node of side 2^level merges its 2^m children of side 2^(level-1).
  for (std::uint32_t level = 2; level <= d_.levels; ++level) {
    const std::uint32_t side = 1u << level;
    std::vector<Box> merged;  // nodes of this level merged so far: context for the next ones
    for (const auto& part : part_origins) {
      const std::uint32_t per_dim = d_.k / side;
      const std::uint32_t nodes = static_cast<std::uint32_t>(std::pow(per_dim, d_.cube.size()) + 0.5);
      for (std::uint32_t node = 0; node < nodes; ++node) {
        std::vector<std::uint32_t> origin = part;
        std::uint32_t rest = node;
        for (std::size_t i = 0; i < d_.cube.size(); ++i) origin[d_.cube[i]] += rest % per_dim * side, rest /= per_dim;
        const auto children = children_of(origin, side / 2);
        auto key = std::make_pair(level, merger.signature(children));
        if (auto it = done.find(key); it != done.end()) {
          merger.apply(children, it->second);
          ++stats_.merges_reused;
          merged.push_back({origin, node_extent(side)});
          continue;
        }
        // Identical nodes (above) reuse the orientations found for the first; only the
        // node's own flows make them identical, not their surroundings.
        const rahtm::MergeResult r = merger.merge(children, options_.beam, false, merged);
        merged.push_back({origin, node_extent(side)});
        stats_.merges += r.steps;
        done.emplace(std::move(key), r.orientation);
      }
    }
  }
  if (d_.parts > 1) {
    // Parts: every candidate carries a whole part's traffic, so the beam is capped at 8; a
    // symmetry applied to all parts at once is a machine symmetry, so the first stays fixed.
    std::vector<Box> parts;
    for (const auto& o : part_origins) parts.push_back({o, d_.part_extent});
    const rahtm::MergeResult r = merger.merge(parts, std::min<std::uint32_t>(options_.beam, 8), true);
    stats_.merges += r.steps;
  }
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
    if (full_mcl(routes, rank_order) < full_mcl(routes, router_of_cluster_)) {
      router_of_cluster_ = std::move(rank_order);
      stats_.kept_rank_order = true;
    }
    stats_.final_mcl = full_mcl(routes, router_of_cluster_);
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
