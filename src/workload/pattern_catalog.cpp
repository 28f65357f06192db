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
