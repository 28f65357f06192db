// The pattern catalog: the one table of communication patterns and their parameters.
#include "taskmap/workload/pattern_catalog.h"

#include "taskmap/workload/pattern_spec.h"

namespace taskmap {
namespace {

CatalogParam grid(std::size_t dims, std::string_view meaning) {
  return {.name = "sizes", .type = ParamType::Sizes, .required = true, .min = 1, .max = 1 << 24, .min_count = dims,
          .max_count = dims, .meaning = meaning};
}
const CatalogParam kPeriodic = {.name = "periodic", .type = ParamType::Bool, .default_value = "true",
                                .meaning = "the grid wraps around"};
CatalogParam rank_count(std::string_view name, double max, std::string_view meaning) {
  return {.name = name, .type = ParamType::Int, .required = true, .min = 2, .max = max, .meaning = meaning};
}

CatalogParam llm_size(std::string_view name, std::string_view default_value, double min, double max,
                      std::string_view meaning) {
  return {.name = name, .type = ParamType::Int, .default_value = default_value, .min = min, .max = max,
          .meaning = meaning};
}
CatalogParam llm_degree(std::string_view name, std::string_view meaning) {
  return {.name = name, .type = ParamType::Int, .required = true, .min = 1, .max = 1 << 24, .meaning = meaning};
}

// docs/patterns.md's section on llm after its parameter table: the rank order, the formulas and
// their sources, and how to get the traffic of a real GPU job.
constexpr std::string_view kLlmDetails = R"(**Ranks.** The job has tp x pp x dp ranks, numbered as Megatron-LM's `RankGenerator`
(`megatron/core/parallel_state.py`) numbers them: `order` lists the axes fastest-varying first,
and a rank is the sum of its coordinates, each times the product of the sizes of the axes before
it. Under the default `tp-cp-ep-dp-pp`, the default of `initialize_model_parallel` in Megatron-LM
(Megatron-LM main at commit d98e8a6; its docstring still names `tp-dp-pp`, which numbers the dense ranks alike
while cp = 1), rank = t + T d + T D p; Megatron-LM's `--use-tp-pp-dp-mapping` gives
`tp-cp-ep-pp-dp`, rank = t + T p + T P d. Any order of the five tokens is read; a token left out
must have size 1 there (Megatron-LM refuses it otherwise) and cp always has size 1 (context
parallelism is not modelled). A TP, DP or PP group is the ranks that differ in that coordinate
only, listed by it, as Megatron-LM lists its groups; a ring all-reduce sends from each member to
the next (i to i + 1 mod size), the ring over the communicator's rank order. NCCL may order its
rings by the topology it detects, or use trees; a ring's volume per rank is the same.

**Experts.** With ep = E > 1 the ranks are numbered a second time as Megatron-LM's expert
`RankGenerator` numbers them: axes tp (its expert tensor-parallel size, by default tp), ep,
expert-dp = D / E and pp, in the same order with cp dropped. An EP group is the ranks that differ
in the ep coordinate only; under the default order it is E consecutive members of one DP group.
The rule taken here is Megatron-LM's with expert tensor parallelism equal to tp: E divides D
(expert tensor parallelism of another size, under which E may divide T D, is not modelled). With
E > 1 and pp > 1, pp must be the last axis (Megatron-LM asserts that the dense and expert
pipeline groups coincide).

**Volumes**, in bytes per training iteration, with b = micro_batch, s = seq, h = hidden,
L = layers, m = micro_batches, B = bytes, G = grad_bytes, Ψ = params, M = moe_layers,
k = top_k, Ψe = expert_params:

| traffic | from each rank to | bytes | source |
|---|---|---|---|
| TP all-reduce | its TP ring successor | m (L/P) 4 · 2(T-1)/T · bshB | [Megatron-PTD §3]: 2 all-reduces of bsh elements forward and 2 backward per layer and micro-batch, 8bsh(t-1)/t per layer per device; [Megatron-SP]: sequence parallelism turns each all-reduce into a reduce-scatter and an all-gather, the same volume |
| PP forward | the same (t, d) in the next stage | m bshB / T | [Megatron-PTD §4.1]: the scatter/gather optimization sends each rank's 1/t of the bsh activation between stages; under [Megatron-SP] the activation is already split along the sequence |
| PP backward | the same (t, d) in the previous stage | m bshB / T | as forward, the activation's gradient |
| DP all-reduce | its DP ring successor | 2(D-1)/D · Ψ/(TP) · G | once per iteration, the gradients of the rank's 1/(TP) of the parameters (each DP replica holds the same 1/(TP)); the distributed optimizer's reduce-scatter and all-gather move the same |
| EP all-to-all | each other rank of its EP group | m (M/P) 4 · (bs/T) k h B / E | per MoE layer and micro-batch, dispatch and combine forward and backward, of the rank's bs/T tokens (its sequence shard), k copies each, routed evenly over the E ranks |
| expert-DP all-reduce | its expert-DP ring successor | 2(D/E-1)/(D/E) · Ψe/(TPE) · G | the experts' gradients over the D/E ranks that hold the same experts |

The defaults are GPT-3 175B [GPT-3]: 96 layers, h = 12288, s = 2048, Ψ = 12 L h² (174 billion,
the transformer layers' weights), bf16 activations (B = 2) and gradients all-reduced in fp32
(G = 4, what Megatron-LM does under bf16 unless told `--grad-reduce-in-bf16`), b = 1 and
m = 96 (a batch of 1536 sequences over dp = 16). Not modelled: the embedding all-reduce between
the first and last stages, the interleaved schedule (v model chunks per rank multiply the
pipeline traffic by v and add a send from the last stage to the first), full activation
recomputation (2 more TP all-reduces per layer in the backward pass), context parallelism, and
the expert tensor-parallel all-gathers of the MoE token dispatcher. Every rank of a stage is
given L/P layers and M/P MoE layers.

The volumes are bytes (`--bytes-per-unit 1` shows them so in the HTML report): `taskmap map --machine
torus:4x4 --pattern llm:tp=2,pp=2,dp=4 --mapper default --out placement.txt --bytes-per-unit 1`.

### Traffic of a GPU job

taskmap's MPI profiler ([mpi.md](mpi.md)) records MPI calls; a GPU job's collectives go
through NCCL, past it. Three ways to the traffic matrix of such a job:

- **NCCL's log.** `NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL` (and
  `NCCL_DEBUG_FILE=nccl.%h.%p`, one file per process) prints, for each communicator, the
  process's rank in it and the number of ranks, and for each collective call its name, element
  count, datatype and communicator. A call moves count x datatype size bytes; a ring all-reduce
  of them sends 2(n-1)/n of that to the next rank of the communicator. The exact lines vary
  between NCCL versions and taskmap has no reader for them: a script summing them per (sender,
  receiver) writes an edge list that `--pattern file:` reads.
- **NCCL's profiler plugin interface** (NCCL 2.23 and later): NCCL loads
  `libnccl-profiler.so`, or `libnccl-profiler-NAME.so` with `NCCL_PROFILER_PLUGIN=NAME` (or the
  library's path), and calls the functions of the versioned struct it exports,
  `ncclProfiler_vN` (`init`, `startEvent`, `stopEvent`, `recordEventState`, `finalize`).
  `startEvent` describes each collective (`ncclProfileColl`: function, count, datatype,
  communicator hash), each point-to-point operation (`ncclProfileP2p`: its peer) and each
  network transfer of NCCL's proxy thread (`ncclProfileProxyOp`: peer, send or receive, steps
  and chunk size): the ranks that really exchange the bytes, whatever ring or tree NCCL chose.
  NCCL's source tree has an example plugin in `ext-profiler/`.
- **This generator**, for a Megatron-LM-style training job: `llm:` with the job's sizes gives
  the matrix without running it.)";

int tag(PatternKind kind) { return static_cast<int>(kind); }

}  // namespace

