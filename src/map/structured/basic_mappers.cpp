// The placements every machine has: default, order:, random, cyclic and file:.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "taskmap/core/error.h"
#include "taskmap/map/mapper_support.h"
#include "taskmap/map/structured/structured_mappers.h"

namespace taskmap {
namespace {

using detail::check_fits;

// Tasks in rank order onto slots in order; with more tasks than slots, consecutive blocks
// of floor or ceil(tasks / slots) tasks per slot.
class DefaultMapper final : public Mapper {
 public:
  Mapping run(const MappingProblem& problem) const override {
    return detail::default_order(problem.machine(), problem.graph().num_tasks());
  }
};

// The launchers' block default: the job's nodes sorted by host name (digits compared as
// numbers, as Slurm's host lists sort), each filled slot by slot before the next. With more
// tasks than slots, blocks of tasks per slot as `default` does. Unnamed nodes keep their order.
class HostnameOrderMapper final : public Mapper {
 public:
  Mapping run(const MappingProblem& problem) const override {
    const Machine& m = problem.machine();
    const CommGraph& g = problem.graph();
    std::vector<SlotId> order;
    order.reserve(m.num_slots());
    for (NodeId n : nodes_in_name_order(m))
      for (std::uint32_t k = 0; k < m.slots_of_node(n); ++k) order.push_back(m.first_slot_of_node(n) + k);
    Mapping map;
    map.slot_of_task.resize(g.num_tasks());
    const std::uint64_t tasks = g.num_tasks(), slots = order.size();
    for (TaskId t = 0; t < tasks; ++t) map.slot_of_task[t] = order[tasks <= slots ? t : std::uint64_t(t) * slots / tasks];
    return map;
  }
};

class OrderMapper final : public detail::ConfiguredMapper<std::string> {
 public:
  using ConfiguredMapper::ConfiguredMapper;
  Mapping run(const MappingProblem& problem) const override {
    const Machine& m = problem.machine();
    const CommGraph& g = problem.graph();
    check_fits(m, g);
    std::vector<SlotId> order;
    try {
      order = torus_slot_order(m, options_);
    } catch (const Error& e) {
      fail("--mapper '{}': {}", label_.text, e.what());
    }
    order.resize(g.num_tasks());
    return Mapping{std::move(order), {}};
  }
};

class RandomMapper final : public Mapper {
 public:
  explicit RandomMapper(std::uint64_t seed) : seed_(seed) {}
  Mapping run(const MappingProblem& problem) const override {
    const Machine& m = problem.machine();
    const CommGraph& g = problem.graph();
    check_fits(m, g);
    std::vector<SlotId> slots(m.num_slots());
    std::iota(slots.begin(), slots.end(), SlotId{0});
    detail::seeded_shuffle(slots, seed_);
    slots.resize(g.num_tasks());
    return Mapping{std::move(slots), {}};
  }

 private:
  std::uint64_t seed_;
};

// Task t goes to position t x S of the slot sequence, wrapping with a shift of one slot per
// lap. With S the slots per node (the default) this is Slurm's cyclic distribution, task t
// on node t mod N; with S = k on a one-slot-per-node fat-tree, consecutive tasks go to
// different leaf switches. On a job's nodes of different slot counts (no stride given), the
// launchers' round robin: task t to the next node in host-name order that has a free slot.
class CyclicMapper final : public detail::ConfiguredMapper<std::uint32_t> {
 public:
  using ConfiguredMapper::ConfiguredMapper;
  Mapping run(const MappingProblem& problem) const override {
    const Machine& m = problem.machine();
    const CommGraph& g = problem.graph();
    check_fits(m, g);
    if (!m.uniform() && options_ == 0) return round_robin(m, g);
    const std::uint64_t slots = m.num_slots(), stride = options_ ? options_ : m.slots_per_node;
    if (slots % stride != 0) detail::refuse(label_, "stride {} does not divide the machine's {} slots", stride, slots);
    std::vector<SlotId> out(g.num_tasks());
    for (std::uint64_t t = 0; t < g.num_tasks(); ++t) {
      const std::uint64_t p = t * stride;
      out[t] = static_cast<SlotId>(p % slots + p / slots);
    }
    return Mapping{std::move(out), {}};
  }

