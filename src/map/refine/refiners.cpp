// The refiners as mappers: refine-mcl, refine-hb and timer improve a placement, the one of the
// stage before them in a pipeline A+B, or alone that of their start mapper.
#include <fmt/format.h>

#include <optional>

#include "taskmap/map/mapper_support.h"
#include "taskmap/map/refine/refine_hop_bytes.h"
#include "taskmap/map/refine/refine_inject.h"
#include "taskmap/map/refine/refine_mcl.h"
#include "taskmap/map/refine/refiners.h"
#include "taskmap/map/refine/timer.h"
#include "taskmap/map/router_placement.h"

namespace taskmap {
namespace detail {
namespace {

// A refiner alone improves the mapping of its start mapper; its note follows the notes of
// the stages before it, one line each.
template <typename Options>
class Refiner : public ConfiguredMapper<Options> {
 public:
  Refiner(MapperLabel label, Options options, std::unique_ptr<Mapper> start)
      : ConfiguredMapper<Options>(std::move(label), std::move(options)), start_(std::move(start)) {}

  Mapping run(const MappingProblem& problem) const override { return this->improve(problem, start_->run(problem)); }

 protected:
  static std::string noted(const std::string& earlier, const std::string& line) {
    return earlier.empty() ? line : earlier + "\n" + line;
  }

 private:
  std::unique_ptr<Mapper> start_;
};

class RefineMclMapper final : public Refiner<RefineOptions> {
 public:
  using Refiner::Refiner;

  Mapping improve(const MappingProblem& problem, Mapping start) const override {
    RefineOptions options = options_;
    options.per_slot = problem.tasks_per_slot();
    if (options.within_leaf && !has_leaf_switches(problem.machine())) {
      refuse(label_, "within=leaf needs a fabric with leaf switches (a Slurm or ibnetdiscover tree), not {}",
             problem.machine().kind_name());
    }
    RefineStats stats;
    const std::string earlier = start.note;
    Mapping result = refine_mcl(problem, std::move(start), options, &stats);
    result.note = noted(earlier, fmt::format("refine-mcl ({} routing{}): {} moves, {} annealing moves, {} region steps "
                                             "(best at {}); MCL {:.6g} -> {:.6g}, channels at the MCL {} -> {}, hop-bytes "
                                             "{:.6g} -> {:.6g}; {} million work units{}",
                                             problem.routing_name(),
                                             stats.via_default_routing ? "; found through the default routing" : "",
                                             stats.moves, stats.annealed, stats.region_steps, stats.region_best,
                                             stats.before.mcl, stats.after.mcl, stats.before.at_mcl,
                                             stats.after.at_mcl, stats.before.hop_bytes, stats.after.hop_bytes,
                                             (stats.work + 500'000) / 1'000'000,
                                             stats.out_of_budget ? " (the budget ran out)" : ""));
    return result;
  }
};

class RefineHopBytesMapper final : public Refiner<HopBytesRefineOptions> {
 public:
  using Refiner::Refiner;

  Mapping improve(const MappingProblem& problem, Mapping start) const override {
    HopBytesRefineOptions options = options_;
    options.per_slot = problem.tasks_per_slot();
    HopBytesRefineStats stats;
    const std::string earlier = start.note;
    Mapping result = refine_hop_bytes(problem, std::move(start), options, &stats);
    result.note = noted(earlier, fmt::format("refine-hb: {} rounds; groups: {} moves, {} exchanges; tasks: {} moves, "
                                             "{} swaps; hop-bytes {:.6g} -> {:.6g}; {} million work units{}",
                                             stats.rounds, stats.group_moves, stats.group_exchanges, stats.moves,
                                             stats.swaps, stats.before, stats.after, (stats.work + 500'000) / 1'000'000,
                                             stats.out_of_work ? " (the work ran out)" : ""));
    return result;
  }
};

class RefineInjectMapper final : public Refiner<InjectRefineOptions> {
 public:
  using Refiner::Refiner;

  Mapping improve(const MappingProblem& problem, Mapping start) const override {
    if (std::string why = why_no_injection_links(problem.machine()); !why.empty()) refuse(label_, "{}", why);
    InjectRefineStats stats;
    const std::string earlier = start.note;
    Mapping result = refine_injection(problem, std::move(start), options_, &stats);
    result.note = noted(earlier, fmt::format("refine-inject: {} passes, {} node pairs split again of {} tried; busiest "
                                             "node link {:.6g} -> {:.6g}{}",
                                             stats.passes, stats.pairs_kept, stats.pairs_tried, stats.before,
                                             stats.after, stats.out_of_work ? " (the work ran out)" : ""));
    return result;
  }
};

class TimerMapper final : public Refiner<TimerOptions> {
 public:
  using Refiner::Refiner;

  Mapping improve(const MappingProblem& problem, Mapping start) const override {
    const Machine& machine = problem.machine();
    require_nodes_on_every_router(machine, label_.text);
    std::optional<PartialCube> cube;
    try {
      cube = PartialCube::of_machine(machine);
    } catch (const Error& e) {
      refuse(label_, "{}", e.what());
    }
    const TimerOptions& options = options_;
    TimerStats stats;
    const std::string earlier = start.note;
    Mapping result = timer_enhance(problem, *cube, std::move(start), options, &stats);
    result.note = noted(earlier, fmt::format("timer: {} hierarchies ({} kept, {} exchanges) on {} label digits ({} "
                                             "extension); hop-bytes {:.6g} -> {:.6g}",
                                             options.hierarchies, stats.hierarchies_kept, stats.swaps,
                                             stats.label_digits, stats.extension_digits, stats.hop_bytes_before,
                                             stats.hop_bytes_after));
    return result;
  }
};

}  // namespace
}  // namespace detail

std::unique_ptr<Mapper> make_refine_mcl_mapper(MapperLabel label, RefineOptions options, std::unique_ptr<Mapper> start) {
  return std::make_unique<detail::RefineMclMapper>(std::move(label), options, std::move(start));
}
std::unique_ptr<Mapper> make_refine_hb_mapper(MapperLabel label, HopBytesRefineOptions options,
                                              std::unique_ptr<Mapper> start) {
  return std::make_unique<detail::RefineHopBytesMapper>(std::move(label), options, std::move(start));
}
std::unique_ptr<Mapper> make_refine_inject_mapper(MapperLabel label, InjectRefineOptions options,
                                                  std::unique_ptr<Mapper> start) {
  return std::make_unique<detail::RefineInjectMapper>(std::move(label), options, std::move(start));
}
std::unique_ptr<Mapper> make_timer_mapper(MapperLabel label, TimerOptions options, std::unique_ptr<Mapper> start) {
  return std::make_unique<detail::TimerMapper>(std::move(label), options, std::move(start));
}

}  // namespace taskmap
