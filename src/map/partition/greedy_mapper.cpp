// greedy: in the style of the greedy heuristic of Hoefler & Snir (ICS 2011, "Generic topology
// mapping strategies for large-scale parallel architectures"; the details are our reading), on
// routers: the task with the most traffic goes to router 0; then, while tasks remain, the
// unplaced task with the most traffic to placed tasks (a fresh heaviest task when none is
// connected) goes to the router with room nearest to its heaviest placed partner (BFS order,
// the first found). Routers hold their slots x the balance's tasks per slot.
#include <algorithm>
#include <queue>

#include "taskmap/map/mapper_support.h"
#include "taskmap/map/partition/partition_mappers.h"
#include "taskmap/map/router_placement.h"
#include "taskmap/topology/distance.h"

namespace taskmap {
namespace detail {
namespace {

class GreedyMapper final : public ConfiguredMapper<> {
 public:
  using ConfiguredMapper::ConfiguredMapper;

  Mapping run(const MappingProblem& problem) const override {
    const Machine& machine = problem.machine();
    const CommGraph& graph = problem.graph();
    const std::uint32_t n = graph.num_tasks();
    std::vector<std::uint64_t> capacity(machine.num_routers);
    for (RouterId r = 0; r < machine.num_routers; ++r) capacity[r] = router_capacity(machine, r, n, problem.imbalance());
    // Undirected traffic per task pair.
    std::vector<std::vector<std::pair<TaskId, double>>> adj(n);
    std::vector<double> total(n, 0.0);
    for (TaskId a = 0; a < n; ++a) {
      auto targets = graph.targets(a);
      auto volumes = graph.volumes(a);
      for (std::size_t e = 0; e < targets.size(); ++e) {
        if (targets[e] == a) continue;
        adj[a].push_back({targets[e], volumes[e]}), adj[targets[e]].push_back({a, volumes[e]});
        total[a] += volumes[e], total[targets[e]] += volumes[e];
      }
    }
    const ChannelAdjacency out(machine, false);  // router neighbours for the BFS
    constexpr RouterId kNone = UINT32_MAX;
    std::vector<RouterId> router_of(n, kNone);
    std::vector<std::uint64_t> used(machine.num_routers, 0);
    std::vector<double> pull(n, 0.0);  // traffic to placed tasks
    std::vector<TaskId> heaviest_partner(n, UINT32_MAX);
    std::vector<double> heaviest_volume(n, 0.0);
    // Max-heap on (pull, total, -task) with lazy deletion.
    using Entry = std::tuple<double, double, std::int64_t>;
    std::priority_queue<Entry> queue;
    for (TaskId t = 0; t < n; ++t) queue.push({0.0, total[t], -std::int64_t(t)});
    std::vector<std::uint32_t> seen(machine.num_routers, 0);
    const RouterId first_router = routers_with_slots(machine).front();
    std::uint32_t stamp = 0;
    auto nearest_with_room = [&](RouterId from) {
      ++stamp;
      std::queue<RouterId> q;
      q.push(from);
      seen[from] = stamp;
      while (!q.empty()) {
        const RouterId r = q.front();
        q.pop();
        if (used[r] < capacity[r]) return r;
        for (std::uint32_t i = out.offsets[r]; i < out.offsets[r + 1]; ++i) {
          const RouterId s = machine.channels[out.channels[i]].dst;
          if (seen[s] != stamp) seen[s] = stamp, q.push(s);
        }
      }
      for (RouterId r = 0; r < machine.num_routers; ++r)  // disconnected machines
        if (used[r] < capacity[r]) return r;
      return kNone;
    };
    while (!queue.empty()) {
      const auto [p, tot, neg] = queue.top();
      queue.pop();
      const TaskId t = static_cast<TaskId>(-neg);
      if (router_of[t] != kNone || p != pull[t]) continue;  // placed, or a stale entry
      // A task with no placed partner starts a new region from the first router with slots.
      const RouterId from = heaviest_partner[t] == UINT32_MAX ? first_router : router_of[heaviest_partner[t]];
      const RouterId r = nearest_with_room(from);
      if (r == kNone) refuse(label_, "the machine has no room left for task {}", t);
      router_of[t] = r;
      ++used[r];
      for (const auto& [u, v] : adj[t]) {
        if (router_of[u] != kNone) continue;
        pull[u] += v;
        if (v > heaviest_volume[u]) heaviest_volume[u] = v, heaviest_partner[u] = t;
        queue.push({pull[u], total[u], -std::int64_t(u)});
      }
    }
    return keep_default_unless_better(problem, place_on_routers(machine, graph, std::move(router_of), problem.imbalance()),
                                      label_.text);
  }
};

}  // namespace

}  // namespace detail

std::unique_ptr<Mapper> make_greedy_mapper(MapperLabel label) {
  return std::make_unique<detail::GreedyMapper>(std::move(label));
}

}  // namespace taskmap
