// Evaluator speed: halo3d:32x32x16,points=27 (16,384 tasks) on
// torus:4x4x4x4x2,ppn=32 with minimal and dor routing. Reports channel-load updates per
// second next to wall time per evaluation.
#include <benchmark/benchmark.h>

#include "taskmap/eval/evaluator.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/workload/pattern_spec.h"
#include "taskmap/topology/machine_spec.h"

namespace {

void run(benchmark::State& state, const char* machine_spec, const char* pattern_spec, const char* routing_spec,
         const char* mapper_spec) {
  using namespace taskmap;
  const Machine machine = make_machine(machine_spec);
  const CommGraph graph = build_pattern(parse_pattern_spec(pattern_spec));
  const MappingProblem problem(machine, graph, routing_spec);
  const Mapping mapping = make_mapper(parse_mapper_spec(mapper_spec))->run(problem);
  const Evaluator evaluator(problem);
  std::uint64_t updates = 0;
  for (auto _ : state) {
    Metrics m = evaluator.evaluate(graph, mapping);
    updates += m.channel_updates;
    benchmark::DoNotOptimize(m.mcl);
  }
  state.counters["updates_per_s"] = benchmark::Counter(static_cast<double>(updates), benchmark::Counter::kIsRate);
  state.counters["tasks"] = graph.num_tasks();
}

constexpr const char* kTorus = "torus:4x4x4x4x2,ppn=32";
constexpr const char* kHalo = "halo3d:32x32x16,points=27";

}  // namespace

BENCHMARK_CAPTURE(run, halo27_minimal_default, kTorus, kHalo, "minimal", "default")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run, halo27_dor_default, kTorus, kHalo, "dor", "default")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run, halo27_minimal_random, kTorus, kHalo, "minimal", "random")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run, halo27_dor_random, kTorus, kHalo, "dor", "random")->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
