#include "taskmap/eval/report.h"

#include <fmt/format.h>

#include <map>

#include <fmt/ranges.h>

#include "taskmap/topology/node_model.h"

namespace taskmap {

nlohmann::json metrics_to_json(const Metrics& m) {
  nlohmann::json by_class = nlohmann::json::object();
  nlohmann::json classes = nlohmann::json::array();
  for (const ClassMetrics& c : m.by_class) {
    by_class[c.name] = c.mcl;
    classes.push_back({{"class", c.name},
                       {"bandwidth", c.bandwidth},
                       {"max_load", c.max_load},
                       {"mcl", c.mcl},
                       {"throughput", c.throughput},
                       {"channels", c.channels},
                       {"channels_used", c.channels_used}});
  }
  return {{"mcl", m.mcl},
          {"bottleneck_class", m.bottleneck_class},
          {"mcl_by_class", by_class},
          {"classes", classes},
          {"throughput", m.throughput},
          {"mcl_network", m.mcl_network},
          {"hop_bytes", m.hop_bytes},
          {"node_hop_bytes", m.node_hop_bytes},
          {"node_volume", m.node_volume},
          {"leaf_uplink_volume", m.leaf_uplink_volume},
          {"avg_dilation", m.avg_dilation},
          {"avg_dilation_unweighted", m.avg_dilation_unweighted},
          {"max_dilation", m.max_dilation},
          {"avg_routed_hops", m.avg_routed_hops},
          {"channels_used", m.channels_used},
          {"channels_total", m.channels_total},
          {"load_imbalance", m.load_imbalance},
          {"total_volume", m.total_volume},
          {"network_volume", m.network_volume},
          {"task_pairs", m.task_pairs},
          {"router_pairs", m.router_pairs},
          {"router_pair_hops", m.router_pair_hops},
          {"channel_updates", m.channel_updates}};
}

std::string metrics_table(const Metrics& m) {
  std::string out;
  out += fmt::format("{:<26}{:.6g}{}\n", "MCL", m.mcl, m.bottleneck_class.empty() ? "" : " (" + m.bottleneck_class + ")");
  out += fmt::format("{:<26}{:.6g}\n", "throughput (per node)", m.throughput);
  if (m.mcl_network != m.mcl) out += fmt::format("{:<26}{:.6g}\n", "MCL (network links)", m.mcl_network);
  out += fmt::format("{:<26}{:.6g}\n", "hop-bytes", m.hop_bytes);
  if (m.node_volume > 0) {
    out += fmt::format("{:<26}{:.6g} (volume inside nodes {:.6g})\n", "node hop-bytes", m.node_hop_bytes, m.node_volume);
  }
  if (m.leaf_uplink_volume > 0) out += fmt::format("{:<26}{:.6g}\n", "leaf uplink volume", m.leaf_uplink_volume);
  out += fmt::format("{:<26}{:.4f} weighted, {:.4f} unweighted\n", "avg dilation", m.avg_dilation,
                     m.avg_dilation_unweighted);
  out += fmt::format("{:<26}{}\n", "max dilation", m.max_dilation);
  out += fmt::format("{:<26}{:.4f}\n", "avg routed hops", m.avg_routed_hops);
  out += fmt::format("{:<26}{} of {}\n", "channels used", m.channels_used, m.channels_total);
  out += fmt::format("{:<26}{:.4f}\n", "load imbalance (max/mean)", m.load_imbalance);
  out += fmt::format("{:<26}{:.6g} total, {:.6g} across the network\n", "volume", m.total_volume, m.network_volume);
  out += fmt::format("\n{:<10}{:>10}{:>14}{:>14}{:>12}  {:<}\n", "class", "bandwidth", "max load", "MCL", "throughput",
                     "channels used");
  for (const ClassMetrics& c : m.by_class) {
    out += fmt::format("{:<10}{:>10.4g}{:>14.6g}{:>14.6g}{:>12.6g}  {}/{}\n", c.name, c.bandwidth, c.max_load, c.mcl,
                       c.throughput, c.channels_used, c.channels);
  }
  return out;
}

std::string compare_table(const std::vector<CompareRow>& rows) {
  std::size_t width = 8, class_width = 12;
  for (const auto& r : rows) {
    width = std::max(width, r.mapper.size() + 2);
    class_width = std::max(class_width, r.metrics.bottleneck_class.size() + 2);
  }
  std::string out = fmt::format("{:<{}}{:>12}{:>{}}{:>12}{:>14}{:>10}{:>8}{:>12}{:>10}\n", "mapper", width, "MCL",
                                "bottleneck", class_width, "throughput", "hop-bytes", "avg dil", "max dil", "channels",
                                "map s");
  for (const auto& r : rows) {
    const Metrics& m = r.metrics;
    if (!r.skipped.empty()) {
      out += fmt::format("{:<{}}skipped: {}\n", r.mapper, width, r.skipped);
      continue;
    }
    out += fmt::format("{:<{}}{:>12.6g}{:>{}}{:>12.6g}{:>14.6g}{:>10.4f}{:>8}{:>12}{:>10.3f}\n", r.mapper, width, m.mcl,
                       m.bottleneck_class.empty() ? "-" : m.bottleneck_class, class_width, m.throughput, m.hop_bytes,
                       m.avg_dilation, m.max_dilation, m.channels_used, r.seconds);
  }
  return out;
}

nlohmann::json compare_to_json(const std::vector<CompareRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows) {
    if (!r.skipped.empty()) {
      out.push_back({{"mapper", r.mapper}, {"skipped", r.skipped}});
      continue;
    }
    nlohmann::json j = metrics_to_json(r.metrics);
    j["mapper"] = r.mapper;
    j["mapping_seconds"] = r.seconds;
    out.push_back(std::move(j));
  }
  return out;
}

