#include <fmt/format.h>

#include "routing_impl.h"
#include "taskmap/core/spec.h"
#include "taskmap/core/text_source.h"
#include "taskmap/routing/forwarding_tables.h"
#include "taskmap/routing/opensm_engines.h"
#include "taskmap/routing/routing_catalog.h"
#include "taskmap/topology/guid_map.h"

namespace taskmap {

std::shared_ptr<const ForwardingTables> forwarding_tables_for(const Machine& machine, const RoutingSpec& spec,
                                                             const std::function<void(const std::string&)>& warn) {
  check_routing_applies(machine, spec);
  if (spec.kind != RoutingKind::Tables && spec.kind != RoutingKind::OpenSm) {
    fail("--routing '{}' is a flow model, not forwarding tables: give lft:FILE or opensm:ENGINE", spec.text);
  }
  const ib::Subnet& subnet = *std::get<FabricShape>(machine.shape).subnet;
  if (spec.kind == RoutingKind::Tables) {
    auto tables = std::make_shared<ForwardingTables>(read_forwarding_tables(spec.tables, subnet, warn));
    const TableDefects defects = check_forwarding_tables(subnet, *tables);
    auto say = [&](const TableDefects::Cause& cause, std::string_view what) {
      if (cause.count > 0 && warn) {
        warn(fmt::format("{}: {} (switch, LID) pairs {} (first: {}); traffic that needs them is {}", spec.text,
                         cause.count, what, cause.first, spec.unroutable_skip ? "left out" : "refused"));
      }
    };
    say(defects.missing, "have no route (an entry missing on the way)");
    say(defects.dead_port, "lead to a port with no cable");
    say(defects.loop, "loop");
    say(defects.wrong_end, "lead to a port that does not hold the LID");
    return tables;
  }
  OpenSmOptions options;
  for (OpenSmEngine e : {OpenSmEngine::MinHop, OpenSmEngine::UpDn, OpenSmEngine::DnUp, OpenSmEngine::Dfsssp,
                         OpenSmEngine::FatTree}) {
    if (opensm_engine_name(e) == spec.opensm_engine) options.engine = e;
  }
  if (!spec.roots.empty()) options.roots = read_root_guids(spec.roots);
  options.lmc = spec.opensm_lmc;
  if (!spec.sm.empty()) {
    const auto guid = guid_value(spec.sm);
    if (!guid || *guid == 0) fail("opensm: sm={}: not a GUID (hex digits, after 0x, H- or S- or alone)", io::printable(spec.sm));
    options.sm_guid = *guid;
  }
  return std::make_shared<ForwardingTables>(compute_opensm_tables(subnet, options));
}

// The parameters, their defaults and where each routing applies are routing_catalog()'s.
RoutingSpec parse_routing_spec(std::string_view text) {
  const SpecValues v = routing_catalog().parse(text);
  RoutingSpec spec;
  spec.text = std::string(text);
  spec.kind = static_cast<RoutingKind>(v.entry().tag);
  if (spec.kind == RoutingKind::DimensionOrder) {
    if (v.given("order")) spec.dimension_order = v.get_text("order");
    spec.ties = v.choice_index("ties") == 0 ? TieRule::Split : TieRule::SimGrid;
  }
  if (spec.kind == RoutingKind::Tables) {
    spec.tables = v.get_text("path");
    spec.unroutable_skip = v.choice_index("unroutable") == 1;
  }
  if (v.entry().param("gpu")) spec.gpu_pxn = v.choice_index("gpu") == 1;
  if (spec.kind == RoutingKind::OpenSm) {
    spec.opensm_engine = v.get_choice("engine");
    if (v.given("roots")) spec.roots = v.get_text("roots");
    spec.opensm_lmc = static_cast<std::uint8_t>(v.get_int("lmc"));
    if (v.given("sm")) spec.sm = v.get_text("sm");
  }
  return spec;
}

RoutingSpec default_routing(const Machine& machine) {
  // An ibnet: fabric given its forwarding tables (lft=FILE) routes by them.
  if (const auto* fabric = std::get_if<FabricShape>(&machine.shape); fabric && !fabric->tables.empty()) {
    return parse_routing_spec("lft:" + io::quote_spec_value(fabric->tables));
  }
  const CatalogEntry* entry = routing_catalog().default_entry(machine);
  if (!entry) fail("machine '{}': no routing applies to it", machine.description);
  return parse_routing_spec(entry->name);
}

void check_routing_applies(const Machine& machine, const RoutingSpec& spec) {
  const CatalogEntry* entry = nullptr;
  for (const CatalogEntry& e : routing_catalog().entries()) {
    if (e.tag == static_cast<int>(spec.kind)) entry = &e;
  }
  if (!entry) fail("--routing '{}': not in the routing catalog", spec.text);
  if (const std::string reason = entry->applies(machine); !reason.empty()) {
    const auto names = routings_for(machine);
    std::string use;
    for (std::size_t i = 0; i < names.size(); ++i) {
      use += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    }
    fail("--routing '{}' does not apply to {} machines ({}; use {})", spec.text, machine.kind_name(), reason, use);
  }
}

namespace {
// The routing of the spec on `machine`'s channels as they are.
std::unique_ptr<Routing> make_network_routing(const Machine& machine, const RoutingSpec& spec,
                                              const std::function<void(const std::string&)>& warn);
}  // namespace

std::unique_ptr<Routing> make_routing(const Machine& machine, const RoutingSpec& spec,
                                      const std::function<void(const std::string&)>& warn) {
  check_routing_applies(machine, spec);
  if (machine.outline) fail("machine '{}': an outline has no channels to route on", machine.description);
  if (machine.gpu_links) {
    // The spec's routing takes the network (the machine cut at its network's channels, its GPU
    // nodes still described for names); the nodes' insides are the GPUs'.
    auto network = std::make_unique<Machine>(network_part(machine));
    auto base = make_network_routing(*network, spec, warn);
    return detail::make_gpu_node_routing(machine, std::move(network), std::move(base), spec.gpu_pxn);
  }
  if (spec.gpu_pxn) {
    fail("--routing '{}': gpu=pxn needs GPU nodes with NICs of their own (--node-topology hwloc:FILE,slots=gpu or "
         "gpus:N on a fabric read from files)",
         spec.text);
  }
  return make_network_routing(machine, spec, warn);
}

namespace {

std::unique_ptr<Routing> make_network_routing(const Machine& machine, const RoutingSpec& spec,
                                              const std::function<void(const std::string&)>& warn) {
  const bool rect = std::holds_alternative<RectTorusShape>(machine.shape);
  switch (spec.kind) {
    case RoutingKind::Ecmp: return detail::make_ecmp_routing(machine);
    case RoutingKind::DModK: return detail::make_fat_tree_routing(machine);
    case RoutingKind::Tree: return detail::make_tree_routing(machine);
    case RoutingKind::UpDown: return detail::make_updn_routing(machine);
    case RoutingKind::Direct:
    case RoutingKind::Indirect: return detail::make_percs_routing(machine, spec);
    case RoutingKind::Valiant:
    case RoutingKind::Ugal: return detail::make_dragonfly_routing(machine, spec);
    case RoutingKind::Tables:
    case RoutingKind::OpenSm:
      return make_table_routing(machine, forwarding_tables_for(machine, spec, warn), spec.text,
                                TableGaps{.skip = spec.unroutable_skip, .warn = warn});
    case RoutingKind::Minimal:
    case RoutingKind::DimensionOrder:
      if (machine.torus()) return detail::make_torus_routing(machine, spec);
      if (rect) return detail::make_rect_torus_routing(machine, spec);
      return detail::make_dragonfly_routing(machine, spec);  // minimal on Dragonfly groups, as the check allows
  }
  fail("--routing '{}': unhandled routing", spec.text);
}

}  // namespace
}  // namespace taskmap
