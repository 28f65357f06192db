#include "taskmap/map/portfolio/auto_mapper.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <new>
#include <optional>
#include <variant>

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/core/progress.h"
#include "taskmap/core/spec.h"
#include "taskmap/eval/evaluator.h"
#include "taskmap/eval/recommendation.h"
#include "taskmap/map/node_order.h"
#include "taskmap/map/partition/partition_mappers.h"
#include "taskmap/map/refine/refine_inject.h"
#include "taskmap/map/refine/refine_mcl.h"
#include "taskmap/map/router_placement.h"
#include "step_runner.h"

namespace taskmap {
namespace {

thread_local std::vector<double> last_worker_seconds;

// Size limits of the costlier candidates, in directed task-graph edges (CommGraph::num_edges)
// or routers. Above them a candidate would take minutes on one core; auto then does without it.
// Scotch's time grows with the tasks more than with the edges (a 1M-task, 6.3M-edge stencil:
// about 4 minutes; 131,072 tasks and 3.5M edges of a 27-point stencil: 23 s; 69,120 tasks and
// 4.5M edges of a replicated trace: 1.6 s): any job up to kScotchMaxEdges, and jobs of at most
// kScotchManyEdgesMaxTasks tasks up to the hop-bytes refinement's limit.
constexpr std::size_t kScotchMaxEdges = std::size_t{1} << 21;
constexpr std::size_t kScotchManyEdgesMaxTasks = std::size_t{1} << 17;
// Scotch's target as a distance matrix (a fabric's hosts): 10,000 terminals take 5 s and 2 GB.
constexpr std::size_t kScotchMaxMatrixTerminals = 4096;
constexpr std::size_t kPartitionerMaxEdges = std::size_t{1} << 22;  // greedy, rb
constexpr const char* kRbManyTries = "rb:tries=16";  // with more tasks than slots, or on leaf switches
constexpr const char* kRbLeavesFirst = "rb:tries=16,split=leaves";  // on leaf switches
// effort=high: ml's runs alternate its own coarsenings and Scotch's mappings with new seeds,
// each V-cycled, and its coarsest levels are annealed twice as long.
constexpr const char* kMultilevelHighEffort = "ml:seeds=8,anneal=32000";
// On leaf switches with free slots and nodes of different link speeds.
constexpr const char* kRbLeavesBySpeed = "rb:tries=16,split=leaves,shares=link-speed";
constexpr std::size_t kRefineHbMaxEdges = std::size_t{1} << 23;
constexpr std::size_t kRefineMclMaxEdges = std::size_t{1} << 22;
// ml, with many tasks per slot: it runs Scotch's mapping among its own, so Scotch's limit on
// any job (ml's own levels and V-cycles cost more than Scotch's mapping: not the larger limit
// of jobs of few tasks), and anneals levels of up to 8 vertices per router, so at most this
// many routers hold slots.
constexpr std::size_t kMultilevelMaxEdges = kScotchMaxEdges;
constexpr std::size_t kMultilevelMaxRouters = 4096;
// On leaf switches, "nearly the fewest leaf-uplink bytes": at most this share above them.
constexpr double kNearlyFewestBytes = 0.01;
constexpr std::size_t kMultilevelSmallJobTasks = 1024;
constexpr std::uint64_t kMultilevelTasksPerSlot = 2;  // ml on larger jobs from this many tasks per slot on
constexpr std::size_t kRahtmSmallJobTasks = 512;
// The first round's best results that refine-hb improves (besides scotch's and rb's): each
// run costs about as much as Scotch's mapping.
constexpr std::size_t kRefinedStarts = 1;

// The MCL search on large jobs (mcl_search below). Its descent step scores, for each of its
// candidate tasks, a move to up to 8 slots of every router with slots, and each try re-routes
// the task's flows in and out, old and new route at 4 work units each: move_work(problem)
// units per candidate task and step. Up to kFullBudgetMoveWork the search gets the whole
// budget; above, the budget shrinks in proportion, and the tasks tried per step with it, so
// that the budget still buys kSearchSteps descent steps.
constexpr std::uint64_t kFullBudgetMoveWork = std::uint64_t{1} << 19;
constexpr std::uint64_t kSearchSteps = 8;
constexpr std::uint32_t kSlotsTriedPerRouter = 8;  // refine-mcl's descent: up to 8 slots per router
constexpr std::uint64_t kWorkPerRoute = 4;         // refine-mcl's work unit: 4 per flow re-routed
constexpr std::uint64_t kWorkUnitsPerMillion = 1'000'000;
// Under a work limit, the first round's candidates are predicted to take at most 1/this of it.
constexpr std::uint64_t kFirstRoundShare = 2;
// Under a work limit, a candidate whose prediction does not fit runs in its cheaper form if that
// fits: Scotch's speed strategy takes a fifth of its quality strategy's time on 65,536 tasks,
// and its placements are as often better as worse (27-point halos on Edison and Theta); ml at
// effort=high falls back to its default form.
constexpr std::array<std::array<const char*, 2>, 2> kCheaperForms = {
    {{"scotch", "scotch:strategy=speed"}, {kMultilevelHighEffort, "ml"}}};

// Step 1: the launchers' orders, the results auto never does worse than.
constexpr std::array<const char*, 3> kLauncherDefaults = {"default", "hostname-order", "cyclic"};

struct Result {
  std::string spec;
  Mapping mapping;
  Metrics metrics;
};

// True when x is strictly better than y by the objective, then the other metric, then the
// traffic inside nodes. Under objective mcl, an equal MCL goes to the lower MCL of the
// network's links (where the nodes' own links set the MCL, every placement of one task per
// node ties on it, and the switch links still differ).
bool better(const Metrics& x, const Metrics& y, AutoObjective objective) {
  // The objective's metric first, then the other of MCL and hop-bytes (J orders as hop-bytes).
  auto keys = [objective](const Metrics& m) -> std::array<double, 4> {
    switch (objective) {
      case AutoObjective::Mcl: return {m.mcl, m.mcl_network, m.hop_bytes, m.node_hop_bytes};
      case AutoObjective::HopBytes: return {m.hop_bytes, m.mcl, m.mcl_network, m.node_hop_bytes};
      case AutoObjective::J: return {m.j, m.mcl, m.mcl_network, m.node_hop_bytes};
    }
    return {};
  };
  const std::array<double, 4> keys_x = keys(x), keys_y = keys(y);
  for (int k = 0; k < 4; ++k) {
    if (int c = compare_within_rounding(keys_x[k], keys_y[k]); c != 0) return c < 0;
  }
  return false;
}

// The tables a hop-bytes refinement builds besides (refine_hop_bytes.cpp): the hops between
// routers (2 bytes a pair, at most 4,096 routers), and, where its group phase runs (at most
// 2^24 router pairs), every router's hops again (8 bytes a pair) and a groups x routers cost
// table (8 bytes an entry, at most 2^24 entries). On Edison's 1,440 routers about 155 MB;
// running a second one at once was measured at 87 MB more.
std::uint64_t hop_bytes_tables(const Machine& m) {
  const std::uint64_t pairs = std::uint64_t{m.num_routers} * m.num_routers;
  constexpr std::uint64_t kMostPairs = std::uint64_t{1} << 24;
  std::uint64_t bytes = 2 * std::min(pairs, kMostPairs);
  if (pairs <= kMostPairs) bytes += 8 * pairs + 8 * std::min(kMostPairs, 32 * pairs);
  return bytes;
}

// Refinements that may run at once: each holds about two copies of the task graph (the
// incremental evaluator's flow lists and its build), a few loads per channel and `tables`
// bytes of its own, and all of them together get at most a quarter of the memory limit;
// --max-memory thus bounds them too.
int concurrent_refinements(const MappingProblem& problem, std::size_t count, std::uint64_t tables) {
  const CommGraph& g = problem.graph();
  const std::uint64_t per_refinement =
      saturating_add(saturating_add(saturating_mul(2, CommGraph::estimated_bytes(g.num_tasks(), g.num_edges())),
                                    saturating_mul(problem.machine().channels.size(), 32)),
                     tables);
  const std::uint64_t fit = memory_limit() / 4 / std::max<std::uint64_t>(1, per_refinement);
  // No wider than --threads allows: TBB warns on stderr about an arena asking for more.
  const std::uint64_t threads = tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);
  return static_cast<int>(std::clamp<std::uint64_t>(std::min(fit, threads), 1, std::max<std::size_t>(1, count)));
}

class AutoMapper final : public Mapper {
 public:
  AutoMapper(MapperLabel label, AutoOptions options, MapperFactory factory)
      : label_(std::move(label)), options_(options), factory_(std::move(factory)) {}

