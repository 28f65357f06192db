#pragma once
// Every mapper by name: the mapper catalog (its table is src/map/catalog/catalog.cpp, its
// reference docs/mappers.md), parsing of mapper specs and pipelines A+B+..., the mapper a spec
// names, and whether it applies to a problem.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "taskmap/core/catalog.h"
#include "taskmap/map/mapper.h"

namespace taskmap {

// The mapper of map, eval and the MPI reorder library when none is named.
inline constexpr const char* kDefaultMapper = "auto";

// The launchers' default placement on this machine, the baseline a report compares with: the
// nodes in host-name order where they have host names (mpirun's and srun's block default),
// else the slots in order.
inline const char* launcher_default_mapper(const Machine& machine) {
  return machine.named_nodes() ? "hostname-order" : "default";
}

// Entries' checks take a MappingProblem.
const Catalog& mapper_catalog();

// A parsed mapper spec: one stage, or a pipeline of several.
struct MapperSpec {
  std::string text;
  std::vector<SpecValues> stages;
};

// Throws Error naming --mapper and the spec on any problem.
MapperSpec parse_mapper_spec(std::string_view text);
std::unique_ptr<Mapper> make_mapper(const MapperSpec& spec);
// `--mappers a,b,c` (each argument may hold several): commas separate mappers, except before a
// "key=value" item, which continues the mapper before it, and inside a quoted value.
std::vector<std::string> split_mapper_list(const std::vector<std::string>& raw);
// True when the mapper works with all the processes of a run (ptscotch, and pipelines starting
// with it): every process runs it on the problem's processes. Any other mapper runs on one
// process, which hands its mapping to the others.
bool runs_on_all_processes(const MapperSpec& spec);
// "" when every stage applies to the problem's machine and job, else the reason.
std::string why_not_applicable(const MapperSpec& spec, const MappingProblem& problem);

}  // namespace taskmap
