// scotch: the task graph mapped by the Scotch library (Debian libscotch-dev) onto the
// machine as a Scotch target: tori, meshes, hypercubes and hierarchies natively, every other
// machine as the weighted graph of its routers. Scotch balances tasks over routers; routers it fills
// beyond their slots hand their least attached tasks to the nearest routers with room.
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
extern "C" {
#include <scotch/scotch.h>
}

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <variant>

#include "taskmap/map/mapper_support.h"
#include "taskmap/map/partition/partition_mappers.h"
#include "taskmap/map/router_placement.h"
#include "taskmap/topology/distance.h"
#include "taskmap/topology/scotch_target.h"

// Scotch reports errors through these; defined here (taking precedence over libscotcherr's)
// so the message ends up in taskmap's one-line error instead of on stderr.
namespace {
thread_local std::string scotch_message;
void keep_message(const char* format, va_list args) {
  char buffer[512];
  std::vsnprintf(buffer, sizeof buffer, format, args);
  scotch_message = buffer;
}
}  // namespace
extern "C" void SCOTCH_errorPrint(const char* const format, ...) {
  va_list args;
  va_start(args, format);
  keep_message(format, args);
  va_end(args);
}
extern "C" void SCOTCH_errorPrintW(const char* const, ...) {}

namespace taskmap {
namespace detail {
namespace {

// The hierarchy's tree-leaf levels when Scotch takes it natively (a uniform hier machine).
std::optional<TleafLevels> native_tleaf(const Machine& machine) {
  const auto* hier = std::get_if<HierShape>(&machine.shape);
  if (hier == nullptr || !machine.uniform()) return std::nullopt;
  TleafLevels levels = tleaf_levels(*hier);
  if (levels.sizes.empty()) return std::nullopt;
  return levels;
}

// Scotch's native target for a torus or mesh, if it has one: all dimensions wrapped, a
// hypercube, or a 2D or 3D mesh. (SCOTCH_archMeshX is not used: in Scotch 7.0.3 its distances
// wrap around like a torus's.)
enum class TorusTarget { none, torus, hypercube, mesh };

TorusTarget native_torus(const TorusShape& t) {
  if (std::all_of(t.wrap.begin(), t.wrap.end(), [](bool w) { return w; })) return TorusTarget::torus;
  if (std::any_of(t.wrap.begin(), t.wrap.end(), [](bool w) { return w; })) return TorusTarget::none;
  if (std::all_of(t.sizes.begin(), t.sizes.end(), [](auto s) { return s == 2; })) return TorusTarget::hypercube;
  return t.dims() == 2 || t.dims() == 3 ? TorusTarget::mesh : TorusTarget::none;
}

struct ScotchOptions {
  ScotchStrategy strategy = ScotchStrategy::Auto;
  std::uint64_t seed = 0;
};

class ScotchMapper final : public ConfiguredMapper<ScotchOptions> {
 public:
  using ConfiguredMapper::ConfiguredMapper;

  Mapping run(const MappingProblem& problem) const override {
    const Machine& machine = problem.machine();
    const CommGraph& graph = problem.graph();
    const std::vector<RouterId> router_of_task = scotch_routers(machine, graph, problem.imbalance());
    return keep_default_unless_better(problem, place_on_routers(machine, graph, router_of_task, problem.imbalance()),
                                      label_.text);
  }

 private:
  [[noreturn]] void scotch_failed(const char* call) const {
    refuse(label_, "Scotch's {} failed{}{}", call, scotch_message.empty() ? "" : ": ", scotch_message);
  }

