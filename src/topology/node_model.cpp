#include "taskmap/topology/node_model.h"

#include <fmt/format.h>

#include "taskmap/core/error.h"

namespace taskmap {

std::uint32_t NodeModel::distance(std::uint32_t a, std::uint32_t b) const {
  if (a >= num_slots() || b >= num_slots()) {
    fail("{}: slot {} or {} is out of range [0, {})", source, a, b, num_slots());
  }
  if (a == b) return 0;
  const auto& pa = path[a];
  const auto& pb = path[b];
  for (std::size_t level = 0; level < levels.size(); ++level) {
    if (pa[level] != pb[level]) return static_cast<std::uint32_t>(levels.size() - level);
  }
  return 1;  // no level tells them apart (a flat node): one hop
}

std::optional<std::uint32_t> NodeModel::slot_of_os_cpu(std::uint32_t cpu) const {
  for (std::uint32_t slot = 0; slot < os_cpus.size(); ++slot) {
    for (std::uint32_t c : os_cpus[slot]) {
      if (c == cpu) return slot;
    }
  }
  return std::nullopt;
}

NodeModel NodeModel::restricted_to(const std::vector<std::uint32_t>& slots) const {
  NodeModel out;
  out.source = source;
  out.levels = levels;
  out.unit = unit;
  for (std::uint32_t slot : slots) {
    if (slot >= num_slots()) fail("{}: slot {} is out of range [0, {})", source, slot, num_slots());
    out.path.push_back(path[slot]);
    out.logical_index.push_back(logical_index[slot]);
    out.os_cpu.push_back(os_cpu[slot]);
    out.os_cpus.push_back(os_cpus[slot]);
  }
  if (gpu != nullptr) {
    // The kept GPUs and their links; each keeps its device index and its NICs, the node its NICs.
    auto kept = std::make_shared<GpuNode>(*gpu);
    kept->gpus.clear();
    kept->nvlink_gbs.clear();
    kept->nvswitch_gbs.clear();
    const std::size_t all = gpu->gpus.size();
    for (std::uint32_t from : slots) {
      kept->gpus.push_back(gpu->gpus[from]);
      if (!gpu->nvswitch_gbs.empty()) kept->nvswitch_gbs.push_back(gpu->nvswitch_gbs[from]);
      if (gpu->nvlink_gbs.empty()) continue;
      for (std::uint32_t to : slots) kept->nvlink_gbs.push_back(gpu->nvlink_gbs[from * all + to]);
    }
    out.gpu = std::move(kept);
  }
  return out;
}

GpuNode GpuNode::uniform(std::uint32_t gpus, std::uint32_t nics, double nvlink_gbs, double pcie_gbs) {
  GpuNode node;
  node.source = fmt::format("gpus:{},nics={}", gpus, nics);
  node.default_pcie_gbs = pcie_gbs;
  for (std::uint32_t k = 0; k < nics; ++k) node.nics.push_back({"", pcie_gbs});  // unnamed: matched by position
  for (std::uint32_t k = 0; k < gpus; ++k) {
    GpuNode::Gpu gpu{fmt::format("gpu{}", k), k, {}, {}, pcie_gbs};
    if (nics > 0) gpu.nics.push_back(k % nics);
    node.gpus.push_back(std::move(gpu));
  }
  if (nvlink_gbs > 0) node.nvswitch_gbs.assign(gpus, nvlink_gbs);
  return node;
}

NodeModel NodeModel::flat(std::uint32_t n) {
  NodeModel model;
  model.source = "flat";
  model.path.assign(n, {});
  model.logical_index.resize(n);
  model.os_cpu.resize(n);
  model.os_cpus.resize(n);
  for (std::uint32_t slot = 0; slot < n; ++slot) {
    model.logical_index[slot] = slot;
    model.os_cpu[slot] = slot;
    model.os_cpus[slot] = {slot};
  }
  return model;
}

}  // namespace taskmap
