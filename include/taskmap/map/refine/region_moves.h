#pragma once
// The moves of refine-mcl's region phase. Each permutes the contents of a few routers: all
// tasks of router `from` go to router `to` (slot k to slot k), so a move keeps every slot's
// count and the balance. Single-task moves cannot re-orient a block of tasks whose flows
// only pay off once the whole block is turned (NAS CG's rows on a mesh); these can.
//
// Families, each enumerated by index without being stored:
// - on tori, meshes and hypercubes, for each set S of dimensions (all dimensions of size
//   >= 2 when there are 2 or 3 of them, every 3 of them when there are more): every box of
//   side 2 over S (wrapping around tori) turned by each of its symmetries (|S|! x 2^|S|
//   axis permutations and reflections, less the identity);
// - the same boxes, aligned to even coordinates, exchanged pairwise by translation;
// - on tori, meshes and hypercubes, two parallel hyperplanes exchanged (coordinates i and j of
//   one dimension swapped in every router): the symmetry class that re-orders a dimension,
//   e.g. NAS CG's rows blocked in 2x2x2 boxes (coordinate 2c + r) turned into interleaved ones
//   (2r + c) by swapping planes 1 and 2 of each dimension;
// - on every machine, two routers' contents exchanged.
#include <cstdint>
#include <utility>
#include <vector>

#include "taskmap/topology/machine.h"

namespace taskmap {

class RegionMoves {
 public:
  explicit RegionMoves(const Machine& machine);

  // Indices run over [0, size()); some name no move (an unordered pair counted twice).
  std::uint64_t size() const { return total_; }
  // Fills `pairs` with move i's (from router, to router) pairs, a permutation of its routers;
  // false when index i names no move.
  bool get(std::uint64_t i, std::vector<std::pair<RouterId, RouterId>>& pairs) const;

 private:
  enum class Kind { TurnBox, SwapBoxes, SwapPlanes, SwapRouters };
  struct Family {
    Kind kind;
    std::vector<std::size_t> dims;        // S (boxes); the dimension (planes)
    std::vector<std::vector<std::size_t>> perms;  // TurnBox: the axis permutations of S
    std::vector<std::uint32_t> ranges;    // per machine dimension: box corner positions
    std::uint64_t positions = 0;          // product of ranges
    std::uint64_t symmetries = 0;         // TurnBox: |S|! x 2^|S| (the identity is index 0)
    std::uint64_t count = 0;              // indices of this family
  };
  void add_box_families(const TorusShape& torus, const std::vector<std::size_t>& dims);
  // The routers of the box with this corner position, cell by cell (cell bits = S order).
  void box_routers(const Family& f, std::uint64_t position, std::vector<RouterId>& out) const;

  const Machine& machine_;
  std::uint32_t hosts_;
  std::vector<Family> families_;
  std::uint64_t total_ = 0;
};

}  // namespace taskmap
