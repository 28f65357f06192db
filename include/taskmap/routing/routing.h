#pragma once
// Routing as an oblivious flow model: for a (source router, destination router) pair it
// yields every channel the traffic crosses with the fraction of the traffic it carries.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "taskmap/topology/machine.h"

namespace taskmap {

struct ChannelShare {
  ChannelId channel = 0;
  double fraction = 0;
};

// A flow towards a destination router named elsewhere: its source and its volume.
struct SourceFlow {
  RouterId src = 0;
  double volume = 0;
};

class Routing {
 public:
  virtual ~Routing() = default;
  // Appends the shares of the flow src -> dst (src != dst) to `out`. A channel may appear
  // more than once; callers add the fractions up.
  virtual void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const = 0;

  // Adds volume x fraction to loads[channel] for every flow src -> dst of `flows` (sources
  // distinct and other than dst); returns the number of additions. The default routes the
  // flows one by one, in the order given; a routing may instead merge flows that share a
  // destination (the torus's minimal split does), giving the same loads up to rounding.
  virtual std::uint64_t add_flows_to(RouterId dst, std::span<const SourceFlow> flows, std::span<double> loads) const;

  // True when route(u, v) is route(u', v') moved by u' - u whenever v - u = v' - u' (tori and
  // meshes under dimension order or the minimal split: the channels' positions relative to u
  // and their fractions depend on the offset only). Route caches then key routes by offset.
  virtual bool translation_invariant() const { return false; }

  // True when the routes are those the network's switches really take (forwarding tables read
  // from a cluster or computed as its subnet manager computes them), not a model of them: the
  // loads of the switch links are then the ones the job will see.
  virtual bool follows_tables() const { return false; }

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

enum class RoutingKind { DimensionOrder, Minimal, Direct, Indirect, Valiant, Ugal, Ecmp, DModK, UpDown, Tree, Tables, OpenSm };

// Torus dimension-order routing when both directions of a ring are minimal (offset k/2):
// split the flow evenly, or take one path the way SimGrid's TORUS cluster does ("+", except
// from coordinate k/2 to coordinate 0, which goes "-").
enum class TieRule { Split, SimGrid };

struct RoutingSpec {
  std::string text;
  RoutingKind kind = RoutingKind::Minimal;
  std::string dimension_order;  // dor only: letters, empty = A, B, C, ...
  TieRule ties = TieRule::Split;  // dor only
  std::string tables;             // lft only: the file, folder or archive of forwarding tables
  bool unroutable_skip = false;   // lft only: pairs the tables do not route carry nothing (else refused)
  std::string opensm_engine;      // opensm only: minhop, updn, dnup, dfsssp, ftree
  std::string roots;              // opensm only: a file of root switch GUIDs; empty: the engine's own
  std::uint8_t opensm_lmc = 0;    // opensm only: OpenSM's -l
  std::string sm;                 // opensm only: the subnet manager's port or node GUID; empty: the default
  // On GPU nodes (GpuNodeLinks): a GPU's traffic to another node's GPU first crosses NVLink to
  // the GPU of its node on the destination NIC's rail (NCCL's PXN); false: through its own NIC.
  bool gpu_pxn = false;
};

RoutingSpec parse_routing_spec(std::string_view text);
// The documented default of each machine family (docs/routings.md).
RoutingSpec default_routing(const Machine& machine);
// Throws Error naming the routings that do apply when `spec` does not apply to the machine.
void check_routing_applies(const Machine& machine, const RoutingSpec& spec);
// Throws Error when the routing does not apply to the machine. `warn` receives one line per
// oddity of the forwarding tables an lft: routing reads (the fabric readers' WarningSink).
std::unique_ptr<Routing> make_routing(const Machine& machine, const RoutingSpec& spec,
                                      const std::function<void(const std::string&)>& warn = {});

}  // namespace taskmap