  std::vector<RouterId> scotch_routers(const Machine& machine, const CommGraph& graph, double imbalance) const {
    const std::uint32_t n = graph.num_tasks();
    // Scotch's mapping cost is weight x target distance, so the machine's diameter bounds it.
    IntegerGraph ig = integer_graph(graph, topology_stats(machine).diameter_upper);
    SCOTCH_Graph g;
    SCOTCH_Arch arch;
    SCOTCH_Strat strat;
    SCOTCH_graphInit(&g);
    SCOTCH_archInit(&arch);
    SCOTCH_stratInit(&strat);
    struct Cleanup {
      SCOTCH_Graph* g;
      SCOTCH_Arch* a;
      SCOTCH_Strat* s;
      ~Cleanup() { SCOTCH_stratExit(s), SCOTCH_archExit(a), SCOTCH_graphExit(g); }
    } cleanup{&g, &arch, &strat};
    scotch_message.clear();
    static_assert(sizeof(SCOTCH_Num) == sizeof(std::int32_t), "Debian's Scotch has 32-bit SCOTCH_Num");
    if (SCOTCH_graphBuild(&g, 0, n, ig.offsets.data(), ig.offsets.data() + 1, nullptr, nullptr,
                          static_cast<SCOTCH_Num>(ig.targets.size()), ig.targets.data(), ig.weights.data()) != 0) {
      scotch_failed("graphBuild");
    }
    // One thread, deterministic, a private random state reset for every run: the same input
    // gives the same mapping, also within one process (Scotch 7 otherwise runs threads of its
    // own whose results vary, and crashed on PGPgiantcompo). The target's decomposition runs
    // in the same context: outside it, on graph targets, it varied from run to run.
    SCOTCH_Context context;
    SCOTCH_Graph bound;
    SCOTCH_randomReset();  // the context's random state is cloned from the global one
    SCOTCH_contextInit(&context);
    struct ContextCleanup {
      SCOTCH_Context* c;
      ~ContextCleanup() { SCOTCH_contextExit(c); }
    } context_cleanup{&context};
    if (SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMDETERMINISTIC, 1) != 0 ||
        SCOTCH_contextRandomClone(&context) != 0 || SCOTCH_contextThreadSpawn(&context, 1, nullptr) != 0 ||
        SCOTCH_contextBindGraph(&context, &g, &bound) != 0) {
      scotch_failed("context");
    }
    std::vector<RouterId> router_of_terminal = build_target(machine, arch, context);
    SCOTCH_contextRandomReset(&context);  // every mapping from the same random state
    // Doubled: Scotch 7.0.3 draws the same mapping from seeds 2k and 2k + 1 (and from 1 as from
    // its fixed state).
    if (options_.seed != 0) {
      SCOTCH_contextRandomSeed(&context, static_cast<SCOTCH_Num>(options_.seed * 2));  // the catalog keeps it < 2^30
    }
    const bool speed = options_.strategy == ScotchStrategy::Speed ||
                       (options_.strategy == ScotchStrategy::Auto && n > kScotchQualityUpToTasks);
    if (SCOTCH_stratGraphMapBuild(&strat, speed ? SCOTCH_STRATSPEED | SCOTCH_STRATRECURSIVE : SCOTCH_STRATQUALITY, SCOTCH_archSize(&arch),
                                  imbalance) != 0) {
      scotch_failed("stratGraphMapBuild");
    }
    std::vector<SCOTCH_Num> part(n, 0);
    const int mapped = n > 0 ? SCOTCH_graphMap(&bound, &arch, &strat, part.data()) : 0;
    SCOTCH_graphExit(&bound);
    if (mapped != 0) scotch_failed("graphMap");
    std::vector<RouterId> router_of_task(n);
    for (TaskId t = 0; t < n; ++t) router_of_task[t] = router_of_terminal.at(static_cast<std::size_t>(part[t]));
    return router_of_task;
  }

