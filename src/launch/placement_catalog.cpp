// The placement-format catalog: the one table of launcher file formats.
#include "taskmap/launch/placement_catalog.h"

#include <fmt/format.h>

#include "taskmap/launch/placement.h"

namespace taskmap {
namespace {

std::string bgq_partition(const Machine& machine) {
  const TorusShape* torus = machine.torus();
  if (torus != nullptr && torus->dims() == 5 && machine.nodes_per_router == 1) return "";
  return fmt::format("machine '{}' is not a Blue Gene/Q partition (a 5-dimensional torus with one node per router, "
                     "e.g. torus:4x4x4x4x2,ppn=16)",
                     machine.description);
}

int tag(PlacementFormat format) { return static_cast<int>(format); }

}  // namespace

const Catalog& placement_format_catalog() {
  static const Catalog catalog(
      {.noun = "format",
       .plural = "formats",
       .option = "--out-format",
       .title = "Placement formats",
       .intro = "Placement files for `taskmap map --out-format`: plain by default on machines without host "
                "names; none on a cluster's fabric (slurm:, ibnet:, aries:), where `map` asks for the launcher's: "
                "srun and mpirun run on the same clusters and misread each other's files. plain, scotch, "
                "metis-part and openmpi-rankfile are also read back by `eval --mapping FILE` (`--mapping-format`, "
                "else guessed from the content). "
                "Launcher formats place one rank per slot, so "
                "they refuse a job with more tasks than slots. Host names are the machine's own on machines read "
                "from a cluster's files (slurm:, ibnet:, aries:); on the others they come from `--host-prefix` "
                "(prefix + node index, `node` by default) or `--hosts FILE` (one host per node, in node order). "
                "Core numbers come from the node model (`--node-topology hwloc:FILE`), else the slot's index in "
                "its node.",
       .table_file = "src/launch/placement_catalog.cpp"},
      {
          {.name = "plain",
           .tag = tag(PlacementFormat::Plain),
           .summary = "\"task slot\" per line, taskmap's own; read back",
           .example = "plain"},
          {.name = "scotch",
           .tag = tag(PlacementFormat::Scotch),
           .summary = "Scotch's mapping file (scotch_gmap's output, gmtst's input): the task count, then \"vertex "
                      "terminal\" per task, terminals numbered as Scotch numbers the machine's target "
                      "(docs/scotch.md); read back (vertices from 0 or 1)",
           .reference = "[Scotch]",
           .example = "scotch:base=1",
           .params = {{.name = "base", .type = ParamType::Int, .default_value = "0", .choices = {"0", "1"},
                       .meaning = "the number of task 0: the baseval of the Scotch graph the file goes with (1 "
                                  "for a graph gcv made from a METIS or Chaco file)"}}},
          {.name = "metis-part",
           .tag = tag(PlacementFormat::MetisPart),
           .summary = "a METIS partition file (gpmetis's graph.part.K): the part of each task, one per line, in task "
                      "order; part p is slot p; read back",
           .reference = "[METIS]",
           .example = "metis-part"},
          {.name = "openmpi-rankfile",
           .tag = tag(PlacementFormat::OpenMpiRankfile),
           .summary = "\"rank R=HOST slot=CORE\" per rank (mpirun --rankfile); CORE is the core's logical index (the "
                      "hardware thread's under slots=pu: mpirun --use-hwthread-cpus); "
                      "read back (HOST may also be +nK, the job's K-th node)",
           .example = "openmpi-rankfile"},
          {.name = "hydra",
           .tag = tag(PlacementFormat::Hydra),
           .summary = "MPICH/Hydra machine file: \"HOST:COUNT\" runs in rank order (mpiexec -f)",
           .example = "hydra"},
          {.name = "slurm",
           .tag = tag(PlacementFormat::Slurm),
           .summary = "one host per rank, in rank order (SLURM_HOSTFILE, srun --distribution=arbitrary)",
           .example = "slurm"},
          {.name = "slurm-map-cpu",
           .tag = tag(PlacementFormat::SlurmMapCpu),
           .summary = "\"map_cpu:C0,C1,...\", the OS CPU of each node's i-th rank, for srun --cpu-bind=$(cat FILE) "
                      "beside the slurm host file; `map` gives every node's ranks one arrangement (srun takes one list), "
                      "refused when none fits every node's slots",
           .example = "slurm-map-cpu"},
          {.name = "srun",
           .tag = tag(PlacementFormat::Srun),
           .summary = "for Slurm's srun, both files in one run: the slurm host file at FILE and the slurm-map-cpu "
                      "list at FILE.cpus; `map` prints the command, SLURM_HOSTFILE=FILE srun "
                      "--distribution=arbitrary --cpu-bind=map_cpu:... -n RANKS (-n: the host file's line count)",
           .example = "srun"},
          {.name = "cray-rank-order",
           .tag = tag(PlacementFormat::CrayRankOrder),
           .summary = "MPICH_RANK_ORDER: the rank on each slot in slot order (MPICH_RANK_REORDER_METHOD=3); the "
                      "mapping must fill the first slots",
           .example = "cray-rank-order"},
          {.name = "bgq-mapfile",
           .tag = tag(PlacementFormat::BgqMapfile),
           .summary = "\"A B C D E T\" per rank, in rank order (runjob --mapping FILE)",
           .applies_to = "5-dimensional torus with one node per router",
           .applies = bgq_partition,
           .example = "bgq-mapfile"},
      });
  return catalog;
}

}  // namespace taskmap