  Mapping run(const MappingProblem& problem) const override {
    const Evaluator evaluator(problem);
    std::vector<Result> results;
    std::vector<std::string> skipped;
    const std::vector<std::string> portfolio = auto_portfolio(problem, options_.effort);
    // One step per candidate; the refinements are counted when the first round is known.
    io::Progress progress(label_.text, portfolio.size());
    portfolio::StepRunner runner(problem, evaluator, options_.workers, progress);
    const std::uint32_t workers = runner.workers();
    // A candidate that fails (a structured mapper without the task grid it needs, a size
    // over the memory limit, a flow the routing cannot route, memory the system refuses) is
    // left out with its reason; the launchers' orders fail only on the third, and those that do
    // not still come first. Results are kept in the jobs' order, whoever ran them.
    auto keep_all = [&](std::vector<portfolio::StepOutcome> outcomes) {
      for (auto& outcome : outcomes) {
        if (auto* r = std::get_if<portfolio::StepResult>(&outcome)) {
          results.push_back({std::move(r->spec), std::move(r->mapping), std::move(r->metrics)});
        } else {
          skipped.push_back(std::move(std::get<std::string>(outcome)));
        }
      }
    };
    // A refinement of results[i] by the refiner `spec`.
    auto refinement = [&](std::size_t i, const std::string& spec, std::uint32_t worker) {
      return portfolio::StepJob{results[i].spec + "+" + spec,
                                [&, i, spec](const MappingProblem& on) { return factory_.make(spec)->improve(on, results[i].mapping); },
                                worker};
    };
    // The refinements of steps 4 and 5 (hop-bytes, then MCL): independent of each other within
    // a step and reading the problem only, so they run at once (the MCL searches are most of
    // auto's time on trees, where there are up to four), as many as concurrent_refinements lets
    // the memory limit hold, or spread over the workers in turn; their results are taken in the
    // list's order, so the choice is the same for every thread count.
    auto run_refinements = [&](std::vector<portfolio::StepJob> jobs, std::uint64_t tables) {
      for (std::size_t k = 0; k < jobs.size(); ++k) jobs[k].worker = static_cast<std::uint32_t>(k % workers);
      keep_all(runner.run(jobs, concurrent_refinements(problem, jobs.size(), tables)));
    };

    // Step 1-3, the first round: each candidate goes to the worker with the least predicted
    // work so far (the first of them on a tie). Under a work limit a worker takes, after the
    // launchers' orders, the candidates whose predicted work still fits its share, in the
    // portfolio's order.
    const std::uint64_t work_limit = saturating_mul(options_.work, kWorkUnitsPerMillion);
    std::vector<std::uint64_t> first_round_work(workers, work_limit > 0 ? route_work(problem) : 0);
    // The launchers' orders run first: their evaluations measure what evaluating a placement
    // costs here (evaluation_work), which the other candidates' predictions and the
    // refinements' shares then count.
    std::vector<portfolio::StepJob> first_round_jobs;
    std::vector<std::uint32_t> launcher_workers;  // under a work limit, of the launchers not yet measured
    const std::uint64_t base_evaluation = evaluation_work(problem, {});
    std::uint64_t evaluation = base_evaluation;
    auto measure_launchers = [&] {
      if (launcher_workers.empty()) return;
      keep_all(runner.run(first_round_jobs, 1));
      first_round_jobs.clear();
      std::vector<Metrics> measured;
      for (const Result& r : results) measured.push_back(r.metrics);
      evaluation = evaluation_work(problem, measured);
      for (std::uint32_t w : launcher_workers) first_round_work[w] += evaluation - base_evaluation;
      launcher_workers.clear();
    };
    for (const std::string& spec : portfolio) {
      if (std::string why = factory_.why_not(spec, problem); !why.empty()) {
        skipped.push_back(fmt::format("{}: {}", spec, why));
        progress.advance();
        continue;
      }
      const bool launcher = std::find(kLauncherDefaults.begin(), kLauncherDefaults.end(), spec) != kLauncherDefaults.end();
      if (!launcher) measure_launchers();
      const auto least = static_cast<std::uint32_t>(std::min_element(first_round_work.begin(), first_round_work.end()) -
                                                    first_round_work.begin());
      auto fits = [&](std::string_view s) {
        return work_limit == 0 || launcher ||
               first_round_work[least] + predicted_work(s, problem, evaluation) <= work_limit / kFirstRoundShare;
      };
      std::string run = spec;
      if (!fits(run)) {
        const auto cheaper = std::find_if(kCheaperForms.begin(), kCheaperForms.end(),
                                          [&](const auto& f) { return std::string_view(f[0]) == spec; });
        if (cheaper == kCheaperForms.end() || !fits((*cheaper)[1])) {
          skipped.push_back(fmt::format("{}: beyond the work limit", spec));
          progress.advance();
          continue;
        }
        run = (*cheaper)[1];
      }
      first_round_work[least] += predicted_work(run, problem, evaluation);
      if (launcher && work_limit > 0) launcher_workers.push_back(least);
      first_round_jobs.push_back({run, [&, run](const MappingProblem& on) { return factory_.make(run)->run(on); }, least});
    }
    measure_launchers();  // when no other candidate followed: the refinements' shares count it
    keep_all(runner.run(first_round_jobs, 1));
    // What the refinements may spend under a work limit, per worker: of what its first round
    // left (the busiest worker's), the MCL searches' own budget each (at most half of it in all,
    // for the searches auto runs on this machine's kind), the rest to the hop-bytes
    // refinements, evenly over the jobs a worker gets in each step; a step whose share is under
    // a million units each is left out. "" without a limit.
    const std::uint64_t busiest = *std::max_element(first_round_work.begin(), first_round_work.end());
    const std::uint64_t work_left = work_limit > busiest ? work_limit - busiest : 0;
    const bool leaf_switches = has_leaf_switches(problem.machine());
    const bool tables = problem.routing().follows_tables();
    const bool injection = has_injection_links(problem.machine());
    // The jobs of the MCL step: its searches, and on leaf switches with node links refine-inject;
    // then, under forwarding tables with node links, the exchanges of whole nodes.
    const std::uint64_t usual_searches = 1 + (leaf_switches ? 4 : 0) + (leaf_switches && injection ? 1 : 0);
    const std::size_t exchange_jobs = tables && injection ? (leaf_switches ? 2 : 1) : 0;
    auto per_worker = [&](std::uint64_t jobs) { return std::max<std::uint64_t>(1, (jobs + workers - 1) / workers); };
    const std::uint64_t mcl_jobs_per_worker = per_worker(usual_searches) + (exchange_jobs > 0 ? per_worker(exchange_jobs) : 0);
    const std::uint64_t mcl_work_left =
        options_.objective == AutoObjective::Mcl
            ? std::min(work_left / 2, saturating_mul(mcl_search(problem, options_.budget, RefineOptions{}.candidates).budget,
                                                     saturating_mul(mcl_jobs_per_worker, kWorkUnitsPerMillion)))
            : 0;
    // A worker's share of a step, per job, its jobs' evaluations set aside as far as they cost
    // more than on the machines the rates were measured on (whole plans, the refinements'
    // evaluations included): on wide routes.
    const std::uint64_t beyond_measured = evaluation - base_evaluation;
    auto work_each = [&](std::uint64_t step_work, std::uint64_t jobs_per_worker) {
      const std::uint64_t evaluations = saturating_mul(jobs_per_worker, beyond_measured);
      return (step_work - std::min(step_work, evaluations)) / jobs_per_worker / kWorkUnitsPerMillion;
    };
    auto work_share = [&](std::uint64_t step_work, std::size_t count) -> std::optional<std::string> {
      if (work_limit == 0) return "";
      const std::uint64_t each = work_each(step_work, per_worker(count));
      if (each == 0) return std::nullopt;
      return fmt::format("work={},", each);
    };
    if (results.empty()) fail("--mapper '{}': no mapper of the portfolio applies ({})", label_.text, join(skipped));
    const std::size_t first_round = results.size();

    // The best start by the objective, and the general partitioners' placements (so that
    // auto includes the pipelines scotch+refine-hb and rb+refine-hb), improved for hop-bytes,
    // which also shortens the routes the MCL search then works on.
    const std::size_t graph_edges = problem.graph().num_edges();
    const bool refine_mcl =
        options_.objective == AutoObjective::Mcl && options_.budget > 0 && graph_edges <= kRefineMclMaxEdges;
    // When a partitioner leads, the best of the others is refined too: which results are
    // refined does not then hang on which partitioner happens to lead (an ml placement
    // refined for hop-bytes can end lower than every partitioner's).
    std::vector<std::size_t> starts;
    if (graph_edges <= kRefineHbMaxEdges) {
      auto partitioner = [&](std::size_t i) {
        const std::string_view family = std::string_view(results[i].spec).substr(0, results[i].spec.find(':'));
        return family == "scotch" || family == "rb";
      };
      starts = best_indices(results, first_round, kRefinedStarts);
      for (std::size_t i = 0; i < first_round; ++i)
        if (partitioner(i) && std::find(starts.begin(), starts.end(), i) == starts.end()) starts.push_back(i);
      for (std::size_t i : best_indices(results, first_round, first_round)) {
        if (partitioner(i)) continue;
        if (std::find(starts.begin(), starts.end(), i) == starts.end()) starts.push_back(i);
        break;
      }
    }
    const bool by_speed_start =
        std::any_of(starts.begin(), starts.end(), [&](std::size_t i) { return results[i].spec == kRbLeavesBySpeed; });
    progress.set_total(portfolio.size() + starts.size() + (by_speed_start ? 1 : 0) + (refine_mcl ? 1 : 0));
    // rb's shares by link speed also keep theirs: refine-hb by slots alone fills the free
    // slots they leave beside the slower nodes wherever that saves hop-bytes.
    // With more workers than refinements, the others refine the same starts again from other
    // seeds, in turn (the launchers' seeds: seed + 1, seed + 2, ...).
    const std::size_t hb_base = starts.size() + (by_speed_start ? 1 : 0);
    const std::size_t hb_jobs = workers > 1 && hb_base > 0 ? std::max<std::size_t>(hb_base, workers) : hb_base;
    const std::optional<std::string> hb_work = work_share(work_left - mcl_work_left, hb_jobs);
    if (!hb_work) {
      for (std::size_t i : starts) skipped.push_back(fmt::format("{}+refine-hb: beyond the work limit", results[i].spec));
      starts.clear();
    }
    const std::string keeping_shares = fmt::format("refine-hb:{}room=link-speed,seed={}", hb_work.value_or(""), options_.seed);
    const std::string by_speed_refined = std::string(kRbLeavesBySpeed) + "+" + keeping_shares;  // its result's spec
    {
      auto refiner = [&](std::uint64_t seed) { return fmt::format("refine-hb:{}seed={}", hb_work.value_or(""), seed); };
      std::vector<std::pair<std::size_t, std::string>> planned;  // start, refiner
      for (std::size_t i : starts) {
        planned.emplace_back(i, refiner(options_.seed));
        if (results[i].spec == kRbLeavesBySpeed) planned.emplace_back(i, keeping_shares);
      }
      for (std::size_t k = 0; !starts.empty() && planned.size() < hb_jobs; ++k)
        planned.emplace_back(starts[k % starts.size()], refiner(options_.seed + 1 + k / starts.size()));
      std::vector<portfolio::StepJob> refinements;
      for (const auto& [i, r] : planned) refinements.push_back(refinement(i, r, 0));
      run_refinements(std::move(refinements), hop_bytes_tables(problem.machine()));
    }
    // The MCL search under the run's routing, from the best so far. On leaf switches, where
    // the portfolio holds several placements of nearly the same MCL, also from the best of
    // another mapper family (a search can stall from one start and not from another), and,
    // from the result of the least leaf-uplink volume (whatever its MCL), twice: moving tasks
    // only under their own leaf switches (its uplink bytes kept), and anywhere (a leaf of one
    // node, whose injection link carries all its leaf's traffic, can only shed load by giving
    // tasks to other leaves).
    const std::size_t launchers = static_cast<std::size_t>(std::count_if(results.begin(), results.end(), [](const Result& r) {
      return std::find(kLauncherDefaults.begin(), kLauncherDefaults.end(), r.spec) != kLauncherDefaults.end();
    }));
    auto metrics_of = [&](std::size_t end) {  // of results[0, end)
      std::vector<Metrics> metrics;
      metrics.reserve(end);
      for (std::size_t i = 0; i < end; ++i) metrics.push_back(results[i].metrics);
      return metrics;
    };
    auto choice = [&] { return auto_choice(metrics_of(results.size()), launchers, options_, leaf_switches, tables); };
    if (refine_mcl) {
      const std::uint32_t candidates = RefineOptions{}.candidates;
      const MclSearch search = mcl_search(problem, options_.budget, candidates);
      const std::size_t unsearched = results.size();  // the results a search may start from
      // The jobs planned, in order: the start, and the MCL search's options after its work and
      // seed (a refine-inject job has none); their work is set when all are known.
      struct Planned {
        std::size_t start;
        std::string spec;
        bool mcl;
      };
      std::vector<Planned> planned;
      const std::string fewer_candidates = search.candidates < candidates ? fmt::format(",candidates={}", search.candidates) : "";
      auto search_from = [&](std::size_t i, bool within_leaf) {
        const std::string options = fmt::format("{}{}", fewer_candidates, within_leaf ? ",within=leaf" : "");
        for (const Planned& p : planned)
          if (p.start == i && p.mcl && p.spec == options) return;
        planned.push_back({i, options, true});
      };
      const std::vector<std::size_t> order = best_indices(results, unsearched, unsearched);
      search_from(order.front(), false);
      const std::string first_options = planned.front().spec;
      if (leaf_switches) {
        auto family = [&](std::size_t i) { return results[i].spec.substr(0, results[i].spec.find_first_of(":+")); };
        for (std::size_t i : order) {
          if (family(i) != family(order.front())) {
            search_from(i, false);
            break;
          }
        }
        AutoOptions fewest_bytes = options_;  // any MCL: the least leaf-uplink volume, ties by MCL
        fewest_bytes.uplink_slack = std::numeric_limits<double>::max();
        const std::size_t fewest = auto_choice(metrics_of(unsearched), 0, fewest_bytes, true);
        search_from(fewest, true);
        search_from(fewest, false);
        // And its nodes' own links relieved by whole groups of tasks, which refine-mcl's single
        // moves and swaps cannot shift (cheap beside a search: a few METIS bisections per node).
        std::vector<std::size_t> injected;
        auto inject_from = [&](std::size_t i) {
          if (injection && std::find(injected.begin(), injected.end(), i) == injected.end()) {
            injected.push_back(i);
            planned.push_back({i, "", false});
          }
        };
        inject_from(fewest);
        // Both keep the bytes of their start and end nearer its MCL, and the result of the very
        // fewest bytes may have a far higher MCL than one with a few more: so also from the
        // lowest MCL of the results with nearly as few bytes.
        const double few_bytes = results[fewest].metrics.leaf_uplink_volume * (1 + kNearlyFewestBytes);
        std::size_t nearly = fewest;
        for (std::size_t i = 0; i < unsearched; ++i) {
          if (results[i].metrics.leaf_uplink_volume <= few_bytes &&
              compare_within_rounding(results[i].metrics.mcl, results[nearly].metrics.mcl) < 0) {
            nearly = i;
          }
        }
        if (nearly != fewest) {
          search_from(nearly, true);
          inject_from(nearly);
        }
        // And from the leaves' partition that left free slots beside the nodes behind slower
        // links, whose tasks only refine-inject moves there, before and after refine-hb kept
        // those slots free.
        for (std::size_t i = 0; i < unsearched; ++i)
          if (results[i].spec == kRbLeavesBySpeed || results[i].spec == by_speed_refined) inject_from(i);
      }
      // With more workers than jobs, the others search from the best start again with other
      // seeds, in turn.
      std::vector<std::uint64_t> seeds(planned.size(), options_.seed);
      for (std::uint64_t k = 1; workers > 1 && planned.size() < workers; ++k) {
        planned.push_back({order.front(), first_options, true});
        seeds.push_back(options_.seed + k);
      }
      // Under a work limit every job of the step, search, refine-inject or node exchange (these
      // run after the others), gets an even share.
      const std::uint64_t jobs_per_worker = per_worker(planned.size()) + (exchange_jobs > 0 ? per_worker(exchange_jobs) : 0);
      const std::uint64_t share = work_limit > 0 ? work_each(mcl_work_left, jobs_per_worker) : 0;
      const std::optional<std::string> step_work =
          work_limit == 0 ? std::optional<std::string>("") : share > 0 ? std::optional(fmt::format("work={},", share)) : std::nullopt;
      const std::uint64_t work = share > 0 ? std::min(search.budget, share) : search.budget;
      std::vector<portfolio::StepJob> searches;
      for (std::size_t k = 0; k < planned.size(); ++k) {
        const Planned& p = planned[k];
        const std::string spec = p.mcl ? fmt::format("refine-mcl:work={},seed={}{}", work, seeds[k], p.spec)
                                       : fmt::format("refine-inject:{}seed={}", step_work.value_or(""), options_.seed);
        if (!step_work) {
          skipped.push_back(fmt::format("{}+{}: beyond the work limit", results[p.start].spec, spec));
          continue;
        }
        searches.push_back(refinement(p.start, spec, 0));
      }
      // Under forwarding tables with node links, the switch links below the MCL are what the
      // routes make of the placement: the step's choice with the contents of its nodes exchanged
      // whole, on the network's links (each node link keeps a load a link of its speed had, so
      // the MCL does not rise), under the nodes' own leaf switches (the uplink bytes kept; the
      // routes down from the spines depend on the destination) and anywhere.
      progress.set_total(portfolio.size() + starts.size() + (by_speed_start ? 1 : 0) + searches.size() +
                         (step_work ? exchange_jobs : 0));
      run_refinements(std::move(searches), 0);
      std::vector<portfolio::StepJob> exchanges;
      if (exchange_jobs > 0) {
        const std::size_t from = choice();
        for (const char* where : {",within=leaf", ""}) {
          if (*where && !leaf_switches) continue;
          const std::string spec =
              fmt::format("refine-mcl:work={},seed={}{},links=network,moves=routers{}", work, options_.seed, fewer_candidates, where);
          if (step_work) exchanges.push_back(refinement(from, spec, 0));
          else skipped.push_back(fmt::format("{}+{}: beyond the work limit", results[from].spec, spec));
        }
      }
      run_refinements(std::move(exchanges), 0);
    }

    Result chosen = std::move(results[choice()]);
    last_worker_seconds = runner.worker_seconds();
    // A launcher order that wins keeps its nodes; its tasks may still sit better inside them.
    Mapping ordered = chosen.mapping;
    order_within_nodes(problem, ordered);
    if (ordered.slot_of_task != chosen.mapping.slot_of_task) {
      Metrics m = evaluator.evaluate(problem.graph(), ordered);
      if (better(m, chosen.metrics, options_.objective)) {
        chosen.mapping = std::move(ordered);
        chosen.metrics = std::move(m);
        chosen.spec += " (ranks ordered inside nodes)";
      }
    }
    chosen.mapping.note = fmt::format("{}: chose {} (MCL {:.6g}, hop-bytes {:.6g}) among {} results{}", label_.text,
                                      chosen.spec, chosen.metrics.mcl, chosen.metrics.hop_bytes, results.size(),
                                      skipped.empty() ? "" : fmt::format("; left out: {}", join(skipped)));
    return std::move(chosen.mapping);
  }

