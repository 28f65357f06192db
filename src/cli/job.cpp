#include "job.h"

#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/core/error.h"

namespace taskmap::cli {

namespace {

OutputFormat parse_format(const std::string& f) {
  if (f == "table") return OutputFormat::Table;
  if (f == "json") return OutputFormat::Json;
  fail("--format '{}': unknown format (use table or json)", f);
}

}  // namespace

Job validate(const RunConfig& c, bool needs_pattern) {
  Job job;
  job.format = parse_format(c.format);
  job.machine_spec = parse_machine_spec(c.machine);
  if (needs_pattern) job.pattern_spec = parse_pattern_spec(c.pattern);
  if (!c.routing.empty()) job.routing_spec = parse_routing_spec(c.routing);
  if (!(c.imbalance >= 0 && c.imbalance < 1)) fail("--imbalance {}: must be in [0, 1)", c.imbalance);
  if (!c.mapper.empty()) job.mappers.push_back(parse_mapper_spec(c.mapper));
  for (const auto& m : split_mapper_list(c.mappers)) job.mappers.push_back(parse_mapper_spec(m));
  for (MapperSpec& spec : job.mappers) {
    spec.imbalance = c.imbalance;
    for (MapperSpec& stage : spec.stages) stage.imbalance = c.imbalance;
  }
  return job;
}

Mapping map_checked(const MapperSpec& spec, const Machine& machine, const CommGraph& graph, double imbalance) {
  Mapping m = make_mapper(spec)->run(machine, graph);
  validate_mapping(m, machine, graph.num_tasks(), spec.text, tasks_per_slot(graph.num_tasks(), machine.num_slots(), imbalance));
  return m;
}

std::unique_ptr<Routing> routing_for(const Machine& machine, const Job& job, std::string* name) {
  RoutingSpec spec = job.routing_spec ? *job.routing_spec : default_routing(machine);
  *name = spec.text;
  return make_routing(machine, spec);
}

}  // namespace taskmap::cli
