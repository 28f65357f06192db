// Partial-cube recognition and labels: labels reproduce hop distances; non-partial cubes are
// refused.
#include <gtest/gtest.h>

#include "taskmap/core/error.h"
#include "taskmap/topology/distance.h"
#include "taskmap/topology/partial_cube.h"
#include "taskmap/topology/rect_torus_geometry.h"
#include "test_support.h"

namespace taskmap {
namespace {

// Partial cubes [TiMEr §2-3]: the labels' Hamming distances must equal the hop distances
// HopDistance computes in closed form, with one label bit per Djoković class.
TEST(PartialCube, LabelsReproduceHopDistancesOnMeshesToriAndHypercubes) {
  const std::pair<const char*, std::uint32_t> cases[] = {
      {"mesh:4x5", 3 + 4},       // a mesh of side s has s - 1 cuts per dimension
      {"torus:4x6", 2 + 3},      // an even ring of size s has s / 2
      {"torus:2x4", 1 + 2},      // a ring of two is a single edge
      {"hypercube:d=4", 4},
      {"mesh:3x3x2", 2 + 2 + 1},
  };
  for (const auto& [spec, dims] : cases) {
    const Machine m = make_machine(spec);
    const PartialCube pc = PartialCube::of_machine(m);
    EXPECT_EQ(pc.dims(), dims) << spec;
    const HopDistance hops(m);
    for (RouterId a = 0; a < m.num_routers; ++a)
      for (RouterId b = 0; b < m.num_routers; ++b) ASSERT_EQ(pc.hamming(a, b), hops(a, b)) << spec << " " << a << "-" << b;
  }
}

TEST(PartialCube, TreeLabelsHaveOneBitPerEdge) {
  // Binary tree 0 -> {1, 2}, 1 -> {3, 4}, 2 -> {5, 6}: every edge is its own class, leaves 3
  // and 6 are 4 hops apart, siblings 3 and 4 are 2.
  const PartialCube pc = PartialCube::of_graph(7, {{0, 1}, {0, 2}, {1, 3}, {1, 4}, {2, 5}, {2, 6}}, "tree");
  EXPECT_EQ(pc.dims(), 6u);
  EXPECT_EQ(pc.hamming(3, 6), 4u);
  EXPECT_EQ(pc.hamming(3, 4), 2u);
  EXPECT_EQ(pc.hamming(0, 5), 2u);
  EXPECT_EQ(pc.label(0), "000000");  // the root is on the x side of every cut
}

TEST(PartialCube, RejectsGraphsThatAreNotPartialCubes) {
  auto expect_error = [](auto&& build, const std::string& start) {
    try {
      build();
      ADD_FAILURE() << "no error, expected: " << start;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).substr(0, start.size()), start);
    }
  };
  expect_error([] { PartialCube::of_graph(3, {{0, 1}, {1, 2}, {2, 0}}, "triangle"); },
               "triangle is not a partial cube: it is not bipartite");
  expect_error([] { PartialCube::of_machine(make_machine("torus:3x4")); },
               "machine 'torus:3x4' is not a partial cube: it is not bipartite");
  // K(2,3) is bipartite but not isometric in any hypercube.
  expect_error([] { PartialCube::of_graph(5, {{0, 2}, {0, 3}, {0, 4}, {1, 2}, {1, 3}, {1, 4}}, "K23"); },
               "K23 is not a partial cube: the Djoković classes");
  expect_error([] { PartialCube::of_graph(4, {{0, 1}, {2, 3}}, "two edges"); },
               "two edges is not a partial cube: it is not connected");
}

}  // namespace
}  // namespace taskmap
