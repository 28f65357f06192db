#pragma once
// Partial cubes [TiMEr §2-3]: graphs whose vertices can be labelled with bit vectors so
// that the hop distance of two vertices is the Hamming distance of their labels. Meshes,
// tori with even sizes, hypercubes and trees are partial cubes; TiMEr works on the labels.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "taskmap/topology/machine.h"

namespace taskmap {

class PartialCube {
 public:
  // Labels a connected undirected graph (vertices 0 .. n-1, edges as vertex pairs; parallel
  // edges count once). Throws Error "NAME is not a partial cube: REASON" when it is not one
  // (disconnected, not bipartite, or its Djoković classes do not partition the edges).
  static PartialCube of_graph(std::uint32_t vertices, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges,
                              const std::string& name);
  // The machine's router graph (a channel in either direction is an edge).
  static PartialCube of_machine(const Machine& machine);

  std::uint32_t num_vertices() const { return vertices_; }
  std::uint32_t dims() const { return dims_; }  // label length = number of Djoković classes
  bool bit(std::uint32_t v, std::uint32_t j) const { return (bits_[std::size_t(v) * words_ + j / 64] >> (j % 64)) & 1; }
  std::uint32_t hamming(std::uint32_t a, std::uint32_t b) const;
  // The label as a string of 0/1, bit 0 first (for messages and tests).
  std::string label(std::uint32_t v) const;

 private:
  std::uint32_t vertices_ = 0, dims_ = 0, words_ = 0;
  std::vector<std::uint64_t> bits_;  // vertices_ x words_
};

// Whether a machine's router graph is a partial cube, answered in bounded work: closed form on
// tori and meshes (a line of k routers takes k-1 bits, a ring of even size k takes k/2, a ring
// of odd size is an odd cycle; products add), a triangle inside a Dragonfly group of 3 or more
// routers or a PERCS supernode rules it out, and any other machine is tested by of_machine()
// when routers x channels is small, else only for bipartiteness.
struct PartialCubeAnswer {
  enum class Verdict { Yes, No, Untested } verdict = Verdict::Untested;
  std::uint32_t dims = 0;  // Yes: label bits
  std::string reason;      // No: why not; Untested: why it was not tested
};
PartialCubeAnswer partial_cube_answer(const Machine& machine);

}  // namespace taskmap
