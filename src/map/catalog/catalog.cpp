// The mapper catalog: the one table of mappers, their parameters, references and where they
// apply; parsing, make_mapper and the applicability checks come from it.
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/map/node_order.h"

#include <fmt/format.h>

#include <deque>

#include "taskmap/core/error.h"
#include "taskmap/core/spec.h"
#include "taskmap/core/text_source.h"
#include "taskmap/map/mapper_support.h"
#include "taskmap/map/partition/partition_mappers.h"
#include "taskmap/map/portfolio/auto_mapper.h"
#include "taskmap/map/rahtm/rahtm.h"
#include "taskmap/map/refine/refiners.h"
#include "taskmap/map/structured/structured_mappers.h"
#include "taskmap/topology/partial_cube.h"

namespace taskmap {
namespace {

enum class MapperKind {
  Auto, Default, HostnameOrder, Order, Random, Cyclic, File,
  PercsBlock, PercsModColor, PercsTranspose, RttMap, DragonflyBsm, DragonflyBbac, Hilbert, RubikTiling, GridBlocks,
  Scotch, PtScotch, Metis, Greedy, RecursiveBisection, Multilevel,
  Timer, RefineHopBytes, RefineMcl, RefineInject,
  Rahtm,
};

int tag(MapperKind kind) { return static_cast<int>(kind); }
MapperKind kind_of(const SpecValues& v) { return static_cast<MapperKind>(v.entry().tag); }
bool is_refiner(MapperKind k) {
  return k == MapperKind::Timer || k == MapperKind::RefineHopBytes || k == MapperKind::RefineMcl ||
         k == MapperKind::RefineInject;
}

// A default taken from an options struct's initializer, so that it is written once.
template <typename T>
std::string_view default_of(T value) {
  static std::deque<std::string> texts;  // filled while the catalog is built (a function-local static)
  return texts.emplace_back(fmt::format("{}", value));
}

const char* leaf_name(RahtmLeafSolver leaf) {
  switch (leaf) {
    case RahtmLeafSolver::Exact: return "exact";
    case RahtmLeafSolver::Milp: return "milp";
    case RahtmLeafSolver::Greedy: return "greedy";
  }
  return "?";
}

// ---- Applicability: "" when the mapper applies to the problem, else why not ----------------

std::string fits(const MappingProblem& p) {
  if (p.graph().num_tasks() <= p.machine().num_slots()) return "";
  return fmt::format("it places one task per slot, and the job has {} tasks for {} slots (several tasks per slot: {})",
                     p.graph().num_tasks(), p.machine().num_slots(), detail::kSeveralTasksPerSlot);
}
std::string on_torus(const MappingProblem& p) {
  if (!p.machine().torus()) return fmt::format("it needs a torus, mesh or hypercube, not {}", p.machine().kind_name());
  return fits(p);
}
template <typename Shape>
std::string on_shape(const MappingProblem& p, const char* what) {
  if (!std::holds_alternative<Shape>(p.machine().shape)) {
    return fmt::format("it needs {}, not {}", what, p.machine().kind_name());
  }
  return fits(p);
}
std::string on_percs(const MappingProblem& p) { return on_shape<PercsShape>(p, "a PERCS machine"); }
std::string on_rtt(const MappingProblem& p) { return on_shape<RectTorusShape>(p, "an rt or rtt machine"); }
std::string on_dragonfly(const MappingProblem& p) { return on_shape<DragonflyShape>(p, "a Dragonfly"); }
std::string nodes_on_every_router(const MappingProblem& p) {
  if (p.machine().num_host_routers() == p.machine().num_routers) return "";
  return fmt::format("it places tasks on routers, and machine '{}' has routers without nodes (switches)",
                     p.machine().description);
}
std::string on_leaf_fabric(const MappingProblem& p) { return why_no_injection_links(p.machine()); }
std::string on_partial_cube(const MappingProblem& p) {
  if (std::string why = nodes_on_every_router(p); !why.empty()) return why;
  try {
    PartialCube::of_machine(p.machine());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// ---- The table ---------------------------------------------------------------------------------

CatalogParam grid_param() {
  return {.name = "grid", .type = ParamType::Sizes, .min_count = 1, .max_count = 8, .meaning = "the task grid",
          .when_absent = "the pattern's own grid"};
}
CatalogParam seed_param(std::uint64_t value, const char* meaning) {
  return {.name = "seed", .type = ParamType::Int, .default_value = default_of(value), .min = 0, .meaning = meaning};
}

}  // namespace

const Catalog& mapper_catalog() {
  static const Catalog catalog(
      {.noun = "mapper",
       .plural = "mappers",
       .option = "--mapper",
       .title = "Mappers",
       .intro = "Mappers for `--mapper` and `--mappers`. A pipeline `A+B+...` runs A, then each later stage "
                "improves the result before it; only `timer`, `refine-hb`, `refine-mcl` and `refine-inject` can follow a `+`. "
                "Every mapper works under the run's one `--routing`: the routing-aware ones (`refine-mcl`, "
                "`rahtm`) optimize channel loads under it, an adaptive routing (ugal) under its oblivious split. "
                "`compare` skips, with the reason, a mapper that does not apply to the machine or job. The "
                "partition-based mappers (`scotch`, `metis`, `greedy`, `rb`, `ml`) keep the default order when "
                "their own placement does not have strictly fewer hop-bytes: the task numbering's locality inside "
                "nodes and switches stays when their cut is no better (a stencil numbered along the machine). "
                "How each mapper places tasks, with a page per larger algorithm (`rahtm`, `refine-mcl`, "
                "`refine-hb`, `timer`, `ml`): [mappers/overview.md](mappers/overview.md).",
       .table_file = "src/map/catalog/catalog.cpp"},
      {
          {.name = "auto",
           .tag = tag(MapperKind::Auto),
           .summary = "the best of a portfolio chosen by machine kind, job size and task grid (the launchers' "
                      "defaults always among them); the best, Scotch's and rb's placements refined for hop-bytes, "
                      "the best then for the MCL under the run's routing; every result evaluated, the best by the "
                      "objective kept (on leaf switches the least leaf-uplink volume within uplink-slack of the "
                      "lowest MCL; docs/auto.md)",
           .applies_to = "any machine, any task count",
           .example = "auto:objective=hop-bytes,budget=50",
           .params = {{.name = "objective", .type = ParamType::Choice, .default_value = "mcl",
                       .choices = {"mcl", "hop-bytes", "j"},
                       .meaning = "what is lowest in the result: MCL then hop-bytes; hop-bytes then MCL; or J "
                                  "then MCL (the metric j, each task pair's traffic x distance counted once, "
                                  "hop-bytes / 2: it orders placements as hop-bytes does)"},
                      {.name = "effort", .type = ParamType::Choice, .default_value = "normal",
                       .choices = {"normal", "high"},
                       .meaning = "high: the multilevel candidate with 8 runs (its own and Scotch's mappings with "
                                  "several seeds, each V-cycled) instead of 2 and its coarsest graphs annealed twice "
                                  "as long (ml:seeds=8,anneal=32000): that candidate's time several times over, "
                                  "about 3.4 times auto's on graphs of many tasks per slot (docs/auto.md)"},
                      {.name = "budget", .type = ParamType::Int, .default_value = default_of(AutoOptions{}.budget),
                       .min = 0, .max = 1 << 30,
                       .meaning = "millions of work units of the MCL refinement (refine-mcl's work; 0: none), "
                                  "less on jobs whose moves cost much to score (docs/auto.md); the same result on "
                                  "every run"},
                      {.name = "work", .type = ParamType::Int, .default_value = "0", .min = 0, .max = 1 << 30,
                       .meaning = "millions of work units for the whole run (0: no limit): the first round takes "
                                  "the candidates whose predicted work fits half of it, the refinements share the "
                                  "rest and stop where theirs runs out; about 20 million a second on one core "
                                  "(docs/auto.md)"},
                      {.name = "workers", .type = ParamType::Int, .default_value = "0", .min = 0, .max = 1 << 16,
                       .meaning = "the workers the steps' jobs are spread over: 0, one per process of an MPI launch "
                                  "(mpirun -np K taskmap map: every process works); alone with N > 1, every worker's "
                                  "jobs in turn, the placement N processes would find (docs/auto.md)"},
                      {.name = "uplink-slack", .type = ParamType::Real,
                       .default_value = default_of(AutoOptions{}.uplink_slack), .min = 0, .max = 1,
                       .meaning = "on fabrics with leaf switches (objective mcl): among the results whose MCL is at "
                                  "most this fraction above the lowest and not above a launcher default's, the "
                                  "least leaf-uplink volume wins (0: MCL, then hop-bytes)"},
                      seed_param(AutoOptions{}.seed, "of the refiners")}},
          {.name = "default",
           .tag = tag(MapperKind::Default),
           .summary = "task i on slot i; with more tasks than slots, consecutive blocks of tasks per slot",
           .example = "default"},
          {.name = "hostname-order",
           .tag = tag(MapperKind::HostnameOrder),
           .summary = "the launchers' block default: the job's nodes sorted by host name (digit runs compared as "
                      "numbers, as Slurm sorts host lists), each filled slot by slot; unnamed nodes keep their order",
           .example = "hostname-order"},
          {.name = "order",
           .tag = tag(MapperKind::Order),
           .summary = "the slots enumerated in a letter order, first letter slowest; T is the slot within a router "
                      "(order:ABCDET is the default on a 5D torus)",
           .reference = "[RAHTM §IV]",
           .applies_to = "torus, mesh, hypercube; tasks <= slots",
           .applies = on_torus,
           .example = "order:TEDCBA",
           .positional = true,
           .params = {{.name = "letters", .type = ParamType::Letters, .required = true,
                       .meaning = "each dimension letter and T once"}}},
          {.name = "random",
           .tag = tag(MapperKind::Random),
           .summary = "a uniformly random set of distinct slots, the same for the same seed on every platform",
           .applies_to = "tasks <= slots",
           .applies = fits,
           .example = "random:seed=3",
           .params = {seed_param(1, "of the draw")}},
          {.name = "cyclic",
           .tag = tag(MapperKind::Cyclic),
           .summary = "task t at position t x stride of the slots, shifted by one per lap; the default stride is "
                      "Slurm's cyclic distribution (task t on node t mod nodes); on nodes of different slot counts "
                      "the launchers' round robin over the nodes in host-name order",
           .applies_to = "tasks <= slots",
           .applies = fits,
           .example = "cyclic:stride=4",
           .params = {{.name = "stride", .type = ParamType::Int, .min = 1, .max = 1 << 30,
                       .meaning = "slots between consecutive tasks; must divide the slot count",
                       .when_absent = "the machine's slots per node"}}},
          {.name = "file",
           .tag = tag(MapperKind::File),
           .summary = "a placement file: one 'task slot' pair per line (0-based), as `map` writes it",
           .example = "file:placement.txt",
           .positional = true,
           .params = {{.name = "path", .type = ParamType::Path, .required = true, .meaning = "the placement file"}}},
          {.name = "percs-block",
           .tag = tag(MapperKind::PercsBlock),
           .summary = "2x2, 4x8 or 8x16 task blocks onto nodes, drawers or supernodes, in order or at random; "
                      "inside a block 2x2 quads onto the nodes, a quad's 4 tasks onto a node's 4 slots",
           .reference = "[PERCS-map §4]",
           .applies_to = "percs (ppn=4); a 2D task grid",
           .applies = on_percs,
           .example = "percs-block:level=drawer,order=random,seed=3",
           .params = {{.name = "level", .type = ParamType::Choice, .required = true,
                       .choices = {"node", "drawer", "supernode"}, .meaning = "what one block fills"},
                      {.name = "order", .type = ParamType::Choice,
                       .default_value = PercsBlockOptions{}.random_order ? "random" : "seq",
                       .choices = {"seq", "random"}, .meaning = "blocks in row-major order, or shuffled"},
                      seed_param(PercsBlockOptions{}.seed, "of order=random"), grid_param()}},
          {.name = "percs-modcolor",
           .tag = tag(MapperKind::PercsModColor),
           .summary = "8x8 blocks coloured by nice permutations (i, 5i+2 mod q), colour = supernode; quads "
                      "row-major. Needs P a multiple of 32 and Q a power of two >= 64",
           .reference = "[PERCS-map Lemma 4.1]",
           .applies_to = "percs (ppn=4); a 2D task grid",
           .applies = on_percs,
           .example = "percs-modcolor",
           .params = {grid_param()}},
          {.name = "percs-transpose",
           .tag = tag(MapperKind::PercsTranspose),
           .summary = "rows (or columns) onto consecutive slots; hybrid keeps together the lines that are not 64 "
                      "long",
           .reference = "[PERCS-map §5]",
           .applies_to = "percs; a 2D task grid",
           .applies = on_percs,
           .example = "percs-transpose:layout=row",
           .params = {{.name = "layout", .type = ParamType::Choice, .default_value = "hybrid",
                       .choices = {"row", "column", "hybrid"}, .meaning = "which lines stay together"},
                      grid_param()}},
          {.name = "rtt-map",
           .tag = tag(MapperKind::RttMap),
           .summary = "concentration steps (h2, v2, t2, h4, ...) applied left to right, then id or the diagonal "
                      "shift f^d(x, y) = (x + y mod 2a, y); the result must be the 2a x a router grid",
           .reference = "[RTT-map §4]",
           .applies_to = "rt, rtt; a 2D task grid",
           .applies = on_rtt,
           .example = "rtt-map:f=diag,conc=h2t2",
           .params = {{.name = "f", .type = ParamType::Choice, .default_value = "id", .choices = {"id", "diag"},
                       .meaning = "the mapping function"},
                      {.name = "conc", .type = ParamType::String,
                       .meaning = "concentration steps, e.g. v2 or h2t2 (f_2^t after f_2^h)",
                       .when_absent = "none"},
                      grid_param()}},
          {.name = "dragonfly-bsm",
           .tag = tag(MapperKind::DragonflyBsm),
           .summary = "the squarest blocks of one group's slots, row-major to groups; inside, the squarest "
                      "sub-blocks of one router's slots, row-major to routers",
           .reference = "[Dragonfly-BAC §4]",
           .applies_to = "dragonfly; a 2D task grid",
           .applies = on_dragonfly,
           .example = "dragonfly-bsm",
           .params = {grid_param()}},
          {.name = "dragonfly-bbac",
           .tag = tag(MapperKind::DragonflyBbac),
           .summary = "balanced block-cyclic colouring of 2x2 task units onto groups (n or 2n colours on the n x n "
                      "unit mesh; 3D grids n colours)",
           .reference = "[Dragonfly-BAC §4]",
           .applies_to = "dragonfly; a square (or cubic) task grid",
           .applies = on_dragonfly,
           .example = "dragonfly-bbac:colors=n",
           .params = {{.name = "colors", .type = ParamType::Choice, .default_value = "2n", .choices = {"n", "2n"},
                       .meaning = "colours on the 2D unit mesh"},
                      grid_param()}},
          {.name = "hilbert",
           .tag = tag(MapperKind::Hilbert),
           .summary = "a Hilbert curve over the largest group of equal power-of-two dimensions, the other "
                      "dimensions then T inside each curve point",
           .reference = "[RAHTM §IV]",
           .applies_to = "torus, mesh, hypercube; tasks <= slots",
           .applies = on_torus,
           .example = "hilbert"},
          {.name = "rubik-tiling",
           .tag = tag(MapperKind::RubikTiling),
           .summary = "Rubik-style: the 2D task grid in 4x4 tiles, the torus in 4x2x2 boxes in A, B, E",
           .reference = "[RAHTM §IV]",
           .applies_to = "torus with 5 or more dimensions; a 2D task grid",
           .applies = on_torus,
           .example = "rubik-tiling:grid=128x128",
           .params = {grid_param()}},
          {.name = "blocks",
           .tag = tag(MapperKind::GridBlocks),
           .summary = "the task grid in equal blocks of one router's slots, the grid of blocks onto the routers: each "
                      "task dimension onto one torus dimension or a snake through several, so that neighbouring "
                      "blocks sit on neighbouring routers; of all block shapes and assignments that fit, the one with "
                      "the fewest hop-bytes",
           .applies_to = "torus, mesh, hypercube, all routers with equal slots; a task grid that fills the machine",
           .applies = on_torus,
           .example = "blocks:grid=64x32",
           .params = {grid_param()}},
          {.name = "scotch",
           .tag = tag(MapperKind::Scotch),
           .summary = "the Scotch library's graph mapping onto the machine (tori, meshes, hypercubes and hier as "
                      "Scotch's own targets, others as their router graph; one thread, fixed random state), then "
                      "tasks onto their routers' slots",
           .reference = "[Scotch]",
           .applies_to = "any machine and allocation; any task count",
           .example = "scotch:strategy=speed",
           .params = {{.name = "strategy", .type = ParamType::Choice, .default_value = "auto",
                       .choices = {"auto", "quality", "speed"},
                       .meaning = "Scotch's strategy: SCOTCH_STRATQUALITY, or SCOTCH_STRATSPEED with recursive "
                                  "bipartitioning alone (SCOTCH_STRATRECURSIVE: no k-way refinement, which takes most "
                                  "of quality's minutes on a million tasks); auto: quality up to 262,144 tasks, speed "
                                  "beyond"},
                      {.name = "seed", .type = ParamType::Int, .default_value = "0", .min = 0, .max = 1073741822,
                       .meaning = "Scotch's random state: 0 its own fixed state, another that state seeded with "
                                  "twice this number (Scotch draws one mapping from seeds 2k and 2k + 1); the same "
                                  "seed, the same mapping"}}},
          {.name = "ptscotch",
           .tag = tag(MapperKind::PtScotch),
           .summary = "under an MPI launch (mpirun -np K taskmap ...): PT-Scotch's distributed mapping, each process "
                      "holding a slice of the tasks, into one part per router sized by its slots; Scotch then places "
                      "the parts on the routers and tasks fill their part's router. Its result depends on the "
                      "process count. Without PT-Scotch (the serial program, MPICH's launcher), or with fewer tasks "
                      "than processes, it is scotch (docs/scaling.md)",
           .reference = "[PT-Scotch]",
           .applies_to = "any machine and allocation; any task count",
           .example = "ptscotch"},
          {.name = "metis",
           .tag = tag(MapperKind::Metis),
           .summary = "METIS k-way parts, one per router, balanced to --imbalance, then the parts onto routers",
           .reference = "[METIS]",
           .applies_to = "any machine and allocation; any task count",
           .example = "metis:assign=identity",
           .params = {{.name = "assign", .type = ParamType::Choice, .default_value = "greedy",
                       .choices = {"greedy", "identity"},
                       .meaning = "parts onto routers greedily by traffic, or part i on router i"}}},
          {.name = "greedy",
           .tag = tag(MapperKind::Greedy),
           .summary = "greedy graph embedding: the heaviest unplaced task next to its heaviest placed partner, on "
                      "the nearest router with room",
           .reference = "[Greedy-map]",
           .applies_to = "any machine and allocation; any task count",
           .example = "greedy"},
          {.name = "rb",
           .tag = tag(MapperKind::RecursiveBisection),
           .summary = "recursive bisection of the task graph (METIS) and the machine (box halves, or METIS on the "
                      "router graph) together, down to single routers",
           .applies_to = "any machine and allocation; any task count",
           .example = "rb:tries=16",
           .params = {{.name = "tries", .type = ParamType::Int, .default_value = "1", .min = 1, .max = 1024,
                       .meaning = "METIS bisections per split, the lowest cut kept"},
                      {.name = "split", .type = ParamType::Choice, .default_value = "halves",
                       .choices = {"halves", "leaves"},
                       .meaning = "the machine halved along its structure from the top; or, on fabrics with leaf "
                                  "switches, the tasks first into all the job's leaves at once (METIS recursive "
                                  "k-way, each leaf its share of the slots: the cut is the traffic leaving the "
                                  "leaves; the least cut of the leaves in the routers' order and sorted by size "
                                  "both ways, then the tasks of pairs of leaves as far from the job's other leaves "
                                  "shared out again where that lowers their cut, into free slots too), then halved "
                                  "inside each leaf"},
                      {.name = "shares", .type = ParamType::Choice, .default_value = "slots",
                       .choices = {"slots", "link-speed"},
                       .meaning = "each side of a split takes its share of the tasks in proportion to its slots; or, "
                                  "where the job leaves slots free and the nodes' own links differ in speed, a node "
                                  "behind a slower link fewer, in proportion to its speed as far as the free slots "
                                  "allow (at half speed, half as many tasks load its link as much as the others')"}}},
          {.name = "ml",
           .tag = tag(MapperKind::Multilevel),
           .summary = "multilevel mapping: the task graph coarsened by size-constrained label propagation, the "
                      "coarsest graph placed by recursive bisection with the machine (as rb), then at every level "
                      "back to the tasks rebalanced and refined for hop-bytes (moves, exchanges, FM searches); "
                      "V-cycles from the best; several runs within a work budget",
           .reference = "[KaHIP-hier]",
           .applies_to = "any machine and allocation; any task count",
           .example = "ml:seeds=8,work=400",
           .params = {{.name = "seeds", .type = ParamType::Int, .default_value = default_of(MultilevelOptions{}.seeds),
                       .min = 1, .max = 1 << 20,
                       .meaning = "runs at most: alternately its own (each from its own coarsening) and from Scotch's "
                                  "mapping (with a new Scotch seed each time)"},
                      {.name = "vcycles", .type = ParamType::Int,
                       .default_value = default_of(MultilevelOptions{}.vcycles), .min = 0, .max = 1 << 20,
                       .meaning = "V-cycles from the best placement after each run"},
                      {.name = "anneal", .type = ParamType::Int,
                       .default_value = default_of(MultilevelOptions{}.coarsest_anneal_steps), .min = 0,
                       .max = 1 << 24,
                       .meaning = "simulated annealing steps per vertex on a run's coarsest graph, which sets the "
                                  "layout of the whole graph on the machine (the finer levels: 2,000)"},
                      {.name = "work", .type = ParamType::Int, .default_value = default_of(MultilevelOptions{}.work),
                       .min = 1, .max = 1 << 30,
                       .meaning = "budget in millions of work units (adjacency entries scanned, block costs "
                                  "evaluated): no run or V-cycle starts beyond it, the first run always completes; "
                                  "the same result on every run"},
                      seed_param(MultilevelOptions{}.seed, "of the coarsening, the bisections and the refinement")}},
          {.name = "timer",
           .tag = tag(MapperKind::Timer),
           .summary = "TiMEr's label swapping along random hierarchies lowers hop-bytes; alone it improves "
                      "scotch's mapping",
           .reference = "[TiMEr §3-4]",
           .applies_to = "the router graph is a partial cube (meshes, even tori, hypercubes, trees)",
           .applies = on_partial_cube,
           .example = "timer:hierarchies=20",
           .params = {{.name = "hierarchies", .type = ParamType::Int,
                       .default_value = default_of(TimerOptions{}.hierarchies), .min = 1, .max = 1 << 20,
                       .meaning = "N_H, random hierarchies tried"},
                      seed_param(TimerOptions{}.seed, "of the digit orders and extension labels")}},
          {.name = "refine-hb",
           .tag = tag(MapperKind::RefineHopBytes),
           .summary = "hop-bytes local search: group moves and exchanges, task moves and swaps; alone it starts "
                      "from default",
           .applies_to = "any machine and allocation; any task count",
           .example = "refine-hb:rounds=10",
           .params = {{.name = "rounds", .type = ParamType::Int,
                       .default_value = default_of(HopBytesRefineOptions{}.rounds), .min = 1, .max = 1 << 20,
                       .meaning = "passes over the tasks at most"},
                      {.name = "work", .type = ParamType::Int, .default_value = "0", .min = 0, .max = 1 << 30,
                       .meaning = "millions of work units at most (0: no limit); where they run out the search "
                                  "stops with what it reached, the same on every run"},
                      {.name = "room", .type = ParamType::Choice, .default_value = "slots",
                       .choices = {"slots", "link-speed"},
                       .meaning = "tasks move into any free slot; or, where the nodes' own links differ in speed, a "
                                  "node behind a slower link takes at most its share of the job by link speed, as "
                                  "rb:shares=link-speed shares it, to the nearest task (or what it holds at the start, "
                                  "when more; with as many tasks as slots or more, every slot's room, as rb shares "
                                  "by slots then): hop-bytes do not see link speeds and would fill the free slots such "
                                  "a start leaves beside it"},
                      seed_param(HopBytesRefineOptions{}.seed, "of the order tasks are visited in")}},
          {.name = "refine-mcl",
           .tag = tag(MapperKind::RefineMcl),
           .summary = "local search on the MCL under the run's routing, then channels at the MCL, the spread of the "
                      "loads, hop-bytes: descents, annealing, region moves; alone it starts from default",
           .applies_to = "any machine, any task count",
           .example = "refine-mcl:work=1000,regions=50",
           .params = {{.name = "work", .type = ParamType::Int, .default_value = default_of(RefineOptions{}.work),
                       .min = 1, .max = 1 << 30,
                       .meaning = "budget in millions of work units (4 per flow re-routed, 1 per channel whose "
                                  "load changes and 1 per task-graph edge visited, as moves are scored and made): "
                                  "proportional to time, and the same result on every run"},
                      {.name = "seconds", .type = ParamType::Real, .min = 0.001, .max = 86400,
                       .meaning = "a wall-clock limit on top of work: the result then depends on the machine's "
                                  "speed and load, and is not reproducible",
                       .when_absent = "none"},
                      {.name = "candidates", .type = ParamType::Int,
                       .default_value = default_of(RefineOptions{}.candidates), .min = 1, .max = 1 << 20,
                       .meaning = "tasks crossing the bottleneck tried per step"},
                      {.name = "anneal", .type = ParamType::Bool,
                       .default_value = default_of(RefineOptions{}.anneal),
                       .meaning = "the annealing phases, on hop-bytes and on the spread of the loads (false: "
                                  "descents and the region phase only)"},
                      {.name = "regions", .type = ParamType::Int,
                       .default_value = default_of(RefineOptions{}.region_steps), .min = 0, .max = 1 << 24,
                       .meaning = "region phase: steps without a new best before it ends (0: no region phase)"},
                      {.name = "within", .type = ParamType::Choice, .default_value = "machine",
                       .choices = {"machine", "leaf"},
                       .meaning = "where a task may move: to any slot, or (leaf: fabrics with leaf switches only) "
                                  "to the nodes under its own leaf switches, so that the leaf-uplink volume stays"},
                      {.name = "links", .type = ParamType::Choice, .default_value = "all", .choices = {"all", "network"},
                       .meaning = "the MCL searched: over every channel, or over the network's links only (the "
                                  "nodes' own links left out, as mcl_network)"},
                      {.name = "moves", .type = ParamType::Choice, .default_value = "tasks",
                       .choices = {"tasks", "routers"},
                       .meaning = "what a move carries: tasks, or all the tasks of a router exchanged with another "
                                  "router's of as many slots and the same own links (every node link keeps a load "
                                  "that a link of its speed had: with links=network the MCL never rises)"},
                      seed_param(RefineOptions{}.seed, "of the annealing and the region phase's samples")}},
          {.name = "refine-inject",
           .tag = tag(MapperKind::RefineInject),
           .summary = "lowers the load of the busiest nodes' own links (injection, ejection): two nodes under the "
                      "same leaf switches share their tasks out again (METIS bisections balancing the tasks and "
                      "their traffic with the rest of the job), kept when the busier of the two gets less load; "
                      "a busy node may also give tasks to its partner's free slots; the network's links keep "
                      "their loads (leaf-uplink volume kept); alone it starts from default",
           .applies_to = "fabrics with leaf switches (Slurm, ibnetdiscover); any task count",
           .applies = on_leaf_fabric,
           .example = "refine-inject:tries=8",
           .params = {{.name = "tries", .type = ParamType::Int, .default_value = default_of(InjectRefineOptions{}.tries),
                       .min = 1, .max = 1 << 10, .meaning = "METIS bisections per pair of nodes, each its own seed"},
                      {.name = "passes", .type = ParamType::Int,
                       .default_value = default_of(InjectRefineOptions{}.passes), .min = 1, .max = 1 << 10,
                       .meaning = "passes over the nodes at most, busiest first"},
                      {.name = "work", .type = ParamType::Int, .default_value = "0", .min = 0, .max = 1 << 30,
                       .meaning = "millions of work units at most (0: only its own limit, 128 tasks bisected per "
                                  "task); where they run out it stops with what it reached, the same on every run"},
                      seed_param(InjectRefineOptions{}.seed, "of the first bisection")}},
          {.name = "rahtm",
           .tag = tag(MapperKind::Rahtm),
           .summary = "RAHTM: tiling clusters, MILP placement of clusters on 2-ary cubes (COIN-OR CBC), "
                      "bottom-up merge over all orientations with a beam, under the run's routing",
           .reference = "[RAHTM §III]",
           .applies_to = "torus, mesh, hypercube with power-of-two sizes; tasks <= slots",
           .applies = on_torus,
           .example = "rahtm:beam=16,threads=2",
           .params = {{.name = "beam", .type = ParamType::Int, .default_value = default_of(RahtmOptions{}.beam),
                       .min = 1, .max = 4096, .meaning = "N, partial mappings kept by the merge [RAHTM §III-D]"},
                      {.name = "search-nodes", .type = ParamType::Int,
                       .default_value = default_of(RahtmOptions{}.search_nodes), .min = 0, .max = 1e12,
                       .meaning = "partial placements the exact search visits per cube sub-problem (a count: the "
                                  "same result on every run); where they run out, its best placement goes to the MILP"},
                      {.name = "milp-iterations", .type = ParamType::Int,
                       .default_value = default_of(RahtmOptions{}.milp_iterations), .min = 0, .max = 1 << 30,
                       .meaning = "CBC simplex iterations per cube sub-problem, checked between branch-and-bound "
                                  "nodes after the root LP (the best placement found is used when they run out; "
                                  "the same result on every run); leaf=exact: 0 skips the MILP"},
                      {.name = "milp-seconds", .type = ParamType::Real, .min = 0.001, .max = 3600,
                       .meaning = "a wall-clock limit per cube sub-problem on top of milp-iterations: the result then "
                                  "depends on the machine's speed and load, and is not reproducible",
                       .when_absent = "none"},
                      {.name = "leaf", .type = ParamType::Choice, .default_value = leaf_name(RahtmOptions{}.leaf),
                       .choices = {"exact", "milp", "greedy"},
                       .meaning = "cube placements by the exact search for the least even-split MCL (the MILP "
                                  "where its nodes run out), by the MILP of [RAHTM Table II], or greedily"},
                      {.name = "threads", .type = ParamType::Int, .default_value = default_of(RahtmOptions{}.threads),
                       .min = 0, .max = 1024, .meaning = "worker threads (0: one per core); the mapping is the same"},
                      grid_param()}},
      });
  return catalog;
}

namespace {

// "h2", "v2t2", ...: concentration functions in the order they are applied.
std::vector<Concentration> parse_concentration(const SpecValues& v) {
  const std::string& text = v.get_text("conc");
  std::vector<Concentration> steps;
  std::size_t i = 0;
  while (i < text.size()) {
    const char kind = text[i++];
    if (kind != 'h' && kind != 'v' && kind != 't') {
      v.fail(fmt::format("conc='{}': '{}' is not h, v or t (write e.g. conc=v2 or conc=h2t2)", text, kind));
    }
    std::size_t end = i;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    auto factor = io::parse_int(std::string_view(text).substr(i, end - i));
    if (!factor || *factor < 2 || *factor > 1024) {
      v.fail(fmt::format("conc='{}': '{}' needs a factor of at least 2 after it", text, kind));
    }
    steps.push_back(Concentration{kind, static_cast<std::uint32_t>(*factor)});
    i = end;
  }
  if (steps.empty()) v.fail("conc= is empty");
  return steps;
}

std::uint64_t seed(const SpecValues& v) { return static_cast<std::uint64_t>(v.get_int("seed")); }
std::uint32_t count(const SpecValues& v, std::string_view key) { return static_cast<std::uint32_t>(v.get_int(key)); }

// One stage's options, read from its parsed values (the table's defaults where absent).
std::unique_ptr<Mapper> make_stage(const SpecValues& v) {
  MapperLabel label{v.text(), {}};
  if (v.entry().param("grid") && v.given("grid")) label.grid = v.get_sizes("grid");
  switch (kind_of(v)) {
    case MapperKind::Auto: {
      AutoOptions options;
      options.objective = static_cast<AutoObjective>(v.choice_index("objective"));
      options.effort = static_cast<AutoEffort>(v.choice_index("effort"));
      options.budget = static_cast<std::uint64_t>(v.get_int("budget"));
      options.work = static_cast<std::uint64_t>(v.get_int("work"));
      options.workers = static_cast<std::uint32_t>(v.get_int("workers"));
      options.uplink_slack = v.get_real("uplink-slack");
      options.seed = seed(v);
      MapperFactory factory{
          [](std::string_view spec) { return make_mapper(parse_mapper_spec(spec)); },
          [](std::string_view spec, const MappingProblem& problem) {
            return why_not_applicable(parse_mapper_spec(spec), problem);
          }};
      return make_auto_mapper(std::move(label), options, std::move(factory));
    }
    case MapperKind::Default: return make_default_mapper();
    case MapperKind::HostnameOrder: return make_hostname_order_mapper();
    case MapperKind::Order: return make_order_mapper(std::move(label), v.get_text("letters"));
    case MapperKind::Random: return make_random_mapper(seed(v));
    case MapperKind::Cyclic: return make_cyclic_mapper(std::move(label), v.given("stride") ? count(v, "stride") : 0);
    case MapperKind::File: return make_file_mapper(v.get_text("path"));
    case MapperKind::PercsBlock:
      return make_percs_block_mapper(std::move(label), {.level = static_cast<PercsBlockLevel>(v.choice_index("level")),
                                                        .random_order = v.get_choice("order") == "random",
                                                        .seed = seed(v)});
    case MapperKind::PercsModColor: return make_percs_modcolor_mapper(std::move(label));
    case MapperKind::PercsTranspose:
      return make_percs_transpose_mapper(std::move(label), static_cast<TransposeLayout>(v.choice_index("layout")));
    case MapperKind::RttMap:
      return make_rtt_mapper(std::move(label),
                             {.function = static_cast<RttFunction>(v.choice_index("f")),
                              .concentration = v.given("conc") ? parse_concentration(v) : std::vector<Concentration>{}});
    case MapperKind::DragonflyBsm: return make_dragonfly_bsm_mapper(std::move(label));
    case MapperKind::DragonflyBbac: return make_dragonfly_bbac_mapper(std::move(label), v.get_choice("colors") == "2n");
    case MapperKind::Hilbert: return make_hilbert_mapper(std::move(label));
    case MapperKind::RubikTiling: return make_rubik_tiling_mapper(std::move(label));
    case MapperKind::GridBlocks: return make_grid_blocks_mapper(std::move(label));
    case MapperKind::Scotch: {
      const std::string strategy = v.get_choice("strategy");
      return make_scotch_mapper(std::move(label), strategy == "quality" ? ScotchStrategy::Quality
                                                  : strategy == "speed" ? ScotchStrategy::Speed
                                                                        : ScotchStrategy::Auto,
                                static_cast<std::uint64_t>(v.get_int("seed")));
    }
    case MapperKind::PtScotch: return make_ptscotch_mapper(std::move(label));
    case MapperKind::Metis: return make_metis_mapper(std::move(label), v.get_choice("assign") == "greedy");
    case MapperKind::Greedy: return make_greedy_mapper(std::move(label));
    case MapperKind::RecursiveBisection:
      return make_rb_mapper(std::move(label), {.tries = count(v, "tries"),
                                               .leaves_first = v.get_choice("split") == "leaves",
                                               .by_link_speed = v.get_choice("shares") == "link-speed"});
    case MapperKind::Multilevel:
      return make_multilevel_mapper(std::move(label), {.seeds = count(v, "seeds"),
                                                       .vcycles = count(v, "vcycles"),
                                                       .coarsest_anneal_steps = count(v, "anneal"),
                                                       .work = static_cast<std::uint64_t>(v.get_int("work")),
                                                       .seed = seed(v)});
    // Alone, timer improves Scotch's mapping: TiMEr starts from a partitioner's mapping, and
    // Scotch's is the best of taskmap's.
    case MapperKind::Timer:
      return make_timer_mapper(std::move(label), {.hierarchies = count(v, "hierarchies"), .seed = seed(v)},
                               make_scotch_mapper({"scotch", {}}));
    case MapperKind::RefineHopBytes: {
      HopBytesRefineOptions options;
      options.rounds = count(v, "rounds");
      options.work = static_cast<std::uint64_t>(v.get_int("work"));
      options.room_by_link_speed = v.get_choice("room") == "link-speed";
      options.seed = seed(v);
      return make_refine_hb_mapper(std::move(label), options, make_default_mapper());
    }
    case MapperKind::RefineMcl: {
      RefineOptions options;
      options.work = static_cast<std::uint64_t>(v.get_int("work"));
      if (v.given("seconds")) options.seconds = v.get_real("seconds");
      options.candidates = count(v, "candidates");
      options.anneal = v.get_bool("anneal");
      options.region_steps = count(v, "regions");
      options.within_leaf = v.choice_index("within") == 1;  // machine, leaf
      if (v.choice_index("links") == 1) options.channels = IncrementalEvaluator::Channels::Network;
      options.whole_routers = v.choice_index("moves") == 1;  // tasks, routers
      options.seed = seed(v);
      return make_refine_mcl_mapper(std::move(label), options, make_default_mapper());
    }
    case MapperKind::RefineInject:
      return make_refine_inject_mapper(std::move(label),
                                       {.tries = count(v, "tries"),
                                        .passes = count(v, "passes"),
                                        .work = static_cast<std::uint64_t>(v.get_int("work")),
                                        .seed = seed(v)},
                                       make_default_mapper());
    case MapperKind::Rahtm: {
      RahtmOptions options;
      options.beam = count(v, "beam");
      options.search_nodes = static_cast<std::uint64_t>(v.get_int("search-nodes"));
      options.milp_iterations = count(v, "milp-iterations");
      if (v.given("milp-seconds")) options.milp_seconds = v.get_real("milp-seconds");
      for (RahtmLeafSolver leaf : {RahtmLeafSolver::Exact, RahtmLeafSolver::Milp, RahtmLeafSolver::Greedy})
        if (v.get_choice("leaf") == leaf_name(leaf)) options.leaf = leaf;
      options.threads = count(v, "threads");
      return make_rahtm_mapper(std::move(label), options);
    }
  }
  v.fail("unhandled mapper");
}

// A+B+...: each stage improves the result of the one before.
class PipelineMapper final : public Mapper {
 public:
  explicit PipelineMapper(std::vector<std::unique_ptr<Mapper>> stages) : stages_(std::move(stages)) {}
  Mapping run(const MappingProblem& problem) const override {
    Mapping m = stages_.front()->run(problem);
    for (std::size_t i = 1; i < stages_.size(); ++i) m = stages_[i]->improve(problem, std::move(m));
    return m;
  }

 private:
  std::vector<std::unique_ptr<Mapper>> stages_;
};

}  // namespace

MapperSpec parse_mapper_spec(std::string_view text) {
  MapperSpec spec;
  spec.text = std::string(text);
  const std::vector<std::string_view> stages = io::split_outside_quotes(text, '+');
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if (stages[i].empty()) fail("--mapper '{}': stage {} is empty", text, i + 1);
    SpecValues stage = mapper_catalog().parse(stages[i]);
    if (kind_of(stage) == MapperKind::RttMap && stage.given("conc")) parse_concentration(stage);  // checked now
    if (i > 0 && !is_refiner(kind_of(stage))) {
      fail("--mapper '{}': '{}' cannot start from another mapping (after '+' only timer, refine-hb, refine-mcl or refine-inject)", text,
           stages[i]);
    }
    spec.stages.push_back(std::move(stage));
  }
  return spec;
}

namespace {

// Every mapper's last step on machines whose nodes have an inside: the node's tasks arranged
// on its slots (order_within_nodes).
class NodeOrdered final : public Mapper {
 public:
  explicit NodeOrdered(std::unique_ptr<Mapper> inner) : inner_(std::move(inner)) {}
  Mapping run(const MappingProblem& problem) const override { return ordered(problem, inner_->run(problem)); }
  Mapping improve(const MappingProblem& problem, Mapping start) const override {
    return ordered(problem, inner_->improve(problem, std::move(start)));
  }

