// ml: the multilevel mapper (partition_mappers.h).
//
// A run coarsens the task graph (coarsening.h) until about kCoarsestPerBlock vertices per
// router remain, places the coarsest graph by recursive bisection of graph and machine together
// (recursive_bisection.h, rb's splits with each split's halves oriented towards their outside
// partners), then projects the placement level by level back onto the tasks, refining it on
// each level (mapping_refinement.h): simulated annealing on the levels of at most
// kAnnealedPerBlock vertices per router, where a move carries many tasks and the placement of
// whole groups is decided, then greedy moves and exchanges and FM searches; a run's coarsest
// level, whose placement is the layout of the whole graph on the machine, is annealed longest
// (options.coarsest_anneal_steps). A V-cycle coarsens a placement again with clusters kept
// inside its routers (label propagation, then pairs, up to whole routers' task sets), and
// refines it the same way on the way back. The runs alternate: the multilevel one (seed),
// Scotch's mapping (a strong start on meshes, where the orientation of the bisections matters
// most), another multilevel one with another seed, Scotch's mapping with another random seed
// (its result moves by 10-20% with the seed on meshes), ...; each followed by its V-cycles.
// The work counter (adjacency entries scanned, block costs evaluated, annealing steps) decides
// whether another run or V-cycle starts; none stops half-way, so a seed gives one result on
// every machine.
#include <fmt/format.h>

#include <cmath>
#include <deque>
#include <limits>

#include "block_machine.h"
#include "coarsening.h"
#include "mapping_refinement.h"
#include "recursive_bisection.h"

#include "taskmap/core/progress.h"
#include "taskmap/map/mapper_support.h"
#include "taskmap/map/partition/partition_mappers.h"
#include "taskmap/map/router_placement.h"

namespace taskmap {
namespace detail {
namespace {

// A run's coarsening stops at about this many vertices per block; a cluster then holds at most
// the tasks of 1 / kCoarsestPerBlock of an average block.
constexpr std::uint32_t kCoarsestPerBlock = 4;
// A level that shrinks the graph by less than this fraction ends the coarsening.
constexpr double kLeastShrink = 0.05;
// Levels of at most this many vertices per block are annealed, kAnnealSteps steps per vertex.
constexpr std::uint32_t kAnnealedPerBlock = 8;
constexpr std::uint32_t kAnnealSteps = 2000;
// Annealing work (steps x degree) at least, on levels of at most one vertex per block.
constexpr std::uint64_t kLeastAnnealWork = 8'000'000;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct RunStats {
  std::uint32_t runs = 0, vcycles = 0, levels = 0, coarsest = 0;
  double initial = 0;  // hop-bytes of the first run's initial placement, on the tasks
  std::uint64_t work = 0;
};

class MultilevelMapper final : public ConfiguredMapper<MultilevelOptions> {
 public:
  using ConfiguredMapper::ConfiguredMapper;

