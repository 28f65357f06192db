#pragma once
// Mapping: task -> slot, with its file formats.
#include <string>
#include <vector>

#include "taskmap/dist/processes.h"
#include "taskmap/topology/machine.h"

namespace taskmap {

struct Mapping {
  std::vector<SlotId> slot_of_task;
  std::string note;  // the mapper's one-line account of its run (e.g. RAHTM's solver statistics)
  std::size_t num_tasks() const { return slot_of_task.size(); }
};

// `root`'s mapping (slots and note) to every process.
void broadcast_mapping(Mapping& mapping, const dist::Processes& processes, int root);

// Tasks one slot may hold: 1 when the job fits the machine, else ceil((1 + imbalance) x
// tasks / slots), the balance constraint of a many-to-one mapping (Scotch, TiMEr).
std::uint32_t tasks_per_slot(std::size_t tasks, std::uint32_t slots, double imbalance);

// Throws Error (prefixed by `source`) unless every task has a slot of the machine and no slot
// holds more than per_slot tasks.
void validate_mapping(const Mapping& mapping, const Machine& machine, std::size_t num_tasks, const std::string& source,
                      std::uint32_t per_slot = 1);

// Plain format: one "task slot" pair per line (0-based), '#' comments; every task exactly
// once, at most per_slot tasks per slot.
Mapping read_mapping_file(const std::string& path, const Machine& machine, std::size_t num_tasks,
                          std::uint32_t per_slot = 1);

}  // namespace taskmap
