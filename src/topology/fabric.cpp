// Fabric -> Machine: the one place where a cluster's files become routers and channels.
#include "taskmap/topology/fabric.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "class_table.h"
#include "common_checks.h"
#include "gpu_node_layout.h"
#include "taskmap/core/error.h"

namespace taskmap {
namespace {

using detail::ClassTable;
using detail::GpuNodeLayout;

// The fabric's reference rate: its most common known switch-to-switch rate (else the most
// common host rate), so that bandwidths read "1" on the usual cable; 0 when no rate is known.
double reference_gbps(const Fabric& f) {
  auto most_common = [](auto rates) {
    std::map<double, std::size_t> count;
    for (double r : rates) {
      if (r > 0) ++count[r];
    }
    double best = 0;
    std::size_t best_count = 0;
    for (auto [rate, n] : count) {
      if (n > best_count) best = rate, best_count = n;
    }
    return best;
  };
  std::vector<double> cable_rates, port_rates;
  for (const auto& c : f.cables) cable_rates.push_back(c.gbps);
  for (const auto& p : f.host_ports) port_rates.push_back(p.gbps);
  if (double r = most_common(cable_rates); r > 0) return r;
  return most_common(port_rates);
}

void check_indices(const Fabric& f) {
  const auto hosts = f.hosts.size(), switches = f.switches.size();
  if (hosts == 0) fail("{}: the fabric has no host", f.source);
  if (switches == 0) fail("{}: the fabric has no switch", f.source);
  if (hosts + switches > detail::kMaxRouters) fail("{}: {} hosts and switches is too many", f.source, hosts + switches);
  for (const auto& p : f.host_ports) {
    if (p.host >= hosts || p.sw >= switches) fail("{}: a host port names host {} / switch {}", f.source, p.host, p.sw);
  }
  for (const auto& c : f.cables) {
    if (c.a >= switches || c.b >= switches) fail("{}: a cable names switch {} / {}", f.source, c.a, c.b);
  }
  if (!f.switch_group.empty()) {
    if (f.switch_group.size() != switches || !f.hosts_on_switches) {
      fail("{}: Dragonfly groups for {} of {} switches{}", f.source, f.switch_group.size(), switches,
           f.hosts_on_switches ? "" : " (groups need the hosts on the switches)");
    }
    for (std::uint32_t group : f.switch_group) {
      if (group >= f.group_names.size()) fail("{}: a switch is in group {} of {}", f.source, group, f.group_names.size());
    }
  }
  std::vector<std::uint32_t> ports(hosts, 0);
  for (const auto& p : f.host_ports) ++ports[p.host];
  for (std::size_t h = 0; h < hosts; ++h) {
    if (ports[h] == 0) fail("{}: host '{}' is cabled to no switch", f.source, f.hosts[h]);
    if (f.hosts_on_switches && ports[h] != 1) {
      fail("{}: host '{}' has {} ports but this fabric places hosts on one router", f.source, f.hosts[h], ports[h]);
    }
  }
}

// Refuses a fabric in several pieces: traffic between them has no route.
void check_connected(const Machine& m, const Fabric& f, RouterId first_switch) {
  std::vector<std::vector<RouterId>> adjacent(m.num_routers);
  for (const Channel& c : m.channels) adjacent[c.src].push_back(c.dst);
  std::vector<char> seen(m.num_routers, 0);
  std::deque<RouterId> queue{first_switch};
  seen[first_switch] = 1;
  while (!queue.empty()) {
    const RouterId r = queue.front();
    queue.pop_front();
    for (RouterId x : adjacent[r]) {
      if (!seen[x]) seen[x] = 1, queue.push_back(x);
    }
  }
  const auto it = std::find(seen.begin(), seen.end(), 0);
  if (it == seen.end()) return;
  const auto r = static_cast<RouterId>(it - seen.begin());
  const std::string name = r >= first_switch ? "switch '" + f.switches[r - first_switch] + "'"
                                             : "host '" + f.hosts[r] + "'";
  fail("{}: the fabric is not connected: {} cannot reach switch '{}' (taskmap routes over one connected fabric; "
       "give each part as a machine of its own)",
       f.source, name, f.switches[0]);
}

// The tree's top: the switches farthest (in switch hops) from the nearest leaf. Leaves are the
// switches with hosts, except a spine that carries a few (login, management, storage nodes):
// a switch cabled to a leaf that has other switches too, that shares no neighbour with that
// leaf (a peer leaf would share its spines) and whose share of ports going to hosts is less
// than half the leaf's. Without that exception the switches above such a spine would count
// as a level lower than their peers. A direct network (hosts on every router, a Dragonfly)
// has no hierarchy: all its switches are roots.
std::vector<RouterId> derived_top(const Machine& m, const std::vector<RouterId>& host_ports, RouterId first_switch,
                                  bool direct) {
  std::vector<RouterId> top;
  if (direct) {
    for (RouterId r = first_switch; r < m.num_routers; ++r) top.push_back(r);
    return top;
  }
  std::vector<std::vector<RouterId>> adjacent(m.num_routers);
  for (const Channel& c : m.channels) {
    if (c.src >= first_switch && c.dst >= first_switch) adjacent[c.src].push_back(c.dst);
  }
  for (auto& a : adjacent) std::sort(a.begin(), a.end());
  std::vector<double> hosts(m.num_routers, 0);
  for (RouterId s : host_ports) ++hosts[s];
  auto host_share = [&](RouterId s) { return hosts[s] / (hosts[s] + double(adjacent[s].size())); };
  auto share_a_neighbour = [&](RouterId a, RouterId b) {
    for (RouterId x : adjacent[a]) {
      if (x != b && std::binary_search(adjacent[b].begin(), adjacent[b].end(), x)) return true;
    }
    return false;
  };
  std::vector<std::uint32_t> level(m.num_routers, UINT32_MAX);
  std::deque<RouterId> queue;
  for (RouterId s = first_switch; s < m.num_routers; ++s) {
    if (hosts[s] == 0) continue;
    const bool above_a_leaf = std::any_of(adjacent[s].begin(), adjacent[s].end(), [&](RouterId leaf) {
      const bool has_other_switches =
          std::any_of(adjacent[leaf].begin(), adjacent[leaf].end(), [&](RouterId y) { return y != s; });
      return 2 * host_share(s) < host_share(leaf) && has_other_switches && !share_a_neighbour(s, leaf);
    });
    if (!above_a_leaf) level[s] = 0, queue.push_back(s);
  }
  std::uint32_t top_level = 0;
  while (!queue.empty()) {
    const RouterId r = queue.front();
    queue.pop_front();
    top_level = std::max(top_level, level[r]);
    for (RouterId x : adjacent[r]) {
      if (level[x] == UINT32_MAX) level[x] = level[r] + 1, queue.push_back(x);
    }
  }
  for (RouterId r = first_switch; r < m.num_routers; ++r) {
    if (level[r] == top_level) top.push_back(r);
  }
  return top;
}

// Where an InfiniBand fabric's subnet nodes and ports are in the machine: FabricShape's
// router_of_node and channel_of_port, filled as the channels are made.
class SubnetChannels final {
 public:
  SubnetChannels(const Fabric& f, RouterId first_switch) : f_(f) {
    if (!f.subnet) return;
    const auto& nodes = f.subnet->nodes;
    router_of_node_.assign(nodes.size(), kNoRouter);
    channel_of_port_.resize(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) channel_of_port_[i].assign(nodes[i].ports.size(), kNoChannel);
    for (std::size_t s = 0; s < f.subnet_switch.size(); ++s) {
      router_of_node_[f.subnet_switch[s]] = first_switch + static_cast<RouterId>(s);
    }
  }
  void host_port(std::size_t k, RouterId host, ChannelId inject, ChannelId eject) {
    if (!f_.subnet) return;
    const ib::PortRef ca = f_.subnet_host_port[k];
    const ib::Port& port = f_.subnet->port(ca);
    router_of_node_[ca.node] = host;
    channel_of_port_[ca.node][ca.port] = inject;
    channel_of_port_[port.peer_node][port.peer_port] = eject;
  }
  void cable(std::size_t k, ChannelId ab, ChannelId ba) {
    if (!f_.subnet) return;
    const auto& [a, b] = f_.subnet_cable[k];
    channel_of_port_[a.node][a.port] = ab;
    channel_of_port_[b.node][b.port] = ba;
  }
  void fill(FabricShape& shape) {
    if (!f_.subnet) return;
    shape.subnet = f_.subnet;
    shape.router_of_node = std::move(router_of_node_);
    shape.channel_of_port = std::move(channel_of_port_);
  }

