#pragma once
// CommGraph: task-to-task traffic volumes as a directed weighted graph in CSR form.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "taskmap/core/ids.h"

namespace taskmap {

struct CommEdge {
  TaskId src = 0;
  TaskId dst = 0;
  double volume = 0;
};

class CommGraph {
 public:
  CommGraph() = default;
  // Sums duplicate (src, dst) pairs and drops zero volumes. Throws on ids >= num_tasks or
  // negative volumes.
  static CommGraph from_edges(std::uint32_t num_tasks, std::vector<CommEdge> edges);
  // Peak bytes of a run on a graph of `tasks` tasks built from an edge list of `flows` entries:
  // the edge list, the CSR built from it, and what a run keeps per task. Saturates at
  // UINT64_MAX. Readers and generators check it against memory_limit() before allocating.
  static std::uint64_t estimated_bytes(std::uint64_t tasks, std::uint64_t flows);

  std::uint32_t num_tasks() const { return num_tasks_; }
  std::size_t num_edges() const { return targets_.size(); }
  std::span<const TaskId> targets(TaskId t) const {
    return {targets_.data() + offsets_[t], targets_.data() + offsets_[t + 1]};
  }
  std::span<const double> volumes(TaskId t) const {
    return {volumes_.data() + offsets_[t], volumes_.data() + offsets_[t + 1]};
  }
  double total_volume() const { return total_volume_; }
  // Volume from src to dst (0 if none); O(log degree).
  double volume(TaskId src, TaskId dst) const;

  // The logical task grid the pattern was generated on (row-major, first size slowest), or
  // empty when the tasks have no coordinates. Structured mappers (percs-*, rtt-map,
  // dragonfly-*) read it; a mapper's grid=PxQ option supplies it for file patterns.
  const std::vector<std::uint32_t>& grid() const { return grid_; }
  // Throws unless the sizes multiply to num_tasks().
  void set_grid(std::vector<std::uint32_t> sizes);

 private:
  std::uint32_t num_tasks_ = 0;
  std::vector<std::uint64_t> offsets_{0};
  std::vector<TaskId> targets_;
  std::vector<double> volumes_;
  double total_volume_ = 0;
  std::vector<std::uint32_t> grid_;
};

}  // namespace taskmap
