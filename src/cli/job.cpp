#include "job.h"

#include <fmt/format.h>

#include <iostream>

#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"
#include "taskmap/core/memory.h"

namespace taskmap::cli {

namespace {

OutputFormat parse_format(const std::string& f) {
  if (f == "table") return OutputFormat::Table;
  if (f == "json") return OutputFormat::Json;
  usage_fail("--format '{}': unknown format (use table or json)", f);
}

}  // namespace

Job validate(const RunConfig& c, bool needs_pattern, const dist::Processes& processes) {
  // First: the limit holds for everything read after it.
  if (!c.max_memory.empty()) {
    auto bytes = parse_byte_size(c.max_memory);
    if (!bytes) usage_fail("--max-memory '{}': expected a size such as 16G, 512M, 1024K or a byte count", c.max_memory);
    set_memory_limit(*bytes);
  }
  Job job;
  job.processes = &processes;
  job.format = parse_format(c.format);
  job.machine_spec = parse_machine_spec(c.machine);
  if (!c.node_topology.empty() && !job.machine_spec.node_topology.empty()) {
    usage_fail("--node-topology {} and --machine's node={}: two node topologies; give one", c.node_topology,
         job.machine_spec.node_topology);
  }
  if (!c.node_topology.empty()) {
    try {
      check_node_topology_spec(c.node_topology);
    } catch (const Error& e) {
      usage_fail("{}", e.what());
    }
  }
  if (c.nodes == "@") usage_fail("--nodes @: name the host file after '@' (@FILE)");
  job.every_node = c.nodes == "all";
  if (!c.nodes.empty() && !job.every_node) job.allocation = parse_nodes_argument(c.nodes);
  if (needs_pattern) job.pattern_spec = parse_pattern_spec(c.pattern);
  if (!c.routing.empty()) job.routing_spec = parse_routing_spec(c.routing);
  if (!(c.imbalance >= 0 && c.imbalance < 1)) usage_fail("--imbalance {}: must be in [0, 1)", c.imbalance);
  if (c.bytes_per_unit && !(*c.bytes_per_unit > 0)) usage_fail("--bytes-per-unit {}: must be positive", *c.bytes_per_unit);
  if (!c.mapper.empty()) job.mappers.push_back(parse_mapper_spec(c.mapper));
  for (const auto& m : split_mapper_list(c.mappers)) job.mappers.push_back(parse_mapper_spec(m));
  if (!c.mapping_format.empty()) job.mapping_format = parse_mapping_format(c.mapping_format);
  job.no_baseline = c.baseline == "none";
  if (!c.baseline.empty() && !job.no_baseline) {
    try {
      job.baseline = parse_mapper_spec(c.baseline);
    } catch (const Error& e) {  // the parser names --mapper
      const std::string what = e.what();
      fail("--baseline{}", what.starts_with("--mapper") ? what.substr(8) : ": " + what);
    }
  }
  return job;
}

HostNames job_hosts(const RunConfig& c) {
  return c.hosts_file.empty() ? HostNames::with_prefix(c.host_prefix) : HostNames::from_file(c.hosts_file);
}

Mapping read_mapping_argument(const Job& job, const RunConfig& c, const MappingProblem& problem) {
  std::string note;
  Mapping m = read_placement(c.mapping_file, job.mapping_format, problem.machine(), problem.graph().num_tasks(),
                             problem.tasks_per_slot(), job_hosts(c), &note);
  if (!note.empty()) std::cerr << "taskmap: " << note << "\n";
  return m;
}

// Warnings of the run's inputs, on stderr, from the process that speaks for the run.
std::function<void(const std::string&)> warnings_of(const Job& job) {
  return [speaks = job.speaks()](const std::string& line) {
    if (speaks) std::cerr << "taskmap: warning: " << io::printable(line) << "\n";
  };
}

void note_model_routing(const Job& job, const Machine& machine) {
  const auto* fabric = std::get_if<FabricShape>(&machine.shape);
  if (!job.speaks() || job.routing_spec || !fabric || !fabric->tables.empty() || fabric->format == "aries") return;
  const char* how = fabric->subnet
                        ? "--routing lft:TABLES follows the tables dumped on the cluster, opensm:minhop those OpenSM "
                          "would install"
                        : "with the fabric's ibnetdiscover output (ibnet:FILE), --routing lft:TABLES follows the tables "
                          "dumped on the cluster and opensm:minhop those OpenSM would install";
  std::cerr << fmt::format("taskmap: note: the routes are ecmp's model (each flow split evenly over every shortest "
                           "path); InfiniBand switches forward each destination through one port: {} (docs/clusters.md, "
                           "\"Your routes\")\n",
                           how);
}

Machine job_machine(Job& job, const RunConfig& c) {
  const bool speaks = job.speaks();
  const auto warn = warnings_of(job);
  // A fabric's nodes come with it (GPU nodes are built into it); other machines get theirs after.
  const bool fabric = is_fabric(job.machine_spec.kind);
  if (fabric && !c.node_topology.empty()) job.machine_spec.node_topology = c.node_topology;
  Machine machine = build_machine(job.machine_spec, warn);
  if (!fabric && !c.node_topology.empty()) machine = apply_node_topology(std::move(machine), job.machine_spec, c.node_topology, warn);
  if (job.machine_spec.slot_unit == SlotUnit::Pu && !machine.node_model) {
    warn(fmt::format("--machine {}: slots=pu counts a node topology's hardware threads, and no node topology is given "
                     "(node=hwloc:FILE or --node-topology): the slots stay as they are",
                     job.machine_spec.text));
  }
  // Synthetic machines have no host names: the scheduler's environment is not theirs.
  if (!job.allocation && !job.every_node && machine.named_nodes()) job.allocation = allocation_from_environment();
  if (!job.allocation && !job.every_node && machine.named_nodes()) job.allocation = job.allocation_of_mapping;
  if (!job.allocation) return machine;
  for (const std::string& line : job.allocation->warnings) warn(line);
  // ppn= given with flat nodes fixes their slots, as a node topology does.
  Machine allocated = allocate(machine, *job.allocation, warn, job.machine_spec.ppn_given);
  std::uint32_t nodes = 0;
  for (NodeId n = 0; n < allocated.num_nodes(); ++n) nodes += allocated.slots_of_node(n) > 0;
  if (speaks) {
    std::cerr << fmt::format("taskmap: allocation from {}: {} node{}, {} slot{}\n", job.allocation->source, nodes,
                             nodes == 1 ? "" : "s", allocated.num_slots(), allocated.num_slots() == 1 ? "" : "s");
  }
  return allocated;
}

MappingProblem make_problem(const Job& job, const RunConfig& c, const Machine& machine, const CommGraph& graph) {
  // A GPU runs one rank: more ranks than GPUs is no placement of a GPU job.
  if (has_gpu_slots(machine) && graph.num_tasks() > machine.num_slots()) {
    fail("--pattern '{}': {} ranks but {} GPUs on machine '{}' (one rank per GPU: give more nodes, or fewer ranks)",
         c.pattern, graph.num_tasks(), machine.num_slots(), machine.description);
  }
  return MappingProblem(machine, graph, job.routing_spec ? job.routing_spec->text : "", c.imbalance, warnings_of(job))
      .on_processes(*job.processes);
}

Mapping map_checked(const MapperSpec& spec, const MappingProblem& problem) {
  // The catalog's check names the reason before any work.
  if (std::string why = why_not_applicable(spec, problem); !why.empty()) fail("--mapper '{}': {}", spec.text, why);
  const dist::Processes& processes = problem.processes();
  Mapping m;
  if (processes.size() == 1 || runs_on_all_processes(spec)) {
    m = make_mapper(spec)->run(problem);
  } else {
    dist::on_leader(processes, [&] { m = make_mapper(spec)->run(problem.on_processes(processes.alone())); });
    broadcast_mapping(m, processes, 0);
  }
  validate_mapping(m, problem.machine(), problem.graph().num_tasks(), spec.text, problem.tasks_per_slot());
  return m;
}

void check_on_leader(const Job& job, const std::function<void()>& check) { dist::on_leader(*job.processes, check); }

std::unique_ptr<Routing> routing_for(const Machine& machine, const Job& job, std::string* name) {
  RoutingSpec spec = job.routing_spec ? *job.routing_spec : default_routing(machine);
  *name = spec.text;
  return make_routing(machine, spec);
}

}  // namespace taskmap::cli
