#pragma once
// The validated form of a RunConfig, shared by the subcommands: every name parsed and
// checked before any work.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/problem/problem.h"
#include "taskmap/launch/placement.h"
#include "taskmap/workload/pattern_spec.h"
#include "taskmap/routing/routing.h"
#include "taskmap/topology/allocation.h"
#include "taskmap/topology/machine_spec.h"

namespace taskmap::cli {

struct Job {
  MachineSpec machine_spec;
  std::optional<Allocation> allocation;  // --nodes, or the scheduler's environment on a machine with host names
  std::optional<PatternSpec> pattern_spec;
  std::optional<RoutingSpec> routing_spec;
  std::vector<MapperSpec> mappers;
  // --baseline: a mapper, or none given (the launcher's default), or "none" (no_baseline).
  std::optional<MapperSpec> baseline;
  bool no_baseline = false;
  OutputFormat format = OutputFormat::Table;
  std::optional<PlacementFormat> placement;
  std::optional<PlacementFormat> mapping_format;  // --mapping-format; none: guessed from the file
};

Job validate(const RunConfig& c, bool needs_pattern);

// The machine the job runs on: --machine, with --node-topology's node model and the job's
// allocation (--nodes, else $SLURM_JOB_NODELIST or $PBS_NODEFILE on a machine with host
// names). Readers' warnings and the allocation's source go to stderr.
Machine job_machine(Job& job, const RunConfig& c);

// The run's one problem: the routing --routing names (else the machine's default) and the
// balance --imbalance allows.
MappingProblem make_problem(const Job& job, const RunConfig& c, const Machine& machine, const CommGraph& graph);

// Host names of a machine without its own: --hosts FILE, else --host-prefix.
HostNames job_hosts(const RunConfig& c);

// The placement file --mapping names, read in --mapping-format or in the format its content
// shows (which goes to stderr), checked against the problem's balance.
Mapping read_mapping_argument(const Job& job, const RunConfig& c, const MappingProblem& problem);

// Runs the mapper and checks its result: every task on a slot of the machine, no slot over
// the problem's balance.
Mapping map_checked(const MapperSpec& spec, const MappingProblem& problem);

// The routing --routing names, else the machine's default; its name goes to *name.
std::unique_ptr<Routing> routing_for(const Machine& machine, const Job& job, std::string* name);

}  // namespace taskmap::cli
