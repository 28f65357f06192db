#pragma once
// The validated form of a RunConfig, shared by the subcommands: every name parsed and
// checked before any work.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "taskmap/dist/processes.h"
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
  bool every_node = false;               // --nodes all: no allocation, the environment left aside
  // Without --nodes and the scheduler's environment: the nodes a placement file names (eval
  // --mapping RANKFILE), so that the launchers' defaults it is compared with use the same ones.
  std::optional<Allocation> allocation_of_mapping;
  std::optional<PatternSpec> pattern_spec;
  std::optional<RoutingSpec> routing_spec;
  std::vector<MapperSpec> mappers;
  // --baseline: a mapper, or none given (the launcher's default), or "none" (no_baseline).
  std::optional<MapperSpec> baseline;
  bool no_baseline = false;
  OutputFormat format = OutputFormat::Table;
  std::optional<PlacementFormat> placement;
  std::optional<PlacementFormat> mapping_format;  // --mapping-format; none: guessed from the file
  // The processes the run spreads over (an MPI launch), else this one alone. Only the leader
  // prints and writes files.
  const dist::Processes* processes = &dist::this_process_only();
  bool speaks() const { return processes->leader(); }
};

Job validate(const RunConfig& c, bool needs_pattern,
             const dist::Processes& processes = dist::this_process_only());

// The machine the job runs on: --machine, with --node-topology's node model and the job's
// allocation (--nodes, else $SLURM_JOB_NODELIST or $PBS_NODEFILE on a machine with host
// names). Readers' warnings and the allocation's source go to stderr.
Machine job_machine(Job& job, const RunConfig& c);
// On a fabric read from a Slurm or InfiniBand file routed by its default flow model (ecmp),
// one note on stderr at the end of the run: the switches route otherwise, and how to give
// their routes (lft:, opensm:).
void note_model_routing(const Job& job, const Machine& machine);

// The run's one problem: the routing --routing names (else the machine's default), the
// balance --imbalance allows, the job's processes.
MappingProblem make_problem(const Job& job, const RunConfig& c, const Machine& machine, const CommGraph& graph);

// Host names of a machine without its own: --hosts FILE, else --host-prefix.
HostNames job_hosts(const RunConfig& c);

// The placement file --mapping names, read in --mapping-format or in the format its content
// shows (which goes to stderr), checked against the problem's balance.
Mapping read_mapping_argument(const Job& job, const RunConfig& c, const MappingProblem& problem);

// Runs the mapper and checks its result: every task on a slot of the machine, no slot over
// the problem's balance. Over several processes every process gets the mapping: a mapper that
// runs on all processes (runs_on_all_processes) runs on all of them, any other on the leader,
// which hands its mapping to the others.
Mapping map_checked(const MapperSpec& spec, const MappingProblem& problem);

// Runs `check` (e.g. that an output file can be written) on the leader only; its error stops
// every process.
void check_on_leader(const Job& job, const std::function<void()>& check);

// The routing --routing names, else the machine's default; its name goes to *name.
std::unique_ptr<Routing> routing_for(const Machine& machine, const Job& job, std::string* name);

}  // namespace taskmap::cli
