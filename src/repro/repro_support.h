#pragma once
// Shared helpers of the reproductions.
#include <string>

#include "taskmap/eval/evaluator.h"
#include "taskmap/workload/comm_graph.h"
#include "taskmap/repro/reproduce.h"
#include "taskmap/topology/machine.h"

namespace taskmap::repro {

// Evaluates the named mapper and routing ("" = the machine's default routing).
Metrics evaluate(const Machine& machine, const CommGraph& graph, const std::string& mapper,
                 const std::string& routing = "");

// Rounds half to even, as the PERCS paper's tables do.
double round_half_even(double x);

Cell& add_cell(Table& table, std::string row, std::string column);

}  // namespace taskmap::repro