  Mapping run(const MappingProblem& problem) const override {
    const Machine& machine = problem.machine();
    const CommGraph& graph = problem.graph();
    const BlockMachine blocks(machine, problem.hop_distance(), problem.tasks_per_slot());
    const LevelGraph tasks = finest_level(graph);
    RunStats stats;
    // Hop-bytes of a placement of the tasks (J on the tasks' level), or infinity when it
    // overfills a block.
    auto cost_of = [&](const std::vector<std::uint32_t>& part) {
      const MappingRefiner r(tasks, blocks, part, {}, stats.work);
      return r.overload() > 0 ? kInfinity : r.cost();
    };
    std::vector<std::uint32_t> best;
    double best_cost = kInfinity;
    std::string best_from, starts;  // starts: each run's start, in order
    auto keep = [&](std::vector<std::uint32_t> part, double cost, std::string from) {
      if (cost < best_cost || best.empty()) best = std::move(part), best_cost = cost, best_from = std::move(from);
    };
    const double budget = double(options_.work) * 1e6;
    io::Progress progress(label_.text, std::uint64_t(options_.seeds) * (1 + options_.vcycles));
    for (std::uint32_t s = 0; s < options_.seeds && (s == 0 || double(stats.work) < budget); ++s) {
      const std::uint64_t seed = options_.seed * 1000003 + s;
      std::vector<std::uint32_t> part, initial;
      std::string from;
      if (s % 2 == 1) {
        part = scotch_placement(problem, blocks, s / 2, stats);
        from = s == 1 ? std::string("Scotch's mapping") : fmt::format("Scotch's mapping with seed {}", s / 2);
      } else {
        part = multilevel(problem, tasks, blocks, nullptr, seed, stats, &initial);
        from = fmt::format("run {}", s + 1);
        keep(initial, cost_of(initial), fmt::format("run {}'s initial placement", s + 1));
      }
      starts += (s == 0 ? "" : ", ") + from;
      double cost = cost_of(part);
      ++stats.runs;
      progress.advance();
      for (std::uint32_t c = 0; c < options_.vcycles && double(stats.work) < budget; ++c, progress.advance()) {
        std::vector<std::uint32_t> cycled = multilevel(problem, tasks, blocks, &part, seed + 7919 * (c + 1), stats, nullptr);
        if (const double cycled_cost = cost_of(cycled); cycled_cost < cost) part = std::move(cycled), cost = cycled_cost;
        ++stats.vcycles;
      }
      keep(std::move(part), cost, std::move(from));
    }
    std::vector<RouterId> router_of(graph.num_tasks());
    for (TaskId t = 0; t < graph.num_tasks(); ++t) router_of[t] = blocks.router(best[t]);
    Mapping m = place_on_routers(machine, graph, std::move(router_of), problem.imbalance());
    m.note = fmt::format("{}: {} runs, {} V-cycles, the best from {}; {} levels down to {} vertices; hop-bytes {:.6g} "
                         "(initial placement) -> {:.6g}; {} million work units; runs from: {}",
                         label_.text, stats.runs, stats.vcycles, best_from, stats.levels, stats.coarsest, stats.initial,
                         best_cost, (stats.work + 500'000) / 1'000'000, starts);
    return keep_default_unless_better(problem, std::move(m), label_.text);
  }

 private:
  // Scotch's placement (the scotch mapper's) as blocks; its work counted as two adjacency scans
  // per level of a binary recursion.
  static std::vector<std::uint32_t> scotch_placement(const MappingProblem& problem, const BlockMachine& blocks,
                                                     std::uint64_t scotch_seed, RunStats& stats) {
    const Mapping m = make_scotch_mapper({"scotch", {}}, ScotchStrategy::Auto, scotch_seed)->run(problem);
    std::vector<std::uint32_t> part(m.num_tasks());
    for (TaskId t = 0; t < part.size(); ++t) {
      const std::uint32_t b = blocks.block_of_router(problem.machine().router_of_slot(m.slot_of_task[t]));
      part[t] = b == UINT32_MAX ? 0 : b;
    }
    stats.work += 2 * problem.graph().num_edges() * (1 + static_cast<std::uint64_t>(std::log2(blocks.blocks() + 1.0)));
    return part;
  }

  // One run from scratch (start null), or a V-cycle from *start. `initial` (a run's): the
  // coarsest placement projected onto the tasks and balanced there.
  std::vector<std::uint32_t> multilevel(const MappingProblem& problem, const LevelGraph& tasks,
                                        const BlockMachine& blocks, const std::vector<std::uint32_t>* start,
                                        std::uint64_t seed, RunStats& stats,
                                        std::vector<std::uint32_t>* initial) const {
    std::deque<LevelGraph> levels;                       // coarser and coarser
    std::vector<std::vector<std::uint32_t>> cluster_of;  // [i]: vertex of level i - 1 (the tasks for 0) -> of level i
    const std::uint64_t coarsest = std::uint64_t(kCoarsestPerBlock) * blocks.blocks();
    ClusteringOptions clustering;
    if (start) {
      // A V-cycle coarsens down to whole blocks: a cluster may hold a block's tasks.
      std::uint64_t largest = 0;
      for (std::uint32_t b = 0; b < blocks.blocks(); ++b) largest = std::max(largest, blocks.capacity(b));
      clustering.max_cluster_tasks = static_cast<std::uint32_t>(std::min<std::uint64_t>(largest, UINT32_MAX));
    } else {
      clustering.max_cluster_tasks = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, tasks.vertices() / coarsest));
    }
    std::vector<std::uint32_t> block;  // a V-cycle's: the start's blocks on the current level
    if (start) block = *start;
    const LevelGraph* current = &tasks;
    bool pairing = false;
    while (current->vertices() > (start ? blocks.blocks() : coarsest)) {
      clustering.seed = seed * 31 + levels.size();
      clustering.block = start ? &block : nullptr;
      std::uint32_t clusters = 0;
      std::vector<std::uint32_t> cluster;
      if (!pairing) cluster = cluster_vertices(*current, clustering, clusters, stats.work);
      if (pairing || double(clusters) > (1 - kLeastShrink) * current->vertices()) {
        if (!start) break;
        pairing = true;  // label propagation stalled: pairs from now on
        cluster = pair_within_blocks(*current, block, clustering.max_cluster_tasks, clusters, stats.work);
        if (double(clusters) > (1 - kLeastShrink) * current->vertices()) break;
      }
      levels.push_back(contract(*current, cluster, clusters, stats.work));
      if (start) {
        std::vector<std::uint32_t> coarse_block(clusters);
        for (std::uint32_t v = 0; v < cluster.size(); ++v) coarse_block[cluster[v]] = block[v];
        block = std::move(coarse_block);
      }
      cluster_of.push_back(std::move(cluster));
      current = &levels.back();
    }
    std::vector<std::uint32_t> part;
    if (start) {
      part = std::move(block);
    } else {
      stats.levels = static_cast<std::uint32_t>(levels.size());
      stats.coarsest = current->vertices();
      part = initial_placement(problem, *current, blocks, seed);
    }
    for (std::size_t i = levels.size() + 1; i-- > 0;) {
      const LevelGraph& level = i == 0 ? tasks : levels[i - 1];
      if (i < levels.size()) {  // project from level i + 1
        std::vector<std::uint32_t> finer(level.vertices());
        for (std::uint32_t v = 0; v < finer.size(); ++v) finer[v] = part[cluster_of[i][v]];
        part = std::move(finer);
      }
      RefinementOptions refinement = refinement_of(level, blocks, seed * 131 + i);
      // A run's coarsest level, coarser than the tasks, decides the layout of the whole graph on
      // the machine, which the levels below only polish: it is annealed longest (on seven real
      // graphs on bench/general.sh's machines, 8 times longer there lowered hop-bytes by 5% on
      // average, as much as 4 times longer on every level, in less than half the time).
      // Also where the coarsening stalled above kAnnealedPerBlock vertices per router (the hubs
      // of a social graph), which the other levels' rule would leave unannealed, with the steps
      // of kAnnealedPerBlock vertices per router in all (astro-ph and email-Enron on the
      // 256-router machines, 9 to 10 vertices per router there: 2-8% lower hop-bytes than without,
      // none on the hierarchy).
      if (!start && i == levels.size() && i > 0) {
        const std::uint64_t most = std::uint64_t(kAnnealedPerBlock) * blocks.blocks();
        const std::uint64_t n = std::max(1u, level.vertices());
        refinement.anneal_steps =
            static_cast<std::uint32_t>(std::uint64_t(options_.coarsest_anneal_steps) * std::min(n, most) / n);
      }
      MappingRefiner refiner(level, blocks, std::move(part), refinement, stats.work);
      // Coarse levels keep the initial placement's excess (their vertices are too heavy to move
      // cheaply, and refinement never adds to it); the tasks' level is balanced exactly.
      if (i == 0) refiner.rebalance();
      if (initial && i == levels.size()) *initial = project_to_tasks(refiner.part(), cluster_of, tasks, blocks, stats);
      refiner.refine();
      part = refiner.part();
    }
    return part;
  }

