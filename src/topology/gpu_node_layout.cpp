#include "gpu_node_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "taskmap/core/error.h"

namespace taskmap::detail {

GpuNodeLayout::GpuNodeLayout(const Fabric& fabric, const GpuNode& node, const WarningSink& warn)
    : node_(node) {
  const auto hosts = static_cast<std::uint32_t>(fabric.hosts.size());
  ports_.resize(hosts);
  for (std::uint32_t k = 0; k < fabric.host_ports.size(); ++k) ports_[fabric.host_ports[k].host].push_back(k);
  port_router_.assign(fabric.host_ports.size(), kNoRouter);
  gpu_positions_.resize(hosts);
  model_nic_.resize(hosts);
  const std::uint32_t gpus = node.num_gpus();
  const bool nvswitch = node.has_nvswitch();
  std::uint32_t unmatched = 0;
  std::string first_unmatched;
  first_.push_back(0);
  for (std::uint32_t h = 0; h < hosts; ++h) {
    auto& ports = ports_[h];
    const auto& hp = fabric.host_ports;
    const bool named = std::all_of(ports.begin(), ports.end(), [&](std::uint32_t k) { return !hp[k].nic.empty(); });
    const bool guids = std::all_of(ports.begin(), ports.end(), [&](std::uint32_t k) { return hp[k].guid != 0; });
    if (named) {
      std::stable_sort(ports.begin(), ports.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return hostname_less(hp[a].nic, hp[b].nic); });
    } else if (guids) {
      std::stable_sort(ports.begin(), ports.end(), [&](std::uint32_t a, std::uint32_t b) { return hp[a].guid < hp[b].guid; });
    }
    const auto count = static_cast<std::uint32_t>(ports.size());
    // The model's NIC at each position: by name, else by position when the counts agree.
    auto& model_nic = model_nic_[h];
    model_nic.assign(count, UINT32_MAX);
    bool matched = node.nics.empty();
    const bool model_named =
        std::all_of(node.nics.begin(), node.nics.end(), [](const GpuNode::Nic& n) { return !n.name.empty(); });
    if (!node.nics.empty() && named && model_named) {
      std::map<std::string, std::uint32_t, std::less<>> position;
      for (std::uint32_t i = 0; i < count; ++i) position.emplace(hp[ports[i]].nic, i);
      matched = std::all_of(node.nics.begin(), node.nics.end(), [&](const GpuNode::Nic& n) { return position.contains(n.name); });
      if (matched) {
        for (std::uint32_t i = 0; i < node.nics.size(); ++i) model_nic[position.at(node.nics[i].name)] = i;
      }
    }
    if (!node.nics.empty() && !matched && node.nics.size() == count) {  // names differ, counts agree
      matched = true;
      std::iota(model_nic.begin(), model_nic.end(), 0u);
    }
    auto& positions = gpu_positions_[h];
    positions.assign(gpus, {});
    for (std::uint32_t g = 0; g < gpus; ++g) {
      if (node.nics.empty() || !matched) {
        if (node.nics.empty()) positions[g].push_back(g % count);
        else for (std::uint32_t i = 0; i < count; ++i) positions[g].push_back(i);
        continue;
      }
      for (std::uint32_t nic : node_.gpus[g].nics) {
        for (std::uint32_t i = 0; i < count; ++i) {
          if (model_nic[i] == nic) positions[g].push_back(i);
        }
      }
      if (positions[g].empty()) {  // a GPU with no NIC of its own uses the node's
        for (std::uint32_t i = 0; i < count; ++i) positions[g].push_back(i);
      }
    }
    if (!matched && unmatched++ == 0) first_unmatched = fabric.hosts[h];
    const RouterId base = first_.back();
    for (std::uint32_t i = 0; i < count; ++i) port_router_[ports[i]] = base + gpus + i;
    const std::uint64_t next = std::uint64_t{base} + gpus + count + 1 + (nvswitch ? 1 : 0);
    if (next + fabric.switches.size() > std::uint64_t{kNoRouter} / 2) {
      fail("{}: {} hosts of {} GPUs is too many routers", fabric.source, hosts, gpus);
    }
    first_.push_back(static_cast<RouterId>(next));
  }
  if (unmatched > 0 && warn) {
    warn(fmt::format("{}: the NICs of host '{}'{} do not match the {} NIC{} of {} (by name, or by count): their GPUs "
                     "send over all of their node's NICs",
                     fabric.source, first_unmatched,
                     unmatched > 1 ? fmt::format(" and {} other host{}", unmatched - 1, unmatched > 2 ? "s" : "") : "",
                     node.nics.size(), node.nics.size() == 1 ? "" : "s", node.source));
  }
}

double GpuNodeLayout::gpu_gbs(std::uint32_t gpu) const {
  const double own = node_.gpus[gpu].pcie_gbs;
  return own > 0 ? own : node_.default_pcie_gbs;
}

double GpuNodeLayout::nic_gbs(std::uint32_t host, std::uint32_t gpu, std::uint32_t position) const {
  const std::uint32_t nic = model_nic_[host][position];
  const double own = nic != UINT32_MAX && node_.nics[nic].pcie_gbs > 0 ? node_.nics[nic].pcie_gbs : node_.default_pcie_gbs;
  return std::min(own, gpu_gbs(gpu));
}

