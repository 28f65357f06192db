// The placement-format catalog: the one table of launcher file formats.
#include "taskmap/launch/placement_catalog.h"

#include <fmt/format.h>

#include "taskmap/launch/placement.h"
#include "taskmap/topology/node_model.h"

namespace taskmap {
namespace {

std::string bgq_partition(const Machine& machine) {
  const TorusShape* torus = machine.torus();
  if (torus != nullptr && torus->dims() == 5 && machine.nodes_per_router == 1) return "";
  return fmt::format("machine '{}' is not a Blue Gene/Q partition (a 5-dimensional torus with one node per router, "
                     "e.g. torus:4x4x4x4x2,ppn=16)",
                     machine.description);
}

std::string gpu_slots(const Machine& machine) {
  if (has_gpu_slots(machine)) return "";
  const char* unit = machine.node_model && machine.node_model->unit == SlotUnit::Pu ? "hardware threads" : "cores";
  return fmt::format("the slots of machine '{}' are {}, not GPUs: give --node-topology gpus:N or "
                     "hwloc:FILE,slots=gpu",
                     machine.description, unit);
}

constexpr std::string_view kSlurmMapGpuDetails =
    R"(srun binds the i-th task of every node (its local task id) to the i-th GPU of the list, so the
list fits when every node's ranks, in rank order, sit on the same GPUs: `map` arranges them so
first (as for `slurm-map-cpu`; the nodes keep their ranks) and refuses a mapping where no one
arrangement fits every node. A node holding fewer ranks than the list takes its first items.
The numbers are the GPUs' device indices (their order among the node's GPUs, as CUDA and ROCm
number them). Under Slurm's `task/cgroup` with `ConstrainDevices=yes` srun reads them relative to
the GPUs the job holds on the node, so give the job all of each node's GPUs
(`--gpus-per-node=N`, `--exclusive`).

```
taskmap map ... --node-topology gpus:8 --out-format slurm --out hosts
taskmap map ... --node-topology gpus:8 --out-format slurm-map-gpu --out gpus
SLURM_HOSTFILE=hosts srun --distribution=arbitrary --gpu-bind=$(cat gpus) -n RANKS ./app
```

or both files in one run: `--out-format srun`.)";

constexpr std::string_view kGpuEnvDetails =
    R"(One line per rank, in rank order, after two `#` comment lines:

```
rank=0 host=node0 local_rank=0 gpu=2
rank=1 host=node1 local_rank=0 gpu=0
```

`local_rank` counts the ranks of the rank's host in rank order (as launchers number a host's
ranks); `gpu` is the device index of the rank's GPU (its order among the node's GPUs, as CUDA
and ROCm number them). Every value is one word of a POSIX shell, so a line can be evaluated.
`taskmap-gpu-run` (installed beside `taskmap`) reads its rank from the launcher (Open MPI's
`OMPI_COMM_WORLD_RANK`, `PMIX_RANK`, Hydra's `PMI_RANK`, srun's `SLURM_PROCID`), then its line of
the file, sets `CUDA_VISIBLE_DEVICES` and `ROCR_VISIBLE_DEVICES` to its GPU and
`TASKMAP_LOCAL_RANK`, and runs the program:

```
line=$(grep "^rank=$r " "$TASKMAP_GPU_ENV")
eval "$line" && export CUDA_VISIBLE_DEVICES="$gpu" ROCR_VISIBLE_DEVICES="$gpu" && exec "$@"
```

The launcher still has to start each rank on its host from the same mapping:
`launcher=openmpi-rankfile` (or `hydra`) writes its file beside, at FILE.rankfile (FILE.hosts),
and `map` prints the command:

```
taskmap map ... --node-topology gpus:4 --out-format gpu-env:launcher=openmpi-rankfile --out gpus.env
mpirun -np RANKS --rankfile gpus.env.rankfile -x TASKMAP_GPU_ENV=gpus.env taskmap-gpu-run ./app
```

For srun, write `slurm` from the same mapping (`--mapper file:FILE` of a plain file of the
run), or use the `srun` format, whose GPU list binds the ranks without the wrapper.)";

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
          {.name = "slurm-map-gpu",
           .tag = tag(PlacementFormat::SlurmMapGpu),
           .summary = "\"map_gpu:G0,G1,...\", the GPU (device index) of each node's i-th rank, for srun "
                      "--gpu-bind=$(cat FILE) beside the slurm host file; as slurm-map-cpu, one arrangement for "
                      "every node, refused when none fits",
           .applies_to = "GPU slots (--node-topology gpus:N or hwloc:FILE,slots=gpu)",
           .applies = gpu_slots,
           .example = "slurm-map-gpu",
           .details = kSlurmMapGpuDetails},
          {.name = "srun",
           .tag = tag(PlacementFormat::Srun),
           .summary = "for Slurm's srun, both files in one run: the slurm host file at FILE and the slurm-map-cpu "
                      "list at FILE.cpus (on GPU slots the slurm-map-gpu list at FILE.gpus instead); `map` prints "
                      "the command, SLURM_HOSTFILE=FILE srun --distribution=arbitrary --cpu-bind=map_cpu:... "
                      "(--gpu-bind=map_gpu:...) -n RANKS (-n: the host file's line count)",
           .example = "srun"},
          {.name = "gpu-env",
           .tag = tag(PlacementFormat::GpuEnv),
           .summary = "\"rank=R host=H local_rank=L gpu=D\" per rank, in rank order: the rank's host, its index "
                      "among that host's ranks and its GPU's device index, for taskmap-gpu-run (which sets "
                      "CUDA_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES) beside the hydra or openmpi-rankfile file",
           .applies_to = "GPU slots (--node-topology gpus:N or hwloc:FILE,slots=gpu)",
           .applies = gpu_slots,
           .example = "gpu-env:launcher=openmpi-rankfile",
           .params = {{.name = "launcher", .type = ParamType::Choice, .default_value = "none",
                       .choices = {"none", "openmpi-rankfile", "hydra"},
                       .meaning = "also the launcher's file of the same mapping, beside FILE: FILE.rankfile "
                                  "(mpirun --rankfile) or FILE.hosts (mpiexec -f); `map` prints the command"}},
           .details = kGpuEnvDetails},
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
