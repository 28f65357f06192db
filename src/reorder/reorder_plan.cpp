#include "taskmap/reorder/reorder_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <charconv>
#include <map>
#include <numeric>
#include <optional>
#include <ranges>
#include <set>

#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"
#include "taskmap/eval/evaluator.h"
#include "taskmap/eval/recommendation.h"
#include "taskmap/eval/report.h"
#include "taskmap/launch/placement.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/map/portfolio/auto_mapper.h"
#include "taskmap/problem/problem.h"
#include "taskmap/topology/allocation.h"
#include "taskmap/topology/machine_spec.h"

namespace taskmap {
namespace {

// The plan's share of the time limit, in percent: the rest is the margin for a core slower than
// those the work rate was measured on, and for what the plan does besides the mapping (reading
// the machine, the evaluations of the report). Measured: 16,384 ranks on Edison at the share of
// a 10 s limit, 5.2 s on a quiet core and 8.0 s beside two busy processes on two cores.
constexpr double kPlanPercentOfLimit = 70;

// The job's machine: the processes' nodes get as many slots as processes run on them.
Allocation allocation_of(const std::vector<std::string>& hosts) {
  Allocation allocation;
  allocation.source = "the processes' hosts";
  std::map<std::string, std::size_t> index;
  for (const std::string& h : hosts) {
    auto [it, added] = index.emplace(h, allocation.hosts.size());
    if (added) allocation.hosts.push_back(h), allocation.slots.push_back(0);
    ++allocation.slots[it->second];
  }
  return allocation;
}

// With a node model, processes sit on the cores their CPUs belong to: `cores` are the model's
// slots in use (ascending), `position[p]` is process p's index among them.
struct CoreBinding {
  std::vector<std::uint32_t> cores;
  std::vector<std::uint32_t> position;
};

// The binding when it is one the job's machine can express: every CPU known and inside the
// model, no two processes of a node on one core, and every node using the same cores (the
// usual binding, the same cores on every node). nullopt otherwise, with the reason in `why_not`.
std::optional<CoreBinding> bind_to_cores(const NodeModel& model, const std::vector<std::string>& hosts,
                                         const std::vector<int>& cpus, std::string& why_not) {
  std::vector<std::uint32_t> core(hosts.size());
  std::map<std::string, std::map<std::uint32_t, std::size_t>> process_of_core;  // per host
  for (std::size_t p = 0; p < hosts.size(); ++p) {
    if (cpus[p] < 0) {
      why_not = fmt::format("process {}'s CPU is unknown (sched_getcpu failed)", p);
      return std::nullopt;
    }
    const auto slot = model.slot_of_os_cpu(static_cast<std::uint32_t>(cpus[p]));
    if (!slot) {
      why_not = fmt::format("process {}'s CPU {} is not in the node model", p, cpus[p]);
      return std::nullopt;
    }
    if (auto [it, added] = process_of_core[hosts[p]].emplace(*slot, p); !added) {
      why_not = fmt::format("processes {} and {} share core {} of {} (CPUs {} and {})", it->second, p, *slot, hosts[p],
                            cpus[it->second], cpus[p]);
      return std::nullopt;
    }
    core[p] = *slot;
  }
  const auto& [first_host, first] = *process_of_core.begin();
  for (const auto& [host, cores] : process_of_core) {
    // The same cores: the maps' keys alike (std::views::keys on a std::map does not build with
    // clang 14 and libstdc++ 12, which the fuzz build uses).
    const auto same_core = [](const auto& a, const auto& b) { return a.first == b.first; };
    if (cores.size() != first.size() || !std::equal(cores.begin(), cores.end(), first.begin(), same_core)) {
      why_not = fmt::format("{} and {} use different cores", first_host, host);
      return std::nullopt;
    }
  }
  CoreBinding binding;
  for (const auto& entry : first) binding.cores.push_back(entry.first);
  for (std::uint32_t c : core) {
    binding.position.push_back(
        static_cast<std::uint32_t>(std::lower_bound(binding.cores.begin(), binding.cores.end(), c) - binding.cores.begin()));
  }
  return binding;
}

// Each process's slot. Bound to cores: the slot of its core on its node. Otherwise the
// processes of a node take its slots in the order of their CPUs (then ranks), so that slot k
// of a node is the k-th CPU the job uses there.
std::vector<SlotId> slots_of_processes(const Machine& job, const std::vector<std::string>& hosts,
                                       const std::vector<int>& cpus, const std::optional<CoreBinding>& binding) {
  std::map<std::string, NodeId> node_of_name;
  for (NodeId n = 0; n < job.num_nodes(); ++n) node_of_name.emplace(job.node_name(n), n);
  std::vector<SlotId> slot(hosts.size());
  if (binding) {
    for (std::size_t p = 0; p < hosts.size(); ++p) {
      slot[p] = job.first_slot_of_node(node_of_name.at(hosts[p])) + binding->position[p];
    }
    return slot;
  }
  std::vector<int> order(hosts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return std::pair(hosts[a], cpus[a]) < std::pair(hosts[b], cpus[b]);
  });
  std::map<NodeId, std::uint32_t> used;
  for (int p : order) {
    const NodeId n = node_of_name.at(hosts[p]);  // allocate() checked every name
    slot[p] = job.first_slot_of_node(n) + used[n]++;
  }
  return slot;
}

// The job's machine and where its processes sit, read from the request.
struct Setup {
  Machine job;
  Allocation allocation;
  std::optional<CoreBinding> binding;
  std::string slots_reason;  // the report's process_slots_reason
  std::vector<SlotId> slot_of_process;
};

Setup prepare(const ReorderRequest& request) {
  Setup setup;
  MachineSpec spec = parse_machine_spec(request.machine);
  std::shared_ptr<const NodeModel> model;
  if (!request.node_topology.empty()) model = read_node_topology(request.node_topology, SlotUnit::Core);
  // GPU jobs: a fabric's GPU nodes are built into it (a router per GPU and per NIC).
  const bool gpus = model && model->unit == SlotUnit::Gpu;
  if (gpus && is_fabric(spec.kind)) spec.node_topology = request.node_topology;
  Machine machine = build_machine(spec);
  setup.slots_reason = "no node model (TASKMAP_NODE_TOPOLOGY)";
  if (gpus) {
    if (!machine.node_model) machine = with_node_model(std::move(machine), model);
    setup.slots_reason = "one process per GPU: a node's processes on its GPUs in rank order (local rank k on GPU k)";
  } else if (model) {
    setup.binding = bind_to_cores(*model, request.hosts, request.cpus, setup.slots_reason);
    if (setup.binding) setup.slots_reason = "every process on a core of its own, the same cores on every node";
    if (setup.binding) model = std::make_shared<const NodeModel>(model->restricted_to(setup.binding->cores));
    machine = with_node_model(std::move(machine), std::move(model));
  }
  setup.allocation = allocation_of(request.hosts);
  setup.job = allocate(machine, setup.allocation);
  // GPU slots follow the ranks, not the CPUs: the same CPU for every process orders them by rank.
  setup.slot_of_process =
      slots_of_processes(setup.job, request.hosts, gpus ? std::vector<int>(request.cpus.size(), 0) : request.cpus, setup.binding);
  return setup;
}

// Runs `step` on every process; when it throws an Error on any of them, every one throws (its
// own message, or that another failed), so that none goes on alone into the collective steps.
template <typename Step>
auto on_every_process(const dist::Processes& processes, Step&& step) {
  std::optional<decltype(step())> result;
  std::string error;
  try {
    result.emplace(step());
  } catch (const Error& e) {
    error = e.what();
  }
  if (processes.size() > 1) {
    double failed = error.empty() ? 0.0 : 1.0;
    processes.max(std::span<double>(&failed, 1));
    if (failed > 0 && error.empty()) error = "another planning process failed to read the job's machine";
  }
  if (!error.empty()) throw Error(error);
  return std::move(*result);
}

}  // namespace

