// DragonflyGroups: a Dragonfly's routers by group, its global channels by pair of groups, and
// whether Dragonfly routing can route on them. One table for the balanced dragonfly of
// (p, a, h) and the Dragonflies read from files.
#include <fmt/format.h>

#include <vector>

#include "taskmap/core/error.h"
#include "taskmap/topology/machine.h"

namespace taskmap {
namespace {

constexpr RouterId kNoRouter = UINT32_MAX;

// "router 'c0-0c0s1a0'" on a fabric whose switches have names, else "router 5".
std::string router_label(const Machine& m, RouterId r) {
  if (const auto* f = std::get_if<FabricShape>(&m.shape); f && r >= f->first_switch) {
    if (r - f->first_switch < f->switch_names.size()) return fmt::format("router '{}'", f->switch_names[r - f->first_switch]);
  }
  return fmt::format("router {}", r);
}

// The first group whose local channels do not join all of its routers, as a reason; "" if none.
std::string disconnected_group(const Machine& m, const DragonflyGroups& groups) {
  const std::uint32_t g = groups.num_groups();
  // Union-find over the local channels: a group is connected iff its routers share one root.
  std::vector<RouterId> parent(m.num_routers);
  for (RouterId r = 0; r < m.num_routers; ++r) parent[r] = r;
  auto root = [&](RouterId x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const Channel& c : m.channels) {
    if (groups.group_of[c.src] == groups.group_of[c.dst]) parent[root(c.src)] = root(c.dst);
  }
  std::vector<RouterId> first(g, kNoRouter);
  for (RouterId r = 0; r < m.num_routers; ++r) {
    RouterId& f = first[groups.group_of[r]];
    if (f == kNoRouter) f = r;
    else if (root(f) != root(r)) {
      return fmt::format("group '{}' is in pieces: its local links do not join {} to {}",
                         groups.names[groups.group_of[r]], router_label(m, f), router_label(m, r));
    }
  }
  return "";
}

}  // namespace

DragonflyGroups make_dragonfly_groups(const Machine& m, std::vector<std::uint32_t> group_of,
                                      std::vector<std::string> names) {
  DragonflyGroups groups;
  groups.group_of = std::move(group_of);
  groups.names = std::move(names);
  const std::uint32_t g = groups.num_groups();
  if (groups.group_of.size() != m.num_routers) {
    fail("{}: {} routers have a Dragonfly group, the machine has {}", m.description, groups.group_of.size(),
         m.num_routers);
  }
  std::vector<char> used(g, 0);
  for (std::uint32_t group : groups.group_of) {
    if (group >= g) fail("{}: a router is in Dragonfly group {} of {}", m.description, group, g);
    used[group] = 1;
  }
  for (std::uint32_t group = 0; group < g; ++group) {
    if (!used[group]) fail("{}: Dragonfly group '{}' has no router", m.description, groups.names[group]);
  }
  // Global channels counted per ordered pair of groups, then placed in channel id order.
  const std::size_t pairs = std::size_t{g} * g;
  groups.pair_first.assign(pairs + 1, 0);
  for (const Channel& c : m.channels) {
    const std::uint32_t from = groups.group_of[c.src], to = groups.group_of[c.dst];
    if (from != to) ++groups.pair_first[std::size_t{from} * g + to + 1];
  }
  for (std::size_t p = 0; p < pairs; ++p) groups.pair_first[p + 1] += groups.pair_first[p];
  groups.global.resize(groups.pair_first.back());
  std::vector<std::uint32_t> fill(groups.pair_first.begin(), groups.pair_first.end() - 1);
  for (ChannelId id = 0; id < m.channels.size(); ++id) {
    const Channel& c = m.channels[id];
    const std::uint32_t from = groups.group_of[c.src], to = groups.group_of[c.dst];
    if (from != to) groups.global[fill[std::size_t{from} * g + to]++] = id;
  }
  groups.unroutable = disconnected_group(m, groups);
  for (std::uint32_t from = 0; from < g && groups.unroutable.empty(); ++from) {
    for (std::uint32_t to = 0; to < g; ++to) {
      const auto [begin, end] = groups.cables(from, to);
      if (from != to && begin == end) {
        groups.unroutable = fmt::format("no global link leads from group '{}' to group '{}'", groups.names[from],
                                        groups.names[to]);
        break;
      }
    }
  }
  return groups;
}

const DragonflyGroups* Machine::dragonfly_groups() const {
  const DragonflyGroups* groups = nullptr;
  if (const auto* d = std::get_if<DragonflyShape>(&shape)) groups = &d->groups;
  if (const auto* f = std::get_if<FabricShape>(&shape)) groups = &f->dragonfly;
  return groups && groups->num_groups() > 0 ? groups : nullptr;
}

}  // namespace taskmap