 private:
  // Indices of the `count` best of results[0, end), best first; ties keep the earlier.
  std::vector<std::size_t> best_indices(const std::vector<Result>& results, std::size_t end, std::size_t count) const {
    std::vector<std::size_t> order(end);
    for (std::size_t i = 0; i < end; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return better(results[a].metrics, results[b].metrics, options_.objective);
    });
    order.resize(std::min(count, end));
    return order;
  }
  // "SPEC: reason" items, those with the same reason given once after their specs.
  static std::string join(const std::vector<std::string>& items) {
    std::vector<std::pair<std::string, std::vector<std::string>>> by_reason;  // in first-seen order
    for (const std::string& item : items) {
      const std::size_t colon = item.find(": ");
      std::string spec = item.substr(0, colon), reason = colon == std::string::npos ? "" : item.substr(colon + 2);
      auto it = std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& r) { return r.first == reason; });
      if (it == by_reason.end()) it = by_reason.insert(by_reason.end(), {std::move(reason), {}});
      it->second.push_back(std::move(spec));
    }
    std::vector<std::string> parts;
    for (const auto& [reason, specs] : by_reason) parts.push_back(fmt::format("{}: {}", fmt::join(specs, ", "), reason));
    return fmt::format("{}", fmt::join(parts, "; "));
  }

  MapperLabel label_;
  AutoOptions options_;
  MapperFactory factory_;
};

}  // namespace

