// The rahtm mapper: RAHTM's algorithm behind the Mapper interface.
#include <fmt/format.h>

#include "taskmap/map/mapper_support.h"
#include "taskmap/map/rahtm/rahtm.h"

namespace taskmap {
namespace detail {
namespace {

class RahtmMapper final : public SpecMapper {
 public:
  using SpecMapper::SpecMapper;
  Mapping run(const MappingProblem& problem) const override {
    const CommGraph& g = problem.graph();
    check_fits(problem.machine(), g);
    RahtmOptions options;
    options.beam = spec_.beam;
    options.milp_seconds = spec_.milp_seconds;
    options.leaf = spec_.greedy_leaves ? RahtmLeafSolver::Greedy : RahtmLeafSolver::Milp;
    options.threads = spec_.threads;
    RahtmStats stats;
    Mapping mapping;
    try {
      if (spec_.grid.empty()) {
        mapping = rahtm_map(problem, options, &stats);
      } else {
        CommGraph with_grid = g;
        with_grid.set_grid(task_grid(spec_, g, 1, 8));
        mapping = rahtm_map(problem.with_graph(with_grid), options, &stats);
      }
    } catch (const Error& e) {
      refuse(spec_, "{}", e.what());
    }
    mapping.note = fmt::format("{}; MCL {:.6g} ({} routing)", stats.summary(), stats.final_mcl, problem.routing_name());
    return mapping;
  }
};

}  // namespace

std::unique_ptr<Mapper> make_rahtm_mapper(const MapperSpec& spec) { return std::make_unique<RahtmMapper>(spec); }

}  // namespace detail
}  // namespace taskmap
