#include "taskmap/problem/mapping.h"

#include <fmt/format.h>

#include <cmath>

#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"

namespace taskmap {

void broadcast_mapping(Mapping& mapping, const dist::Processes& processes, int root) {
  processes.broadcast(mapping.slot_of_task, root);
  processes.broadcast(mapping.note, root);
}

std::uint32_t tasks_per_slot(std::size_t tasks, std::uint32_t slots, double imbalance) {
  if (slots == 0 || tasks <= slots) return 1;
  // The small slack keeps an exact product (e.g. 1.03 x 100) from rounding up a whole task.
  return static_cast<std::uint32_t>(std::ceil((1 + imbalance) * double(tasks) / slots - 1e-9));
}

void validate_mapping(const Mapping& mapping, const Machine& machine, std::size_t num_tasks,
                      const std::string& source, std::uint32_t per_slot) {
  if (mapping.num_tasks() != num_tasks) {
    fail("{}: maps {} tasks but the pattern has {}", source, mapping.num_tasks(), num_tasks);
  }
  std::vector<TaskId> owner(machine.num_slots(), UINT32_MAX);
  std::vector<std::uint32_t> count(machine.num_slots(), 0);
  for (TaskId t = 0; t < num_tasks; ++t) {
    const SlotId s = mapping.slot_of_task[t];
    if (s >= machine.num_slots()) {
      fail("{}: task {} is on slot {}, outside the machine's {} slots", source, t, s, machine.num_slots());
    }
    if (++count[s] > per_slot) {
      if (per_slot == 1) fail("{}: slot {} holds both task {} and task {}", source, s, owner[s], t);
      fail("{}: slot {} holds more than the {} tasks the balance allows (task {} is one too many)", source, s,
           per_slot, t);
    }
    owner[s] = t;
  }
}

Mapping read_mapping_file(const std::string& path, const Machine& machine, std::size_t num_tasks,
                          std::uint32_t per_slot) {
  io::LineCursor cur(path, io::read_text_file(path));
  constexpr SlotId kUnset = UINT32_MAX;
  Mapping m;
  m.slot_of_task.assign(num_tasks, kUnset);
  std::vector<std::size_t> task_line(num_tasks, 0);
  std::vector<TaskId> slot_owner(machine.num_slots(), UINT32_MAX);
  std::vector<std::uint32_t> slot_count(machine.num_slots(), 0);
  std::vector<std::size_t> slot_line(machine.num_slots(), 0);
  while (auto line = cur.next_content_line("#")) {
    auto f = io::split_fields(*line);
    if (f.size() != 2) cur.fail_here("expected 'task slot'");
    auto t = io::parse_int(f[0]);
    auto s = io::parse_int(f[1]);
    if (!t) cur.fail_here(fmt::format("task '{}' is not an integer", f[0]));
    if (!s) cur.fail_here(fmt::format("slot '{}' is not an integer", f[1]));
    if (*t < 0 || static_cast<std::size_t>(*t) >= num_tasks) {
      cur.fail_here(fmt::format("task {} is out of range [0, {})", *t, num_tasks));
    }
    if (*s < 0 || *s >= machine.num_slots()) {
      cur.fail_here(fmt::format("slot {} is out of range [0, {})", *s, machine.num_slots()));
    }
    if (m.slot_of_task[*t] != kUnset) {
      cur.fail_here(fmt::format("task {} is already placed (line {})", *t, task_line[*t]));
    }
    if (slot_count[*s] >= per_slot) {
      if (per_slot == 1) {
        cur.fail_here(fmt::format("slot {} is already taken by task {} (line {})", *s, slot_owner[*s], slot_line[*s]));
      }
      cur.fail_here(fmt::format("slot {} already holds the {} tasks the balance allows", *s, per_slot));
    }
    ++slot_count[*s];
    m.slot_of_task[*t] = static_cast<SlotId>(*s);
    task_line[*t] = cur.line_number();
    slot_owner[*s] = static_cast<TaskId>(*t);
    slot_line[*s] = cur.line_number();
  }
  for (std::size_t t = 0; t < num_tasks; ++t) {
    if (m.slot_of_task[t] == kUnset) fail("{}: task {} has no slot (the pattern has {} tasks)", path, t, num_tasks);
  }
  return m;
}

}  // namespace taskmap
