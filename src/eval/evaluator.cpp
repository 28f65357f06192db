#include "taskmap/eval/evaluator.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/core/progress.h"
#include "taskmap/topology/distance.h"
#include "taskmap/topology/node_model.h"

namespace taskmap {

Metrics Evaluator::evaluate(const CommGraph& graph, const Mapping& mapping, std::vector<double>* loads_out) const {
  validate_mapping(mapping, machine_, graph.num_tasks(), "mapping", UINT32_MAX);  // many-to-one allowed
  // Peak: one router-pair record per task pair (16 bytes), a load per channel, and the routes
  // are streamed (shares of one pair at a time), so flow-hops cost time, not memory.
  check_memory(fmt::format("evaluating {} task pairs on '{}'", format_count(graph.num_edges()), machine_.description),
               saturating_add(saturating_mul(graph.num_edges(), 16), saturating_mul(machine_.channels.size(), 16)),
               format_count(graph.num_edges()) + " router-pair records");
  std::unique_ptr<HopDistance> own_distance;
  if (!distance_) own_distance = std::make_unique<HopDistance>(machine_);
  const HopDistance& distance = distance_ ? *distance_ : *own_distance;
  const NodeModel* model = machine_.node_model.get();
  auto node_distance = [&](SlotId a, SlotId b) -> double {
    if (a == b) return 0;
    return model ? model->distance(machine_.slot_in_node(a), machine_.slot_in_node(b)) : 1;
  };
  Metrics m;
  m.channels_total = machine_.channels.size();

  // 1. Aggregate task traffic into router pairs; traffic inside a node or a router is free.
  struct RouterFlow {
    std::uint64_t key;
    double volume;
  };
  std::vector<RouterFlow> flows;
  double weighted_hops = 0;
  std::uint64_t hop_sum = 0;
  double self_volume = 0;
  const std::uint64_t routers = machine_.num_routers;
  for (TaskId t = 0; t < graph.num_tasks(); ++t) {
    const SlotId st = mapping.slot_of_task[t];
    const NodeId nt = machine_.node_of_slot(st);
    const RouterId rt = machine_.router_of_node(nt);
    auto targets = graph.targets(t);
    auto volumes = graph.volumes(t);
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const double v = volumes[i];
      m.total_volume += v;
      if (targets[i] == t) {  // a task talking to itself is not a communicating pair
        self_volume += v;
        continue;
      }
      ++m.task_pairs;
      const SlotId su = mapping.slot_of_task[targets[i]];
      const NodeId nu = machine_.node_of_slot(su);
      if (nu == nt) {
        m.node_volume += v;
        m.node_hop_bytes += v * node_distance(st, su);
        continue;
      }
      const RouterId ru = machine_.router_of_node(nu);
      if (ru == rt) continue;
      const std::uint32_t hops = distance(rt, ru);
      weighted_hops += v * hops;
      hop_sum += hops;
      m.max_dilation = std::max(m.max_dilation, hops);
      m.network_volume += v;
      flows.push_back({rt * routers + ru, v});
    }
  }
  m.hop_bytes = weighted_hops;
  const double communicating_volume = m.total_volume - self_volume;
  m.avg_dilation = communicating_volume > 0 ? weighted_hops / communicating_volume : 0;
  m.avg_dilation_unweighted = m.task_pairs > 0 ? static_cast<double>(hop_sum) / static_cast<double>(m.task_pairs) : 0;

  std::sort(flows.begin(), flows.end(), [](const RouterFlow& a, const RouterFlow& b) { return a.key < b.key; });

  // 2. Route every router pair once and add its shares to the channel loads.
  std::vector<double> load(machine_.channels.size(), 0.0);
  std::vector<ChannelShare> shares;
  double routed_hops = 0;
  const bool adaptive = routing_.adaptive();
  io::Progress progress("evaluating router pairs", flows.size(), flows.size() >= (std::size_t{1} << 18));
  for (std::size_t i = 0; i < flows.size();) {
    if ((m.router_pairs & 0xfff) == 0) progress.set(i);
    const std::uint64_t key = flows[i].key;
    double v = 0;
    while (i < flows.size() && flows[i].key == key) v += flows[i++].volume;
    shares.clear();
    const auto src = static_cast<RouterId>(key / routers), dst = static_cast<RouterId>(key % routers);
    if (adaptive) routing_.route_adaptive(src, dst, load, shares);
    else routing_.route(src, dst, shares);
    for (const ChannelShare& s : shares) {
      load[s.channel] += v * s.fraction;
      routed_hops += v * s.fraction;
    }
    m.channel_updates += shares.size();
    ++m.router_pairs;
  }
  m.avg_routed_hops = m.network_volume > 0 ? routed_hops / m.network_volume : 0;

  // 3. Metrics over channels, overall and per link class.
  m.by_class.resize(machine_.classes.size());
  for (std::size_t c = 0; c < machine_.classes.size(); ++c) {
    m.by_class[c].name = machine_.classes[c].name;
    m.by_class[c].bandwidth = machine_.classes[c].bandwidth;
  }
  double sum_util = 0;
  for (ChannelId e = 0; e < load.size(); ++e) {
    ClassMetrics& cm = m.by_class[machine_.channels[e].link_class];
    ++cm.channels;
    if (load[e] <= 0) continue;
    ++cm.channels_used;
    ++m.channels_used;
    cm.max_load = std::max(cm.max_load, load[e]);
    sum_util += load[e] / cm.bandwidth;
  }
  for (ClassMetrics& cm : m.by_class) {
    cm.mcl = cm.max_load / cm.bandwidth;
    cm.throughput = cm.mcl > 0 ? machine_.slots_per_node / cm.mcl : 0;
    m.mcl = std::max(m.mcl, cm.mcl);
  }
  for (std::size_t c = 0; c < machine_.classes.size(); ++c) {
    if (!machine_.classes[c].host_link) m.mcl_network = std::max(m.mcl_network, m.by_class[c].mcl);
  }
  if (const auto* fabric = std::get_if<FabricShape>(&machine_.shape)) {
    std::vector<char> leaf(machine_.num_routers, 0);
    for (const Channel& c : machine_.channels) {
      if (machine_.classes[c.link_class].host_link && c.dst >= fabric->first_switch) leaf[c.dst] = 1;
    }
    if (fabric->first_switch == 0) {  // hosts on switch routers: the routers holding slots
      for (NodeId n = 0; n < machine_.num_nodes(); ++n) leaf[machine_.router_of_node(n)] = 1;
    }
    for (ChannelId e = 0; e < load.size(); ++e) {
      const Channel& c = machine_.channels[e];
      if (leaf[c.src] && c.dst >= fabric->first_switch && !machine_.classes[c.link_class].host_link) {
        m.leaf_uplink_volume += load[e];
      }
    }
  }
  for (const ClassMetrics& cm : m.by_class) {
    if (m.mcl > 0 && cm.mcl >= m.mcl * (1 - 1e-9)) {
      m.bottleneck_class.push_back(cm.name);
    }
  }
  m.throughput = m.mcl > 0 ? machine_.slots_per_node / m.mcl : 0;
  m.load_imbalance = m.channels_used > 0 ? m.mcl / (sum_util / static_cast<double>(m.channels_used)) : 0;
  if (loads_out) *loads_out = std::move(load);
  return m;
}

}  // namespace taskmap