 private:
  static Mapping ordered(const MappingProblem& problem, Mapping m) {
    order_within_nodes(problem, m);
    return m;
  }
  std::unique_ptr<Mapper> inner_;
};

}  // namespace

std::unique_ptr<Mapper> make_mapper(const MapperSpec& spec) {
  // Fixed orders (the launchers' defaults, a file, a letter order, a random draw) keep their
  // slots exactly; every mapper that optimizes also arranges the inside of the nodes (auto's
  // candidates each do so as they are made here).
  const auto kind = static_cast<MapperKind>(spec.stages.front().entry().tag);
  const bool fixed = spec.stages.size() == 1 &&
                     (kind == MapperKind::Auto || kind == MapperKind::Default || kind == MapperKind::HostnameOrder || kind == MapperKind::Order ||
                      kind == MapperKind::Random || kind == MapperKind::Cyclic || kind == MapperKind::File);
  if (spec.stages.size() == 1) {
    auto stage = make_stage(spec.stages.front());
    return fixed ? std::move(stage) : std::make_unique<NodeOrdered>(std::move(stage));
  }
  std::vector<std::unique_ptr<Mapper>> stages;
  for (const SpecValues& stage : spec.stages) stages.push_back(make_stage(stage));
  return std::make_unique<NodeOrdered>(std::make_unique<PipelineMapper>(std::move(stages)));
}

std::vector<std::string> split_mapper_list(const std::vector<std::string>& raw) {
  std::vector<std::string> out;
  auto add = [&](std::string piece) {
    // "key=value" continues the last stage's parameters; what follows a '+' is a stage of
    // its own ("split=leaves+refine-mcl:work=9" continues, "refine-mcl:work=9" does not).
    const std::string_view stage = io::split_outside_quotes(piece, '+').front();
    const bool continues = !out.empty() && stage.find('=') != std::string_view::npos && stage.find(':') == std::string_view::npos;
    if (continues) out.back() += "," + piece;
    else out.push_back(std::move(piece));
  };
  for (const std::string& item : raw) {
    for (std::string_view piece : io::split_outside_quotes(item, ',')) add(std::string(piece));
  }
  return out;
}

bool runs_on_all_processes(const MapperSpec& spec) {
  // auto spreads its steps' jobs over the processes (a pipeline after it runs on every one of
  // them too, from the same result).
  const MapperKind kind = kind_of(spec.stages.front());
  return kind == MapperKind::PtScotch || kind == MapperKind::Auto;
}

std::string why_not_applicable(const MapperSpec& spec, const MappingProblem& problem) {
  // A pipeline's later stages keep the first stage's task counts per slot.
  for (const SpecValues& stage : spec.stages) {
    if (std::string why = stage.entry().applies(problem); !why.empty()) {
      return spec.stages.size() == 1 ? why : fmt::format("{}: {}", stage.entry().name, why);
    }
  }
  return "";
}

}  // namespace taskmap
