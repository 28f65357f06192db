#pragma once
// Evaluator: turns (CommGraph, Mapping, Machine, Routing) into per-channel loads and the
// metrics (docs/report.md, Metrics).
#include <cstdint>
#include <string>
#include <vector>

#include "taskmap/dist/processes.h"
#include "taskmap/problem/mapping.h"
#include "taskmap/problem/problem.h"
#include "taskmap/workload/comm_graph.h"
#include "taskmap/routing/routing.h"
#include "taskmap/topology/machine.h"

namespace taskmap {

struct ClassMetrics {
  std::string name;
  double bandwidth = 0;
  double max_load = 0;        // max over the class's channels of l(e)
  double mcl = 0;             // max_load / bandwidth
  double throughput = 0;      // 1 / mcl (0 when the class carries nothing)
  std::uint64_t channels = 0;
  std::uint64_t channels_used = 0;
};

struct Metrics {
  double mcl = 0;                    // max over channels of l(e) / bw(e)
  // Classes reaching the MCL (within 1e-9 relative), in class order; several when they tie
  // exactly (e.g. PERCS transpose, n_d = 4: D and LR). Empty when nothing is routed.
  std::vector<std::string> bottleneck_class;
  std::vector<ClassMetrics> by_class;
  // Throughput per task: how many times per time unit every task can send its traffic of the
  // pattern, all tasks at once, before the busiest channel saturates: 1 / MCL. It depends on
  // the placement alone, not on the slots a node declares, so placements of a job compare by
  // it whatever the machine's ppn. Per node: times the tasks a node holds (PERCS's
  // tau = 4/t [PERCS-map §3], 4 tasks a node). 0 if MCL is 0.
  double throughput = 0;
  // MCL over the network's links only: without the nodes' injection/ejection channels
  // (LinkClass::host_link). Equal to mcl on machines without them.
  double mcl_network = 0;
  double hop_bytes = 0;                // sum of volume x hop distance
  // KaHIP's and Scotch's communication cost J: each unordered task pair's traffic (the mean of its
  // two directions) times their distance, counted once: hop_bytes / 2 whatever the graph (on a
  // symmetric graph, each undirected edge's weight x distance). On hier machines the distance is
  // the hierarchy's (HierShape::distance).
  double j = 0;
  // Traffic between tasks on one node, each byte weighted by the levels between the two slots
  // and their lowest shared level of the node model (NodeModel::distance: same core 1 level
  // up, ...); on a flat node every pair of distinct slots weighs 1. Tasks on one slot: 0.
  double node_hop_bytes = 0;
  double node_volume = 0;              // volume between tasks on one node (distinct slots or not)
  // On a fabric read from files: the volume leaving leaf switches (switches holding hosts)
  // towards other switches, i.e. crossing the leaves' uplinks. 0 on other machines.
  double leaf_uplink_volume = 0;
  double avg_dilation = 0;             // volume-weighted mean hop distance of communicating pairs
  double avg_dilation_unweighted = 0;  // plain mean over communicating task pairs
  std::uint32_t max_dilation = 0;
  double avg_routed_hops = 0;          // volume-weighted mean channels crossed under the routing
  std::uint64_t channels_used = 0;
  std::uint64_t channels_total = 0;
  double load_imbalance = 0;           // max / mean load over used channels (bandwidth-normalised)
  double total_volume = 0;
  double network_volume = 0;           // volume between tasks on different routers
  std::uint64_t task_pairs = 0;        // communicating (src, dst) task pairs
  std::uint64_t router_pairs = 0;      // distinct router pairs routed
  std::uint64_t router_pair_hops = 0;  // flow-hops: sum over router pairs of their hop distance
  std::uint64_t channel_updates = 0;   // channel-load additions performed
};

// How an evaluation splits its work. The loads depend on the input alone: they are identical
// bit for bit at any thread count and over any number of processes.
struct EvaluatorOptions {
  // Work per block, in estimated channel-load additions (hop distance + 1 per task pair
  // crossing the network). An evaluation of one block's work or less routes its router pairs
  // one by one in (source, destination) order. Beyond, router pairs are grouped by destination
  // into blocks of consecutive destinations (from the task pairs' work alone), routed in
  // parallel (Routing::add_flows_to, which may merge the flows towards one destination), each
  // block into loads of its own, and the blocks' loads added exactly (dist/exact_sum.h), over
  // the processes too. 0: 2^22, or 4 per channel if more (a block's loads are added whole).
  std::uint64_t block_work = 0;
};

class Evaluator {
 public:
  Evaluator(const Machine& machine, const Routing& routing, EvaluatorOptions options = {})
      : machine_(machine), routing_(routing), options_(options) {}
  // Under the problem's machine and routing, with its shared hop distances.
  explicit Evaluator(const MappingProblem& problem, EvaluatorOptions options = {})
      : machine_(problem.machine()), routing_(problem.routing()), distance_(&problem.hop_distance()),
        options_(options) {}
  // The same, its routing work spread over `processes` (every one of them evaluates, each
  // routing its share of the blocks): the metrics and loads are the ones this process alone
  // computes, on every process.
  Evaluator(const MappingProblem& problem, const dist::Processes& processes, EvaluatorOptions options = {})
      : Evaluator(problem, options) {
    processes_ = &processes;
  }
  // loads, if given, receives l(e) per channel id.
  Metrics evaluate(const CommGraph& graph, const Mapping& mapping, std::vector<double>* loads = nullptr) const;

 private:
  const Machine& machine_;
  const Routing& routing_;
  const HopDistance* distance_ = nullptr;  // null: each evaluation computes its own
  EvaluatorOptions options_;
  const dist::Processes* processes_ = &dist::this_process_only();
};

}  // namespace taskmap