  // Builds the Scotch target; returns the router of each terminal number.
  std::vector<RouterId> build_target(const Machine& machine, SCOTCH_Arch& arch, SCOTCH_Context& context) const {
    std::vector<RouterId> router_of_terminal(machine.num_routers);
    // A hierarchy is Scotch's tree-leaf target of the same distances; its leaves are routers
    // 0, 1, ... in Scotch's terminal order. (With terminals of several slot counts, the graph
    // target below weighs them.)
    if (const std::optional<TleafLevels> levels = native_tleaf(machine)) {
      std::vector<SCOTCH_Num> sizes(levels->sizes.begin(), levels->sizes.end());
      std::vector<SCOTCH_Num> costs(levels->costs.begin(), levels->costs.end());
      if (SCOTCH_archTleaf(&arch, static_cast<SCOTCH_Num>(sizes.size()), sizes.data(), costs.data()) != 0) {
        scotch_failed("archTleaf");
      }
      std::iota(router_of_terminal.begin(), router_of_terminal.end(), RouterId{0});
      return router_of_terminal;
    }
    const TorusShape* t = machine.torus();
    if (const TorusTarget kind = t != nullptr ? native_torus(*t) : TorusTarget::none; kind != TorusTarget::none) {
      // Scotch numbers mesh/torus terminals with the first dimension fastest
      // (x + X * (y + Y * z)); taskmap's router ids have it slowest.
      const bool hypercube = kind == TorusTarget::hypercube;
      std::vector<SCOTCH_Num> sizes(t->sizes.begin(), t->sizes.end());
      const SCOTCH_Num dims = static_cast<SCOTCH_Num>(sizes.size());
      const int rc = hypercube                  ? SCOTCH_archHcub(&arch, dims)  // distance = Hamming: any bit order fits
                     : kind == TorusTarget::torus ? SCOTCH_archTorusX(&arch, dims, sizes.data())
                     : dims == 2                  ? SCOTCH_archMesh2(&arch, sizes[0], sizes[1])
                                                  : SCOTCH_archMesh3(&arch, sizes[0], sizes[1], sizes[2]);
      if (rc != 0) scotch_failed("architecture");
      for (RouterId terminal = 0; terminal < machine.num_routers; ++terminal) {
        RouterId rest = terminal, router = 0;
        for (std::size_t d = 0; d < t->dims(); ++d) router += rest % t->sizes[d] * t->strides[d], rest /= t->sizes[d];
        router_of_terminal[terminal] = hypercube ? terminal : router;
      }
      return router_of_terminal;
    }
    // Any other machine: its router graph (a link per router pair, both directions) with
    // unit edge costs and the slots of a router as its weight.
    // Where routers differ (switches, an allocation's nodes), the terminals are the routers with
    // slots, weighted by them; the others only carry the distances.
    std::iota(router_of_terminal.begin(), router_of_terminal.end(), RouterId{0});
    IntegerGraph routers = router_graph(machine, router_of_terminal);
    std::vector<SCOTCH_Num> weights(machine.num_routers);
    for (RouterId r = 0; r < machine.num_routers; ++r)
      weights[r] = static_cast<SCOTCH_Num>(std::max<std::uint32_t>(1, machine.slots_of_router(r)));
    // Scotch labels the terminals of a target built from a graph by their vertex numbers, so
    // router_of_terminal stays the identity.
    std::vector<SCOTCH_Num> terminals;
    if (!routers_alike(machine)) {
      for (RouterId r : routers_with_slots(machine)) terminals.push_back(static_cast<SCOTCH_Num>(r));
    }
    SCOTCH_Graph target;
    SCOTCH_graphInit(&target);
    const int built = SCOTCH_graphBuild(&target, 0, machine.num_routers, routers.offsets.data(),
                                        routers.offsets.data() + 1, weights.data(), nullptr,
                                        static_cast<SCOTCH_Num>(routers.targets.size()), routers.targets.data(),
                                        nullptr);
    SCOTCH_Strat arch_strat;
    SCOTCH_stratInit(&arch_strat);
    // The target's decomposition in the mapping's deterministic context (its graph bound to
    // it), from the context's random state reset.
    SCOTCH_Graph bound_target;
    const int bound = built == 0 ? SCOTCH_contextBindGraph(&context, &target, &bound_target) : 1;
    SCOTCH_contextRandomReset(&context);
    // Deco 1 (the exact distance matrix): better mappings than deco 2 on the few thousand
    // routers taskmap's machines have.
    const int arched = bound == 0 ? SCOTCH_archBuild0(&arch, &bound_target, static_cast<SCOTCH_Num>(terminals.size()),
                                                         terminals.empty() ? nullptr : terminals.data(), &arch_strat) : 1;
    if (bound == 0) SCOTCH_graphExit(&bound_target);
    SCOTCH_stratExit(&arch_strat);
    SCOTCH_graphExit(&target);
    if (arched != 0) scotch_failed(built != 0 ? "graphBuild (target)" : bound != 0 ? "context (target)" : "archBuild0");
    return router_of_terminal;
  }
};

}  // namespace

}  // namespace detail

std::size_t scotch_distance_matrix_terminals(const Machine& machine) {
  if (detail::native_tleaf(machine)) return 0;
  if (const TorusShape* t = machine.torus(); t != nullptr && detail::native_torus(*t) != detail::TorusTarget::none) return 0;
  return detail::routers_alike(machine) ? machine.num_routers : detail::routers_with_slots(machine).size();
}

std::unique_ptr<Mapper> make_scotch_mapper(MapperLabel label, ScotchStrategy strategy, std::uint64_t seed) {
  return std::make_unique<detail::ScotchMapper>(std::move(label), detail::ScotchOptions{strategy, seed});
}

}  // namespace taskmap