ReorderPlan plan_reorder(const ReorderRequest& request) {
  const std::size_t processes = request.hosts.size();
  const CommGraph& graph = request.graph;
  if (graph.num_tasks() > processes) {
    fail("{} describes {} ranks, but the communicator has {} processes", request.call, graph.num_tasks(), processes);
  }
  if (request.machine.empty()) fail("no machine: set TASKMAP_MACHINE (e.g. slurm:/etc/slurm/topology.conf)");
  const dist::Processes& planners = request.processes ? *request.processes : dist::this_process_only();
  // Read on every planning process, each from its own files: one that fails stops them all.
  Setup setup = on_every_process(planners, [&] { return prepare(request); });
  const Machine& job = setup.job;
  const std::optional<CoreBinding>& binding = setup.binding;
  const std::string& slots_reason = setup.slots_reason;
  const Allocation& allocation = setup.allocation;
  const std::vector<SlotId>& slot_of_process = setup.slot_of_process;
  std::map<SlotId, int> process_of_slot;
  for (std::size_t p = 0; p < processes; ++p) process_of_slot[slot_of_process[p]] = static_cast<int>(p);

  MappingProblem problem = MappingProblem(job, graph, request.routing).on_processes(planners);
  if (request.cancel) problem.share_cancel_flag(request.cancel);
  const std::string mapper_text = request.mapper.empty() ? reorder_mapper(request.seconds, request.workers) : request.mapper;
  const MapperSpec spec = parse_mapper_spec(mapper_text);
  if (const std::string why = why_not_applicable(spec, problem); !why.empty()) fail("mapper '{}': {}", mapper_text, why);
  Mapping chosen = make_mapper(spec)->run(problem);
  validate_mapping(chosen, job, graph.num_tasks(), mapper_text);
  Mapping identity;
  for (TaskId v = 0; v < graph.num_tasks(); ++v) identity.slot_of_task.push_back(slot_of_process[v]);

  // The mapper's order only when it is better: lower MCL, or the same MCL and fewer hop-bytes,
  // or both the same and less traffic between the packages and caches inside the nodes.
  const Evaluator evaluator(problem);
  const Metrics identity_metrics = evaluator.evaluate(graph, identity);
  const Metrics chosen_metrics = evaluator.evaluate(graph, chosen);
  auto better = [](const Metrics& a, const Metrics& b) {
    const double tolerance = 1e-9 * std::max(1.0, std::abs(b.mcl));
    if (a.mcl < b.mcl - tolerance) return true;
    if (a.mcl > b.mcl + tolerance) return false;
    if (a.hop_bytes < b.hop_bytes * (1 - 1e-12)) return true;
    return a.hop_bytes <= b.hop_bytes * (1 + 1e-12) && a.node_hop_bytes < b.node_hop_bytes * (1 - 1e-12);
  };
  const bool keep_chosen = better(chosen_metrics, identity_metrics);
  const Mapping& result = keep_chosen ? chosen : identity;

  ReorderPlan plan;
  if (spec.stages.front().entry().name == "auto") plan.worker_seconds = auto_worker_seconds();
  for (TaskId v = 0; v < graph.num_tasks(); ++v) plan.process_of_vertex.push_back(process_of_slot.at(result.slot_of_task[v]));
  nlohmann::json edges = nlohmann::json::array();
  for (TaskId t = 0; t < graph.num_tasks(); ++t) {
    auto targets = graph.targets(t);
    auto volumes = graph.volumes(t);
    for (std::size_t i = 0; i < targets.size(); ++i) edges.push_back({t, targets[i], volumes[i]});
  }
  std::string nodes;
  for (std::size_t h = 0; h < allocation.hosts.size(); ++h) {
    nodes += fmt::format("{} slots={}\n", allocation.hosts[h], allocation.slots[h]);
  }
  plan.report = {{"call", request.call},
                 {"machine", request.machine},
                 {"node_topology", request.node_topology},
                 {"routing", problem.routing_name()},
                 {"mapper", mapper_text},
                 {"processes", processes},
                 {"vertices", graph.num_tasks()},
                 {"edges", edges},
                 {"hosts", request.hosts},
                 {"cpus", request.cpus},
                 {"process_slots", binding ? "cores" : has_gpu_slots(problem.machine()) ? "gpus" : "cpu-order"},
                 {"process_slots_reason", slots_reason},
                 {"nodes", nodes},
                 {"permutation", plan.process_of_vertex},
                 {"placement", format_placement(result, job, PlacementFormat::Plain)},
                 {"identity_placement", format_placement(identity, job, PlacementFormat::Plain)},
                 {"identity", metrics_to_json(identity_metrics)},
                 {"mapper_result", metrics_to_json(chosen_metrics)},
                 {"kept", keep_chosen ? "mapper" : "identity"}};
  return plan;
}

