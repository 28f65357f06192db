#include "taskmap/workload/pattern_spec.h"

#include <fmt/format.h>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/workload/generators.h"
#include "taskmap/workload/pattern_catalog.h"

namespace taskmap {

// The parameters, their defaults and ranges are pattern_catalog()'s.
PatternSpec parse_pattern_spec(std::string_view text) {
  const SpecValues v = pattern_catalog().parse(text);
  PatternSpec spec;
  spec.text = std::string(text);
  spec.kind = static_cast<PatternKind>(v.entry().tag);
  auto count = [&](std::string_view key) { return static_cast<std::uint32_t>(v.get_int(key)); };
  switch (spec.kind) {
    case PatternKind::Halo2d:
    case PatternKind::Halo3d:
      spec.dims = v.get_sizes("sizes");
      spec.points = count("points");
      spec.periodic = v.get_bool("periodic");
      break;
    case PatternKind::Transpose: spec.dims = v.get_sizes("sizes"); break;
    case PatternKind::LocalMix:
      spec.dims = v.get_sizes("sizes");
      spec.alpha = v.get_real("alpha");
      break;
    case PatternKind::AllToAll: spec.dims = {count("tasks")}; break;
    case PatternKind::NpbCg:
    case PatternKind::NpbBt:
    case PatternKind::NpbSp: spec.dims = {count("ranks")}; break;
    case PatternKind::Llm: {
      LlmOptions& o = spec.llm;
      o.tp = count("tp");
      o.pp = count("pp");
      o.dp = count("dp");
      o.ep = count("ep");
      const std::string& order = v.get_text("order");
      if (std::string problem = parse_llm_order(order, o.order); !problem.empty()) v.fail("llm: " + problem);
      o.layers = count("layers");
      o.hidden = count("hidden");
      o.seq = count("seq");
      o.micro_batch = count("micro_batch");
      o.micro_batches = count("micro_batches");
      o.moe_layers = v.given("moe_layers") ? count("moe_layers") : o.layers;
      o.top_k = count("top_k");
      o.bytes = count("bytes");
      o.grad_bytes = count("grad_bytes");
      o.params = v.given("params") ? v.get_real("params") : 12.0 * o.layers * double(o.hidden) * o.hidden;
      o.expert_params = v.get_real("expert_params");
      if (std::string problem = llm_problem(o, order); !problem.empty()) v.fail("llm: " + problem);
      break;
    }
    case PatternKind::File:
      spec.path = v.get_text("path");
      spec.format = v.given("format") ? *pattern_format_from_name(v.get_choice("format")) : guess_pattern_format(spec.path);
      spec.min_tasks = v.given("tasks") ? count("tasks") : 0;
      break;
  }
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
      case PatternKind::Llm: return make_llm(spec.llm);
      case PatternKind::File: return read_pattern_file(spec.path, spec.format, spec.min_tasks);
    }
  } catch (const LimitError&) {
    throw;  // names the pattern already: "halo3d:1000x1000x1000 needs about ..."
  } catch (const Error& e) {
    if (spec.kind == PatternKind::File) throw;
    fail("--pattern '{}': {}", spec.text, e.what());
  }
  fail("--pattern '{}': unhandled kind", spec.text);
}

}  // namespace taskmap
