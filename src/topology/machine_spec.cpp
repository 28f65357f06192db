#include "taskmap/topology/machine_spec.h"

#include <fmt/format.h>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/topology/allocation.h"
#include "taskmap/topology/machine_catalog.h"
#include "taskmap/topology/scotch_target.h"

namespace taskmap {
namespace {

// Applies "mesh=DE" / "wrap=AB": letters naming dimensions whose wraparound is switched.
void apply_letters(const SpecValues& v, const std::string& key, const std::string& letters, std::vector<bool>& wrap,
                   bool value) {
  if (!v.given(key)) return;
  const std::string& given = v.get_text(key);
  for (char c : given) {
    std::size_t d = letters.find(c);
    if (d == std::string::npos) {
      v.fail(fmt::format("{}={}: '{}' is not a dimension letter of this machine ({})", key, given, c, letters));
    }
    wrap[d] = value;
  }
}

std::uint32_t count(const SpecValues& v, std::string_view key) { return static_cast<std::uint32_t>(v.get_int(key)); }

}  // namespace

// The parameters, their defaults and ranges are machine_catalog()'s; this turns them into a
// MachineSpec and checks what depends on several of them.
MachineSpec parse_machine_spec(std::string_view text) {
  const SpecValues v = machine_catalog().parse(text);
  MachineSpec spec;
  spec.text = std::string(text);
  spec.kind = static_cast<MachineKind>(v.entry().tag);
  const std::string_view kind = v.entry().name;
  switch (spec.kind) {
    case MachineKind::Torus: {
      spec.torus.sizes = v.get_sizes("sizes");
      spec.torus.wrap.assign(spec.torus.sizes.size(), kind == "torus");
      const std::string letters = torus_letters(spec.torus.sizes.size());
      apply_letters(v, "mesh", letters, spec.torus.wrap, false);
      apply_letters(v, "wrap", letters, spec.torus.wrap, true);
      spec.nodes_per_router = count(v, "conc");
      break;
    }
    case MachineKind::Hypercube:
      spec.hypercube_d = count(v, "d");
      spec.nodes_per_router = count(v, "conc");
      break;
    case MachineKind::RectTorus:
    case MachineKind::RectTwistedTorus:
      spec.rect_a = count(v, "a");
      if (v.given("c") && v.given("conc")) v.fail("give the concentration once (c= or conc=)");
      spec.nodes_per_router = count(v, v.given("c") ? "c" : "conc");
      break;
    case MachineKind::Dragonfly:
      spec.dragonfly.p = count(v, "p");
      spec.dragonfly.a = count(v, "a");
      spec.dragonfly.h = count(v, "h");
      spec.nodes_per_router = spec.dragonfly.p;
      spec.dragonfly.wiring = v.choice_index("wiring") == 0 ? DragonflyWiring::Consecutive : DragonflyWiring::PalmTree;
      break;
    case MachineKind::Percs:
      spec.percs_ns = count(v, "ns");
      spec.percs_nd = count(v, "nd");
      break;
    case MachineKind::FatTree:
      spec.fat_tree_k = count(v, "k");
      spec.fat_tree_n = count(v, "n");
      break;
    case MachineKind::Hier: {
      spec.hier.sizes = v.get_sizes("sizes");
      spec.hier.dist = v.get_sizes("dist");
      const auto& sizes = spec.hier.sizes;
      const auto& dist = spec.hier.dist;
      if (dist.size() != sizes.size()) {
        v.fail(fmt::format("hier: {} levels but {} distances (dist=); give one distance per level", sizes.size(),
                           dist.size()));
      }
      for (std::size_t l = 1; l < dist.size(); ++l) {
        if (dist[l] < dist[l - 1]) {
          v.fail(fmt::format("hier: distances must not decrease going up, but level {} has {} and level {} has {}",
                             l + 1, dist[l], l, dist[l - 1]));
        }
      }
      break;
    }
    case MachineKind::ScotchTarget: spec.graph_path = v.get_text("path"); break;
    case MachineKind::Graph:
      spec.graph_path = v.get_text("path");
      spec.nodes_per_router = count(v, "conc");
      break;
    case MachineKind::Slurm:
    case MachineKind::Ibnet:
    case MachineKind::Aries:
      spec.fabric_path = v.get_text("path");
      if (const char* key = spec.kind == MachineKind::Aries ? "nodes" : "map"; v.given(key)) spec.fabric_map = v.get_text(key);
      if (v.given("node")) spec.node_topology = v.get_text("node");
      if (spec.kind == MachineKind::Ibnet && v.given("lft")) spec.fabric_tables = v.get_text("lft");
      if (spec.kind == MachineKind::Slurm && v.given("topology")) {
        spec.fabric_topology = v.get_text("topology");
        if (spec.fabric_topology.empty()) v.fail("topology= needs the name of one of the file's topologies");
      }
      spec.slot_unit = static_cast<SlotUnit>(v.choice_index("slots"));
      break;
  }
  spec.slots_per_node = spec.kind == MachineKind::Hier ? 1 : count(v, "ppn");
  spec.ppn_given = spec.kind != MachineKind::Hier && v.given("ppn");
  spec.hier.slots_per_node = spec.slots_per_node;
  spec.torus.nodes_per_router = spec.nodes_per_router;
  spec.torus.slots_per_node = spec.slots_per_node;
  spec.dragonfly.slots_per_node = spec.slots_per_node;
  return spec;
}

namespace {

// A ppn= that the node model's slots replace, said once.
void warn_replaced_ppn(const MachineSpec& spec, const NodeModel& model, std::string_view node_spec,
                       const WarningSink& warn) {
  if (spec.ppn_given && model.num_slots() != spec.slots_per_node && warn) {
    const char* unit = model.unit == SlotUnit::Gpu ? "GPUs" : model.unit == SlotUnit::Pu ? "hardware threads" : "cores";
    const std::string allowed =
        model.units_in_node > model.num_slots()
            ? fmt::format(", the {} of its {} that the file allows: it was written inside a restricted cpuset, as a "
                          "job's cgroup is",
                          model.num_slots(), model.units_in_node)
            : "";
    warn(fmt::format("{} gives {} slot{} per node ({}{}): they replace ppn={}", node_spec, model.num_slots(),
                     model.num_slots() == 1 ? "" : "s", unit, allowed, spec.slots_per_node));
  }
}

}  // namespace

Machine apply_node_topology(Machine machine, const MachineSpec& spec, std::string_view node_spec,
                            const WarningSink& warn) {
  auto model = read_node_topology(node_spec, spec.slot_unit);
  warn_replaced_ppn(spec, *model, node_spec, warn);
  return with_node_model(std::move(machine), std::move(model));
}

namespace {

Machine build_fabric(const MachineSpec& spec, const WarningSink& warn) {
  const WarningSink sink = warn ? warn : [](const std::string&) {};
  Fabric fabric;
  std::string format;
  switch (spec.kind) {
    case MachineKind::Slurm: fabric = read_slurm_topology(spec.fabric_path, spec.fabric_map, sink, spec.fabric_topology), format = "slurm"; break;
    case MachineKind::Ibnet: fabric = read_ibnetdiscover(spec.fabric_path, spec.fabric_map, sink), format = "ibnet"; break;
    default: fabric = read_aries_links(spec.fabric_path, spec.fabric_map, sink), format = "aries"; break;
  }
  // GPU nodes are built into the fabric (a router per GPU and per NIC); other node models only
  // give the nodes their slots.
  std::shared_ptr<const NodeModel> gpus;
  if (!spec.node_topology.empty()) {
    auto model = read_node_topology(spec.node_topology, spec.slot_unit);
    if (model->unit == SlotUnit::Gpu) gpus = std::move(model);
  }
  Machine m = build_fabric_machine(fabric, FabricOptions{.slots_per_node = spec.slots_per_node,
                                                         .gpu_model = gpus,
                                                         .warn = sink,
                                                         .description = spec.text});
  std::get<FabricShape>(m.shape).format = format;
  std::get<FabricShape>(m.shape).tables = spec.fabric_tables;
  if (gpus && m.gpu_links) {
    warn_replaced_ppn(spec, *gpus, spec.node_topology, sink);
  } else if (!spec.node_topology.empty()) {  // GPUs of nodes on switch routers share the router
    m = apply_node_topology(std::move(m), spec, spec.node_topology, sink);
  }
  return m;
}

}  // namespace

Machine build_machine(const MachineSpec& spec, const WarningSink& warn, BuildDetail detail) {
  if (is_fabric(spec.kind)) {
    return build_fabric(spec, warn);  // file errors name the file and line
  }
  const bool from_file = spec.kind == MachineKind::Graph || spec.kind == MachineKind::ScotchTarget;
  // A full build is checked against the memory limit first, from its outline.
  if (detail == BuildDetail::Full && !from_file) {
    const Machine outline = build_machine(spec, warn, BuildDetail::Outline);
    std::uint64_t channels = 0;
    for (std::uint64_t n : channels_per_class(outline)) channels += n;
    check_memory(fmt::format("--machine '{}'", spec.text), estimated_bytes(outline), format_count(channels) + " channels");
  }
  Machine m;
  try {
    switch (spec.kind) {
      case MachineKind::Torus: m = build_torus(spec.torus, detail); break;
      case MachineKind::Hypercube:
        m = build_hypercube(spec.hypercube_d, spec.nodes_per_router, spec.slots_per_node, detail);
        break;
      case MachineKind::RectTorus:
      case MachineKind::RectTwistedTorus:
        m = build_rect_torus(spec.rect_a, spec.kind == MachineKind::RectTwistedTorus, spec.nodes_per_router,
                             spec.slots_per_node, detail);
        break;
      case MachineKind::Dragonfly: m = build_dragonfly(spec.dragonfly, detail); break;
      case MachineKind::Percs: m = build_percs(spec.percs_ns, spec.percs_nd, spec.slots_per_node, detail); break;
      case MachineKind::FatTree:
        m = build_fat_tree(spec.fat_tree_k, spec.fat_tree_n, spec.slots_per_node, detail);
        break;
      case MachineKind::Hier: m = build_hier(spec.hier, detail); break;
      case MachineKind::ScotchTarget: m = read_scotch_target(spec.graph_path, spec.slots_per_node); break;
      case MachineKind::Graph:
        m = read_graph_machine(spec.graph_path, spec.nodes_per_router, spec.slots_per_node);
        break;
      case MachineKind::Slurm:
      case MachineKind::Ibnet:
      case MachineKind::Aries: break;  // built by build_fabric above
    }
  } catch (const Error& e) {
    if (from_file) throw;  // file errors already name file and line
    fail("--machine '{}': {}", spec.text, e.what());
  }
  m.description = spec.text;
  m.outline = detail == BuildDetail::Outline && !from_file;
  return m;
}

}  // namespace taskmap