std::string reorder_mapper(double seconds, std::uint32_t workers) {
  const double work = std::floor(seconds * static_cast<double>(kWorkUnitsPerSecond) * kPlanPercentOfLimit / 100 / 1e6);
  return fmt::format("auto:work={}{}", static_cast<std::uint64_t>(std::clamp(work, 1.0, double(1 << 30))),
                     workers > 1 ? fmt::format(",workers={}", workers) : "");
}

CommGraph cart_graph(std::span<const int> dims, std::span<const int> periods) {
  const std::size_t n = dims.size();
  std::uint64_t vertices = 1;
  for (int d : dims) {
    if (d <= 0) fail("Cartesian dimension {}: must be positive", d);
    vertices *= static_cast<std::uint64_t>(d);
    if (vertices > (std::uint64_t{1} << 31)) fail("Cartesian grid of more than 2^31 ranks");
  }
  std::vector<CommEdge> edges;
  std::vector<int> coord(n);
  for (std::uint64_t r = 0; r < vertices; ++r) {
    std::uint64_t rest = r;
    for (std::size_t d = n; d-- > 0;) coord[d] = static_cast<int>(rest % static_cast<std::uint64_t>(dims[d])), rest /= static_cast<std::uint64_t>(dims[d]);
    for (std::size_t d = 0; d < n; ++d) {
      for (int step : {-1, 1}) {
        int c = coord[d] + step;
        if (c < 0 || c >= dims[d]) {
          if (!periods[d] || dims[d] == 1) continue;
          c = (c + dims[d]) % dims[d];
        }
        std::uint64_t neighbour = 0;
        for (std::size_t e = 0; e < n; ++e) neighbour = neighbour * static_cast<std::uint64_t>(dims[e]) + static_cast<std::uint64_t>(e == d ? c : coord[e]);
        edges.push_back({static_cast<TaskId>(r), static_cast<TaskId>(neighbour), 1.0});
      }
    }
  }
  return CommGraph::from_edges(static_cast<std::uint32_t>(vertices), std::move(edges));
}

