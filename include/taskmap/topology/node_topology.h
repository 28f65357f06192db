#pragma once
// Node topologies as given on the command line (--node-topology, a fabric machine's node=):
// "hwloc:FILE[,slots=core|pu|gpu]" (hwloc XML) or "gpus:N[,nics=M,nvlink=GBs,pcie=GBs]" (a
// GPU node described by counts). The table is src/topology/node_topology.cpp.
#include <memory>
#include <optional>
#include <string_view>

#include "taskmap/core/catalog.h"
#include "taskmap/topology/node_model.h"

namespace taskmap {

const Catalog& node_topology_catalog();

// The node model of a spec; `unit`: the slots when the spec does not say (a machine's slots=).
// Throws Error naming the spec (or the file and hwloc's reason).
std::shared_ptr<const NodeModel> read_node_topology(std::string_view spec, SlotUnit unit);
// Checks a spec without reading its file: throws UsageError for a malformed one.
void check_node_topology_spec(std::string_view spec);

}  // namespace taskmap
