// scotch: the task graph mapped by the Scotch library (Debian libscotch-dev) onto the
// machine as a Scotch target: tori, meshes and hypercubes natively, every other machine as
// the weighted graph of its routers. Scotch balances tasks over routers; routers it fills
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

#include "mapper_impl.h"
#include "taskmap/topology/distance.h"

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

namespace taskmap::detail {
namespace {

// Edge weights are integers for Scotch (32-bit), which sums weight x distance over all edges:
// volumes are scaled so that sum stays below 2^30 (the heaviest pair gets at most 2^20, every
// pair at least 1). Unscaled byte counts, or a fixed large scale, overflow it silently and
// ruin the mapping.
constexpr double kMaxWeight = 1 << 20, kMaxCost = double(1 << 30);

class ScotchMapper final : public SpecMapper {
 public:
  using SpecMapper::SpecMapper;

  Mapping run(const Machine& machine, const CommGraph& graph) const override {
    const std::vector<RouterId> router_of_task = scotch_routers(machine, graph);
    return fill_slots(machine, graph, router_of_task);
  }

 private:
  [[noreturn]] void scotch_failed(const char* call) const {
    refuse(spec_, "Scotch's {} failed{}{}", call, scotch_message.empty() ? "" : ": ", scotch_message);
  }

  std::vector<RouterId> scotch_routers(const Machine& machine, const CommGraph& graph) const {
    const std::uint32_t n = graph.num_tasks();
    // Symmetric, loop-free CSR with the two directions' volumes summed.
    std::vector<std::vector<std::pair<TaskId, double>>> adj(n);
    double heaviest = 0;
    for (TaskId a = 0; a < n; ++a) {
      auto targets = graph.targets(a);
      auto volumes = graph.volumes(a);
      for (std::size_t e = 0; e < targets.size(); ++e) {
        if (targets[e] == a) continue;
        adj[a].push_back({targets[e], volumes[e]});
        adj[targets[e]].push_back({a, volumes[e]});
      }
    }
    std::vector<SCOTCH_Num> verttab{0}, edgetab, edlotab;
    std::vector<std::pair<TaskId, double>> merged;
    for (TaskId a = 0; a < n; ++a) {
      std::sort(adj[a].begin(), adj[a].end());
      merged.clear();
      for (const auto& [b, v] : adj[a]) {
        if (!merged.empty() && merged.back().first == b) merged.back().second += v;
        else merged.push_back({b, v});
      }
      adj[a] = merged;
      for (const auto& [b, v] : merged) heaviest = std::max(heaviest, v);
    }
    double relative_sum = 0;  // sum over both directions of volume / heaviest
    for (TaskId a = 0; a < n; ++a)
      for (const auto& [b, v] : adj[a]) relative_sum += v / heaviest;
    const double diameter = std::max<double>(1, topology_stats(machine).diameter);
    const double scale = std::clamp(kMaxCost / (std::max(relative_sum, 1.0) * diameter), 1.0, kMaxWeight);
    for (TaskId a = 0; a < n; ++a) {
      for (const auto& [b, v] : adj[a]) {
        edgetab.push_back(static_cast<SCOTCH_Num>(b));
        edlotab.push_back(static_cast<SCOTCH_Num>(std::max(1.0, std::round(v / heaviest * scale))));
      }
      verttab.push_back(static_cast<SCOTCH_Num>(edgetab.size()));
    }
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
    if (SCOTCH_graphBuild(&g, 0, n, verttab.data(), verttab.data() + 1, nullptr, nullptr,
                          static_cast<SCOTCH_Num>(edgetab.size()), edgetab.data(), edlotab.data()) != 0) {
      scotch_failed("graphBuild");
    }
    std::vector<RouterId> router_of_terminal = build_target(machine, arch);
    if (SCOTCH_stratGraphMapBuild(&strat, SCOTCH_STRATQUALITY, static_cast<SCOTCH_Num>(router_of_terminal.size()),
                                  spec_.imbalance) != 0) {
      scotch_failed("stratGraphMapBuild");
    }
    // One thread, deterministic, a private random state reset for every run: the same input
    // gives the same mapping, also within one process (Scotch 7 otherwise runs threads of its
    // own whose results vary, and crashed on PGPgiantcompo).
    SCOTCH_Context context;
    SCOTCH_Graph bound;
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
    SCOTCH_contextRandomReset(&context);  // every run from the same random state
    std::vector<SCOTCH_Num> part(n, 0);
    const int mapped = n > 0 ? SCOTCH_graphMap(&bound, &arch, &strat, part.data()) : 0;
    SCOTCH_graphExit(&bound);
    if (mapped != 0) scotch_failed("graphMap");
    std::vector<RouterId> router_of_task(n);
    for (TaskId t = 0; t < n; ++t) router_of_task[t] = router_of_terminal.at(static_cast<std::size_t>(part[t]));
    return router_of_task;
  }

