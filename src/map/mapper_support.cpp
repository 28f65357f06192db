#include <fmt/format.h>
#include <fmt/ranges.h>

#include "taskmap/core/error.h"
#include "taskmap/map/mapper_support.h"

namespace taskmap {

Mapping Mapper::improve(const MappingProblem&, Mapping) const {
  fail("this mapper cannot start from another mapping");
}

namespace detail {

void check_fits(const Machine& m, const CommGraph& g) {
  if (g.num_tasks() > m.num_slots()) {
    fail("the pattern has {} tasks but machine '{}' has only {} slots (several tasks per slot: {})", g.num_tasks(),
         m.description, m.num_slots(), kSeveralTasksPerSlot);
  }
}

Mapping default_order(const Machine& m, std::uint32_t tasks) {
  Mapping map;
  map.slot_of_task.resize(tasks);
  const std::uint64_t slots = m.num_slots();
  for (TaskId t = 0; t < tasks; ++t)
    map.slot_of_task[t] = static_cast<SlotId>(tasks <= slots ? t : std::uint64_t(t) * slots / tasks);
  return map;
}

std::vector<std::uint32_t> task_grid(const MapperLabel& label, const CommGraph& g, std::size_t min_dims,
                                     std::size_t max_dims) {
  std::vector<std::uint32_t> grid = label.grid.empty() ? g.grid() : label.grid;
  if (grid.empty()) {
    refuse(label, "the pattern has no task grid; give one with grid=PxQ");
  }
  std::uint64_t product = 1;
  for (std::uint32_t s : grid) product *= s;
  if (product != g.num_tasks()) {
    refuse(label, "grid={} has {} tasks but the pattern has {}", fmt::join(grid, "x"), product, g.num_tasks());
  }
  if (grid.size() < min_dims || grid.size() > max_dims) {
    refuse(label, "needs a {}D task grid, not {}", min_dims == max_dims ? fmt::format("{}", min_dims)
                                                                       : fmt::format("{}D or {}", min_dims, max_dims),
           fmt::join(grid, "x"));
  }
  return grid;
}

}  // namespace detail
}  // namespace taskmap
