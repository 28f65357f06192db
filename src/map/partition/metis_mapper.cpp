// metis: a METIS k-way partition of the task graph (Debian libmetis-dev) into one part per
// router, balanced to --imbalance, then the parts placed on routers: `identity` (part i on
// router i) or `greedy` (default): the part with the most traffic first, then repeatedly the
// unplaced part with the most traffic to placed ones, onto the free router that minimises its
// traffic x hop distance to them.
#include <metis.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "taskmap/map/mapper_support.h"
#include "taskmap/map/partition/partition_mappers.h"
#include "taskmap/map/router_placement.h"
#include "taskmap/topology/distance.h"

namespace taskmap {
namespace detail {
namespace {

class MetisMapper final : public ConfiguredMapper<bool> {
 public:
  using ConfiguredMapper::ConfiguredMapper;

  Mapping run(const MappingProblem& problem) const override {
    const Machine& machine = problem.machine();
    const CommGraph& graph = problem.graph();
    // One part per router with slots, sized by its slots (as METIS's target weights when
    // routers differ).
    const std::vector<RouterId> routers = routers_with_slots(machine);
    const std::uint32_t n = graph.num_tasks(), parts = static_cast<std::uint32_t>(routers.size());
    std::vector<RouterId> router_of_task(n, routers.front());
    if (n > 0 && parts > 1) {
      std::vector<real_t> shares;
      if (!routers_alike(machine)) {
        for (RouterId r : routers) {
          shares.push_back(static_cast<real_t>(machine.slots_of_router(r)) / static_cast<real_t>(machine.num_slots()));
        }
      }
      std::vector<idx_t> part = partition(graph, parts, problem.imbalance(), shares);
      const std::vector<RouterId> router_of_part = options_ ? greedy_assignment(machine, graph, part, routers) : routers;
      for (TaskId t = 0; t < n; ++t) router_of_task[t] = router_of_part[part[t]];
    }
    return keep_default_unless_better(
        problem, place_on_routers(machine, graph, std::move(router_of_task), problem.imbalance()), label_.text);
  }

 private:
  std::vector<idx_t> partition(const CommGraph& graph, std::uint32_t parts, double imbalance,
                               std::vector<real_t>& shares) const {
    IntegerGraph ig = integer_graph(graph, 1.0);  // METIS sums the cut: cost 1 per unit
    static_assert(sizeof(idx_t) == sizeof(std::int32_t), "Debian's METIS has 32-bit idx_t");
    idx_t vertices = static_cast<idx_t>(ig.vertices()), constraints = 1, nparts = static_cast<idx_t>(parts), cut = 0;
    real_t balance = static_cast<real_t>(1 + std::max(imbalance, 0.001));
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;  // the same mapping every run
    options[METIS_OPTION_NUMBERING] = 0;
    std::vector<idx_t> part(vertices, 0);
    const int status = METIS_PartGraphKway(&vertices, &constraints, ig.offsets.data(), ig.targets.data(), nullptr,
                                           nullptr, ig.weights.data(), &nparts, shares.empty() ? nullptr : shares.data(), &balance, options, &cut,
                                           part.data());
    if (status != METIS_OK) {
      refuse(label_, "METIS_PartGraphKway failed ({})",
             status == METIS_ERROR_INPUT ? "erroneous input" : status == METIS_ERROR_MEMORY ? "out of memory" : "error");
    }
    return part;
  }

  // Part p was sized for routers[p]: it goes to a router of as many slots.
  static std::vector<RouterId> greedy_assignment(const Machine& machine, const CommGraph& graph,
                                                 const std::vector<idx_t>& part, const std::vector<RouterId>& routers) {
    const auto parts = static_cast<std::uint32_t>(routers.size());
    // Traffic between parts, both directions summed.
    std::vector<std::vector<std::pair<std::uint32_t, double>>> between(parts);
    {
      std::vector<double> row(parts, 0.0);
      std::vector<std::vector<TaskId>> members(parts);
      for (TaskId t = 0; t < part.size(); ++t) members[part[t]].push_back(t);
      std::vector<std::uint32_t> touched;
      for (std::uint32_t p = 0; p < parts; ++p) {
        for (TaskId t : members[p]) {
          auto targets = graph.targets(t);
          auto volumes = graph.volumes(t);
          for (std::size_t e = 0; e < targets.size(); ++e) {
            const std::uint32_t q = static_cast<std::uint32_t>(part[targets[e]]);
            if (q == p) continue;
            if (row[q] == 0) touched.push_back(q);
            row[q] += volumes[e];
          }
        }
        for (std::uint32_t q : touched) between[p].push_back({q, row[q]}), between[q].push_back({p, row[q]}), row[q] = 0;
        touched.clear();
      }
    }
    const HopDistance hops(machine);
    constexpr RouterId kFree = UINT32_MAX;
    std::vector<RouterId> router_of_part(parts, kFree);
    std::vector<bool> router_taken(parts, false);
    std::vector<double> pull(parts, 0.0);  // traffic to placed parts
    std::vector<double> total(parts, 0.0);
    for (std::uint32_t p = 0; p < parts; ++p)
      for (const auto& [q, v] : between[p]) total[p] += v;
    for (std::uint32_t placed = 0; placed < parts; ++placed) {
      std::uint32_t next = parts;
      for (std::uint32_t p = 0; p < parts; ++p) {
        if (router_of_part[p] != kFree) continue;
        if (next == parts || pull[p] > pull[next] || (pull[p] == pull[next] && total[p] > total[next])) next = p;
      }
      std::uint32_t best = parts;
      double best_cost = INFINITY;
      for (std::uint32_t i = 0; i < parts; ++i) {
        const RouterId r = routers[i];
        if (router_taken[i] || machine.slots_of_router(r) != machine.slots_of_router(routers[next])) continue;
        double cost = 0;
        for (const auto& [q, v] : between[next])
          if (router_of_part[q] != kFree) cost += v * hops(r, router_of_part[q]);
        if (cost < best_cost) best_cost = cost, best = i;
      }
      router_of_part[next] = routers[best];
      router_taken[best] = true;
      for (const auto& [q, v] : between[next]) pull[q] += v;
    }
    return router_of_part;
  }
};

}  // namespace

}  // namespace detail

std::unique_ptr<Mapper> make_metis_mapper(MapperLabel label, bool greedy_assignment) {
  return std::make_unique<detail::MetisMapper>(std::move(label), greedy_assignment);
}

}  // namespace taskmap