std::size_t auto_choice(const std::vector<Metrics>& results, std::size_t launchers, const AutoOptions& options,
                        bool leaf_switches, bool tables) {
  if (results.empty()) fail("auto: no result to choose from");
  std::size_t best = 0;
  for (std::size_t i = 1; i < results.size(); ++i) {
    if (better(results[i], results[best], options.objective)) best = i;
  }
  if (!leaf_switches || options.objective != AutoObjective::Mcl || options.uplink_slack <= 0) return best;
  // The MCL allowed: the slack above the lowest, never above a launcher default's (equal
  // within rounding counts as not above).
  double ceiling = results[best].mcl * (1 + options.uplink_slack);
  for (std::size_t i = 0; i < std::min(launchers, results.size()); ++i) ceiling = std::min(ceiling, results[i].mcl);
  std::size_t chosen = best;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (i == chosen || compare_within_rounding(results[i].mcl, ceiling) > 0) continue;
    if (tables) {
      if (const int c = compare_within_rounding(results[i].mcl_network, results[chosen].mcl_network); c != 0) {
        if (c < 0) chosen = i;
        continue;
      }
    }
    const int uplink = compare_within_rounding(results[i].leaf_uplink_volume, results[chosen].leaf_uplink_volume);
    if (uplink < 0 || (uplink == 0 && better(results[i], results[chosen], options.objective))) chosen = i;
  }
  return chosen;
}