  static RefinementOptions refinement_of(const LevelGraph& level, const BlockMachine& blocks, std::uint64_t seed) {
    RefinementOptions refinement;
    refinement.seed = seed;
    if (std::uint64_t(level.vertices()) <= std::uint64_t(kAnnealedPerBlock) * blocks.blocks()) {
      refinement.anneal_steps = kAnnealSteps;
      // A level of at most one vertex per block is an assignment of groups to routers (a
      // quadratic assignment problem): its landscape has walls between differently oriented
      // regions that only a long annealing crosses (a torus grid numbered at random finds its
      // embedding with 2 million steps, not 0.5 million). A step costs the vertex's degree.
      if (level.vertices() <= blocks.blocks()) {
        const double degree = double(level.graph.offsets.back()) / std::max(1u, level.vertices());
        refinement.least_anneal_steps = static_cast<std::uint64_t>(double(kLeastAnnealWork) / std::max(4.0, degree));
      }
    }
    return refinement;
  }

  static std::vector<std::uint32_t> initial_placement(const MappingProblem& problem, const LevelGraph& level,
                                                      const BlockMachine& blocks, std::uint64_t seed) {
    const IntegerGraph g = integer_graph(level.graph, 1.0);
    const std::vector<std::int32_t> weights(level.tasks.begin(), level.tasks.end());
    const RecursiveBisection bisection(problem.machine(), problem.imbalance(), 1,
                                       static_cast<std::int32_t>(seed % 2147483647u), true);
    const std::vector<RouterId> routers = bisection.run(g, weights);
    std::vector<std::uint32_t> part(level.vertices());
    for (std::uint32_t v = 0; v < part.size(); ++v) {
      const std::uint32_t b = blocks.block_of_router(routers[v]);
      part[v] = b == UINT32_MAX ? 0 : b;  // a router without slots: the balancing moves its tasks on
    }
    return part;
  }

  // A coarse level's placement as one of the tasks, balanced there.
  static std::vector<std::uint32_t> project_to_tasks(const std::vector<std::uint32_t>& coarse_part,
                                                     const std::vector<std::vector<std::uint32_t>>& cluster_of,
                                                     const LevelGraph& tasks, const BlockMachine& blocks,
                                                     RunStats& stats) {
    std::vector<std::uint32_t> part(tasks.vertices());
    for (std::uint32_t t = 0; t < part.size(); ++t) {
      std::uint32_t v = t;
      for (const auto& map : cluster_of) v = map[v];
      part[t] = coarse_part[v];
    }
    MappingRefiner refiner(tasks, blocks, std::move(part), {}, stats.work);
    refiner.rebalance();
    if (stats.runs == 0) stats.initial = refiner.cost();
    return refiner.part();
  }
};

}  // namespace
}  // namespace detail

std::unique_ptr<Mapper> make_multilevel_mapper(MapperLabel label, MultilevelOptions options) {
  return std::make_unique<detail::MultilevelMapper>(std::move(label), options);
}

}  // namespace taskmap