  // Builds the Scotch target; returns the router of each terminal number.
  std::vector<RouterId> build_target(const Machine& machine, SCOTCH_Arch& arch) const {
    std::vector<RouterId> router_of_terminal(machine.num_routers);
    if (const TorusShape* t = machine.torus()) {
      // Native targets. Scotch numbers mesh/torus terminals with the first dimension fastest
      // (x + X * (y + Y * z)); taskmap's router ids have it slowest. SCOTCH_archMeshX is not
      // used: in Scotch 7.0.3 its distances wrap around like a torus's.
      const bool all_wrap = std::all_of(t->wrap.begin(), t->wrap.end(), [](bool w) { return w; });
      const bool no_wrap = std::none_of(t->wrap.begin(), t->wrap.end(), [](bool w) { return w; });
      const bool hypercube = no_wrap && std::all_of(t->sizes.begin(), t->sizes.end(), [](auto s) { return s == 2; });
      std::vector<SCOTCH_Num> sizes(t->sizes.begin(), t->sizes.end());
      const SCOTCH_Num dims = static_cast<SCOTCH_Num>(sizes.size());
      int rc = -1;
      if (hypercube) rc = SCOTCH_archHcub(&arch, dims);  // distance = Hamming: any bit order fits
      else if (all_wrap) rc = SCOTCH_archTorusX(&arch, dims, sizes.data());
      else if (no_wrap && dims == 2) rc = SCOTCH_archMesh2(&arch, sizes[0], sizes[1]);
      else if (no_wrap && dims == 3) rc = SCOTCH_archMesh3(&arch, sizes[0], sizes[1], sizes[2]);
      if (rc > 0) scotch_failed("architecture");
      if (rc == 0) {
        for (RouterId terminal = 0; terminal < machine.num_routers; ++terminal) {
          RouterId rest = terminal, router = 0;
          for (std::size_t d = 0; d < t->dims(); ++d) router += rest % t->sizes[d] * t->strides[d], rest /= t->sizes[d];
          router_of_terminal[terminal] = hypercube ? terminal : router;
        }
        return router_of_terminal;
      }
    }
    // Any other machine: its router graph (a link per router pair, both directions) with
    // unit edge costs and the slots of a router as its weight.
    std::vector<std::vector<SCOTCH_Num>> neighbours(machine.num_routers);
    for (const Channel& c : machine.channels) {
      if (c.src == c.dst) continue;
      neighbours[c.src].push_back(c.dst);
      neighbours[c.dst].push_back(c.src);
    }
    std::vector<SCOTCH_Num> verttab{0}, edgetab;
    for (auto& list : neighbours) {
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
      edgetab.insert(edgetab.end(), list.begin(), list.end());
      verttab.push_back(static_cast<SCOTCH_Num>(edgetab.size()));
    }
    std::vector<SCOTCH_Num> weights(machine.num_routers,
                                    static_cast<SCOTCH_Num>(machine.nodes_per_router * machine.slots_per_node));
    SCOTCH_Graph target;
    SCOTCH_graphInit(&target);
    const int built = SCOTCH_graphBuild(&target, 0, machine.num_routers, verttab.data(), verttab.data() + 1,
                                        weights.data(), nullptr, static_cast<SCOTCH_Num>(edgetab.size()),
                                        edgetab.data(), nullptr);
    SCOTCH_Strat arch_strat;
    SCOTCH_stratInit(&arch_strat);
    // Deco 1 (the exact distance matrix): better mappings than deco 2 on the few thousand
    // routers taskmap's machines have.
    const int arched = built == 0 ? SCOTCH_archBuild0(&arch, &target, 0, nullptr, &arch_strat) : 1;
    SCOTCH_stratExit(&arch_strat);
    SCOTCH_graphExit(&target);
    if (arched != 0) scotch_failed(built == 0 ? "archBuild2" : "graphBuild (target)");
    std::iota(router_of_terminal.begin(), router_of_terminal.end(), RouterId{0});
    return router_of_terminal;
  }

  // A router holds its slots x tasks_per_slot tasks; tasks beyond that move, least attached
  // to their router-mates first, to the nearest router with room. Inside a router, tasks go
  // to its slots in task order, round robin.
  Mapping fill_slots(const Machine& machine, const CommGraph& graph, std::vector<RouterId> router_of_task) const {
    const std::uint32_t per_router = machine.nodes_per_router * machine.slots_per_node;
    const std::uint64_t capacity =
        std::uint64_t(per_router) * tasks_per_slot(graph.num_tasks(), machine.num_slots(), spec_.imbalance);
    std::vector<std::vector<TaskId>> on(machine.num_routers);
    for (TaskId t = 0; t < graph.num_tasks(); ++t) on[router_of_task[t]].push_back(t);
    const HopDistance hops(machine);
    for (RouterId r = 0; r < machine.num_routers; ++r) {
      if (on[r].size() <= capacity) continue;
      std::vector<double> local(graph.num_tasks(), 0.0);
      for (TaskId t : on[r]) {
        auto targets = graph.targets(t);
        auto volumes = graph.volumes(t);
        for (std::size_t e = 0; e < targets.size(); ++e)
          if (router_of_task[targets[e]] == r) local[t] += volumes[e];
      }
      std::stable_sort(on[r].begin(), on[r].end(), [&](TaskId a, TaskId b) { return local[a] > local[b]; });
      while (on[r].size() > capacity) {
        const TaskId t = on[r].back();
        on[r].pop_back();
        RouterId best = r;
        for (RouterId q = 0; q < machine.num_routers; ++q)
          if (on[q].size() < capacity && (best == r || hops(r, q) < hops(r, best))) best = q;
        on[best].push_back(t);
        router_of_task[t] = best;
      }
    }
    Mapping m;
    m.slot_of_task.resize(graph.num_tasks());
    for (RouterId r = 0; r < machine.num_routers; ++r) {
      std::sort(on[r].begin(), on[r].end());
      for (std::uint32_t i = 0; i < on[r].size(); ++i) m.slot_of_task[on[r][i]] = r * per_router + i % per_router;
    }
    return m;
  }
};

}  // namespace

std::unique_ptr<Mapper> make_scotch_mapper(const MapperSpec& spec) { return std::make_unique<ScotchMapper>(spec); }

}  // namespace taskmap::detail