std::uint64_t move_work(const MappingProblem& problem) {
  const Machine& m = problem.machine();
  std::uint64_t tries = 0;
  for (RouterId r = 0; r < m.num_host_routers(); ++r) {
    const std::uint32_t slots = m.slots_of_router(r);
    if (slots == 0) continue;
    const std::uint32_t step = std::max(1u, slots / kSlotsTriedPerRouter);
    tries += (slots + step - 1) / step;
  }
  const std::uint32_t tasks = problem.graph().num_tasks();
  // Flows in and out of a task, on average: each directed edge is one task's out and another's in.
  const double flows = tasks > 0 ? 2.0 * static_cast<double>(problem.graph().num_edges()) / tasks : 0.0;
  return static_cast<std::uint64_t>(static_cast<double>(tries) * flows * static_cast<double>(2 * kWorkPerRoute));
}

MclSearch mcl_search(const MappingProblem& problem, std::uint64_t budget, std::uint32_t candidates) {
  const std::uint64_t work = std::max<std::uint64_t>(1, move_work(problem));
  if (budget == 0 || work <= kFullBudgetMoveWork) return {budget, candidates};
  MclSearch search;
  const double scaled = static_cast<double>(budget) * static_cast<double>(kFullBudgetMoveWork) / static_cast<double>(work);
  search.budget = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(scaled)));
  search.candidates = static_cast<std::uint32_t>(
      std::clamp<std::uint64_t>(search.budget * kWorkUnitsPerMillion / (kSearchSteps * work), 1, candidates));
  return search;
}

