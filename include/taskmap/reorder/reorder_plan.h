#pragma once
// The rank order an MPI topology constructor (MPI_Cart_create, MPI_Graph_create,
// MPI_Dist_graph_create*) with reorder = true should return: the processes of the input
// communicator are placed on the machine by the node they run on and their CPU, the graph the
// call describes is mapped onto their slots, and each vertex (a rank of the new communicator)
// goes to the process on the slot its task got. Pure computation: the MPI side
// (libtaskmap-reorder-*.so) gathers the inputs and builds the communicator.
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "taskmap/dist/processes.h"
#include "taskmap/workload/comm_graph.h"

namespace taskmap {

// TASKMAP_REORDER_SECONDS's default.
inline constexpr double kDefaultReorderSeconds = 10;

struct ReorderRequest {
  std::string call;                // "MPI_Cart_create", ... (for messages and the report)
  CommGraph graph;                 // vertices = ranks of the new communicator
  std::vector<std::string> hosts;  // per process of the input communicator: its node's name
  std::vector<int> cpus;           // per process: its CPU (sched_getcpu), -1 when unknown
  std::string machine;             // a machine spec (TASKMAP_MACHINE)
  std::string node_topology;       // "hwloc:FILE" or empty (TASKMAP_NODE_TOPOLOGY)
  std::string routing;             // empty: the machine's default (TASKMAP_ROUTING)
  std::string mapper;              // empty: reorder_mapper(seconds) (TASKMAP_MAPPER)
  double seconds = kDefaultReorderSeconds;  // the time limit (TASKMAP_REORDER_SECONDS)
  // The workers the default mapper's jobs are spread over (auto's workers=): 1, rank 0 alone.
  std::uint32_t workers = 1;
  // The processes that plan together (the library's workers, one per node), each with the same
  // request: the mapper's jobs and the evaluations are spread over them, and every one of them
  // gets the same plan. Null: this process alone.
  const dist::Processes* processes = nullptr;
  // Set from another thread, it stops the mapping at its next check (MappingProblem::cancel):
  // plan_reorder then throws Cancelled.
  std::shared_ptr<std::atomic<bool>> cancel;
};

// The mapper of a plan without TASKMAP_MAPPER: auto with the work a core does in 70% of the
// time limit (kWorkUnitsPerSecond units a second; at least 1 million): the same plan for the
// same job on every run, whatever the load, and within the limit on any core at least as fast
// as the ones the rate was measured on (docs/mpi.md, "The time limit").
std::string reorder_mapper(double seconds, std::uint32_t workers = 1);

// The graph MPI_Cart_create describes: ranks numbered row-major (the last dimension fastest),
// one unit of traffic to each neighbour along every dimension, both ways; a periodic dimension
// wraps around (both neighbours of a rank in a periodic dimension of 2 are the same rank: 2
// units). Dimensions of size 1 add no edge.
CommGraph cart_graph(std::span<const int> dims, std::span<const int> periods);

struct ReorderPlan {
  // process_of_vertex[v]: the input communicator's rank that becomes rank v; every process
  // appears at most once (not at all when the graph has fewer vertices than processes).
  std::vector<int> process_of_vertex;
  nlohmann::json report;  // docs/mpi.md describes it
  // The seconds each worker of the mapper spent (auto's Mapping::worker_seconds; empty for
  // another mapper): a measurement, not in the report.
  std::vector<double> worker_seconds;
};

// Throws Error with the reason when the plan cannot be made (unknown machine or host, mapper
// error): the caller then keeps the identity order.
ReorderPlan plan_reorder(const ReorderRequest& request);

// The line the reorder library prints on stderr after a plan (docs/mpi.md), from its report:
//   taskmap reorder: MPI_Cart_create: 36 ranks on 4 nodes, reordered by auto: MCL 66 -> 18
//   (73% lower), hop-bytes 780 -> 252 (68% lower) (report: r.json)
// (one line), the identity order's metrics first; when the mapper's order is no better,
// "keeps the identity order, auto's is no better: MCL ...". Node hop-bytes follow with a node
// model. Numbers as %.6g; " (report: PATH)" only with a report path.
std::string reorder_summary(const nlohmann::json& report, const std::string& report_path);

// The node of each process under TASKMAP_FAKE_HOST: "@FILE" (line i names rank i's host) or
// "host:RANKS,..." items with RANKS a rank or a range "first-last". Throws Error naming the
// value and the problem, or a rank the value leaves without a host.
std::vector<std::string> fake_hosts(const std::string& value, int processes);

}  // namespace taskmap
