#include "taskmap/problem/problem.h"

#include "taskmap/core/error.h"

namespace taskmap {

MappingProblem::MappingProblem(const Machine& machine, const CommGraph& graph, const std::string& routing,
                               double imbalance, const std::function<void(const std::string&)>& warn)
    : machine_(&machine), graph_(&graph), shared_(std::make_shared<Shared>()), imbalance_(imbalance) {
  if (!(imbalance >= 0 && imbalance < 1)) fail("imbalance {}: must be in [0, 1)", imbalance);
  const RoutingSpec spec = routing.empty() ? default_routing(machine) : parse_routing_spec(routing);
  shared_->routing = make_routing(machine, spec, warn);
  shared_->routing_name = spec.text;
}

MappingProblem MappingProblem::with_graph(const CommGraph& graph) const {
  return MappingProblem(*machine_, graph, shared_, imbalance_, *processes_, cancelled_);
}

MappingProblem MappingProblem::on_processes(const dist::Processes& processes) const {
  return MappingProblem(*machine_, *graph_, shared_, imbalance_, processes, cancelled_);
}

std::uint32_t MappingProblem::tasks_per_slot() const {
  return taskmap::tasks_per_slot(graph_->num_tasks(), machine_->num_slots(), imbalance_);
}

RouteCache& MappingProblem::route_cache() const {
  std::lock_guard lock(shared_->mutex);
  if (!shared_->routes) shared_->routes = std::make_unique<RouteCache>(*machine_, *shared_->routing);
  return *shared_->routes;
}

ExactRouteCache& MappingProblem::exact_route_cache() const {
  std::lock_guard lock(shared_->mutex);
  if (!shared_->exact_routes) shared_->exact_routes = std::make_unique<ExactRouteCache>(*machine_, *shared_->routing);
  return *shared_->exact_routes;
}

const HopDistance& MappingProblem::hop_distance() const {
  std::lock_guard lock(shared_->mutex);
  if (!shared_->distance) shared_->distance = std::make_unique<HopDistance>(*machine_);
  return *shared_->distance;
}

std::optional<MappingProblem> MappingProblem::under_default_routing() const {
  std::lock_guard lock(shared_->mutex);
  if (!shared_->default_checked) {
    shared_->default_checked = true;
    const MappingProblem other(*machine_, *graph_, default_routing(*machine_).text, imbalance_);
    if (other.routing_name() != routing_name() && !other.routing().adaptive()) shared_->under_default = other.shared_;
  }
  if (!shared_->under_default) return std::nullopt;
  return MappingProblem(*machine_, *graph_, shared_->under_default, imbalance_, *processes_, cancelled_);
}

}  // namespace taskmap
