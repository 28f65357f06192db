#pragma once
// The job's share of a machine: the nodes the scheduler gave it (and how many slots on each),
// and the inside of its nodes. Both narrow a Machine's slots; routers and channels stay, so
// the job's traffic is routed over the whole fabric while mappers place tasks only on the
// job's slots.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "taskmap/topology/fabric.h"
#include "taskmap/topology/machine.h"
#include "taskmap/topology/node_model.h"

namespace taskmap {

struct Allocation {
  std::string source;                // for messages: "--nodes", "$SLURM_JOB_NODELIST", "$PBS_NODEFILE (FILE)"
  std::vector<std::string> hosts;    // distinct, in the order given
  std::vector<std::uint32_t> slots;  // per host; 0: all of the node's slots
  std::vector<std::string> lines;    // per host from a host file: "FILE:LINE" of its first line; else empty
  std::vector<std::string> warnings;  // oddities read and passed over ("FILE:LINE: ...")
};

// `--nodes` values: a Slurm host list ("cn[0012-0015,0102]"), or @FILE: one host per line
// with an optional count ("host", "host slots=4" as Open MPI's hostfiles, with its synonyms
// cpu= and count=, or max_slots= alone; "host:4" as Hydra's). A list in which a host without
// a count appears more than once lists each host once per slot (as a PBS node file does): then
// every such line is one slot, a host listed once included.
Allocation parse_nodes_argument(std::string_view text);

// The job's allocation from the scheduler's environment: $SLURM_JOB_NODELIST (slots from
// $SLURM_TASKS_PER_NODE, else $SLURM_JOB_CPUS_PER_NODE, syntax "2(x3),1"), else
// $PBS_NODEFILE (a host once per slot). nullopt when neither is set.
std::optional<Allocation> allocation_from_environment();

// The machine with slots only on the allocated hosts: each gets its allocated count (all of
// the node's slots for 0), every other node none. A host not known by its name but by the name
// before its first '.' (cn01.cluster.local) is that one, said once through `warn`. Throws Error
// naming a host the machine does not know (with the closest known names), a count above the
// node's slots when a node model fixes them or `slots_fixed` (the user gave ppn=), or a machine
// without node names.
Machine allocate(const Machine& machine, const Allocation& allocation, const WarningSink& warn = {},
                 bool slots_fixed = false);

// Every node gets the model's slots (cores, or hardware threads): the machine's slots_per_node
// becomes the model's count. An allocation applied afterwards may give a node fewer.
Machine with_node_model(Machine machine, std::shared_ptr<const NodeModel> model);

}  // namespace taskmap
