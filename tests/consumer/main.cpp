// A program outside taskmap using the installed library: maps a periodic 4x4 9-point halo
// onto a 4x4 torus with the `default` mapper and prints the maximum channel load.
#include <cstdio>

#include "taskmap/eval/evaluator.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/routing/routing.h"
#include "taskmap/topology/machine_spec.h"
#include "taskmap/workload/generators.h"

int main() {
  using namespace taskmap;
  const Machine machine = make_machine("torus:4x4");
  const CommGraph halo = make_halo2d(4, 4, 9, /*periodic=*/true);
  const auto routing = make_routing(machine, default_routing(machine));
  const auto mapper = make_mapper(parse_mapper_spec("default"));
  const Mapping mapping = mapper->run(MappingProblem(machine, halo));
  const Metrics metrics = Evaluator(machine, *routing).evaluate(halo, mapping);
  std::printf("MCL %.6f\n", metrics.mcl);
  return 0;
}
