#include "taskmap/eval/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include <fmt/ranges.h>

#include "taskmap/topology/node_model.h"

namespace taskmap {

nlohmann::json metrics_to_json(const Metrics& m) {
  nlohmann::json classes = nlohmann::json::object();
  for (const ClassMetrics& c : m.by_class) {
    classes[c.name] = {{"bandwidth", c.bandwidth},
                       {"max_load", c.max_load},
                       {"mcl", c.mcl},
                       {"throughput", c.throughput},
                       {"channels", c.channels},
                       {"channels_used", c.channels_used}};
  }
  return {{"mcl", m.mcl},
          {"bottleneck_class", m.bottleneck_class},
          {"classes", classes},
          {"throughput", m.throughput},
          {"mcl_network", m.mcl_network},
          {"hop_bytes", m.hop_bytes},
          {"j", m.j},
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

double Units::utilization_factor() const {
  if (utilization_in_seconds()) return bytes_per_unit / link_bytes_per_s;
  return load_factor();
}

std::string Units::utilization_unit() const {
  if (utilization_in_seconds()) return "s";
  return volume_in_bytes() ? "bytes per bandwidth unit" : "pattern units per bandwidth unit";
}

nlohmann::json units_to_json(const Units& u) {
  auto known = [](double x) { return x > 0 ? nlohmann::json(x) : nlohmann::json(nullptr); };
  return {{"volume", u.load_unit()},
          {"bytes_per_unit", known(u.bytes_per_unit)},
          {"link_bytes_per_s", known(u.link_bytes_per_s)},
          {"utilization", u.utilization_unit()}};
}

std::string metrics_table(const Metrics& m) {
  std::string out;
  const std::string bottleneck = fmt::format("{}", fmt::join(m.bottleneck_class, ","));
  out += fmt::format("{:<26}{:.6g}{}\n", "MCL", m.mcl, bottleneck.empty() ? "" : " (" + bottleneck + ")");
  out += fmt::format("{:<26}{:.6g}\n", "throughput (per task)", m.throughput);
  if (m.mcl_network != m.mcl) out += fmt::format("{:<26}{:.6g}\n", "MCL (network links)", m.mcl_network);
  out += fmt::format("{:<26}{:.6g}\n", "hop-bytes", m.hop_bytes);
  out += fmt::format("{:<26}{:.6g}\n", "J (each pair once)", m.j);
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
  std::vector<std::string> bottleneck;
  for (const auto& r : rows) {
    bottleneck.push_back(r.metrics.bottleneck_class.empty() ? "-" : fmt::format("{}", fmt::join(r.metrics.bottleneck_class, ",")));
    width = std::max(width, r.mapper.size() + 2);
    class_width = std::max(class_width, bottleneck.back().size() + 2);
  }
  std::string out = fmt::format("{:<{}}{:>12}{:>{}}{:>12}{:>14}{:>14}{:>10}{:>8}{:>12}{:>10}\n", "mapper", width, "MCL",
                                "bottleneck", class_width, "throughput", "hop-bytes", "J", "avg dil", "max dil",
                                "channels", "map s");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CompareRow& r = rows[i];
    const Metrics& m = r.metrics;
    if (!r.skipped.empty()) {
      out += fmt::format("{:<{}}skipped: {}\n", r.mapper, width, r.skipped);
      continue;
    }
    out += fmt::format("{:<{}}{:>12.6g}{:>{}}{:>12.6g}{:>14.6g}{:>14.6g}{:>10.4f}{:>8}{:>12}{:>10.3f}\n", r.mapper, width,
                       m.mcl, bottleneck[i], class_width, m.throughput, m.hop_bytes, m.j, m.avg_dilation,
                       m.max_dilation, m.channels_used, r.seconds);
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
// Per router of a fabric, the switches its nodes hang on: for a host's own router, the switch
// of each of its links (injection channels); for a switch router holding nodes, itself.
std::vector<std::vector<std::string>> switches_of_routers(const Machine& machine, const FabricShape& fabric) {
  std::vector<std::vector<std::string>> out(machine.num_routers);
  for (RouterId r = fabric.first_switch; r < machine.num_routers; ++r) {
    out[r] = {fabric.switch_names[r - fabric.first_switch]};
  }
  for (const Channel& c : machine.channels) {
    if (c.src < fabric.first_switch && c.dst >= fabric.first_switch) {
      out[c.src].push_back(fabric.switch_names[c.dst - fabric.first_switch]);
    }
  }
  return out;
}

// The nodes that have slots (all of them, or the job's), and their fewest and most slots.
struct SlotSpread {
  std::uint32_t nodes = 0, fewest = UINT32_MAX, most = 0;
};
SlotSpread slot_spread(const Machine& machine) {
  SlotSpread s;
  for (NodeId n = 0; n < machine.num_nodes(); ++n) {
    const std::uint32_t k = machine.slots_of_node(n);
    if (k == 0) continue;
    ++s.nodes, s.fewest = std::min(s.fewest, k), s.most = std::max(s.most, k);
  }
  return s;
}

std::string node_counts(const Machine& machine) {
  if (machine.uniform()) {
    return fmt::format("{:<22}{} ({} per router)\n{:<22}{} ({} per node)\n", "nodes", machine.num_nodes(),
                       machine.nodes_per_router, "slots", machine.num_slots(), machine.slots_per_node);
  }
  const SlotSpread s = slot_spread(machine);
  std::string out = fmt::format("{:<22}{}{}\n", "nodes", machine.num_nodes(), machine.named_nodes() ? ", named" : "");
  out += fmt::format("{:<22}{} on {} nodes ({} per node)\n", "slots", machine.num_slots(), s.nodes,
                     s.fewest == s.most ? fmt::format("{}", s.most) : fmt::format("{} to {}", s.fewest, s.most));
  return out;
}

std::vector<std::string> top_switch_names(const FabricShape& fabric) {
  std::vector<std::string> top;
  for (RouterId r : fabric.top_switches) top.push_back(fabric.switch_names[r - fabric.first_switch]);
  return top;
}

}  // namespace

std::string machine_info_table(const Machine& machine, const MachineInfo& info) {
  const TopologyStats& stats = info.stats;
  std::string out;
  out += fmt::format("{:<22}{}\n", "machine", machine.description);
  out += fmt::format("{:<22}{}\n", "routers", machine.num_routers);
  out += node_counts(machine);
  if (const auto* fabric = std::get_if<FabricShape>(&machine.shape)) {
    std::vector<std::string> top = top_switch_names(*fabric);
    const std::string more = top.size() > 8 ? fmt::format(", ... {} in all", top.size()) : "";
    top.resize(std::min<std::size_t>(top.size(), 8));  // a Dragonfly's routers are all at the top
    out += fmt::format("{:<22}{} (top: {}{})\n", "switches", fabric->switch_names.size(), fmt::join(top, ", "), more);
  }
  if (machine.node_model) {
    const auto& levels = machine.node_model->levels;
    out += fmt::format("{:<22}{} slots: {} ({})\n", "node model", machine.node_model->num_slots(),
                       levels.empty() ? std::string("no level tells them apart") : fmt::format("{}", fmt::join(levels, " > ")),
                       machine.node_model->source);
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
  // The partial-cube test is TiMEr's precondition: its answer and reasons (Djoković classes)
  // speak to a mapping researcher, not to a cluster's user. Said where timer applies, on the
  // papers' machines (not on a cluster's fabric), or when asked.
  if (pc.verdict == Verdict::Yes && (info.verbose || !machine.named_nodes())) {
    out += fmt::format("{:<22}yes, {}-bit labels (the timer mapper applies)\n", "partial cube", pc.dims);
  } else if (info.verbose && pc.verdict != Verdict::Yes) {
    out += fmt::format("{:<22}{}\n", "partial cube",
                       pc.verdict == Verdict::No ? "no: " + pc.reason : "unknown: " + pc.reason);
  }
  return out;
}

namespace {
// Named nodes with their slots (0: outside the job's allocation) and switches; [] otherwise.
nlohmann::json hosts_json(const Machine& machine) {
  nlohmann::json hosts = nlohmann::json::array();
  if (!machine.named_nodes()) return hosts;
  const auto* fabric = std::get_if<FabricShape>(&machine.shape);
  const std::vector<std::vector<std::string>> switches_of =
      fabric ? switches_of_routers(machine, *fabric) : std::vector<std::vector<std::string>>{};
  for (NodeId n = 0; n < machine.num_nodes(); ++n) {
    nlohmann::json h = {{"name", machine.node_name(n)}, {"slots", machine.slots_of_node(n)}};
    if (fabric) {
      // One entry per switch; "links" counts the node's links to them (several HCAs, or rails).
      std::vector<std::string> switches = switches_of[machine.router_of_node(n)];
      if (machine.gpu_links) {  // a GPU node's links are its NICs'
        const GpuNodeLinks::Node& node = machine.gpu_links->nodes[n];
        for (RouterId r = node.first_nic; r < node.first_nic + node.nics; ++r) {
          switches.insert(switches.end(), switches_of[r].begin(), switches_of[r].end());
        }
      }
      h["links"] = switches.size();
      std::vector<std::string> distinct;
      for (const auto& sw : switches)
        if (std::find(distinct.begin(), distinct.end(), sw) == distinct.end()) distinct.push_back(sw);
      h["switches"] = std::move(distinct);
    }
    hosts.push_back(std::move(h));
  }
  return hosts;
}

// A fabric's switch count and top switches; null on the other machines.
nlohmann::json switches_json(const Machine& machine) {
  const auto* fabric = std::get_if<FabricShape>(&machine.shape);
  if (!fabric) return nullptr;
  return {{"count", fabric->switch_names.size()}, {"top", top_switch_names(*fabric)}};
}

nlohmann::json node_model_json(const Machine& machine) {
  if (!machine.node_model) return nullptr;
  return {{"slots", machine.node_model->num_slots()},
          {"levels", machine.node_model->levels},
          {"source", machine.node_model->source}};
}

// The slots every node with slots has, or null when they differ.
nlohmann::json slots_per_node_json(const Machine& machine) {
  if (machine.uniform()) return machine.slots_per_node;
  const SlotSpread s = slot_spread(machine);
  return s.nodes > 0 && s.fewest == s.most ? nlohmann::json(s.most) : nlohmann::json();
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
          // Nodes per router hold on uniform machines only; slots per node wherever all nodes
          // with slots have as many (a fabric's hosts, a job's allocation).
          {"nodes_per_router", machine.uniform() ? nlohmann::json(machine.nodes_per_router) : nlohmann::json()},
          {"slots_per_node", slots_per_node_json(machine)},
          {"switches", switches_json(machine)},
          {"node_model", node_model_json(machine)},
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
