#pragma once
// Mappers: algorithms that place a CommGraph's tasks on a Machine's slots. Names follow the
// spec syntax: "default", "order:TEDCBA", "random[:seed=N]", "file:PATH", and the seed
// mappings "percs-block:level=drawer,order=random,seed=3", "percs-modcolor",
// "percs-transpose:layout=hybrid", "rtt-map:f=diag,conc=v2", "dragonfly-bsm",
// "dragonfly-bbac[:colors=2n]", and seed 001's "rahtm[:beam=N,milp-seconds=S,leaf=milp|greedy,threads=T]",
// "hilbert" and "rubik-tiling", "scotch" (Scotch's mapping), "metis[:assign=greedy|identity]", "greedy",
// "rb[:tries=N]" (recursive bisection),
// seed 002's "timer[:hierarchies=N,seed=S]" (alone it improves scotch's mapping),
// taskmap's "refine-mcl[:seconds=S,candidates=N,kicks=K,regions=N,seed=S]" and "refine-hb[:rounds=N,seed=S]",
// and pipelines "A+B" (B improves A's result, e.g. "scotch+timer+refine-hb"; only timer,
// refine-hb and refine-mcl can follow a '+'). Structured mappers read
// the pattern's task grid; their grid=PxQ option supplies one for patterns read from files.
#include <memory>
#include <string>
#include <string_view>

#include "taskmap/problem/problem.h"

namespace taskmap {

class Mapper {
 public:
  virtual ~Mapper() = default;
  virtual Mapping run(const MappingProblem& problem) const = 0;
  // Improves another mapper's result (a later stage of a pipeline A+B); only refiners
  // (timer, refine-hb, refine-mcl) override it, the parser admits no other kind after a '+'.
  virtual Mapping improve(const MappingProblem& problem, Mapping start) const;
};

// Every kind from PercsBlock on is a structured mapper and accepts grid=PxQ.
enum class MapperKind {
  Default, Order, Random, File,
  Cyclic,                                     // round robin with a stride (Slurm's cyclic)
  RefineMcl,                                  // taskmap's local search on the MCL
  Timer,                                      // seed 002: label swapping on partial cubes
  RefineHopBytes,                             // taskmap's local search on hop-bytes
  Scotch,                                     // the Scotch library's graph mapping
  Metis,                                      // METIS k-way parts, then parts onto routers
  Greedy,                                     // Hoefler & Snir's greedy graph embedding
  RecursiveBisection,                         // task graph and machine bisected together
  Pipeline,                                   // A+B+...: each stage improves the one before
  PercsBlock, PercsModColor, PercsTranspose,  // seed 000
  RttMap,                                     // seed 003
  DragonflyBsm, DragonflyBbac,                // seed 004
  Rahtm, Hilbert, RubikTiling                 // seed 001
};

enum class PercsBlockLevel { Node, Drawer, Supernode };
enum class TransposeLayout { Row, Column, Hybrid };
enum class RttFunction { Identity, DiagonalShift };

// One concentration function of seed 003: h (horizontal union), v (vertical), t (twisted),
// each with its factor c.
struct Concentration {
  char kind = 'v';
  std::uint32_t factor = 2;
};

struct MapperSpec {
  std::string text;
  MapperKind kind = MapperKind::Default;
  std::string order;          // Order: letters, first slowest, T = slot within the router
  std::uint64_t seed = 1;     // Random, PercsBlock with random order, Timer, RefineHopBytes, RefineMcl
  std::string path;           // File
  std::uint32_t stride = 0;   // Cyclic: 0 = the machine's slots per node
  std::vector<std::uint32_t> grid;  // task grid override (grid=PxQ); empty = the pattern's
  PercsBlockLevel level = PercsBlockLevel::Supernode;
  bool random_order = false;  // PercsBlock: blocks to processor blocks at random
  TransposeLayout layout = TransposeLayout::Hybrid;
  RttFunction function = RttFunction::Identity;
  std::vector<Concentration> concentration;  // applied left to right, before `function`
  bool double_colors = true;  // DragonflyBbac: 2n colours on the n x n unit mesh (else n)
  std::uint32_t beam = 64;     // Rahtm: beam width N of the merge
  double milp_seconds = 0.5;   // Rahtm: time limit per cube sub-problem
  bool greedy_leaves = false;  // Rahtm: greedy cube placement instead of the MILP (ablation)
  unsigned threads = 0;        // Rahtm: worker threads; 0 = one per core
  std::uint32_t tries = 1;     // RecursiveBisection: METIS bisections tried per split (the best is kept)
  double seconds = 10;         // RefineMcl: time budget
  std::uint32_t candidates = 16;  // RefineMcl: tasks crossing the bottleneck tried per step
  std::uint32_t kicks = 200;   // RefineMcl: perturbations of the iterated local search
  std::uint32_t region_steps = 200;  // RefineMcl: region phase, steps without a new best (0: off)
  std::uint32_t hierarchies = 50;  // Timer: N_H
  std::uint32_t rounds = 20;       // RefineHopBytes: passes over the tasks at most
  std::vector<MapperSpec> stages;  // Pipeline
  bool greedy_assignment = true;  // Metis: parts onto routers greedily (else part i on router i)
};

// The slots of a torus machine enumerated in a letter order (e.g. "ABCDET", "TEDCBA").
std::vector<SlotId> torus_slot_order(const Machine& machine, const std::string& letters);

}  // namespace taskmap
