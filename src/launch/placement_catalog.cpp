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
       .intro = "Placement files for `taskmap map --out-format`. Launcher formats place one rank per slot, so "
                "they refuse a job with more tasks than slots; host names come from `--host-prefix` (prefix + "
                "node index, `node` by default) or `--hosts FILE` (one host per node, in node order).",
       .table_file = "src/launch/placement_catalog.cpp"},
      {
          {.name = "plain",
           .tag = tag(PlacementFormat::Plain),
           .summary = "\"task slot\" per line, taskmap's own; reads back with --mapping",
           .example = "plain"},
          {.name = "openmpi-rankfile",
           .tag = tag(PlacementFormat::OpenMpiRankfile),
           .summary = "\"rank R=HOST slot=CORE\" per rank (mpirun --rankfile)",
           .example = "openmpi-rankfile"},
          {.name = "hydra",
           .tag = tag(PlacementFormat::Hydra),
           .summary = "MPICH/Hydra machine file: \"HOST:COUNT\" runs in rank order (mpiexec -f)",
           .example = "hydra"},
          {.name = "slurm",
           .tag = tag(PlacementFormat::Slurm),
           .summary = "one host per rank, in rank order (SLURM_HOSTFILE, srun --distribution=arbitrary)",
           .example = "slurm"},
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