 private:
  const Fabric& f_;
  std::vector<RouterId> router_of_node_;
  std::vector<std::vector<ChannelId>> channel_of_port_;
};

}  // namespace

Machine build_fabric_machine(const Fabric& f, const FabricOptions& options) {
  check_indices(f);
  Machine m;
  m.description = options.description.empty() ? f.source : options.description;
  m.slots_per_node = options.slots_per_node;
  const auto hosts = static_cast<std::uint32_t>(f.hosts.size());
  const auto switches = static_cast<std::uint32_t>(f.switches.size());
  // GPU nodes need ports of their own: a fabric with hosts on its switches keeps its nodes whole.
  const bool gpu_nodes = options.gpu_model && options.gpu_model->gpu && !f.hosts_on_switches;
  std::optional<GpuNodeLayout> gpus;
  if (gpu_nodes) gpus.emplace(f, *options.gpu_model->gpu, options.warn);
  const RouterId first_switch = f.hosts_on_switches ? 0 : gpus ? gpus->routers() : hosts;
  m.num_routers = first_switch + switches;
  m.host_routers = f.hosts_on_switches ? 0 : first_switch;

  const double reference = reference_gbps(f);
  if (f.rates_in_gbps && reference > 0) m.link_bytes_per_s = reference * 1e9 / 8;
  // GPU links are known in GB/s: set beside the fabric's links by its rate in Gb/s.
  const GpuNodeLayout::Reference gpu_reference{reference > 0 ? reference : 1.0, f.rates_in_gbps ? reference : 0};
  ClassTable classes(m, reference > 0 ? reference : 1.0, options.default_gbps, f.rates_in_gbps);
  for (const auto& c : f.cables) classes.collect("link", c.gbps);
  if (!f.hosts_on_switches) {
    for (const auto& p : f.host_ports) classes.collect("inject", p.gbps), classes.collect("eject", p.gbps);
  }
  if (gpus) gpus->collect_classes(classes, gpu_reference);
  classes.create();
  SubnetChannels subnet(f, first_switch);
  if (!f.hosts_on_switches) {
    for (std::size_t k = 0; k < f.host_ports.size(); ++k) {
      const auto& p = f.host_ports[k];
      const RouterId end = gpus ? gpus->router_of_port(k) : p.host;
      const ChannelId inject = m.add_channel(end, first_switch + p.sw, classes.id("inject", p.gbps));
      const ChannelId eject = m.add_channel(first_switch + p.sw, end, classes.id("eject", p.gbps));
      subnet.host_port(k, end, inject, eject);
    }
  }
  for (std::size_t k = 0; k < f.cables.size(); ++k) {
    const auto& c = f.cables[k];
    if (c.a == c.b) continue;  // a loopback carries no traffic between routers
    const std::uint16_t cls = classes.id("link", c.gbps);
    const ChannelId ab = m.add_channel(first_switch + c.a, first_switch + c.b, cls);
    const ChannelId ba = m.add_channel(first_switch + c.b, first_switch + c.a, cls);
    subnet.cable(k, ab, ba);
  }

  if (gpus) m.gpu_links = gpus->add_node_channels(m, classes, gpu_reference);

  // Nodes in router order: each host its own router (its first GPU's), or the hosts of each
  // switch together.
  std::vector<std::uint32_t> order(hosts);
  std::iota(order.begin(), order.end(), 0u);
  std::vector<RouterId> router_of_host(hosts);
  for (const auto& p : f.host_ports) router_of_host[p.host] = f.hosts_on_switches ? p.sw : gpus ? gpus->first_router(p.host) : p.host;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return router_of_host[a] < router_of_host[b]; });
  NodeTable table;
  table.first_slot.push_back(0);
  for (std::uint32_t h : order) {
    table.names.push_back(f.hosts[h]);
    table.router.push_back(router_of_host[h]);
    table.first_slot.push_back(table.first_slot.back() + (gpus ? gpus->gpus() : options.slots_per_node));
  }
  table.router_per_slot = gpus.has_value();
  if (gpus) m.slots_per_node = gpus->gpus(), m.node_model = options.gpu_model;
  m.set_nodes(std::move(table));
  check_connected(m, f, first_switch);

  FabricShape shape;
  shape.source = f.source;
  shape.switch_names = f.switches;
  shape.first_switch = first_switch;
  for (std::uint32_t s : f.top_switches) shape.top_switches.push_back(first_switch + s);
  if (shape.top_switches.empty()) {
    std::vector<RouterId> host_ports;  // the switch of each host port
    for (const auto& p : f.host_ports) host_ports.push_back(first_switch + p.sw);
    shape.top_switches = derived_top(m, host_ports, first_switch, f.hosts_on_switches);
  }
  subnet.fill(shape);
  m.shape = std::move(shape);
  if (!f.switch_group.empty()) {  // hosts on switches: router = switch
    std::get<FabricShape>(m.shape).dragonfly = make_dragonfly_groups(m, f.switch_group, f.group_names);
  }
  return m;
}

}  // namespace taskmap
