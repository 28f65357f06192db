#pragma once
// The routing catalog: every routing `--routing` accepts, with its parameters, the machines it
// applies to (a check on the Machine) and its reference. The table is
// src/routing/routing_catalog.cpp. A machine's default routing is the first entry, in table
// order, that applies to it and may be its default (Catalog::default_entry).
#include <string>
#include <vector>

#include "taskmap/core/catalog.h"
#include "taskmap/topology/machine.h"

namespace taskmap {

// Entries are tagged with their RoutingKind (routing.h); their checks take a Machine.
const Catalog& routing_catalog();

// The names of the routings that apply to `machine`, in table order.
std::vector<std::string> routings_for(const Machine& machine);

}  // namespace taskmap
