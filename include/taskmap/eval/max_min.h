#pragma once
// The time one iteration takes when every task pair's message is a fluid flow over its routed
// channels and each channel's bandwidth is shared max-min fairly among the flows crossing it,
// re-shared whenever a flow completes (progressive filling). As in SimGrid's CM02 network
// model, the sharing is weighted: a flow's share goes as 1 / its route's latency, here its
// number of channels (every link has the same latency), so long routes get less. It refines
// the MCL bound, which assumes the busiest channel never idles.
#include <optional>

#include "taskmap/problem/mapping.h"
#include "taskmap/workload/comm_graph.h"
#include "taskmap/routing/routing.h"

namespace taskmap {

// In volume units over bandwidth units (multiply by bytes-per-unit / link bandwidth for
// seconds); latency is not included. A flow the routing splits keeps its split: it uses each
// channel at its share of the flow's rate. Traffic inside a router is free, as in the
// evaluator. Meant for validation-sized jobs: the cost grows with flows x completions, so
// jobs of more than max_flows flows get nullopt.
inline constexpr std::size_t kMaxMinFlows = 4096;
std::optional<double> max_min_completion_time(const Machine& machine, const Routing& routing, const CommGraph& graph,
                                              const Mapping& mapping, std::size_t max_flows = kMaxMinFlows);

}  // namespace taskmap
