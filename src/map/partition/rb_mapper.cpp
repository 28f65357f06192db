// rb: recursive bisection of the task graph and the machine together (recursive_bisection.h):
// the routers halved along the machine's structure, the tasks by METIS in proportion to the
// halves' slots, down to single routers. tries=N has METIS compute N bisections per split and
// keep the best cut; split=leaves starts on leaf-switch fabrics with all the leaves at once;
// shares=link-speed gives nodes behind slower links fewer tasks when the job leaves slots free.
#include "recursive_bisection.h"

#include "taskmap/map/mapper_support.h"
#include "taskmap/map/partition/partition_mappers.h"

namespace taskmap {
namespace detail {
namespace {

class RbMapper final : public ConfiguredMapper<RbOptions> {
 public:
  using ConfiguredMapper::ConfiguredMapper;

  Mapping run(const MappingProblem& problem) const override {
    const Machine& machine = problem.machine();
    const CommGraph& graph = problem.graph();
    const RecursiveBisection bisection(machine, problem.imbalance(), options_.tries, 1, false, options_.leaves_first,
                                       options_.by_link_speed);
    std::vector<RouterId> router_of = bisection.run(integer_graph(graph, 1.0));
    return keep_default_unless_better(problem, place_on_routers(machine, graph, std::move(router_of), problem.imbalance()),
                                      label_.text);
  }
};

}  // namespace

}  // namespace detail

std::unique_ptr<Mapper> make_rb_mapper(MapperLabel label, RbOptions options) {
  return std::make_unique<detail::RbMapper>(std::move(label), options);
}

}  // namespace taskmap
