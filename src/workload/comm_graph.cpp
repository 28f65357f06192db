#include "taskmap/workload/comm_graph.h"

#include <algorithm>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"

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

std::uint64_t CommGraph::estimated_bytes(std::uint64_t tasks, std::uint64_t flows) {
  // Per flow: the CommEdge (16 bytes) of the caller's edge list, grown by push_back to up to
  // twice its length, plus the CSR's target id (4) and volume (8), also grown by push_back.
  // Per task: the CSR offset (8) and what a run keeps per task (the mapping's slot, 4).
  // Measured as the peak resident size of `taskmap eval --machine torus:4 --mapper default`:
  // halo2d:2000x2000 27.5, halo3d:200x200x200 29.5 (points=27: 28.8), alltoall:4000 29.3
  // bytes per flow; file:...,tasks=N 12.0 bytes per task. Rounded up, since the push_back
  // growth and mappers other than default can add to both.
  constexpr std::uint64_t kBytesPerFlow = 32, kBytesPerTask = 16;
  return saturating_add(saturating_mul(flows, kBytesPerFlow), saturating_mul(tasks, kBytesPerTask));
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
