#include "taskmap/workload/comm_graph.h"

#include <algorithm>

#include "taskmap/core/error.h"

namespace taskmap {

CommGraph CommGraph::from_edges(std::uint32_t num_tasks, std::vector<CommEdge> edges) {
  for (const CommEdge& e : edges) {
    if (e.src >= num_tasks || e.dst >= num_tasks) {
      fail("communication edge {} -> {} names a task outside [0, {})", e.src, e.dst, num_tasks);
    }
    if (!(e.volume >= 0)) fail("communication edge {} -> {} has negative volume {}", e.src, e.dst, e.volume);
  }
  std::sort(edges.begin(), edges.end(), [](const CommEdge& x, const CommEdge& y) {
    return x.src != y.src ? x.src < y.src : x.dst < y.dst;
  });
  CommGraph g;
  g.num_tasks_ = num_tasks;
  g.offsets_.assign(num_tasks + 1, 0);
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i;
    double v = 0;
    while (j < edges.size() && edges[j].src == edges[i].src && edges[j].dst == edges[i].dst) v += edges[j++].volume;
    if (v > 0) {
      g.targets_.push_back(edges[i].dst);
      g.volumes_.push_back(v);
      ++g.offsets_[edges[i].src + 1];
      g.total_volume_ += v;
    }
    i = j;
  }
  for (std::uint32_t t = 0; t < num_tasks; ++t) g.offsets_[t + 1] += g.offsets_[t];
  return g;
}

double CommGraph::volume(TaskId src, TaskId dst) const {
  auto t = targets(src);
  auto it = std::lower_bound(t.begin(), t.end(), dst);
  if (it == t.end() || *it != dst) return 0;
  return volumes(src)[static_cast<std::size_t>(it - t.begin())];
}

void CommGraph::set_grid(std::vector<std::uint32_t> sizes) {
  std::uint64_t product = 1;
  for (std::uint32_t s : sizes) product *= s;
  if (!sizes.empty() && product != num_tasks_) {
    fail("a task grid of {} tasks does not fit a pattern of {} tasks", product, num_tasks_);
  }
  grid_ = std::move(sizes);
}

}  // namespace taskmap
