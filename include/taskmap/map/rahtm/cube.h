#pragma once
// RAHTM's top-down sub-problem [RAHTM §III-C]: 2^m clusters onto the corners of a 2-ary
// m-cube. Its solvers (the MILP of Table II, an exact search for the even-split MCL, a greedy
// placement) and its canonical form, by which equal sub-problems are solved once.
#include <cstdint>
#include <vector>

namespace taskmap {

// One top-down sub-problem: n = 2^dims clusters onto the corners of a 2-ary dims-cube.
struct CubeProblem {
  std::uint32_t dims = 0;
  std::vector<double> capacity;  // per dimension: 1, or 2 for a 2-ary torus (double-wide links)
  std::vector<double> traffic;   // n x n, row = sender
  std::uint32_t size() const { return 1u << dims; }
};

struct CubeSolution {
  std::vector<std::uint32_t> vertex_of;  // cluster -> corner (bit d = coordinate in dimension d)
  double model_mcl = 0;                  // the solver's objective (MILP: best split over minimal paths)
  bool optimal = false;                  // proven optimal by the MILP, or by the exact search
};

// MCL with every flow split evenly over its minimal paths (the evaluation model of §III-D).
double cube_even_split_mcl(const CubeProblem& problem, const std::vector<std::uint32_t>& vertex_of);

// Table II: C1 (one cluster per corner), C2 (flow conservation), C3 (one direction per
// dimension, i.e. minimal routing), minimise the MCL, within about `max_iterations` simplex
// iterations (checked between nodes, after the root LP) and `seconds` of wall clock when
// positive. Its MIP start is `start` (a placement) when given, else the greedy placement.
// Throws Error if CBC fails.
CubeSolution solve_cube_milp(const CubeProblem& problem, std::uint32_t max_iterations, double seconds = 0,
                             const std::vector<std::uint32_t>* start = nullptr);

// Clusters by decreasing traffic, each to the free corner giving the lowest even-split MCL,
// then pairwise swaps while they lower (MCL, sum of squared loads).
CubeSolution solve_cube_greedy(const CubeProblem& problem);

// Pairwise swaps from `vertex_of` while they lower (MCL, sum of squared loads) under the even
// split; returns the MCL reached.
double cube_swap_descent(const CubeProblem& problem, std::vector<std::uint32_t>& vertex_of);

// Branch and bound over the placements, one per orbit of the cube's symmetries (translations
// and permutations of dimensions of equal capacity), for the least even-split MCL. Starts from
// `start` (its MCL is the first bound) and visits at most `max_nodes` partial placements;
// `optimal` says the search finished: no placement has an MCL below the one returned by more
// than a relative 1e-9. A placement better than the start is polished by cube_swap_descent
// (which keeps its MCL and lowers the sum of squared loads); else the start is returned as is.
struct CubeSearchStats {
  std::uint64_t nodes = 0;  // partial placements visited
};
CubeSolution solve_cube_exact(const CubeProblem& problem, const std::vector<std::uint32_t>& start,
                              std::uint64_t max_nodes, CubeSearchStats* stats = nullptr);

// The canonical form of a sub-problem under the relabelling of its clusters, the scaling of its
// volumes and the permutations of dimensions of equal capacity (the symmetries of the cube that
// act on a sub-problem; its translations and reflections only move solutions). Sub-problems
// equal up to these have the same form, so one solution of the form serves them all.
struct CanonicalCube {
  // Capacities ascending; volumes divided by `scale` (the largest volume) and rounded to 36
  // significant bits (so that a scaling's own rounding does not split equal forms); clusters
  // relabelled by the smallest traffic matrix (row-major) over the labellings the search visits.
  CubeProblem problem;
  std::vector<std::uint32_t> label;  // cluster -> its cluster in `problem`
  std::vector<std::uint32_t> dim;    // dimension of `problem` -> the sub-problem's dimension
  double scale = 1;
  // False when the labelling search reached its budget (graphs with huge symmetry groups the
  // pruning does not catch): the form is then a relabelling of the sub-problem, still solved
  // correctly, but equal sub-problems may get different forms.
  bool canonical = true;
  // The solution of `problem` as a placement of the original sub-problem's clusters, its
  // model MCL scaled back.
  CubeSolution to_original(const CubeSolution& solution) const;
  // A placement of the original sub-problem as one of `problem` (the inverse of to_original).
  std::vector<std::uint32_t> from_original(const std::vector<std::uint32_t>& vertex_of) const;
};
CanonicalCube canonical_cube(const CubeProblem& problem);

}  // namespace taskmap
