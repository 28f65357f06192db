// rb: recursive bisection of the task graph and the machine together. The routers are halved
// (tori, meshes, hypercubes: the box across its longest side; machines whose routers differ,
// such as fabrics read from files: along the hierarchy the hop distances show, whole leaves and
// pods to a side (DistanceSplit); other machines: a METIS bisection of their router graph), the tasks are bisected by METIS in proportion to the two
// halves' slots, and each task half recurses into its router half down to single routers.
// tries=N has METIS compute N bisections per split and keep the best cut.
#include <metis.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <tuple>

#include "distance_split.h"

#include "taskmap/map/mapper_support.h"
#include "taskmap/map/partition/partition_mappers.h"
#include "taskmap/map/router_placement.h"

namespace taskmap {
namespace detail {
namespace {

class RbMapper final : public ConfiguredMapper<std::uint32_t> {
 public:
  using ConfiguredMapper::ConfiguredMapper;

  Mapping run(const MappingProblem& problem) const override {
    const Machine& machine = problem.machine();
    const CommGraph& graph = problem.graph();
    std::vector<RouterId> router_of(graph.num_tasks(), 0);
    std::vector<TaskId> tasks(graph.num_tasks());
    std::iota(tasks.begin(), tasks.end(), TaskId{0});
    std::vector<RouterId> routers(machine.num_routers);
    std::iota(routers.begin(), routers.end(), RouterId{0});
    const IntegerGraph whole = integer_graph(graph, 1.0);
    std::optional<DistanceSplit> hierarchy;
    if (!machine.torus() && !routers_alike(machine)) {
      hierarchy.emplace(machine);
      routers = routers_with_slots(machine);  // the splits go by distance: switches play no part
    }
    recurse(machine, whole, std::move(tasks), std::move(routers), router_of, problem.imbalance(),
            hierarchy ? &*hierarchy : nullptr);
    return place_on_routers(machine, graph, std::move(router_of), problem.imbalance());
  }

 private:
  void recurse(const Machine& machine, const IntegerGraph& g, std::vector<TaskId> tasks, std::vector<RouterId> routers,
               std::vector<RouterId>& router_of, double imbalance, const DistanceSplit* hierarchy) const {
    if (tasks.empty()) return;
    const std::vector<RouterId> holding = with_slots(machine, routers);
    if (holding.size() == 1) {
      for (TaskId t : tasks) router_of[t] = holding.front();
      return;
    }
    auto [first, second] = hierarchy ? hierarchy->split(holding) : std::pair<std::vector<RouterId>, std::vector<RouterId>>{};
    if (first.empty()) std::tie(first, second) = halve_routers(machine, hierarchy ? holding : routers, imbalance);
    const double share = double(slots_of(machine, first)) / double(slots_of(machine, routers));
    std::vector<bool> in_first = bisect(g, tasks, share, imbalance);
    std::vector<TaskId> a, b;
    for (std::size_t i = 0; i < tasks.size(); ++i) (in_first[i] ? a : b).push_back(tasks[i]);
    recurse(machine, g, std::move(a), std::move(first), router_of, imbalance, hierarchy);
    recurse(machine, g, std::move(b), std::move(second), router_of, imbalance, hierarchy);
  }

  static std::vector<RouterId> with_slots(const Machine& machine, const std::vector<RouterId>& routers) {
    std::vector<RouterId> out;
    for (RouterId r : routers)
      if (machine.slots_of_router(r) > 0) out.push_back(r);
    return out;
  }
  static std::uint64_t slots_of(const Machine& machine, const std::vector<RouterId>& routers) {
    std::uint64_t sum = 0;
    for (RouterId r : routers) sum += machine.slots_of_router(r);
    return sum;
  }

