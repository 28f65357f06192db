#pragma once
// Mapping: task -> slot, with its file formats.
#include <string>
#include <vector>

#include "taskmap/topology/machine.h"

namespace taskmap {

struct Mapping {
  std::vector<SlotId> slot_of_task;
  std::string note;  // the mapper's one-line account of its run (e.g. RAHTM's solver statistics)
  std::size_t num_tasks() const { return slot_of_task.size(); }
};

// Throws Error (prefixed by `source`) unless every task has a slot of the machine and no two
// tasks share a slot.
void validate_mapping(const Mapping& mapping, const Machine& machine, std::size_t num_tasks, const std::string& source);

// Plain format: one "task slot" pair per line (0-based), '#' comments; every task exactly once.
Mapping read_mapping_file(const std::string& path, const Machine& machine, std::size_t num_tasks);

enum class PlacementFormat { Plain, OpenMpiRankfile };
PlacementFormat parse_placement_format(const std::string& name);

// Renders a mapping. Open MPI rankfile lines read "rank R=HOST slot=CORE" with HOST =
// host_prefix + node index and CORE the slot's index on its node.
std::string format_placement(const Mapping& mapping, const Machine& machine, PlacementFormat format,
                             const std::string& host_prefix = "node");

}  // namespace taskmap
