#pragma once
// auto: the mapper a user gets without naming one. It runs a portfolio of mappers chosen by the
// machine's kind, the job's size and structure (task grid known or not, tasks vs slots),
// refines the best of them under the run's routing, evaluates every result with the
// Evaluator and returns the best by the objective (on leaf switches, the least leaf-uplink
// volume within a slack of the lowest MCL: auto_choice). The launchers' defaults (default,
// hostname-order, cyclic) are always in the portfolio, so auto is never worse than them.
// Every step is deterministic for a given budget and seed. The portfolio is documented as a
// table in docs/mappers.md ("How auto chooses"); auto_portfolio() is that table in code.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "taskmap/eval/evaluator.h"
#include "taskmap/map/mapper.h"

namespace taskmap {

enum class AutoObjective {
  Mcl,       // MCL, then hop-bytes
  HopBytes,  // hop-bytes, then MCL
  J,         // Metrics::j (KaHIP's and Scotch's J, each pair's traffic once), then MCL
};

// How hard the multilevel candidate searches: high runs ml with 8 runs (its own and Scotch's
// mappings with several seeds, each V-cycled) and its coarsest graphs annealed twice as long
// (ml:seeds=8,anneal=32000): that candidate's time several times over.
enum class AutoEffort { Normal, High };

struct AutoOptions {
  AutoObjective objective = AutoObjective::Mcl;
  AutoEffort effort = AutoEffort::Normal;
  // Millions of work units of the routing-aware refinement (refine-mcl's unit: 4 per flow
  // re-routed, 1 per channel whose load changes); 0 leaves refine-mcl out.
  std::uint64_t budget = 100;
  std::uint64_t seed = 1;  // of the refiners
  // Millions of work units for the whole run (0: no limit): the first round takes the candidates
  // whose predicted work fits a share of it (auto_work_plan), the refinements split the rest
  // and stop where theirs runs out. A count of steps, not of time: the same result on every
  // run; about kWorkUnitsPerSecond units a second on one core.
  std::uint64_t work = 0;
  // The workers its steps' jobs are spread over (docs/auto.md, "Workers"): 0, one per process
  // of the run (1 alone). Alone with W > 1, this process runs every worker's jobs in turn, and
  // the result is what W processes would compute; auto_worker_seconds() has their times.
  std::uint32_t workers = 0;
  // On fabrics with leaf switches, objective mcl: the results whose MCL is at most this much
  // above the lowest (and never above a launcher default's) are ordered by leaf-uplink volume
  // first (auto_choice). 0: MCL, then hop-bytes, as on every other machine.
  double uplink_slack = 0.05;
};

// How auto reaches the other mappers without depending on the catalog that holds it: a mapper
// from its spec text, and why a spec does not apply to a problem ("" when it does).
struct MapperFactory {
  std::function<std::unique_ptr<Mapper>(std::string_view spec)> make;
  std::function<std::string(std::string_view spec, const MappingProblem& problem)> why_not;
};

// The first round's candidates for this problem, in the order they run (ties go to the
// earlier): the launchers' defaults, the structured mappers of the machine's kind, the general
// ones within their size limits. Whether each applies is checked when it runs.
std::vector<std::string> auto_portfolio(const MappingProblem& problem, AutoEffort effort = AutoEffort::Normal);

// The work units refine-mcl spends on one candidate task in a descent step (a lower bound:
// moves to up to 8 slots of every router with slots, each re-routing the task's flows in and
// out, old and new route); it grows with the job's flows and the routers it may use.
std::uint64_t move_work(const MappingProblem& problem);

// auto's MCL search: refine-mcl's budget (millions of work units) and the tasks it tries per
// descent step. `budget` and `candidates` (refine-mcl's default) while move_work is at most
// 2^19; above, budget x 2^19 / move_work (at least 1) and as many candidates as let that buy
// 8 descent steps (1 to `candidates`). Auto's time then stays in line with the rest of its work
// on large fabrics, where one descent step with every candidate would take most of the budget.
struct MclSearch {
  std::uint64_t budget = 0;
  std::uint32_t candidates = 0;
};
MclSearch mcl_search(const MappingProblem& problem, std::uint64_t budget, std::uint32_t candidates);

// The result auto keeps, an index into `results` (evaluated placements in the order they ran;
// the first `launchers` are the launcher defaults). By the objective, ties to the earlier;
// with `leaf_switches`, objective mcl and uplink_slack > 0: among the results whose MCL is at
// most (1 + uplink_slack) x the lowest and at most every launcher default's, the one with the
// least leaf-uplink volume, ties by the objective; under routes that follow forwarding tables
// (`tables`), whose switch-link loads are those the job will see, the least network MCL
// (mcl_network) comes before the leaf-uplink volume.
std::size_t auto_choice(const std::vector<Metrics>& results, std::size_t launchers, const AutoOptions& options,
                        bool leaf_switches, bool tables = false);

// The work units auto's steps run at on one core of the machines it was measured on, at least
// (docs/auto.md, "Work limit"): what a caller with a time limit converts seconds by.
inline constexpr std::uint64_t kWorkUnitsPerSecond = 20'000'000;

// The work units a first-round candidate is predicted to take on this problem, its
// evaluation included: a count per task-graph edge by kind of mapper, measured; and those of
// the routes the first evaluation computes (the route cache's), predicted once.
std::uint64_t predicted_work(std::string_view spec, const MappingProblem& problem);
std::uint64_t route_work(const MappingProblem& problem);
// With `evaluation` units for its evaluation (evaluation_work).
std::uint64_t predicted_work(std::string_view spec, const MappingProblem& problem, std::uint64_t evaluation);
// Evaluating one placement: kEvaluateUnits per task-graph edge and task, or, where the
// evaluations `measured` (the launchers' orders) routed more, kUnitsPerChannelUpdate per
// channel load they added (Metrics::channel_updates), whichever is more. The first is what the
// machines the predictions were measured on took (routes of a few dozen channels, tasks
// sharing routers); the second is for wide routes between many routers: 16,384 GPUs, each a
// router, under ecmp on a three-level tree of 64-port switches, a thousand channels a route,
// evaluated at 120 million channel loads a second on one core (0.16 units each at 20 million
// units a second, times 1.4 for a busy core).
inline constexpr std::uint64_t kEvaluateUnits = 6;
inline constexpr double kUnitsPerChannelUpdate = 0.25;
std::uint64_t evaluation_work(const MappingProblem& problem, const std::vector<Metrics>& measured);

// The seconds each worker of the last auto run on this thread spent, its jobs' mapping and
// evaluation (over processes: this process's worker only). A measurement, for reports of time,
// never part of an output that must be the same on every run.
std::vector<double> auto_worker_seconds();

std::unique_ptr<Mapper> make_auto_mapper(MapperLabel label, AutoOptions options, MapperFactory factory);

}  // namespace taskmap
