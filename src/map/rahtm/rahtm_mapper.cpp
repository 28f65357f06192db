// The rahtm mapper: RAHTM's algorithm behind the Mapper interface.
#include <fmt/format.h>

#include "taskmap/map/mapper_support.h"
#include "taskmap/map/rahtm/rahtm.h"

namespace taskmap {
namespace detail {
namespace {

class RahtmMapper final : public ConfiguredMapper<RahtmOptions> {
 public:
  using ConfiguredMapper::ConfiguredMapper;
  Mapping run(const MappingProblem& problem) const override {
    const CommGraph& g = problem.graph();
    check_fits(problem.machine(), g);
    const RahtmOptions& options = options_;
    RahtmStats stats;
    Mapping mapping;
    try {
      if (label_.grid.empty()) {
        mapping = rahtm_map(problem, options, &stats);
      } else {
        CommGraph with_grid = g;
        with_grid.set_grid(task_grid(label_, g, 1, 8));
        mapping = rahtm_map(problem.with_graph(with_grid), options, &stats);
      }
    } catch (const Error& e) {
      refuse(label_, "{}", e.what());
    }
    mapping.note = fmt::format("{}; MCL {:.6g} ({} routing)", stats.summary(), stats.final_mcl, problem.routing_name());
    return mapping;
  }
};

}  // namespace
}  // namespace detail

std::unique_ptr<Mapper> make_rahtm_mapper(MapperLabel label, RahtmOptions options) {
  return std::make_unique<detail::RahtmMapper>(std::move(label), options);
}

}  // namespace taskmap
