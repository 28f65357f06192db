#pragma once
// Routing as an oblivious flow model: for a (source router, destination router) pair it
// yields every channel the traffic crosses with the fraction of the traffic it carries.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "taskmap/topology/machine.h"

namespace taskmap {

struct ChannelShare {
  ChannelId channel = 0;
  double fraction = 0;
};

class Routing {
 public:
  virtual ~Routing() = default;
  // Appends the shares of the flow src -> dst (src != dst) to `out`. A channel may appear
  // more than once; callers add the fractions up.
  virtual void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const = 0;

  // Adaptive routings choose each flow's path from the channel loads the flows before it
  // have placed (the evaluator routes router pairs in (source, destination) order and passes
  // its running loads). Oblivious routings ignore the loads.
  virtual bool adaptive() const { return false; }
  virtual void route_adaptive(RouterId src, RouterId dst, const std::vector<double>& loads,
                              std::vector<ChannelShare>& out) const {
    (void)loads;
    route(src, dst, out);
  }
};

enum class RoutingKind { DimensionOrder, Minimal, Direct, Indirect, Valiant, Ugal, Ecmp, DModK, UpDown, Tree };

// Torus dimension-order routing when both directions of a ring are minimal (offset k/2):
// split the flow evenly, or take one path the way SimGrid's TORUS cluster does ("+", except
// from coordinate k/2 to coordinate 0, which goes "-").
enum class TieRule { Split, SimGrid };

struct RoutingSpec {
  std::string text;
  RoutingKind kind = RoutingKind::Minimal;
  std::string dimension_order;  // dor only: letters, empty = A, B, C, ...
  TieRule ties = TieRule::Split;  // dor only
};

RoutingSpec parse_routing_spec(std::string_view text);
// The documented default of each machine family (README "Routings").
RoutingSpec default_routing(const Machine& machine);
// Throws Error naming the routings that do apply when `spec` does not apply to the machine.
void check_routing_applies(const Machine& machine, const RoutingSpec& spec);
// Throws Error when the routing does not apply to the machine.
std::unique_ptr<Routing> make_routing(const Machine& machine, const RoutingSpec& spec);

}  // namespace taskmap