  std::pair<std::vector<RouterId>, std::vector<RouterId>> halve_routers(const Machine& machine,
                                                                        const std::vector<RouterId>& routers,
                                                                        double imbalance) const {
    std::vector<RouterId> first, second;
    if (const TorusShape* t = machine.torus()) {
      // The set is a box: cut it across its longest side.
      std::size_t longest = 0;
      std::vector<std::uint32_t> low(t->dims(), UINT32_MAX), high(t->dims(), 0);
      for (RouterId r : routers)
        for (std::size_t d = 0; d < t->dims(); ++d) low[d] = std::min(low[d], t->coord(r, d)), high[d] = std::max(high[d], t->coord(r, d));
      for (std::size_t d = 1; d < t->dims(); ++d)
        if (high[d] - low[d] > high[longest] - low[longest]) longest = d;
      const std::uint32_t cut = low[longest] + (high[longest] - low[longest] + 1) / 2;
      for (RouterId r : routers) (t->coord(r, longest) < cut ? first : second).push_back(r);
      return {first, second};
    }
    // Other machines: METIS halves the routers' induced graph; where routers differ (switches
    // without slots, nodes of an allocation), it balances their slots.
    IntegerGraph rg = router_graph(machine, routers);
    std::vector<std::int32_t> weights;
    if (!routers_alike(machine)) {
      for (RouterId r : routers) weights.push_back(static_cast<std::int32_t>(machine.slots_of_router(r)));
    }
    const std::vector<bool> side = bisect_graph(rg, 0.5, imbalance, weights);
    for (std::size_t i = 0; i < routers.size(); ++i) (side[i] ? first : second).push_back(routers[i]);
    if (slots_of(machine, first) == 0 || slots_of(machine, second) == 0) {
      // METIS gave up on a tiny or disconnected set: halve the routers with slots by id.
      const std::vector<RouterId> holding = with_slots(machine, routers);
      first.assign(holding.begin(), holding.begin() + holding.size() / 2);
      second.assign(holding.begin() + holding.size() / 2, holding.end());
    }
    return {first, second};
  }

  // Bisects the tasks' induced subgraph; `share` of the tasks (by count) go to the first side.
  std::vector<bool> bisect(const IntegerGraph& g, const std::vector<TaskId>& tasks, double share, double imbalance) const {
    std::vector<std::int32_t> index(g.vertices(), -1);
    for (std::size_t i = 0; i < tasks.size(); ++i) index[tasks[i]] = static_cast<std::int32_t>(i);
    IntegerGraph sub;
    for (TaskId t : tasks) {
      for (std::int32_t e = g.offsets[t]; e < g.offsets[t + 1]; ++e) {
        if (index[g.targets[e]] < 0) continue;
        sub.targets.push_back(index[g.targets[e]]);
        sub.weights.push_back(g.weights[e]);
      }
      sub.offsets.push_back(static_cast<std::int32_t>(sub.targets.size()));
    }
    return bisect_graph(sub, share, imbalance);
  }

  // METIS two-way split with target weights share : 1 - share; without edges (or on a METIS
  // refusal) the first share of the vertices in order.
  std::vector<bool> bisect_graph(IntegerGraph& g, double share, double imbalance,
                                 std::vector<std::int32_t> vertex_weights = {}) const {
    const std::uint32_t n = g.vertices();
    std::vector<bool> first(n, false);
    const std::uint32_t by_count = static_cast<std::uint32_t>(share * n + 0.5);
    if (n >= 2 && !g.targets.empty()) {
      idx_t vertices = static_cast<idx_t>(n), constraints = 1, parts = 2, cut = 0;
      real_t targets[2] = {static_cast<real_t>(share), static_cast<real_t>(1 - share)};
      real_t balance = static_cast<real_t>(1 + std::max(imbalance, 0.001));
      idx_t options[METIS_NOPTIONS];
      METIS_SetDefaultOptions(options);
      options[METIS_OPTION_SEED] = 1;
      options[METIS_OPTION_NUMBERING] = 0;
      options[METIS_OPTION_NCUTS] = static_cast<idx_t>(options_);
      std::vector<idx_t> part(n, 0);
      idx_t* vwgt = vertex_weights.empty() ? nullptr : vertex_weights.data();
      if (METIS_PartGraphRecursive(&vertices, &constraints, g.offsets.data(), g.targets.data(), vwgt, nullptr,
                                   g.weights.data(), &parts, targets, &balance, options, &cut, part.data()) == METIS_OK) {
        for (std::uint32_t i = 0; i < n; ++i) first[i] = part[i] == 0;
        return first;
      }
    }
    for (std::uint32_t i = 0; i < by_count && i < n; ++i) first[i] = true;
    return first;
  }
};

}  // namespace

}  // namespace detail

std::unique_ptr<Mapper> make_rb_mapper(MapperLabel label, std::uint32_t tries) {
  return std::make_unique<detail::RbMapper>(std::move(label), tries);
}

}  // namespace taskmap
