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

// Gives every node's tasks, in task order, the same slots of their node (slot k of the node for
// its k-th task), as srun's --cpu-bind=map_cpu needs: one list for every node. The candidates
// are the nodes' own arrangements (of the nodes holding the most tasks; at most the first 64
// distinct ones) and the slots in order; the one with the least node_hop_bytes over the whole
// job is applied (ties: the first node's; a node holding fewer tasks takes its first slots). The nodes keep their tasks, so every network metric stays. Returns false,
// and leaves the mapping as it is, when the nodes already share one arrangement, or when no
// candidate fits every node's slots, or a slot holds several tasks.
bool share_one_layout_across_nodes(const MappingProblem& problem, Mapping& mapping);

}  // namespace taskmap
