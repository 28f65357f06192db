#include "taskmap/topology/machine_spec.h"

#include <fmt/format.h>

#include "taskmap/core/error.h"
#include "taskmap/core/spec.h"
#include "taskmap/core/text_source.h"

namespace taskmap {
namespace {

// Applies "mesh=DE" / "wrap=AB": letters naming dimensions whose wraparound is switched.
void apply_letters(io::SpecReader& r, const std::string& key, const std::string& letters, std::vector<bool>& wrap,
                   bool value) {
  auto given = r.get_string(key);
  if (!given) return;
  for (char c : *given) {
    std::size_t d = letters.find(c);
    if (d == std::string::npos) {
      r.fail(fmt::format("{}={}: '{}' is not a dimension letter of this machine ({})", key, *given, c, letters));
    }
    wrap[d] = value;
  }
}

std::uint32_t get_count(io::SpecReader& r, const std::string& key, std::uint32_t fallback) {
  return static_cast<std::uint32_t>(r.get_int(key, 1, 1 << 20).value_or(fallback));
}

std::uint32_t require(io::SpecReader& r, const std::string& key, std::int64_t max = 1 << 20) {
  auto v = r.get_int(key, 1, max);
  if (!v) r.fail(fmt::format("missing {}=", key));
  return static_cast<std::uint32_t>(*v);
}

}  // namespace

MachineSpec parse_machine_spec(std::string_view text) {
  io::SpecReader r("--machine", text);
  MachineSpec spec;
  spec.text = std::string(text);
  const std::string& kind = r.kind();
  if (kind == "torus" || kind == "mesh") {
    spec.kind = MachineKind::Torus;
    spec.torus.sizes = r.bare_sizes("4x4x2", 1 << 22);
    if (spec.torus.sizes.size() > 25) r.fail("at most 25 dimensions");
    spec.torus.wrap.assign(spec.torus.sizes.size(), kind == "torus");
    const std::string letters = torus_letters(spec.torus.sizes.size());
    apply_letters(r, "mesh", letters, spec.torus.wrap, false);
    apply_letters(r, "wrap", letters, spec.torus.wrap, true);
    spec.nodes_per_router = get_count(r, "conc", 1);
  } else if (kind == "hypercube") {
    spec.kind = MachineKind::Hypercube;
    spec.hypercube_d = require(r, "d", 22);
    spec.nodes_per_router = get_count(r, "conc", 1);
  } else if (kind == "rt" || kind == "rtt") {
    spec.kind = kind == "rt" ? MachineKind::RectTorus : MachineKind::RectTwistedTorus;
    spec.rect_a = require(r, "a", 1 << 11);
    if (spec.rect_a < 2) r.fail("a must be at least 2");
    auto c = r.get_int("c", 1, 1 << 20);
    auto conc = r.get_int("conc", 1, 1 << 20);
    if (c && conc) r.fail("give the concentration once (c= or conc=)");
    spec.nodes_per_router = static_cast<std::uint32_t>(c.value_or(conc.value_or(1)));
  } else if (kind == "dragonfly") {
    spec.kind = MachineKind::Dragonfly;
    spec.dragonfly.p = require(r, "p");
    spec.dragonfly.a = require(r, "a", 4096);
    spec.dragonfly.h = require(r, "h", 4096);
    spec.nodes_per_router = spec.dragonfly.p;
    if (auto w = r.get_string("wiring")) {
      if (*w == "consecutive") spec.dragonfly.wiring = DragonflyWiring::Consecutive;
      else if (*w == "palmtree") spec.dragonfly.wiring = DragonflyWiring::PalmTree;
      else r.fail(fmt::format("unknown wiring '{}' (use consecutive or palmtree)", *w));
    }
  } else if (kind == "percs") {
    spec.kind = MachineKind::Percs;
    spec.percs_ns = require(r, "ns", 4096);
    spec.percs_nd = require(r, "nd", 32);
    spec.slots_per_node = 4;
  } else if (kind == "fattree") {
    spec.kind = MachineKind::FatTree;
    spec.fat_tree_k = require(r, "k", 1 << 11);
    spec.fat_tree_n = require(r, "n", 22);
  } else if (kind == "graph") {
    spec.kind = MachineKind::Graph;
    if (!r.bare()) r.fail("missing file name: graph:FILE");
    spec.graph_path = *r.bare();
    spec.nodes_per_router = get_count(r, "conc", 1);
  } else {
    r.fail(fmt::format("unknown machine '{}' (use torus, mesh, hypercube, rt, rtt, dragonfly, percs, fattree or graph)", kind));
  }
  if (spec.kind != MachineKind::Torus && spec.kind != MachineKind::Graph && r.bare()) {
    r.fail(fmt::format("unexpected '{}': {} takes key=value options only", *r.bare(), kind));
  }
  spec.slots_per_node = get_count(r, "ppn", spec.slots_per_node);
  r.finish();
  spec.torus.nodes_per_router = spec.nodes_per_router;
  spec.torus.slots_per_node = spec.slots_per_node;
  spec.dragonfly.slots_per_node = spec.slots_per_node;
  return spec;
}

Machine build_machine(const MachineSpec& spec) {
  Machine m;
  try {
    switch (spec.kind) {
      case MachineKind::Torus: m = build_torus(spec.torus); break;
      case MachineKind::Hypercube:
        m = build_hypercube(spec.hypercube_d, spec.nodes_per_router, spec.slots_per_node);
        break;
      case MachineKind::RectTorus:
      case MachineKind::RectTwistedTorus:
        m = build_rect_torus(spec.rect_a, spec.kind == MachineKind::RectTwistedTorus, spec.nodes_per_router,
                             spec.slots_per_node);
        break;
      case MachineKind::Dragonfly: m = build_dragonfly(spec.dragonfly); break;
      case MachineKind::Percs: m = build_percs(spec.percs_ns, spec.percs_nd, spec.slots_per_node); break;
      case MachineKind::FatTree: m = build_fat_tree(spec.fat_tree_k, spec.fat_tree_n, spec.slots_per_node); break;
      case MachineKind::Graph:
        m = read_graph_machine(spec.graph_path, spec.nodes_per_router, spec.slots_per_node);
        break;
    }
  } catch (const Error& e) {
    if (spec.kind == MachineKind::Graph) throw;  // file errors already name file and line
    fail("--machine '{}': {}", spec.text, e.what());
  }
  m.description = spec.text;
  return m;
}

}  // namespace taskmap