std::vector<std::string> auto_portfolio(const MappingProblem& problem, AutoEffort effort) {
  const Machine& m = problem.machine();
  const CommGraph& g = problem.graph();
  const bool has_grid = !g.grid().empty();
  std::vector<std::string> specs(kLauncherDefaults.begin(), kLauncherDefaults.end());
  if (const TorusShape* torus = m.torus()) {
    if (has_grid) specs.push_back("blocks");
    specs.push_back("hilbert");
    if (has_grid && torus->dims() >= 5) specs.push_back("rubik-tiling");
    // RAHTM (power-of-two tori) on small jobs, where it takes about a second or less and its
    // MCL-optimal sub-problems beat the partitioners on irregular traffic (NAS CG: 512 ranks
    // on torus:8x8x8, MCL 3.88 against ml's 4.48 and the default's 5.55).
    if (g.num_tasks() <= kRahtmSmallJobTasks) specs.push_back("rahtm");
  } else if (std::holds_alternative<PercsShape>(m.shape) && has_grid) {
    for (const char* spec : {"percs-block:level=node", "percs-block:level=drawer", "percs-block:level=supernode",
                             "percs-modcolor", "percs-transpose"}) {
      specs.push_back(spec);
    }
  } else if (std::holds_alternative<RectTorusShape>(m.shape) && has_grid) {
    specs.push_back("rtt-map");
    specs.push_back("rtt-map:f=diag");
  } else if (std::holds_alternative<DragonflyShape>(m.shape) && has_grid) {
    specs.push_back("dragonfly-bsm");
    specs.push_back("dragonfly-bbac");
    specs.push_back("dragonfly-bbac:colors=n");
  }
  const std::size_t edges = g.num_edges();
  if (edges <= kPartitionerMaxEdges) {
    specs.push_back("greedy");
    specs.push_back("rb");
    // Graph partitioning proper (many tasks per slot), or a tree of leaf switches, whose cuts
    // are the traffic over the leaves' uplinks: the bisections' cuts matter most, and the
    // lowest of 16 METIS cuts per split often leads the refined pipelines.
    if (g.num_tasks() > m.num_slots() || has_leaf_switches(m)) specs.push_back(kRbManyTries);
    // On leaf switches also all the leaves at once: halving whole leaves to a side first fixes
    // a grouping of the leaves that the traffic may not follow (a leaf of one node pairs best
    // with whichever leaf shares its tasks' partners).
    if (has_leaf_switches(m)) specs.push_back(kRbLeavesFirst);
    // And, where the job leaves slots free, with fewer tasks on the nodes behind slower links:
    // the same cut placed so that no such node carries the MCL, which the refiners keeping the
    // leaves' task counts cannot undo when its leaf has no free slot (docs/auto.md).
    if (has_leaf_switches(m) && g.num_tasks() < m.num_slots() && node_link_speeds_differ(m)) {
      specs.push_back(kRbLeavesBySpeed);
    }
  }
  const bool scotch_in_time =
      edges <= kScotchMaxEdges || (g.num_tasks() <= kScotchManyEdgesMaxTasks && edges <= kRefineHbMaxEdges);
  if (scotch_in_time && scotch_distance_matrix_terminals(m) <= kScotchMaxMatrixTerminals) {
    specs.push_back("scotch");
  }
  // ml with many tasks per slot (graph partitioning proper), or on a small job, where it costs
  // well under a second and its annealing finds what the partitioners miss (NAS CG's 64 ranks
  // on a 4x4x4 mesh: the MCL bound, where scotch and rb stay above twice it). Between one and
  // two tasks per slot the job is a mapping with some slots doubled, which the partitioners and
  // refiners handle, and ml costs seconds (4,096 tasks on Theta's 3,456 nodes: 4.5 s for an
  // MCL of 1.97 where scotch has 1.89).
  const bool many_per_slot = g.num_tasks() >= kMultilevelTasksPerSlot * std::uint64_t{m.num_slots()};
  const bool ml_useful = many_per_slot || g.num_tasks() <= kMultilevelSmallJobTasks;
  if (ml_useful && edges <= kMultilevelMaxEdges && detail::routers_with_slots(m).size() <= kMultilevelMaxRouters) {
    specs.push_back(effort == AutoEffort::High ? kMultilevelHighEffort : "ml");
  }
  return specs;
}

