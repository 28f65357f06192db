#include "taskmap/topology/machine.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string_view>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/topology/node_model.h"

namespace taskmap {

bool has_gpu_slots(const Machine& machine) {
  return machine.node_model && machine.node_model->unit == SlotUnit::Gpu && machine.node_model->gpu;
}

Machine network_part(const Machine& machine) {
  Machine network = machine;
  if (machine.gpu_links) network.channels.resize(machine.gpu_links->first_node_channel);
  return network;
}

bool has_leaf_switches(const Machine& machine) {
  const auto* fabric = std::get_if<FabricShape>(&machine.shape);
  return fabric != nullptr && fabric->first_switch > 0;
}

std::vector<std::uint32_t> leaf_groups(const Machine& machine) {
  if (!has_leaf_switches(machine)) return {};
  const RouterId first_switch = std::get<FabricShape>(machine.shape).first_switch;
  std::vector<std::vector<RouterId>> switches(first_switch);
  for (const Channel& c : machine.channels) {
    if (c.src < first_switch && c.dst >= first_switch) switches[c.src].push_back(c.dst);
  }
  // Inside a GPU node every router is under the switches of all its node's NICs: the node stays
  // whole in the leaves' groups (its GPUs meet over NVLink), as a multi-rail host does.
  if (const auto* gpu = machine.gpu_links.get()) {
    for (const GpuNodeLinks::Node& node : gpu->nodes) {
      std::vector<RouterId> all;
      for (RouterId r = node.first_nic; r < node.first_nic + node.nics; ++r) all.insert(all.end(), switches[r].begin(), switches[r].end());
      const RouterId last = node.nvswitch != kNoRouter ? node.nvswitch : node.cpu;
      for (RouterId r = node.first_gpu; r <= last; ++r) switches[r] = all;
    }
  }
  std::vector<std::uint32_t> group(machine.num_routers, UINT32_MAX);
  std::map<std::vector<RouterId>, std::uint32_t> index;
  for (RouterId r = 0; r < first_switch; ++r) {
    std::sort(switches[r].begin(), switches[r].end());
    switches[r].erase(std::unique(switches[r].begin(), switches[r].end()), switches[r].end());
    group[r] = index.try_emplace(std::move(switches[r]), static_cast<std::uint32_t>(index.size())).first->second;
  }
  return group;
}

std::vector<NodeLinkSpeeds> node_link_speeds(const Machine& machine) {
  std::vector<std::int64_t> node_of_router(machine.num_routers, -1);
  for (NodeId n = 0; n < machine.num_nodes(); ++n) node_of_router[machine.router_of_node(n)] = n;
  if (const auto* gpu = machine.gpu_links.get()) {  // a GPU node's links are its NICs'
    for (RouterId r = 0; r < machine.num_routers; ++r) {
      if (gpu->node_of_router[r] != kNoNode) node_of_router[r] = gpu->node_of_router[r];
    }
  }
  constexpr double kNone = std::numeric_limits<double>::infinity();
  std::vector<std::uint32_t> outs(machine.num_nodes(), 0), ins(machine.num_nodes(), 0);
  std::vector<double> slowest_out(machine.num_nodes(), kNone), slowest_in(machine.num_nodes(), kNone);
  for (const Channel& c : machine.channels) {
    const LinkClass& k = machine.classes[c.link_class];
    if (!k.host_link) continue;
    if (const std::int64_t n = node_of_router[c.src]; n >= 0) {
      ++outs[static_cast<std::size_t>(n)];
      slowest_out[static_cast<std::size_t>(n)] = std::min(slowest_out[static_cast<std::size_t>(n)], k.bandwidth);
    }
    if (const std::int64_t n = node_of_router[c.dst]; n >= 0) {
      ++ins[static_cast<std::size_t>(n)];
      slowest_in[static_cast<std::size_t>(n)] = std::min(slowest_in[static_cast<std::size_t>(n)], k.bandwidth);
    }
  }
  std::vector<NodeLinkSpeeds> speeds(machine.num_nodes());
  for (NodeId n = 0; n < machine.num_nodes(); ++n) {
    if (outs[n] > 0) speeds[n].out = outs[n] * slowest_out[n];
    if (ins[n] > 0) speeds[n].in = ins[n] * slowest_in[n];
  }
  return speeds;
}

bool node_link_speeds_differ(const Machine& machine) {
  return node_link_speeds_differ(machine, node_link_speeds(machine));
}

bool node_link_speeds_differ(const Machine& machine, const std::vector<NodeLinkSpeeds>& speeds) {
  double first = -1;
  bool differ = false;
  for (NodeId n = 0; n < machine.num_nodes(); ++n) {
    if (machine.slots_of_node(n) == 0) continue;
    const double speed = speeds[n].slower();
    if (speed <= 0) return false;
    if (first >= 0 && std::abs(speed - first) > 1e-9 * std::max(speed, first)) differ = true;
    first = speed;
  }
  return differ;
}

std::vector<double> slots_by_link_speed(const Machine& machine) {
  const std::vector<NodeLinkSpeeds> speeds = node_link_speeds(machine);
  if (!node_link_speeds_differ(machine, speeds)) return {};
  double fastest = 0;
  for (NodeId n = 0; n < machine.num_nodes(); ++n)
    if (machine.slots_of_node(n) > 0) fastest = std::max(fastest, speeds[n].slower());
  std::vector<double> slots(machine.num_nodes(), 0);
  for (NodeId n = 0; n < machine.num_nodes(); ++n)
    if (machine.slots_of_node(n) > 0) slots[n] = machine.slots_of_node(n) * speeds[n].slower() / fastest;
  return slots;
}

std::vector<double> link_speed_capacities(const Machine& machine, double tasks) {
  const double all_slots = double(machine.num_slots());
  if (tasks >= all_slots) return {};
  std::vector<double> capacity = slots_by_link_speed(machine);
  if (capacity.empty()) return {};
  const double all_by_speed = std::accumulate(capacity.begin(), capacity.end(), 0.0);
  // Between the two, so that they hold the tasks: by speed where that is room enough.
  const double toward_slots = tasks <= all_by_speed ? 0 : (tasks - all_by_speed) / (all_slots - all_by_speed);
  for (NodeId n = 0; n < machine.num_nodes(); ++n) capacity[n] += toward_slots * (machine.slots_of_node(n) - capacity[n]);
  return capacity;
}

std::string Machine::kind_name() const {
  struct Visitor {
    std::string operator()(const TorusShape&) const { return "torus"; }
    std::string operator()(const RectTorusShape& s) const { return s.twisted ? "rtt" : "rt"; }
    std::string operator()(const DragonflyShape&) const { return "dragonfly"; }
    std::string operator()(const PercsShape&) const { return "percs"; }
    std::string operator()(const FatTreeShape&) const { return "fattree"; }
    std::string operator()(const HierShape&) const { return "hier"; }
    std::string operator()(const GraphShape&) const { return "graph"; }
    std::string operator()(const FabricShape& s) const { return s.format; }
  };
  return std::visit(Visitor{}, shape);
}

SlotId Machine::first_slot_of_router(RouterId r) const {
  if (!uniform()) return router_first_slot_[r];
  const RouterId hosts = num_host_routers();
  return static_cast<SlotId>(std::min(r, hosts)) * nodes_per_router * slots_per_node;
}

const std::string& Machine::node_name(NodeId n) const {
  static const std::string unnamed;
  return table_.names.empty() ? unnamed : table_.names[n];
}

void Machine::set_nodes(NodeTable table) {
  const std::size_t nodes = table.router.size();
  if (nodes == 0) fail("{}: a machine needs at least one node", description);
  if (table.first_slot.size() != nodes + 1 || table.first_slot.front() != 0) {
    fail("{}: node table: {} slot offsets for {} nodes", description, table.first_slot.size(), nodes);
  }
  if (!table.names.empty() && table.names.size() != nodes) {
    fail("{}: node table: {} names for {} nodes", description, table.names.size(), nodes);
  }
  for (std::size_t n = 0; n < nodes; ++n) {
    if (table.router[n] >= num_routers || (n > 0 && table.router[n] < table.router[n - 1])) {
      fail("{}: node table: node {} is on router {} (routers must be nondecreasing, below {})", description, n,
           table.router[n], num_routers);
    }
    if (table.first_slot[n + 1] < table.first_slot[n]) fail("{}: node table: slot offsets decrease", description);
  }
  if (!table.names.empty()) {
    std::vector<std::string_view> sorted(table.names.begin(), table.names.end());
    std::sort(sorted.begin(), sorted.end());
    if (auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end()) {
      fail("{}: node name '{}' is used twice", description, *dup);
    }
  }
  const SlotId slots = table.first_slot.back();
  if (slots == 0) fail("{}: the machine has no slot", description);
  check_memory(description, saturating_mul(slots, kBytesPerTableSlot), fmt::format("the tables of its {} slots", format_count(slots)));
  node_of_slot_.assign(slots, 0);
  for (NodeId n = 0; n < nodes; ++n) {
    std::fill(node_of_slot_.begin() + table.first_slot[n], node_of_slot_.begin() + table.first_slot[n + 1], n);
  }
  router_first_slot_.assign(std::size_t(num_routers) + 1, slots);
  slot_router_.clear();
  if (table.router_per_slot) {
    slot_router_.resize(slots);
    for (NodeId n = 0; n < nodes; ++n) {
      const RouterId last = table.router[n] + (table.first_slot[n + 1] - table.first_slot[n]);
      if (last > num_routers || (n + 1 < nodes && last > table.router[n + 1])) {
        fail("{}: node table: node {}'s slots run past its routers", description, n);
      }
      for (SlotId s = table.first_slot[n]; s < table.first_slot[n + 1]; ++s) {
        slot_router_[s] = table.router[n] + (s - table.first_slot[n]);
        router_first_slot_[slot_router_[s]] = std::min(router_first_slot_[slot_router_[s]], s);
      }
    }
  } else {
    for (NodeId n = static_cast<NodeId>(nodes); n-- > 0;) router_first_slot_[table.router[n]] = table.first_slot[n];
  }
  for (RouterId r = num_routers; r-- > 0;) router_first_slot_[r] = std::min(router_first_slot_[r], router_first_slot_[r + 1]);
  table_ = std::move(table);
}

ChannelId Machine::add_channel(RouterId src, RouterId dst, std::uint16_t link_class) {
  channels.push_back(Channel{src, dst, link_class});
  return static_cast<ChannelId>(channels.size() - 1);
}

std::uint16_t Machine::add_class(std::string name, double bandwidth) {
  if (!(bandwidth > 0)) fail("link class '{}': bandwidth must be positive", name);
  if (classes.size() >= kMaxLinkClasses) {
    fail("link class '{}': a machine has at most {} link classes", name, kMaxLinkClasses);
  }
  for (std::size_t i = 0; i < classes.size(); ++i) {
    if (classes[i].name == name) fail("link class '{}' defined twice", name);
  }
  classes.push_back(LinkClass{std::move(name), bandwidth});
  return static_cast<std::uint16_t>(classes.size() - 1);
}

bool hostname_less(std::string_view a, std::string_view b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && digit(a[ei])) ++ei;
      while (ej < b.size() && digit(b[ej])) ++ej;
      std::string_view x = a.substr(i, ei - i), y = b.substr(j, ej - j);
      while (x.size() > 1 && x.front() == '0') x.remove_prefix(1);
      while (y.size() > 1 && y.front() == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = ei, j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  if ((a.size() - i) != (b.size() - j)) return a.size() - i < b.size() - j;
  return a < b;  // equal up to zero padding: a total order all the same
}

std::vector<NodeId> nodes_in_name_order(const Machine& machine) {
  std::vector<NodeId> nodes(machine.num_nodes());
  for (NodeId n = 0; n < nodes.size(); ++n) nodes[n] = n;
  if (machine.named_nodes()) {
    std::stable_sort(nodes.begin(), nodes.end(),
                     [&](NodeId x, NodeId y) { return hostname_less(machine.node_name(x), machine.node_name(y)); });
  }
  return nodes;
}

std::vector<std::uint64_t> channels_per_class(const Machine& machine) {
  std::vector<std::uint64_t> count(machine.classes.size(), 0);
  if (!machine.outline) {
    for (const Channel& ch : machine.channels) ++count[ch.link_class];
    return count;
  }
  // Closed forms, in the order the builders add the classes.
  const std::uint64_t routers = machine.num_routers;
  if (const auto* t = std::get_if<TorusShape>(&machine.shape)) {
    std::size_t c = 0;
    for (std::size_t d = 0; d < t->dims(); ++d) {
      const std::uint64_t k = t->sizes[d];
      if (k < 2) continue;
      // Every router has a + and a - channel on a ring (two to the same neighbour when k = 2);
      // on a line all but the last (first) router of each line.
      const std::uint64_t per_direction = t->wrap[d] ? routers : routers / k * (k - 1);
      count[c++] = per_direction, count[c++] = per_direction;
    }
  } else if (std::holds_alternative<RectTorusShape>(machine.shape)) {
    for (auto& c : count) c = routers;
  } else if (const auto* d = std::get_if<DragonflyShape>(&machine.shape)) {
    count[0] = std::uint64_t{d->g} * d->a * (d->a - 1);
    count[1] = std::uint64_t{d->g} * (d->g - 1);
  } else if (const auto* p = std::get_if<PercsShape>(&machine.shape)) {
    // Ordered node pairs of a supernode, self-loops included: same drawer LL, else LR.
    const std::uint64_t drawers = PercsShape::kNodes / PercsShape::kDrawerSize;
    const std::uint64_t ll = drawers * PercsShape::kDrawerSize * PercsShape::kDrawerSize;
    count[0] = p->ns * ll;
    count[1] = p->ns * (std::uint64_t{PercsShape::kNodes} * PercsShape::kNodes - ll);
    count[2] = std::uint64_t{p->ns} * p->nd * p->ns;
  } else if (const auto* f = std::get_if<FatTreeShape>(&machine.shape)) {
    // Every level of links joins k^n children to their parents, one up and one down channel each.
    for (auto& c : count) c = 2 * std::uint64_t{f->hosts};
  } else if (const auto* h = std::get_if<HierShape>(&machine.shape)) {
    // Level l's links join the routers of level l - 1 to their parents, one up and one down channel each.
    for (std::size_t l = 0; l < count.size(); ++l) count[l] = 2 * std::uint64_t{h->first[l + 1] - h->first[l]};
  }
  return count;
}

std::uint64_t estimated_bytes(const Machine& outline) {
  std::uint64_t channels = 0;
  for (std::uint64_t n : channels_per_class(outline)) channels = saturating_add(channels, n);
  std::uint64_t bytes = saturating_mul(channels, sizeof(Channel));
  const std::uint64_t routers = outline.num_routers;
  // The shapes' per-router channel tables.
  if (const auto* t = std::get_if<TorusShape>(&outline.shape)) {
    bytes = saturating_add(bytes, saturating_mul(routers, t->dims() * 2 * sizeof(ChannelId)));
  } else if (std::holds_alternative<RectTorusShape>(outline.shape)) {
    bytes = saturating_add(bytes, saturating_mul(routers, 4 * sizeof(ChannelId)));
  } else if (const auto* d = std::get_if<DragonflyShape>(&outline.shape)) {
    bytes = saturating_add(bytes, saturating_mul(routers, std::uint64_t{d->a} * sizeof(ChannelId)));
    // global_of and owner, then the group table: group_of, pair_first and the global channels.
    bytes = saturating_add(bytes, saturating_mul(std::uint64_t{d->g} * d->g, sizeof(ChannelId) + sizeof(std::uint32_t)));
    bytes = saturating_add(bytes, saturating_mul(routers, sizeof(std::uint32_t)));
    bytes = saturating_add(bytes, saturating_mul(std::uint64_t{d->g} * d->g, sizeof(std::uint32_t) + sizeof(ChannelId)));
  } else if (const auto* f = std::get_if<FatTreeShape>(&outline.shape)) {
    bytes = saturating_add(bytes, saturating_mul(routers, std::uint64_t{f->k} * 2 * sizeof(ChannelId)));
  } else if (std::holds_alternative<HierShape>(outline.shape)) {
    bytes = saturating_add(bytes, saturating_mul(routers, 2 * sizeof(ChannelId)));
  }
  return bytes;
}

}  // namespace taskmap