const Catalog& pattern_catalog() {
  static const Catalog catalog(
      {.noun = "pattern",
       .plural = "patterns",
       .option = "--pattern",
       .title = "Patterns",
       .intro = "Communication patterns for `--pattern`: a volume from every task to every task it talks to. "
                "Halo volumes: each neighbour gets 1/(points-1), so a task sends one unit in total on a "
                "periodic grid [PERCS-map §3].",
       .table_file = "src/workload/pattern_catalog.cpp"},
      {
          {.name = "halo2d",
           .tag = tag(PatternKind::Halo2d),
           .summary = "2D halo exchange on P rows x Q columns (task = row*Q + column)",
           .reference = "[PERCS-map §3]",
           .example = "halo2d:64x64,points=9",
           .positional = true,
           .params = {grid(2, "P x Q tasks"),
                      {.name = "points", .type = ParamType::Int, .default_value = "5", .choices = {"5", "9"},
                       .meaning = "stencil points (the task itself included)"},
                      kPeriodic}},
          {.name = "halo3d",
           .tag = tag(PatternKind::Halo3d),
           .summary = "3D halo exchange on X x Y x Z tasks (task = (x*Y + y)*Z + z)",
           .reference = "[PERCS-map §3]",
           .example = "halo3d:16x16x16,points=27",
           .positional = true,
           .params = {grid(3, "X x Y x Z tasks"),
                      {.name = "points", .type = ParamType::Int, .default_value = "7", .choices = {"7", "27"},
                       .meaning = "stencil points (the task itself included)"},
                      kPeriodic}},
          {.name = "transpose",
           .tag = tag(PatternKind::Transpose),
           .summary = "row and column cliques: 1/(2Q) to each task of the row, 1/(2P) to each of the column",
           .reference = "[PERCS-map]",
           .example = "transpose:64x64",
           .positional = true,
           .params = {grid(2, "P x Q tasks")}},
          {.name = "alltoall",
           .tag = tag(PatternKind::AllToAll),
           .summary = "1/(N-1) from every task to every other",
           .example = "alltoall:64",
           .positional = true,
           .params = {rank_count("tasks", 1 << 14, "N, the number of tasks")}},
          {.name = "localmix",
           .tag = tag(PatternKind::LocalMix),
           .summary = "on a periodic P x Q grid, alpha/4 to each of the 4 neighbours and (1-alpha)/N to every "
                      "task including itself",
           .reference = "[RTT-map]",
           .example = "localmix:16x8,alpha=0.3",
           .positional = true,
           .params = {grid(2, "P x Q tasks"),
                      {.name = "alpha", .type = ParamType::Real, .required = true, .min = 0, .max = 1,
                       .meaning = "the local share of the traffic"}}},
          {.name = "npb-cg",
           .tag = tag(PatternKind::NpbCg),
           .summary = "NAS CG on its nprows x npcols grid: recursive-halving partners of the row and the "
                      "transpose partner (NPB 3.3 MPI cg.f)",
           .example = "npb-cg:64",
           .positional = true,
           .params = {rank_count("ranks", 1 << 24, "N, a power of two")}},
          {.name = "npb-bt",
           .tag = tag(PatternKind::NpbBt),
           .summary = "NAS BT multi-partition: copy_faces, forward sweep and back-substitution words per face "
                      "point (NPB 3.3 MPI make_set.f, x_solve.f)",
           .example = "npb-bt:64",
           .positional = true,
           .params = {rank_count("ranks", 1 << 24, "N, a square")}},
          {.name = "npb-sp",
           .tag = tag(PatternKind::NpbSp),
           .summary = "NAS SP multi-partition, as npb-bt with SP's words per face point",
           .example = "npb-sp:64",
           .positional = true,
           .params = {rank_count("ranks", 1 << 24, "N, a square")}},
          {.name = "llm",
           .tag = tag(PatternKind::Llm),
           .summary = "bytes of one training iteration of a transformer under Megatron-LM's tensor, pipeline, "
                      "data and expert parallelism, ranks numbered in Megatron-LM's order; defaults: GPT-3 175B",
           .reference = "[Megatron-PTD §3, §4.1]; [Megatron-SP]",
           .example = "llm:tp=8,pp=12,dp=16",
           .params = {llm_degree("tp", "T, tensor-parallel size: a ring all-reduce per TP group"),
                      llm_degree("pp", "P, pipeline stages"),
                      llm_degree("dp", "D, data-parallel size: a ring all-reduce of gradients per DP group"),
                      llm_size("ep", "1", 1, 1 << 24,
                               "E, expert-parallel size: all-to-alls among E ranks of each DP group; divides dp"),
                      {.name = "order", .type = ParamType::String, .default_value = "tp-cp-ep-dp-pp",
                       .meaning = "rank order, fastest-varying axis first (tokens tp, cp, ep, dp, pp; Megatron-LM's "
                                  "default; tp-cp-ep-pp-dp is its --use-tp-pp-dp-mapping)"},
                      llm_size("layers", "96", 1, 1 << 20, "transformer layers, a multiple of pp"),
                      llm_size("hidden", "12288", 1, 1 << 24, "h, hidden size"),
                      llm_size("seq", "2048", 1, 1 << 24, "s, sequence length in tokens"),
                      llm_size("micro_batch", "1", 1, 1 << 20, "b, sequences per micro-batch"),
                      llm_size("micro_batches", "96", 1, 1 << 20, "m, micro-batches per pipeline per iteration"),
                      {.name = "params", .type = ParamType::Real, .min = 1, .max = 1e15,
                       .meaning = "parameters whose gradients DP all-reduces (each rank holds 1/(T*P))",
                       .when_absent = "12 x layers x hidden^2"},
                      llm_size("bytes", "2", 1, 8, "bytes per activation element (2: bf16)"),
                      llm_size("grad_bytes", "4", 1, 8,
                               "bytes per gradient element in the DP all-reduce (4: Megatron-LM's fp32 "
                               "all-reduce under bf16)"),
                      {.name = "moe_layers", .type = ParamType::Int, .min = 0, .max = 1 << 20,
                       .meaning = "mixture-of-experts layers, spread evenly over the stages (ep > 1)",
                       .when_absent = "layers"},
                      llm_size("top_k", "2", 1, 1024, "experts each token is routed to (ep > 1)"),
                      {.name = "expert_params", .type = ParamType::Real, .default_value = "0", .min = 0, .max = 1e15,
                       .meaning = "all experts' parameters, all-reduced over the dp/ep ranks holding the same "
                                  "experts (ep > 1)"}},
           .details = kLlmDetails},
          {.name = "file",
           .tag = tag(PatternKind::File),
           .summary = "read from a file (.xz and .gz read directly)",
           .example = "file:app.graph,tasks=64",
           .positional = true,
           .params = {{.name = "path", .type = ParamType::Path, .required = true, .meaning = "the pattern file"},
                      {.name = "format", .type = ParamType::Choice,
                       .choices = {"metis", "mtx", "grf", "scotch", "edges", "dense", "hopbyte"},
                       .meaning = "metis (.graph, .metis), mtx (.mtx), grf or scotch (.grf), dense (.csv), hopbyte "
                                  "(name contains hopbyte), edges (anything else)",
                       .when_absent = "guessed from the file name"},
                      {.name = "tasks", .type = ParamType::Int, .min = 1, .max = 1 << 30,
                       .meaning = "the job has at least this many tasks (ranks that never communicate)",
                       .when_absent = "as many as the file names"}}},
      });
  return catalog;
}

}  // namespace taskmap