std::uint64_t route_work(const MappingProblem& problem) {
  // The routes of the first evaluation, which later ones find in the route cache: about 10
  // units per task-graph edge and task (a launcher order's whole run on a 27-point halo of
  // 65,536 tasks on Edison under ecmp: 0.47 s on a quiet core beside reading the fabric).
  const CommGraph& g = problem.graph();
  return saturating_mul(std::uint64_t{g.num_edges()} + g.num_tasks(), 10);
}

std::vector<double> auto_worker_seconds() { return last_worker_seconds; }

std::uint64_t evaluation_work(const MappingProblem& problem, const std::vector<Metrics>& measured) {
  const CommGraph& g = problem.graph();
  std::uint64_t units = saturating_mul(std::uint64_t{g.num_edges()} + g.num_tasks(), kEvaluateUnits);
  for (const Metrics& m : measured) {
    units = std::max(units, static_cast<std::uint64_t>(std::ceil(kUnitsPerChannelUpdate * static_cast<double>(m.channel_updates))));
  }
  return units;
}

std::uint64_t predicted_work(std::string_view spec, const MappingProblem& problem) {
  return predicted_work(spec, problem, evaluation_work(problem, {}));
}

std::uint64_t predicted_work(std::string_view spec, const MappingProblem& problem, std::uint64_t evaluation) {
  // Units per task-graph edge (and task): the most measured on one quiet core over 27-point
  // halos of 4,096 to 65,536 tasks on Edison, Theta and fat trees, times 1.4 for a busy core
  // (docs/auto.md, "Work limit"): evaluating a placement, which every candidate is, and each
  // mapper's own work beside. Scotch's quality strategy grows faster than the graph past
  // 16,384 tasks (its k-way refinement: 65,536 tasks on Edison cost six times 16,384's per edge).
  const std::string_view name = spec.substr(0, spec.find(':'));
  const CommGraph& g = problem.graph();
  std::uint64_t own = 0;
  if (name == "greedy") own = 20;
  else if (name == "rb") own = spec.find("tries=") != std::string_view::npos ? 150 : 20;
  else if (name == "scotch") {
    const bool speed = spec.find("strategy=speed") != std::string_view::npos ||
                       (spec.find("strategy=quality") == std::string_view::npos && g.num_tasks() > kScotchQualityUpToTasks);
    const double growth = std::max(1.0, static_cast<double>(g.num_tasks()) / 16384.0);
    own = speed ? 40 : static_cast<std::uint64_t>(std::ceil(45.0 * growth * std::sqrt(growth)));
  } else if (name == "ml") {
    // 600 for the default 2 runs (its own and Scotch's), in proportion for more; and the
    // annealing of each own run's coarsest graph (about 4 vertices per router with slots, when
    // the tasks are more than that), whatever the edges: 1 unit per step, times 1.4 (measured:
    // add20's 2,395 tasks on torus:8x8x8, 1.96 s, 1.4 s beyond 600 units per edge and task, or
    // 0.9 units per step at 20 million a second). Its spec is auto's own: well-formed.
    io::SpecReader reader("auto", spec);
    const MultilevelOptions defaults;
    const std::uint64_t runs = std::max<std::int64_t>(2, reader.get_int("seeds", 1, 1 << 20).value_or(defaults.seeds));
    const std::uint64_t steps = reader.get_int("anneal", 0, 1 << 24).value_or(defaults.coarsest_anneal_steps);
    own = 600 * runs / 2;
    const std::uint64_t coarsest = 4 * detail::routers_with_slots(problem.machine()).size();
    if (g.num_tasks() > coarsest) {
      evaluation = saturating_add(evaluation, saturating_mul(saturating_mul(coarsest, steps * 14 / 10), (runs + 1) / 2));
    }
  } else if (name == "rahtm") own = 2000;
  return saturating_add(evaluation, saturating_mul(std::uint64_t{g.num_edges()} + g.num_tasks(), own));
}

std::unique_ptr<Mapper> make_auto_mapper(MapperLabel label, AutoOptions options, MapperFactory factory) {
  return std::make_unique<AutoMapper>(std::move(label), options, std::move(factory));
}

}  // namespace taskmap
