#include "taskmap/eval/max_min.h"

#include <algorithm>
#include <limits>
#include <map>

namespace taskmap {
namespace {

struct Flow {
  double volume;
  double remaining;
  std::vector<ChannelShare> uses;  // channel and the share of the flow's rate it carries
  double penalty = 1;  // channels crossed: a flow's share of a channel goes as 1 / penalty
  double rate = 0;
  bool frozen = false;
};

}  // namespace

std::optional<double> max_min_completion_time(const Machine& machine, const Routing& routing, const CommGraph& graph,
                                              const Mapping& mapping, std::size_t max_flows) {
  std::vector<Flow> flows;
  std::map<std::pair<RouterId, RouterId>, std::vector<ChannelShare>> routes;
  std::vector<ChannelShare> shares;
  for (TaskId t = 0; t < graph.num_tasks(); ++t) {
    const RouterId rt = machine.router_of_slot(mapping.slot_of_task[t]);
    const auto targets = graph.targets(t);
    const auto volumes = graph.volumes(t);
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const RouterId ru = machine.router_of_slot(mapping.slot_of_task[targets[i]]);
      if (ru == rt || !(volumes[i] > 0)) continue;
      auto [it, fresh] = routes.try_emplace({rt, ru});
      if (fresh) {
        shares.clear();
        routing.route(rt, ru, shares);
        std::map<ChannelId, double> per_channel;  // a channel may appear more than once
        for (const ChannelShare& s : shares) per_channel[s.channel] += s.fraction;
        for (const auto& [c, f] : per_channel) it->second.push_back({c, f});
      }
      double hops = 0;
      for (const ChannelShare& u : it->second) hops += u.fraction;
      flows.push_back({volumes[i], volumes[i], it->second, std::max(hops, 1.0)});
      if (flows.size() > max_flows) return std::nullopt;
    }
  }
  std::vector<double> residual(machine.channels.size()), weight(machine.channels.size());
  std::vector<std::vector<std::size_t>> on_channel(machine.channels.size());
  for (std::size_t f = 0; f < flows.size(); ++f)
    for (const ChannelShare& u : flows[f].uses) on_channel[u.channel].push_back(f);
  std::vector<ChannelId> used;
  for (ChannelId c = 0; c < on_channel.size(); ++c) {
    if (!on_channel[c].empty()) used.push_back(c);
  }
  auto bandwidth = [&](ChannelId c) { return machine.classes[machine.channels[c].link_class].bandwidth; };

  std::vector<std::size_t> active(flows.size());
  for (std::size_t f = 0; f < flows.size(); ++f) active[f] = f;
  double now = 0;
  while (!active.empty()) {
    // Progressive filling: raise every unfrozen flow's rate together until a channel is
    // full, freeze the flows crossing it, repeat.
    for (ChannelId c : used) residual[c] = bandwidth(c), weight[c] = 0;
    for (std::size_t f : active) {
      flows[f].rate = 0;
      flows[f].frozen = false;
      for (const ChannelShare& u : flows[f].uses) weight[u.channel] += u.fraction / flows[f].penalty;
    }
    std::size_t unfrozen = active.size();
    std::vector<ChannelId> open;  // channels still carrying unfrozen flows
    for (ChannelId c : used) {
      if (weight[c] > 1e-9) open.push_back(c);
    }
    while (unfrozen > 0) {
      double step = std::numeric_limits<double>::infinity();
      for (ChannelId c : open) step = std::min(step, residual[c] / weight[c]);
      for (ChannelId c : open) residual[c] -= step * weight[c];
      for (std::size_t f : active) {
        if (!flows[f].frozen) flows[f].rate += step / flows[f].penalty;
      }
      for (ChannelId c : open) {
        if (weight[c] <= 1e-9 || residual[c] > 1e-12 * bandwidth(c)) continue;
        for (std::size_t f : on_channel[c]) {
          Flow& flow = flows[f];
          if (flow.frozen || flow.remaining <= 0) continue;
          flow.frozen = true;
          --unfrozen;
          for (const ChannelShare& u : flow.uses) weight[u.channel] -= u.fraction / flow.penalty;
        }
        weight[c] = 0;
      }
      std::erase_if(open, [&](ChannelId c) { return weight[c] <= 1e-9; });
    }
    // Run until the next flow completes.
    double dt = std::numeric_limits<double>::infinity();
    for (std::size_t f : active) dt = std::min(dt, flows[f].remaining / flows[f].rate);
    now += dt;
    std::vector<std::size_t> still;
    for (std::size_t f : active) {
      Flow& flow = flows[f];
      flow.remaining -= flow.rate * dt;
      if (flow.remaining > 1e-9 * flow.volume) still.push_back(f);
      else flow.remaining = 0;
    }
    active = std::move(still);
  }
  return now;
}

}  // namespace taskmap
