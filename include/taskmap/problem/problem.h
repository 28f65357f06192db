#pragma once
// MappingProblem: one run's problem, built once and handed to every mapper and to the
// evaluator. It holds the machine, the task graph, the routing the user chose (or the
// machine's default), the balance of many-to-one mappings and the route caches that the
// routing-aware mappers share. No mapper builds a routing of its own: a mapper that optimizes
// channel loads optimizes them under this routing, and an adaptive routing (UGAL) under its
// oblivious split (Routing::route).
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "taskmap/core/error.h"
#include "taskmap/dist/processes.h"
#include "taskmap/problem/mapping.h"
#include "taskmap/routing/route_cache.h"
#include "taskmap/routing/routing.h"
#include "taskmap/topology/distance.h"
#include "taskmap/topology/machine.h"
#include "taskmap/workload/comm_graph.h"

namespace taskmap {

class MappingProblem {
 public:
  // The balance of many-to-one mappings when none is given: Scotch's and TiMEr's 3%.
  static constexpr double kDefaultImbalance = 0.03;

  // `routing` empty: the machine's default routing. Throws Error when the routing does not
  // apply to the machine, or `imbalance` is outside [0, 1). Machine and graph must outlive the
  // problem.
  // `warn` receives one line per oddity of the routing's inputs (the forwarding tables an lft:
  // routing reads).
  MappingProblem(const Machine& machine, const CommGraph& graph, const std::string& routing = "",
                 double imbalance = kDefaultImbalance, const std::function<void(const std::string&)>& warn = {});
  // The same problem for another task graph of the same job size or not (e.g. a task graph
  // given a grid): shares the routing and the route caches.
  MappingProblem with_graph(const CommGraph& graph) const;
  // The same problem (shared routing and caches) for a run spread over `processes`.
  MappingProblem on_processes(const dist::Processes& processes) const;

  const Machine& machine() const { return *machine_; }
  const CommGraph& graph() const { return *graph_; }
  const Routing& routing() const { return *shared_->routing; }
  // The routing's spec text, e.g. "minimal" or "dor:EDCBA".
  const std::string& routing_name() const { return shared_->routing_name; }
  double imbalance() const { return imbalance_; }
  // Tasks one slot may hold: 1 when the job fits the machine, else the balance's share.
  std::uint32_t tasks_per_slot() const;
  // The processes the run spreads its work over: this process alone unless on_processes says
  // otherwise. Only a mapper that works with all of them (ptscotch) uses them; every process
  // then runs that mapper, and gets the same mapping.
  const dist::Processes& processes() const { return *processes_; }

  // Cooperative cancellation, for a caller that must stop a mapper it no longer waits for
  // (the MPI reorder library past its time limit): cancel() may come from any thread, and the
  // mappers' loops call stop_if_cancelled(), which then throws Cancelled. Every problem made
  // from this one (with_graph, on_processes, under_default_routing) shares the flag.
  void cancel() const { cancelled_->store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_->load(std::memory_order_relaxed); }
  void stop_if_cancelled() const {
    if (cancelled()) throw Cancelled();
  }
  // Makes `flag` this problem's cancellation flag (before any mapper runs): a caller that keeps
  // it cancels from outside without holding the problem.
  void share_cancel_flag(std::shared_ptr<std::atomic<bool>> flag) { cancelled_ = std::move(flag); }

  // Routes of router pairs under routing() divided by the channels' bandwidths, computed on
  // first use and shared by every mapper of the run. Thread-safe.
  RouteCache& route_cache() const;
  ExactRouteCache& exact_route_cache() const;
  // Hop distances between routers, shared by every mapper and evaluation of the run (on
  // fabrics their breadth-first rows are the costly part). Thread-safe.
  const HopDistance& hop_distance() const;

  // The same problem under the machine's default routing, when the run's routing is another
  // one and the default is oblivious; else null. A search may use it as a smoother stand-in:
  // e.g. on a torus the even split over minimal paths, for DOR's single paths.
  std::optional<MappingProblem> under_default_routing() const;

 private:
  struct Shared {
    std::unique_ptr<Routing> routing;
    std::string routing_name;
    std::mutex mutex;
    std::unique_ptr<RouteCache> routes;
    std::unique_ptr<ExactRouteCache> exact_routes;
    std::unique_ptr<HopDistance> distance;
    bool default_checked = false;
    std::shared_ptr<Shared> under_default;  // routing and caches of the default routing
  };
  MappingProblem(const Machine& machine, const CommGraph& graph, std::shared_ptr<Shared> shared, double imbalance,
                 const dist::Processes& processes, std::shared_ptr<std::atomic<bool>> cancelled)
      : machine_(&machine), graph_(&graph), shared_(std::move(shared)), imbalance_(imbalance), processes_(&processes),
        cancelled_(std::move(cancelled)) {}

  const Machine* machine_;
  const CommGraph* graph_;
  std::shared_ptr<Shared> shared_;
  double imbalance_;
  const dist::Processes* processes_ = &dist::this_process_only();
  std::shared_ptr<std::atomic<bool>> cancelled_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace taskmap