std::string reorder_summary(const nlohmann::json& report, const std::string& report_path) {
  const nlohmann::json &before = report.at("identity"), &after = report.at("mapper_result");
  // "MCL 66 -> 18 (73% lower)": the identity order's value, the mapper's, the change.
  auto quantity = [&](const char* name, const char* key) {
    const double a = before.at(key).get<double>(), b = after.at(key).get<double>();
    std::string change = "same";
    if (compare_within_rounding(b, a) != 0) {
      change = a == 0 ? "from 0" : percent_text((b - a) / a) + (b < a ? " lower" : " higher");
    }
    return fmt::format("{} {:.6g} -> {:.6g} ({})", name, a, b, change);
  };
  std::string metrics = quantity("MCL", "mcl") + ", " + quantity("hop-bytes", "hop_bytes");
  if (!report.at("node_topology").get<std::string>().empty()) metrics += ", " + quantity("node hop-bytes", "node_hop_bytes");
  const std::vector<std::string> hosts = report.at("hosts");
  const std::size_t nodes = std::set<std::string>(hosts.begin(), hosts.end()).size();
  const std::string mapper = report.at("mapper");
  const std::string outcome = report.at("kept") == "mapper" ? "reordered by " + mapper + ": "
                                                            : "keeps the identity order, " + mapper + "'s is no better: ";
  return fmt::format("taskmap reorder: {}: {} ranks on {} node{}, {}{}{}", report.at("call").get<std::string>(),
                     report.at("vertices").get<std::size_t>(), nodes, nodes == 1 ? "" : "s", outcome, metrics,
                     report_path.empty() ? "" : " (report: " + report_path + ")");
}

std::vector<std::string> fake_hosts(const std::string& value, int processes) {
  std::vector<std::string> host(static_cast<std::size_t>(processes));
  if (value.starts_with("@")) {
    const std::string text = io::read_text_file(value.substr(1));
    std::size_t rank = 0, start = 0;
    while (start < text.size() && rank < host.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      host[rank++] = text.substr(start, end - start);
      start = end + 1;
    }
  } else {
    std::size_t start = 0;
    while (start <= value.size()) {
      std::size_t end = value.find(',', start);
      if (end == std::string::npos) end = value.size();
      const std::string item = value.substr(start, end - start);
      const std::size_t colon = item.rfind(':');
      if (colon == std::string::npos || colon == 0) {
        fail("TASKMAP_FAKE_HOST '{}': item '{}' is not host:rank or host:first-last", value, item);
      }
      const std::string ranks = item.substr(colon + 1);
      const std::size_t dash = ranks.find('-');
      int first = 0, last = 0;
      const auto parse = [&](std::string_view s, int& out) {
        auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        if (ec != std::errc() || ptr != s.data() + s.size() || s.empty() || out < 0) {
          fail("TASKMAP_FAKE_HOST '{}': '{}' is not a rank", value, s);
        }
      };
      parse(std::string_view(ranks).substr(0, dash), first);
      if (dash == std::string::npos) last = first;
      else parse(std::string_view(ranks).substr(dash + 1), last);
      for (int r = first; r <= last && r < processes; ++r) host[static_cast<std::size_t>(r)] = item.substr(0, colon);
      start = end + 1;
    }
  }
  for (std::size_t r = 0; r < host.size(); ++r) {
    if (host[r].empty()) fail("TASKMAP_FAKE_HOST '{}' names no host for rank {}", value, r);
  }
  return host;
}

}  // namespace taskmap
