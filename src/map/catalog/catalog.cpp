#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "taskmap/core/error.h"
#include "taskmap/core/spec.h"
#include "taskmap/core/text_source.h"
#include "taskmap/map/mapper_support.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/routing/routing.h"

namespace taskmap {
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
    case MapperKind::Default:
    case MapperKind::Order:
    case MapperKind::Random:
    case MapperKind::File:
    case MapperKind::Cyclic: return detail::make_basic_mapper(spec);
    case MapperKind::PercsBlock:
    case MapperKind::PercsModColor:
    case MapperKind::PercsTranspose: return detail::make_percs_mapper(spec);
    case MapperKind::RttMap: return detail::make_rtt_mapper(spec);
    case MapperKind::DragonflyBsm:
    case MapperKind::DragonflyBbac: return detail::make_dragonfly_mapper(spec);
    case MapperKind::Rahtm: return detail::make_rahtm_mapper(spec);
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