std::string channel_loads_csv(const Machine& machine, const std::vector<double>& loads) {
  std::string out = "channel,src_router,dst_router,class,bandwidth,load,utilization\n";
  for (ChannelId e = 0; e < machine.channels.size(); ++e) {
    const Channel& c = machine.channels[e];
    const LinkClass& cls = machine.classes[c.link_class];
    out += fmt::format("{},{},{},{},{},{},{}\n", e, c.src, c.dst, cls.name, cls.bandwidth, loads[e],
                       loads[e] / cls.bandwidth);
  }
  return out;
}

namespace {
// The switches a fabric node hangs on: its router's neighbours among the switches (hosts with
// injection links), or its own router (hosts on switch routers).
std::vector<std::string> switches_of_node(const Machine& machine, const FabricShape& fabric, NodeId n) {
  const RouterId r = machine.router_of_node(n);
  if (r >= fabric.first_switch) return {fabric.switch_names[r - fabric.first_switch]};
  std::vector<std::string> out;
  for (const Channel& c : machine.channels) {
    if (c.src == r && c.dst >= fabric.first_switch) out.push_back(fabric.switch_names[c.dst - fabric.first_switch]);
  }
  return out;
}

std::string node_counts(const Machine& machine) {
  if (machine.uniform()) {
    return fmt::format("{:<22}{} ({} per router)\n{:<22}{} ({} per node)\n", "nodes", machine.num_nodes(),
                       machine.nodes_per_router, "slots", machine.num_slots(), machine.slots_per_node);
  }
  std::uint32_t with_slots = 0, fewest = UINT32_MAX, most = 0;
  for (NodeId n = 0; n < machine.num_nodes(); ++n) {
    const std::uint32_t k = machine.slots_of_node(n);
    if (k == 0) continue;
    ++with_slots, fewest = std::min(fewest, k), most = std::max(most, k);
  }
  std::string out = fmt::format("{:<22}{}{}\n", "nodes", machine.num_nodes(), machine.named_nodes() ? ", named" : "");
  out += fmt::format("{:<22}{} on {} nodes ({} per node)\n", "slots", machine.num_slots(), with_slots,
                     fewest == most ? fmt::format("{}", most) : fmt::format("{} to {}", fewest, most));
  return out;
}

}  // namespace