 private:
  static Mapping round_robin(const Machine& m, const CommGraph& g) {
    std::vector<NodeId> nodes;
    for (NodeId n : nodes_in_name_order(m))
      if (m.slots_of_node(n) > 0) nodes.push_back(n);
    std::vector<std::uint32_t> used(m.num_nodes(), 0);
    std::vector<SlotId> out;
    out.reserve(g.num_tasks());
    while (out.size() < g.num_tasks()) {
      for (NodeId n : nodes) {
        if (out.size() == g.num_tasks()) break;
        if (used[n] < m.slots_of_node(n)) out.push_back(m.first_slot_of_node(n) + used[n]++);
      }
    }
    return Mapping{std::move(out), {}};
  }
};

class FileMapper final : public Mapper {
 public:
  explicit FileMapper(std::string path) : path_(std::move(path)) {}
  Mapping run(const MappingProblem& problem) const override {
    const Machine& m = problem.machine();
    const CommGraph& g = problem.graph();
    return read_mapping_file(path_, m, g.num_tasks(), problem.tasks_per_slot());
  }

 private:
  std::string path_;
};

}  // namespace

std::vector<SlotId> torus_slot_order(const Machine& machine, const std::string& letters) {
  const TorusShape* t = machine.torus();
  if (!t) fail("letter orders need a torus, mesh or hypercube machine, not {}", machine.kind_name());
  const std::string all = t->letters + "T";
  if (letters.size() != all.size()) fail("the order must name each of {} exactly once", all);
  std::vector<std::uint32_t> extent;  // per letter position
  std::vector<int> dim;               // -1 for T
  for (char c : letters) {
    std::size_t pos = all.find(c);
    if (pos == std::string::npos) fail("'{}' is not one of the letters {}", c, all);
    if (std::find(dim.begin(), dim.end(), pos == t->dims() ? -1 : int(pos)) != dim.end()) {
      fail("letter '{}' appears twice", c);
    }
    dim.push_back(pos == t->dims() ? -1 : int(pos));
    extent.push_back(pos == t->dims() ? machine.nodes_per_router * machine.slots_per_node : t->sizes[pos]);
  }
  const std::uint32_t per_router = machine.nodes_per_router * machine.slots_per_node;
  std::vector<SlotId> order(machine.num_slots());
  std::vector<std::uint32_t> coord(letters.size(), 0);
  for (std::size_t i = 0; i < order.size(); ++i) {
    RouterId router = 0;
    std::uint32_t within = 0;
    for (std::size_t k = 0; k < letters.size(); ++k) {
      if (dim[k] < 0) within = coord[k];
      else router += coord[k] * t->strides[dim[k]];
    }
    order[i] = router * per_router + within;
    for (std::size_t k = letters.size(); k-- > 0;) {  // last letter varies fastest
      if (++coord[k] < extent[k]) break;
      coord[k] = 0;
    }
  }
  return order;
}

std::unique_ptr<Mapper> make_default_mapper() { return std::make_unique<DefaultMapper>(); }
std::unique_ptr<Mapper> make_order_mapper(MapperLabel label, std::string letters) {
  return std::make_unique<OrderMapper>(std::move(label), std::move(letters));
}
std::unique_ptr<Mapper> make_hostname_order_mapper() { return std::make_unique<HostnameOrderMapper>(); }
std::unique_ptr<Mapper> make_random_mapper(std::uint64_t seed) { return std::make_unique<RandomMapper>(seed); }
std::unique_ptr<Mapper> make_cyclic_mapper(MapperLabel label, std::uint32_t stride) {
  return std::make_unique<CyclicMapper>(std::move(label), stride);
}
std::unique_ptr<Mapper> make_file_mapper(std::string path) { return std::make_unique<FileMapper>(std::move(path)); }

}  // namespace taskmap
