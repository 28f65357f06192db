// reorder-plan: the MPI reorder library's planning without MPI. The job's processes are the
// --nodes' hosts in the launcher's block order (each host's processes one after the other),
// the graph is a pattern or the Cartesian grid MPI_Cart_create describes, and plan_reorder
// runs as rank 0 of the library runs it, within the same time limit's work.
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <map>

#include <tbb/global_control.h>

#include "commands.h"
#include "job.h"
#include "taskmap/core/atomic_file.h"
#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"
#include "taskmap/reorder/reorder_plan.h"
#include "taskmap/topology/allocation.h"
#include "taskmap/topology/machine_spec.h"
#include "taskmap/workload/pattern_spec.h"

namespace taskmap::cli {
namespace {

// "32x32x16", "32x32x16,periodic" (every dimension wraps) or "32x32x16,periods=1x1x0".
CommGraph cart_argument(const std::string& text) {
  const std::size_t comma = text.find(',');
  const std::string sizes = text.substr(0, comma), rest = comma == std::string::npos ? "" : text.substr(comma + 1);
  auto numbers = [&](const std::string& list, const char* what) {
    std::vector<int> out;
    for (std::size_t start = 0; start <= list.size();) {
      std::size_t end = list.find('x', start);
      if (end == std::string::npos) end = list.size();
      const std::string item = list.substr(start, end - start);
      const auto value = io::parse_int(item);
      if (!value || *value < 0 || *value > (1 << 30)) usage_fail("--cart '{}': {} '{}' is not a number", text, what, item);
      out.push_back(static_cast<int>(*value));
      start = end + 1;
    }
    return out;
  };
  const std::vector<int> dims = numbers(sizes, "size");
  std::vector<int> periods(dims.size(), 0);
  if (rest == "periodic") {
    periods.assign(dims.size(), 1);
  } else if (rest.starts_with("periods=")) {
    periods = numbers(rest.substr(8), "period");
    if (periods.size() != dims.size()) usage_fail("--cart '{}': {} periods for {} dimensions", text, periods.size(), dims.size());
  } else if (!rest.empty()) {
    usage_fail("--cart '{}': after the sizes, 'periodic' or 'periods=P1xP2...' (0 or 1 each)", text);
  }
  for (int d : dims) {
    if (d == 0) usage_fail("--cart '{}': a dimension of size 0", text);
  }
  return cart_graph(dims, periods);
}

}  // namespace

int run_reorder_plan(const RunConfig& c) {
  if (c.pattern.empty() == c.cart.empty()) usage_fail("reorder-plan: give --pattern or --cart (one of them)");
  if (!(c.seconds > 0)) usage_fail("--seconds {}: must be positive", c.seconds);
  if (!c.out.empty()) io::check_output_path(c.out, io::OutputKind::File, "--out");
  if (!c.report.empty()) io::check_output_path(c.report, io::OutputKind::File, "--report");
  ReorderRequest request;
  request.call = c.cart.empty() ? "MPI_Dist_graph_create" : "MPI_Cart_create";
  request.graph = c.cart.empty() ? build_pattern(parse_pattern_spec(c.pattern)) : cart_argument(c.cart);
  request.machine = c.machine;
  request.node_topology = c.node_topology;
  request.routing = c.routing;
  request.mapper = c.mapper;
  request.seconds = c.seconds;
  request.workers = c.workers;
  // The processes: each host of --nodes with its count, or all of its node's slots (all: every
  // node of the machine, in its order).
  if (c.nodes == "@") usage_fail("--nodes @: name the host file after '@' (@FILE)");
  Machine machine = build_machine(parse_machine_spec(c.machine));
  if (!c.node_topology.empty()) machine = with_node_model(std::move(machine), read_node_topology(c.node_topology, SlotUnit::Core));
  Allocation allocation;
  if (c.nodes == "all") {
    for (NodeId n = 0; n < machine.num_nodes(); ++n) allocation.hosts.push_back(machine.node_name(n));
  } else {
    allocation = parse_nodes_argument(c.nodes);
  }
  const Machine job = allocate(machine, allocation);
  std::map<std::string, NodeId> node_of_name;
  for (NodeId n = 0; n < job.num_nodes(); ++n) node_of_name.emplace(job.node_name(n), n);
  for (const std::string& host : allocation.hosts) {
    const auto node = node_of_name.find(host);  // allocate() took a short name for the machine's
    if (node == node_of_name.end()) fail("--nodes '{}': host {} is not named as the machine names it", c.nodes, host);
    request.hosts.insert(request.hosts.end(), job.slots_of_node(node->second), host);
  }
  request.cpus.assign(request.hosts.size(), -1);
  if (request.graph.num_tasks() > request.hosts.size()) {
    fail("the graph has {} ranks, but --nodes gives {} processes", request.graph.num_tasks(), request.hosts.size());
  }

  // One core, as rank 0 of the library plans (or each of its workers).
  const tbb::global_control one_core(tbb::global_control::max_allowed_parallelism, 1);
  const auto start = std::chrono::steady_clock::now();
  const ReorderPlan plan = plan_reorder(request);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!c.out.empty()) {
    io::AtomicFile file(c.out);
    for (int process : plan.process_of_vertex) file.stream() << process << "\n";
    file.commit();
  }
  if (!c.report.empty()) io::write_file_atomically(c.report, plan.report.dump(2) + "\n");
  std::cerr << reorder_summary(plan.report, c.report) << "\n";
  std::cerr << fmt::format("planned in {:.2f} s on one core (limit {:g} s, mapper {}){}\n", seconds, c.seconds,
                           plan.report.at("mapper").get<std::string>(),
                           c.out.empty() ? "" : fmt::format("; wrote {}: the process of each new rank", c.out));
  if (plan.worker_seconds.size() > 1) {
    std::string each;
    for (double s : plan.worker_seconds) each += fmt::format("{}{:.2f}", each.empty() ? "" : " ", s);
    std::cerr << fmt::format("the mapper's {} workers: {} s\n", plan.worker_seconds.size(), each);
  }
  return 0;
}

}  // namespace taskmap::cli
