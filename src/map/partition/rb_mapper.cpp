// rb: recursive bisection of the task graph and the machine together. The routers are halved
// (tori, meshes, hypercubes: the box across its longest side; other machines: a METIS
// bisection of their router graph), the tasks are bisected by METIS in proportion to the two
// halves' slots, and each task half recurses into its router half down to single routers.
// tries=N has METIS compute N bisections per split and keep the best cut.
#include <metis.h>

#include <algorithm>
#include <numeric>

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
    require_nodes_on_every_router(machine, label_.text);
    std::vector<RouterId> router_of(graph.num_tasks(), 0);
    std::vector<TaskId> tasks(graph.num_tasks());
    std::iota(tasks.begin(), tasks.end(), TaskId{0});
    std::vector<RouterId> routers(machine.num_routers);
    std::iota(routers.begin(), routers.end(), RouterId{0});
    const IntegerGraph whole = integer_graph(graph, 1.0);
    recurse(machine, whole, std::move(tasks), std::move(routers), router_of, problem.imbalance());
    return place_on_routers(machine, graph, std::move(router_of), problem.imbalance());
  }

 private:
  void recurse(const Machine& machine, const IntegerGraph& g, std::vector<TaskId> tasks, std::vector<RouterId> routers,
               std::vector<RouterId>& router_of, double imbalance) const {
    if (routers.size() == 1 || tasks.empty()) {
      for (TaskId t : tasks) router_of[t] = routers.front();
      return;
    }
    auto [first, second] = halve_routers(machine, routers, imbalance);
    const double share = double(first.size()) / double(routers.size());
    std::vector<bool> in_first = bisect(g, tasks, share, imbalance);
    std::vector<TaskId> a, b;
    for (std::size_t i = 0; i < tasks.size(); ++i) (in_first[i] ? a : b).push_back(tasks[i]);
    recurse(machine, g, std::move(a), std::move(first), router_of, imbalance);
    recurse(machine, g, std::move(b), std::move(second), router_of, imbalance);
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
    // Other machines: METIS halves the routers' induced graph.
    IntegerGraph rg = router_graph(machine, routers);
    const std::vector<bool> side = bisect_graph(rg, 0.5, imbalance);
    for (std::size_t i = 0; i < routers.size(); ++i) (side[i] ? first : second).push_back(routers[i]);
    if (first.empty() || second.empty()) {  // METIS gave up on a tiny or disconnected set: halve by id
      first.assign(routers.begin(), routers.begin() + routers.size() / 2);
      second.assign(routers.begin() + routers.size() / 2, routers.end());
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
  std::vector<bool> bisect_graph(IntegerGraph& g, double share, double imbalance) const {
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
      if (METIS_PartGraphRecursive(&vertices, &constraints, g.offsets.data(), g.targets.data(), nullptr, nullptr,
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