namespace {
double in_units(double gbs, GpuNodeLayout::Reference reference) {
  const double network_gbps = reference.gbps > 0 ? reference.gbps : kAssumedLinkGbps;
  return gbs * 8 / network_gbps * reference.units;
}
}  // namespace

void GpuNodeLayout::collect_classes(ClassTable& classes, Reference reference) const {
  const std::uint32_t gpus = node_.num_gpus();
  for (std::uint32_t h = 0; h < ports_.size(); ++h) {
    for (std::uint32_t g = 0; g < gpus; ++g) {
      for (std::uint32_t position : gpu_positions_[h][g]) classes.collect("pcie", in_units(nic_gbs(h, g, position), reference));
    }
  }
  for (std::uint32_t g = 0; g < gpus; ++g) {
    classes.collect("pcie", in_units(gpu_gbs(g), reference));
    if (g < node_.nvswitch_gbs.size() && node_.nvswitch_gbs[g] > 0) {
      classes.collect("nvlink", in_units(node_.nvswitch_gbs[g], reference));
    }
    for (std::uint32_t j = 0; j < gpus && !node_.nvlink_gbs.empty(); ++j) {
      if (const double b = node_.nvlink_gbs[std::size_t{g} * gpus + j]; b > 0) classes.collect("nvlink", in_units(b, reference));
    }
  }
}

std::shared_ptr<const GpuNodeLinks> GpuNodeLayout::add_node_channels(Machine& m, const ClassTable& classes,
                                                                     Reference reference) const {
  auto links = std::make_shared<GpuNodeLinks>();
  GpuNodeLinks& l = *links;
  const std::size_t routers = m.num_routers;
  l.first_node_channel = static_cast<ChannelId>(m.channels.size());
  l.node_of_router.assign(routers, kNoNode);
  l.nic_first.assign(routers + 1, 0);
  l.to_cpu.assign(routers, kNoChannel), l.from_cpu.assign(routers, kNoChannel);
  l.to_nvswitch.assign(routers, kNoChannel), l.from_nvswitch.assign(routers, kNoChannel);
  l.nvlink_first.assign(routers + 1, 0);
  l.rail.assign(routers, UINT32_MAX);
  const std::uint32_t gpus = node_.num_gpus();
  const bool nvswitch = node_.has_nvswitch();
  auto pair = [&](RouterId a, RouterId b, const char* kind, double gbs) {
    const std::uint16_t cls = classes.id(kind, in_units(gbs, reference));
    const ChannelId ab = m.add_channel(a, b, cls);
    return std::pair{ab, m.add_channel(b, a, cls)};
  };
  for (std::uint32_t h = 0; h < ports_.size(); ++h) {
    const RouterId base = first_[h];
    const auto nics = static_cast<std::uint32_t>(ports_[h].size());
    GpuNodeLinks::Node node{base, gpus, base + gpus, nics, base + gpus + nics, nvswitch ? base + gpus + nics + 1 : kNoRouter};
    for (RouterId r = base; r < first_[h + 1]; ++r) l.node_of_router[r] = h;
    for (std::uint32_t i = 0; i < nics; ++i) l.rail[node.first_nic + i] = i;
    for (std::uint32_t g = 0; g < gpus; ++g) {
      const RouterId r = base + g;
      for (std::uint32_t position : gpu_positions_[h][g]) {
        const auto [to, from] = pair(r, node.first_nic + position, "pcie", nic_gbs(h, g, position));
        l.nic_router.push_back(node.first_nic + position), l.to_nic.push_back(to), l.from_nic.push_back(from);
      }
      l.nic_first[r + 1] = static_cast<std::uint32_t>(l.nic_router.size());
      std::tie(l.to_cpu[r], l.from_cpu[r]) = pair(r, node.cpu, "pcie", gpu_gbs(g));
      if (nvswitch && node_.nvswitch_gbs[g] > 0) {
        std::tie(l.to_nvswitch[r], l.from_nvswitch[r]) = pair(r, node.nvswitch, "nvlink", node_.nvswitch_gbs[g]);
      }
    }
    // Direct NVLinks, each way its own channel: GPU g's to j, in j order.
    std::vector<std::vector<std::pair<RouterId, ChannelId>>> direct(gpus);
    for (std::uint32_t g = 0; g < gpus && !node_.nvlink_gbs.empty(); ++g) {
      for (std::uint32_t j = 0; j < gpus; ++j) {
        const double b = node_.nvlink_gbs[std::size_t{g} * gpus + j];
        if (j == g || !(b > 0)) continue;
        direct[g].emplace_back(base + j, m.add_channel(base + g, base + j, classes.id("nvlink", in_units(b, reference))));
      }
    }
    for (std::uint32_t g = 0; g < gpus; ++g) {
      l.nvlink.insert(l.nvlink.end(), direct[g].begin(), direct[g].end());
      l.nvlink_first[base + g + 1] = static_cast<std::uint32_t>(l.nvlink.size());
    }
    // Routers after the GPUs keep the running ends of the per-router lists.
    for (RouterId r = base + gpus; r < first_[h + 1]; ++r) {
      l.nic_first[r + 1] = l.nic_first[r];
      l.nvlink_first[r + 1] = l.nvlink_first[r];
    }
    l.nodes.push_back(node);
  }
  for (std::size_t r = first_.back(); r < routers; ++r) {
    l.nic_first[r + 1] = l.nic_first[r];
    l.nvlink_first[r + 1] = l.nvlink_first[r];
  }
  return links;
}

}  // namespace taskmap::detail
