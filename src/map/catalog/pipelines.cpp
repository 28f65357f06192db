// Mappers that improve a placement: timer, refine-hb, refine-mcl, and pipelines A+B+...
// running each stage on the result of the one before.
#include <fmt/format.h>

#include <optional>

#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/map/mapper_support.h"
#include "taskmap/map/router_placement.h"
#include "taskmap/map/refine/refine_hop_bytes.h"
#include "taskmap/map/refine/refine_mcl.h"
#include "taskmap/map/refine/timer.h"
#include "taskmap/routing/routing.h"

namespace taskmap {

namespace detail {
namespace {

// A refiner alone improves the mapping of its start mapper; its note follows the notes of
// the stages before it, one line each.
class Refiner : public SpecMapper {
 public:
  Refiner(MapperSpec spec, const char* start) : SpecMapper(std::move(spec)), start_(start) {}

  Mapping run(const MappingProblem& problem) const override {
    return improve(problem, make_mapper(parse_mapper_spec(start_))->run(problem));
  }

 protected:
  static std::string noted(const std::string& earlier, const std::string& line) {
    return earlier.empty() ? line : earlier + "\n" + line;
  }

 private:
  const char* start_;
};

class RefineMclMapper final : public Refiner {
 public:
  explicit RefineMclMapper(const MapperSpec& spec) : Refiner(spec, "default") {}

  Mapping improve(const MappingProblem& problem, Mapping start) const override {
    RefineOptions options;
    options.seconds = spec_.seconds;
    options.candidates = spec_.candidates;
    options.kicks = spec_.kicks;
    options.region_steps = spec_.region_steps;
    options.seed = spec_.seed;
    options.per_slot = problem.tasks_per_slot();
    RefineStats stats;
    const std::string earlier = start.note;
    Mapping result = refine_mcl(problem, std::move(start), options, &stats);
    result.note = noted(earlier, fmt::format("refine-mcl ({} routing{}): {} moves, {} region steps (best at {}), {} kicks "
                                             "({} kept); MCL {:.6g} -> {:.6g}, channels at the MCL {} -> {}, hop-bytes "
                                             "{:.6g} -> {:.6g}",
                                             problem.routing_name(),
                                             stats.via_default_routing ? "; found through the default routing" : "",
                                             stats.moves, stats.region_steps, stats.region_best,
                                             stats.kicks, stats.kicks_kept,
                                             stats.before.mcl, stats.after.mcl, stats.before.at_mcl,
                                             stats.after.at_mcl, stats.before.hop_bytes, stats.after.hop_bytes));
    return result;
  }
};

class RefineHopBytesMapper final : public Refiner {
 public:
  explicit RefineHopBytesMapper(const MapperSpec& spec) : Refiner(spec, "default") {}

  Mapping improve(const MappingProblem& problem, Mapping start) const override {
    const Machine& machine = problem.machine();
    const CommGraph& graph = problem.graph();
    require_nodes_on_every_router(machine, spec_.text);
    HopBytesRefineOptions options;
    options.rounds = spec_.rounds;
    options.seed = spec_.seed;
    options.per_slot = problem.tasks_per_slot();
    HopBytesRefineStats stats;
    const std::string earlier = start.note;
    Mapping result = refine_hop_bytes(machine, graph, std::move(start), options, &stats);
    result.note = noted(earlier, fmt::format("refine-hb: {} rounds; groups: {} moves, {} exchanges; tasks: {} moves, "
                                             "{} swaps; hop-bytes {:.6g} -> {:.6g}",
                                             stats.rounds, stats.group_moves, stats.group_exchanges, stats.moves,
                                             stats.swaps, stats.before, stats.after));
    return result;
  }
};

// Alone, timer improves Scotch's mapping: the paper starts from a partitioner's mapping and
// Scotch's is the best of taskmap's.
class TimerMapper final : public Refiner {
 public:
  explicit TimerMapper(const MapperSpec& spec) : Refiner(spec, "scotch") {}

  Mapping improve(const MappingProblem& problem, Mapping start) const override {
    const Machine& machine = problem.machine();
    const CommGraph& graph = problem.graph();
    require_nodes_on_every_router(machine, spec_.text);
    std::optional<PartialCube> cube;
    try {
      cube = PartialCube::of_machine(machine);
    } catch (const Error& e) {
      refuse(spec_, "{}", e.what());
    }
    TimerOptions options;
    options.hierarchies = spec_.hierarchies;
    options.seed = spec_.seed;
    TimerStats stats;
    const std::string earlier = start.note;
    Mapping result = timer_enhance(machine, *cube, graph, std::move(start), options, &stats);
    result.note = noted(earlier, fmt::format("timer: {} hierarchies ({} kept, {} exchanges) on {} label digits ({} "
                                             "extension); hop-bytes {:.6g} -> {:.6g}",
                                             options.hierarchies, stats.hierarchies_kept, stats.swaps,
                                             stats.label_digits, stats.extension_digits, stats.hop_bytes_before,
                                             stats.hop_bytes_after));
    return result;
  }
};

class PipelineMapper final : public Mapper {
 public:
  explicit PipelineMapper(const MapperSpec& spec) {
    for (const MapperSpec& stage : spec.stages) stages_.push_back(make_mapper(stage));
  }
  Mapping run(const MappingProblem& problem) const override {
    Mapping m = stages_.front()->run(problem);
    for (std::size_t i = 1; i < stages_.size(); ++i) m = stages_[i]->improve(problem, std::move(m));
    return m;
  }

 private:
  std::vector<std::unique_ptr<Mapper>> stages_;
};

}  // namespace

std::unique_ptr<Mapper> make_refining_mapper(const MapperSpec& spec) {
  if (spec.kind == MapperKind::Pipeline) return std::make_unique<PipelineMapper>(spec);
  if (spec.kind == MapperKind::Timer) return std::make_unique<TimerMapper>(spec);
  if (spec.kind == MapperKind::RefineHopBytes) return std::make_unique<RefineHopBytesMapper>(spec);
  return std::make_unique<RefineMclMapper>(spec);
}

}  // namespace detail
}  // namespace taskmap
