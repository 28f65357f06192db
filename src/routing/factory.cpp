#include <fmt/format.h>

#include "routing_impl.h"
#include "taskmap/routing/routing_catalog.h"

namespace taskmap {

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
  return spec;
}

RoutingSpec default_routing(const Machine& machine) {
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

std::unique_ptr<Routing> make_routing(const Machine& machine, const RoutingSpec& spec) {
  check_routing_applies(machine, spec);
  if (machine.outline) fail("machine '{}': an outline has no channels to route on", machine.description);
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
    case RoutingKind::Minimal:
    case RoutingKind::DimensionOrder:
      if (machine.torus()) return detail::make_torus_routing(machine, spec);
      if (rect) return detail::make_rect_torus_routing(machine, spec);
      return detail::make_dragonfly_routing(machine, spec);  // minimal on Dragonfly groups, as the check allows
  }
  fail("--routing '{}': unhandled routing", spec.text);
}

}  // namespace taskmap
