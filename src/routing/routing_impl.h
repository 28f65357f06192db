#pragma once
// Constructors of the routing families, used only by the factory in factory.cpp.
#include <memory>

#include "taskmap/core/error.h"
#include "taskmap/routing/routing.h"

namespace taskmap::detail {

std::unique_ptr<Routing> make_torus_routing(const Machine& m, const RoutingSpec& spec);
std::unique_ptr<Routing> make_rect_torus_routing(const Machine& m, const RoutingSpec& spec);
std::unique_ptr<Routing> make_dragonfly_routing(const Machine& m, const RoutingSpec& spec);
std::unique_ptr<Routing> make_percs_routing(const Machine& m, const RoutingSpec& spec);
std::unique_ptr<Routing> make_ecmp_routing(const Machine& m);
std::unique_ptr<Routing> make_fat_tree_routing(const Machine& m);
std::unique_ptr<Routing> make_tree_routing(const Machine& m);
std::unique_ptr<Routing> make_updn_routing(const Machine& m);
// Over a machine with GPU nodes: `base` routes `network` (the machine cut at its network's
// channels) between NICs; pxn: NCCL's PXN (routing "gpu=pxn").
std::unique_ptr<Routing> make_gpu_node_routing(const Machine& m, std::unique_ptr<Machine> network,
                                               std::unique_ptr<Routing> base, bool pxn);

}  // namespace taskmap::detail