std::string machine_info_table(const Machine& machine, const MachineInfo& info) {
  const TopologyStats& stats = info.stats;
  std::string out;
  out += fmt::format("{:<22}{}\n", "machine", machine.description);
  out += fmt::format("{:<22}{}\n", "routers", machine.num_routers);
  out += node_counts(machine);
  if (const auto* fabric = std::get_if<FabricShape>(&machine.shape)) {
    std::vector<std::string> top;
    for (RouterId r : fabric->top_switches) {
      if (top.size() == 8) break;  // a Dragonfly's routers are all at the top
      top.push_back(fabric->switch_names[r - fabric->first_switch]);
    }
    const std::string more = fabric->top_switches.size() > top.size()
                                 ? fmt::format(", ... {} in all", fabric->top_switches.size()) : "";
    out += fmt::format("{:<22}{} (top: {}{})\n", "switches", fabric->switch_names.size(), fmt::join(top, ", "), more);
  }
  if (machine.node_model) {
    out += fmt::format("{:<22}{} slots: {} ({})\n", "node model", machine.node_model->num_slots(),
                       fmt::join(machine.node_model->levels, " > "), machine.node_model->source);
  }
  const auto counts = channels_per_class(machine);
  std::uint64_t channels = 0;
  for (std::uint64_t n : counts) channels += n;
  out += fmt::format("{:<22}{}\n", "channels", channels);
  for (std::size_t c = 0; c < machine.classes.size(); ++c) {
    out += fmt::format("  {:<20}{} channels, bandwidth {}\n", machine.classes[c].name, counts[c],
                       machine.classes[c].bandwidth);
  }
  if (stats.estimated) {
    const std::string range = stats.diameter == stats.diameter_upper
                                  ? fmt::format("{}", stats.diameter)
                                  : fmt::format("{} to {}", stats.diameter, stats.diameter_upper);
    out += fmt::format("{:<22}{} (estimate: breadth-first search from {} sampled routers)\n", "diameter", range,
                       stats.sources);
    out += fmt::format("{:<22}{:.6f} +- {:.6f} (estimate, 99% confidence)\n", "average distance", stats.avg_distance,
                       stats.avg_error);
  } else {
    out += fmt::format("{:<22}{}\n", "diameter", stats.diameter);
    out += fmt::format("{:<22}{:.6f}\n", "average distance", stats.avg_distance);
  }
  out += fmt::format("{:<22}{}\n", "default routing", info.routing);
  using Verdict = PartialCubeAnswer::Verdict;
  const PartialCubeAnswer& pc = info.partial_cube;
  out += fmt::format("{:<22}{}\n", "partial cube",
                     pc.verdict == Verdict::Yes  ? fmt::format("yes, {}-bit labels", pc.dims)
                     : pc.verdict == Verdict::No ? "no: " + pc.reason
                                                 : "unknown: " + pc.reason);
  return out;
}

namespace {
// Named nodes with their slots (0: outside the job's allocation) and switches; [] otherwise.
nlohmann::json hosts_json(const Machine& machine) {
  nlohmann::json hosts = nlohmann::json::array();
  if (!machine.named_nodes()) return hosts;
  const auto* fabric = std::get_if<FabricShape>(&machine.shape);
  for (NodeId n = 0; n < machine.num_nodes(); ++n) {
    nlohmann::json h = {{"name", machine.node_name(n)}, {"slots", machine.slots_of_node(n)}};
    if (fabric) h["switches"] = switches_of_node(machine, *fabric, n);
    hosts.push_back(std::move(h));
  }
  return hosts;
}
}  // namespace

nlohmann::json machine_info_json(const Machine& machine, const MachineInfo& info) {
  const TopologyStats& stats = info.stats;
  nlohmann::json classes = nlohmann::json::object();
  const auto counts = channels_per_class(machine);
  std::uint64_t channels = 0;
  for (std::size_t c = 0; c < machine.classes.size(); ++c) {
    classes[machine.classes[c].name] = {{"channels", counts[c]}, {"bandwidth", machine.classes[c].bandwidth}};
    channels += counts[c];
  }
  using Verdict = PartialCubeAnswer::Verdict;
  const PartialCubeAnswer& pc = info.partial_cube;
  return {{"machine", machine.description},
          {"routers", machine.num_routers},
          {"nodes", machine.num_nodes()},
          {"slots", machine.num_slots()},
          // Per router and per node counts hold on uniform machines only; a fabric's vary (hosts).
          {"nodes_per_router", machine.uniform() ? nlohmann::json(machine.nodes_per_router) : nlohmann::json()},
          {"slots_per_node", machine.uniform() ? nlohmann::json(machine.slots_per_node) : nlohmann::json()},
          {"channels", channels},
          {"classes", classes},
          {"diameter", stats.diameter},
          {"avg_distance", stats.avg_distance},
          // Sampled on large graphs and fabrics: then diameter is a lower bound, diameter_upper an
          // upper bound and avg_distance_error the half-width of a 99% confidence interval.
          {"distance_estimated", stats.estimated},
          {"diameter_upper", stats.diameter_upper},
          {"avg_distance_error", stats.avg_error},
          {"default_routing", info.routing},
          {"partial_cube", pc.verdict == Verdict::Yes ? "yes" : pc.verdict == Verdict::No ? "no" : "unknown"},
          {"partial_cube_dims", pc.verdict == Verdict::Yes ? nlohmann::json(pc.dims) : nlohmann::json()},
          {"not_partial_cube", pc.verdict == Verdict::Yes ? "" : pc.reason},
          {"hosts", hosts_json(machine)}};
}

}  // namespace taskmap
