#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "taskmap/io/error.h"
#include "taskmap/io/spec.h"
#include "taskmap/io/text_source.h"
#include "mapper_impl.h"
#include "taskmap/map/mapper.h"
#include "taskmap/routing/routing.h"

namespace taskmap {
namespace detail {

void check_fits(const Machine& m, const CommGraph& g) {
  if (g.num_tasks() > m.num_slots()) {
    fail("the pattern has {} tasks but machine '{}' has only {} slots (several tasks per slot: default, scotch, metis, greedy, rb, timer, refine-hb or refine-mcl)",
         g.num_tasks(), m.description, m.num_slots());
  }
}

std::vector<std::uint32_t> task_grid(const MapperSpec& spec, const CommGraph& g, std::size_t min_dims,
                                     std::size_t max_dims) {
  std::vector<std::uint32_t> grid = spec.grid.empty() ? g.grid() : spec.grid;
  if (grid.empty()) {
    refuse(spec, "the pattern has no task grid; give one with grid=PxQ");
  }
  std::uint64_t product = 1;
  for (std::uint32_t s : grid) product *= s;
  if (product != g.num_tasks()) {
    refuse(spec, "grid={} has {} tasks but the pattern has {}", fmt::join(grid, "x"), product, g.num_tasks());
  }
  if (grid.size() < min_dims || grid.size() > max_dims) {
    refuse(spec, "needs a {}D task grid, not {}", min_dims == max_dims ? fmt::format("{}", min_dims)
                                                                       : fmt::format("{}D or {}", min_dims, max_dims),
           fmt::join(grid, "x"));
  }
  return grid;
}

}  // namespace detail
namespace {

using detail::check_fits;

// Tasks in rank order onto slots in order; with more tasks than slots, consecutive blocks
// of floor or ceil(tasks / slots) tasks per slot.
class DefaultMapper final : public Mapper {
 public:
  Mapping run(const Machine& m, const CommGraph& g) const override {
    Mapping map;
    map.slot_of_task.resize(g.num_tasks());
    const std::uint64_t tasks = g.num_tasks(), slots = m.num_slots();
    for (TaskId t = 0; t < tasks; ++t)
      map.slot_of_task[t] = static_cast<SlotId>(tasks <= slots ? t : std::uint64_t(t) * slots / tasks);
    return map;
  }
};

class OrderMapper final : public detail::SpecMapper {
 public:
  using SpecMapper::SpecMapper;
  Mapping run(const Machine& m, const CommGraph& g) const override {
    check_fits(m, g);
    std::vector<SlotId> order;
    try {
      order = torus_slot_order(m, spec_.order);
    } catch (const Error& e) {
      fail("--mapper '{}': {}", spec_.text, e.what());
    }
    order.resize(g.num_tasks());
    return Mapping{std::move(order), {}};
  }
};

class RandomMapper final : public Mapper {
 public:
  explicit RandomMapper(std::uint64_t seed) : seed_(seed) {}
  Mapping run(const Machine& m, const CommGraph& g) const override {
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
// different leaf switches.
class CyclicMapper final : public Mapper {
 public:
  explicit CyclicMapper(const MapperSpec& spec) : spec_(spec) {}
  Mapping run(const Machine& m, const CommGraph& g) const override {
    check_fits(m, g);
    const std::uint64_t slots = m.num_slots(), stride = spec_.stride ? spec_.stride : m.slots_per_node;
    if (slots % stride != 0) detail::refuse(spec_, "stride {} does not divide the machine's {} slots", stride, slots);
    std::vector<SlotId> out(g.num_tasks());
    for (std::uint64_t t = 0; t < g.num_tasks(); ++t) {
      const std::uint64_t p = t * stride;
      out[t] = static_cast<SlotId>(p % slots + p / slots);
    }
    return Mapping{std::move(out), {}};
  }

 private:
  MapperSpec spec_;
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

namespace {

// "h2", "v2t2", ...: concentration functions in the order they are applied.
std::vector<Concentration> parse_concentration(io::SpecReader& r, const std::string& text) {
  std::vector<Concentration> steps;
  std::size_t i = 0;
  while (i < text.size()) {
    const char kind = text[i++];
    if (kind != 'h' && kind != 'v' && kind != 't') {
      r.fail(fmt::format("conc='{}': '{}' is not h, v or t (write e.g. conc=v2 or conc=h2t2)", text, kind));
    }
    std::size_t end = i;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    auto factor = io::parse_int(std::string_view(text).substr(i, end - i));
    if (!factor || *factor < 2 || *factor > 1024) {
      r.fail(fmt::format("conc='{}': '{}' needs a factor of at least 2 after it", text, kind));
    }
    steps.push_back({kind, static_cast<std::uint32_t>(*factor)});
    i = end;
  }
  if (steps.empty()) r.fail("conc= is empty");
  return steps;
}

}  // namespace

MapperSpec parse_mapper_spec(std::string_view text) {
  if (text.find('+') != std::string_view::npos) {
    MapperSpec pipeline;
    pipeline.text = std::string(text);
    pipeline.kind = MapperKind::Pipeline;
    for (std::size_t begin = 0; begin <= text.size();) {
      const std::size_t end = std::min(text.find('+', begin), text.size());
      if (end == begin) fail("--mapper '{}': stage {} is empty", text, pipeline.stages.size() + 1);
      MapperSpec stage = parse_mapper_spec(text.substr(begin, end - begin));
      const bool refiner = stage.kind == MapperKind::RefineMcl || stage.kind == MapperKind::Timer ||
                           stage.kind == MapperKind::RefineHopBytes;
      if (!pipeline.stages.empty() && !refiner) {
        fail("--mapper '{}': '{}' cannot start from another mapping (after '+' only timer, refine-hb or refine-mcl)",
             text, stage.text);
      }
      pipeline.stages.push_back(std::move(stage));
      begin = end + 1;
    }
    return pipeline;
  }
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
  } else if (k == "cyclic") {
    spec.kind = MapperKind::Cyclic;
    spec.stride = static_cast<std::uint32_t>(r.get_int("stride", 1, 1 << 30).value_or(0));
  } else if (k == "file") {
    spec.kind = MapperKind::File;
    if (!r.bare()) r.fail("missing file name: file:PATH");
    spec.path = *r.bare();
  } else if (k == "percs-block") {
    spec.kind = MapperKind::PercsBlock;
    auto level = r.get_choice("level", {"node", "drawer", "supernode"});
    if (!level) r.fail("missing level=node|drawer|supernode");
    spec.level = static_cast<PercsBlockLevel>(*level);
    spec.random_order = r.get_choice("order", {"seq", "random"}).value_or(0) == 1;
    spec.seed = static_cast<std::uint64_t>(r.get_int("seed", 0, INT64_MAX).value_or(1));
  } else if (k == "percs-modcolor") {
    spec.kind = MapperKind::PercsModColor;
  } else if (k == "percs-transpose") {
    spec.kind = MapperKind::PercsTranspose;
    spec.layout = static_cast<TransposeLayout>(r.get_choice("layout", {"row", "column", "hybrid"}).value_or(2));
  } else if (k == "rtt-map") {
    spec.kind = MapperKind::RttMap;
    spec.function = static_cast<RttFunction>(r.get_choice("f", {"id", "diag"}).value_or(0));
    if (auto conc = r.get_string("conc")) spec.concentration = parse_concentration(r, *conc);
  } else if (k == "dragonfly-bsm") {
    spec.kind = MapperKind::DragonflyBsm;
  } else if (k == "dragonfly-bbac") {
    spec.kind = MapperKind::DragonflyBbac;
    spec.double_colors = r.get_choice("colors", {"n", "2n"}).value_or(1) == 1;
  } else if (k == "rahtm") {
    spec.kind = MapperKind::Rahtm;
    spec.beam = static_cast<std::uint32_t>(r.get_int("beam", 1, 4096).value_or(64));
    spec.milp_seconds = r.get_double("milp-seconds").value_or(0.5);
    if (!(spec.milp_seconds > 0 && spec.milp_seconds <= 3600)) {
      r.fail(fmt::format("milp-seconds must be in (0, 3600], not {}", spec.milp_seconds));
    }
    spec.greedy_leaves = r.get_choice("leaf", {"milp", "greedy"}).value_or(0) == 1;

  } else if (k == "refine-mcl") {
    spec.kind = MapperKind::RefineMcl;
    spec.seconds = r.get_double("seconds").value_or(10);
    if (!(spec.seconds > 0 && spec.seconds <= 86400)) r.fail(fmt::format("seconds must be in (0, 86400], not {}", spec.seconds));
    spec.candidates = static_cast<std::uint32_t>(r.get_int("candidates", 1, 1 << 20).value_or(16));
    spec.kicks = static_cast<std::uint32_t>(r.get_int("kicks", 0, 1 << 24).value_or(200));
    spec.region_steps = static_cast<std::uint32_t>(r.get_int("regions", 0, 1 << 24).value_or(200));
    spec.seed = static_cast<std::uint64_t>(r.get_int("seed", 0, INT64_MAX).value_or(1));
    if (auto routing = r.get_string("routing")) {
      try {
        parse_routing_spec(*routing);
      } catch (const Error& e) {
        r.fail(fmt::format("routing={}: {}", *routing, e.what()));
      }
      spec.routing = *routing;
    }
  } else if (k == "timer") {
    spec.kind = MapperKind::Timer;
    spec.hierarchies = static_cast<std::uint32_t>(r.get_int("hierarchies", 1, 1 << 20).value_or(50));
    spec.seed = static_cast<std::uint64_t>(r.get_int("seed", 0, INT64_MAX).value_or(1));
  } else if (k == "refine-hb") {
    spec.kind = MapperKind::RefineHopBytes;
    spec.rounds = static_cast<std::uint32_t>(r.get_int("rounds", 1, 1 << 20).value_or(20));
    spec.seed = static_cast<std::uint64_t>(r.get_int("seed", 0, INT64_MAX).value_or(1));
  } else if (k == "scotch") {
    spec.kind = MapperKind::Scotch;
  } else if (k == "rb") {
    spec.kind = MapperKind::RecursiveBisection;
    spec.tries = static_cast<std::uint32_t>(r.get_int("tries", 1, 1024).value_or(1));

  } else if (k == "greedy") {
    spec.kind = MapperKind::Greedy;
  } else if (k == "metis") {
    spec.kind = MapperKind::Metis;
    spec.greedy_assignment = r.get_choice("assign", {"greedy", "identity"}).value_or(0) == 0;
  } else if (k == "hilbert") {
    spec.kind = MapperKind::Hilbert;
  } else if (k == "rubik-tiling") {
    spec.kind = MapperKind::RubikTiling;
  } else {
    r.fail(fmt::format("unknown mapper '{}' (use default, order:LETTERS, random[:seed=N], cyclic[:stride=S], file:PATH, "
                       "percs-block, "
                       "percs-modcolor, percs-transpose, rtt-map, dragonfly-bsm, dragonfly-bbac, rahtm, hilbert, "
                       "rubik-tiling, scotch, metis, greedy, rb, timer, refine-hb or refine-mcl)",
                       k));
  }
  if (spec.kind >= MapperKind::PercsBlock && spec.kind != MapperKind::Hilbert) {
    if (auto grid = r.get_sizes("grid", 1 << 24)) spec.grid = *grid;
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
    case MapperKind::Cyclic: return std::make_unique<CyclicMapper>(spec);
    case MapperKind::PercsBlock:
    case MapperKind::PercsModColor:
    case MapperKind::PercsTranspose: return detail::make_percs_mapper(spec);
    case MapperKind::RttMap: return detail::make_rtt_mapper(spec);
    case MapperKind::DragonflyBsm:
    case MapperKind::DragonflyBbac: return detail::make_dragonfly_mapper(spec);
    case MapperKind::Rahtm:
    case MapperKind::Hilbert:
    case MapperKind::RubikTiling: return detail::make_torus_mapper(spec);
    case MapperKind::RefineMcl:
    case MapperKind::Timer:
    case MapperKind::RefineHopBytes:
    case MapperKind::Pipeline: return detail::make_refining_mapper(spec);
    case MapperKind::Scotch: return detail::make_scotch_mapper(spec);
    case MapperKind::Metis: return detail::make_metis_mapper(spec);
    case MapperKind::Greedy: return detail::make_greedy_mapper(spec);
    case MapperKind::RecursiveBisection: return detail::make_rb_mapper(spec);
  }
  fail("--mapper '{}': unhandled kind", spec.text);
}

}  // namespace taskmap
