#include "taskmap/topology/node_model.h"

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

NodeModel NodeModel::flat(std::uint32_t n) {
  NodeModel model;
  model.source = "flat";
  model.path.assign(n, {});
  model.logical_core.resize(n);
  model.os_cpu.resize(n);
  for (std::uint32_t slot = 0; slot < n; ++slot) {
    model.logical_core[slot] = slot;
    model.os_cpu[slot] = slot;
  }
  return model;
}

}  // namespace taskmap
