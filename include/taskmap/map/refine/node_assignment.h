#pragma once
// On nodes whose slots have routers of their own (GPU nodes: a GPU's traffic leaves through its
// own NIC, on its own rail), which slot of a node a task takes changes its routes. Moves and
// swaps of one or two tasks stop where every single change costs; re-assigning a node's tasks
// to its slots all at once (the assignment of least hop-bytes to the tasks outside the node,
// by the Hungarian method) turns, e.g., a ring that changes rails between nodes into one that
// changes rails inside them.
#include <cstdint>

#include "taskmap/problem/problem.h"

namespace taskmap {

struct NodeAssignmentStats {
  double before = 0, after = 0;  // hop-bytes
  std::uint32_t passes = 0;
  std::uint32_t reassigned = 0;  // nodes whose tasks changed slots
};

// Node after node, each node's tasks (at most one per slot; a node holding more is left alone)
// re-assigned to its slots where that lowers the job's hop-bytes, until a pass changes no node
// or after `passes` passes. Deterministic; never raises hop-bytes. Returns `mapping` unchanged
// on machines whose nodes are one router each.
Mapping assign_within_nodes(const MappingProblem& problem, Mapping mapping, std::uint32_t passes = 4,
                            NodeAssignmentStats* stats = nullptr);

// The assignment of rows to columns of a square cost matrix (row-major, n x n) of least total
// cost: column of each row. Hungarian method with potentials, O(n^3).
std::vector<std::uint32_t> least_cost_assignment(const std::vector<double>& cost, std::uint32_t n);

}  // namespace taskmap
