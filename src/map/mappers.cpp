#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "taskmap/io/error.h"
#include "taskmap/io/spec.h"
#include "taskmap/map/mapper.h"

namespace taskmap {
namespace {

void check_fits(const Machine& m, const CommGraph& g) {
  if (g.num_tasks() > m.num_slots()) {
    fail("the pattern has {} tasks but machine '{}' has only {} slots", g.num_tasks(), m.description, m.num_slots());
  }
}

class DefaultMapper final : public Mapper {
 public:
  Mapping run(const Machine& m, const CommGraph& g) const override {
    check_fits(m, g);
    Mapping map;
    map.slot_of_task.resize(g.num_tasks());
    std::iota(map.slot_of_task.begin(), map.slot_of_task.end(), SlotId{0});
    return map;
  }
};

class OrderMapper final : public Mapper {
 public:
  explicit OrderMapper(MapperSpec spec) : spec_(std::move(spec)) {}
  Mapping run(const Machine& m, const CommGraph& g) const override {
    check_fits(m, g);
    std::vector<SlotId> order;
    try {
      order = torus_slot_order(m, spec_.order);
    } catch (const Error& e) {
      fail("--mapper '{}': {}", spec_.text, e.what());
    }
    order.resize(g.num_tasks());
    return Mapping{std::move(order)};
  }

 private:
  MapperSpec spec_;
};

class RandomMapper final : public Mapper {
 public:
  explicit RandomMapper(std::uint64_t seed) : seed_(seed) {}
  Mapping run(const Machine& m, const CommGraph& g) const override {
    check_fits(m, g);
    std::vector<SlotId> slots(m.num_slots());
    std::iota(slots.begin(), slots.end(), SlotId{0});
    // Fisher-Yates with an explicit unbiased draw, so a seed gives the same mapping everywhere.
    std::mt19937_64 rng(seed_);
    for (std::size_t i = slots.size(); i > 1; --i) {
      const std::uint64_t bound = i, limit = UINT64_MAX - UINT64_MAX % bound;
      std::uint64_t x;
      do x = rng();
      while (x >= limit);
      std::swap(slots[i - 1], slots[x % bound]);
    }
    slots.resize(g.num_tasks());
    return Mapping{std::move(slots)};
  }

 private:
  std::uint64_t seed_;
};

class FileMapper final : public Mapper {
 public:
  explicit FileMapper(std::string path) : path_(std::move(path)) {}
  Mapping run(const Machine& m, const CommGraph& g) const override { return read_mapping_file(path_, m, g.num_tasks()); }

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

MapperSpec parse_mapper_spec(std::string_view text) {
  io::SpecReader r("--mapper", text);
  MapperSpec spec;
  spec.text = std::string(text);
  const std::string& k = r.kind();
  if (k == "default") {
    spec.kind = MapperKind::Default;
  } else if (k == "order") {
    spec.kind = MapperKind::Order;
    if (!r.bare() || r.bare()->empty()) r.fail("missing letter order, e.g. order:TEDCBA");
    spec.order = *r.bare();
    for (char c : spec.order) {
      if (c < 'A' || c > 'Z') r.fail(fmt::format("'{}' is not an upper-case dimension letter", c));
    }
  } else if (k == "random") {
    spec.kind = MapperKind::Random;
    spec.seed = static_cast<std::uint64_t>(r.get_int("seed", 0, INT64_MAX).value_or(1));
  } else if (k == "file") {
    spec.kind = MapperKind::File;
    if (!r.bare()) r.fail("missing file name: file:PATH");
    spec.path = *r.bare();
  } else {
    r.fail(fmt::format("unknown mapper '{}' (use default, order:LETTERS, random[:seed=N] or file:PATH)", k));
  }
  if (r.bare() && spec.kind != MapperKind::Order && spec.kind != MapperKind::File) {
    r.fail(fmt::format("'{}' takes key=value options only", k));
  }
  r.finish();
  return spec;
}

std::unique_ptr<Mapper> make_mapper(const MapperSpec& spec) {
  switch (spec.kind) {
    case MapperKind::Default: return std::make_unique<DefaultMapper>();
    case MapperKind::Order: return std::make_unique<OrderMapper>(spec);
    case MapperKind::Random: return std::make_unique<RandomMapper>(spec.seed);
    case MapperKind::File: return std::make_unique<FileMapper>(spec.path);
  }
  fail("--mapper '{}': unhandled kind", spec.text);
}

}  // namespace taskmap
