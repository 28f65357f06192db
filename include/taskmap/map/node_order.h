#pragma once
// Ranks inside a node: a mapper decides which node each task goes to; where the node has an
// inside (a NodeModel: packages, NUMA nodes, caches, cores), the tasks a node holds are then
// arranged on its slots so that heavy partners share the deepest level they can.
#include "taskmap/problem/problem.h"

namespace taskmap {

// Rearranges, node by node, the tasks on each node's occupied slots (the set of slots stays the
// same) to lower node_hop_bytes (Metrics): the slots are split level by level of the node model
// and the tasks cut into groups of those sizes, each grown from its heaviest task by the
// heaviest attached one. A node keeps its arrangement unless the new one is strictly better,
// so the result is never worse. No-op without a node model, and on nodes where a slot holds
// several tasks.
void order_within_nodes(const MappingProblem& problem, Mapping& mapping);

}  // namespace taskmap
