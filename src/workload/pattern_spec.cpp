#include "taskmap/workload/pattern_spec.h"

#include <fmt/format.h>

#include "taskmap/core/error.h"
#include "taskmap/core/spec.h"
#include "taskmap/core/text_source.h"
#include "taskmap/workload/generators.h"

namespace taskmap {
namespace {

std::vector<std::uint32_t> parse_grid(io::SpecReader& r, std::size_t count) {
  auto dims = r.bare_sizes(count == 2 ? "64x64" : "16x16x16", 1 << 24);
  if (dims.size() != count) r.fail(fmt::format("expected {} grid sizes, got {}", count, dims.size()));
  return dims;
}

}  // namespace

PatternSpec parse_pattern_spec(std::string_view text) {
  io::SpecReader r("--pattern", text);
  PatternSpec spec;
  spec.text = std::string(text);
  const std::string& k = r.kind();
  if (k == "halo2d" || k == "halo3d") {
    const bool two = k == "halo2d";
    spec.kind = two ? PatternKind::Halo2d : PatternKind::Halo3d;
    spec.dims = parse_grid(r, two ? 2 : 3);
    spec.points = static_cast<std::uint32_t>(r.get_int("points", 1, 27).value_or(two ? 5 : 7));
    if (two && spec.points != 5 && spec.points != 9) r.fail("points must be 5 or 9");
    if (!two && spec.points != 7 && spec.points != 27) r.fail("points must be 7 or 27");
    spec.periodic = r.get_bool("periodic").value_or(true);
  } else if (k == "transpose") {
    spec.kind = PatternKind::Transpose;
    spec.dims = parse_grid(r, 2);
  } else if (k == "localmix") {
    spec.kind = PatternKind::LocalMix;
    spec.dims = parse_grid(r, 2);
    auto alpha = r.get_double("alpha");
    if (!alpha) r.fail("missing alpha, e.g. localmix:16x8,alpha=0.3");
    if (!(*alpha >= 0 && *alpha <= 1)) r.fail(fmt::format("alpha must be in [0, 1], not {}", *alpha));
    spec.alpha = *alpha;
  } else if (k == "alltoall") {
    spec.kind = PatternKind::AllToAll;
    if (!r.bare()) r.fail("missing task count, e.g. alltoall:64");
    auto n = io::parse_int(*r.bare());
    if (!n || *n < 2 || *n > (1 << 14)) r.fail(fmt::format("'{}' is not a task count in [2, 16384]", *r.bare()));
    spec.dims = {static_cast<std::uint32_t>(*n)};
  } else if (k == "npb-cg" || k == "npb-bt" || k == "npb-sp") {
    spec.kind = k == "npb-cg" ? PatternKind::NpbCg : k == "npb-bt" ? PatternKind::NpbBt : PatternKind::NpbSp;
    if (!r.bare()) r.fail(fmt::format("missing rank count, e.g. {}:64", k));
    auto n = io::parse_int(*r.bare());
    if (!n || *n < 2 || *n > (1 << 24)) r.fail(fmt::format("'{}' is not a rank count in [2, 16777216]", *r.bare()));
    spec.dims = {static_cast<std::uint32_t>(*n)};
  } else if (k == "file") {
    spec.kind = PatternKind::File;
    if (!r.bare()) r.fail("missing file name: file:PATH");
    spec.path = *r.bare();
    spec.format = guess_pattern_format(spec.path);
    if (auto f = r.get_string("format")) {
      auto parsed = pattern_format_from_name(*f);
      if (!parsed) r.fail(fmt::format("unknown format '{}' (use metis, mtx, grf, edges, dense or hopbyte)", *f));
      spec.format = *parsed;
    }
    spec.min_tasks = static_cast<std::uint32_t>(r.get_int("tasks", 1, 1 << 30).value_or(0));
  } else {
    r.fail(fmt::format("unknown pattern '{}' (use halo2d, halo3d, transpose, localmix, alltoall, npb-cg, npb-bt, npb-sp or file)", k));
  }
  r.finish();
  return spec;
}

CommGraph build_pattern(const PatternSpec& spec) {
  try {
    switch (spec.kind) {
      case PatternKind::Halo2d: return make_halo2d(spec.dims[0], spec.dims[1], spec.points, spec.periodic);
      case PatternKind::Halo3d:
        return make_halo3d(spec.dims[0], spec.dims[1], spec.dims[2], spec.points, spec.periodic);
      case PatternKind::Transpose: return make_transpose(spec.dims[0], spec.dims[1]);
      case PatternKind::AllToAll: return make_alltoall(spec.dims[0]);
      case PatternKind::LocalMix: return make_localmix(spec.dims[0], spec.dims[1], spec.alpha);
      case PatternKind::NpbCg: return make_npb_cg(spec.dims[0]);
      case PatternKind::NpbBt: return make_npb_multipartition(spec.dims[0], NpbSolver::BT);
      case PatternKind::NpbSp: return make_npb_multipartition(spec.dims[0], NpbSolver::SP);
      case PatternKind::File: return read_pattern_file(spec.path, spec.format, spec.min_tasks);
    }
  } catch (const Error& e) {
    if (spec.kind == PatternKind::File) throw;
    fail("--pattern '{}': {}", spec.text, e.what());
  }
  fail("--pattern '{}': unhandled kind", spec.text);
}

}  // namespace taskmap
