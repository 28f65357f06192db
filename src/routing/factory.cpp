#include <fmt/format.h>

#include "routing_impl.h"
#include "taskmap/core/spec.h"

namespace taskmap {

RoutingSpec parse_routing_spec(std::string_view text) {
  io::SpecReader r("--routing", text);
  RoutingSpec spec;
  spec.text = std::string(text);
  const std::string& k = r.kind();
  if (k == "dor") spec.kind = RoutingKind::DimensionOrder;
  else if (k == "minimal") spec.kind = RoutingKind::Minimal;
  else if (k == "direct") spec.kind = RoutingKind::Direct;
  else if (k == "indirect") spec.kind = RoutingKind::Indirect;
  else if (k == "valiant") spec.kind = RoutingKind::Valiant;
  else if (k == "ugal") spec.kind = RoutingKind::Ugal;
  else if (k == "ecmp") spec.kind = RoutingKind::Ecmp;
  else if (k == "dmodk") spec.kind = RoutingKind::DModK;
  else r.fail(fmt::format("unknown routing '{}' (use dor, minimal, direct, indirect, valiant, ugal, ecmp or dmodk)", k));
  if (r.bare()) {
    if (spec.kind != RoutingKind::DimensionOrder) r.fail(fmt::format("'{}' takes no value", k));
    spec.dimension_order = *r.bare();
  }
  if (spec.kind == RoutingKind::DimensionOrder) {
    if (auto t = r.get_choice("ties", {"split", "simgrid"})) spec.ties = *t == 0 ? TieRule::Split : TieRule::SimGrid;
  }
  r.finish();
  return spec;
}

RoutingSpec default_routing(const Machine& machine) {
  struct Visitor {
    const char* operator()(const TorusShape&) const { return "minimal"; }
    const char* operator()(const RectTorusShape&) const { return "minimal"; }
    const char* operator()(const DragonflyShape&) const { return "minimal"; }
    const char* operator()(const PercsShape&) const { return "direct"; }
    const char* operator()(const FatTreeShape&) const { return "dmodk"; }
    const char* operator()(const GraphShape&) const { return "ecmp"; }
  };
  return parse_routing_spec(std::visit(Visitor{}, machine.shape));
}

std::unique_ptr<Routing> make_routing(const Machine& machine, const RoutingSpec& spec) {
  if (spec.kind == RoutingKind::Ecmp) return detail::make_ecmp_routing(machine);
  auto refuse = [&](const char* allowed) -> std::unique_ptr<Routing> {
    fail("--routing '{}' does not apply to {} machines (use {})", spec.text, machine.kind_name(), allowed);
  };
  const bool lattice = spec.kind == RoutingKind::DimensionOrder || spec.kind == RoutingKind::Minimal;
  if (machine.torus()) {
    return lattice ? detail::make_torus_routing(machine, spec) : refuse("dor, minimal or ecmp");
  }
  if (std::holds_alternative<RectTorusShape>(machine.shape)) {
    return lattice ? detail::make_rect_torus_routing(machine, spec) : refuse("dor, minimal or ecmp");
  }
  if (std::holds_alternative<DragonflyShape>(machine.shape)) {
    const bool applies = spec.kind == RoutingKind::Minimal || spec.kind == RoutingKind::Valiant ||
                         spec.kind == RoutingKind::Ugal;
    return applies ? detail::make_dragonfly_routing(machine, spec) : refuse("minimal, valiant, ugal or ecmp");
  }
  if (std::holds_alternative<FatTreeShape>(machine.shape)) {
    return spec.kind == RoutingKind::DModK ? detail::make_fat_tree_routing(machine) : refuse("dmodk or ecmp");
  }
  if (spec.kind == RoutingKind::DModK) refuse("another routing; dmodk is for fat-trees");
  if (std::holds_alternative<PercsShape>(machine.shape)) {
    return (spec.kind == RoutingKind::Direct || spec.kind == RoutingKind::Indirect)
               ? detail::make_percs_routing(machine, spec)
               : refuse("direct, indirect or ecmp");
  }
  return refuse("ecmp");
}

}  // namespace taskmap
