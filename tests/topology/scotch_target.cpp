// Scotch target files as machines (tgt:FILE): each kind's machine, Scotch's terminal order as
// the slot order, and the numbering ScotchTerminals gives the terminals.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "taskmap/core/error.h"
#include "taskmap/topology/distance.h"
#include "taskmap/topology/scotch_target.h"
#include "test_support.h"

namespace taskmap {
namespace {

Machine target(const std::string& name) { return make_machine("tgt:" + test::instance("scotch/" + name)); }

// Every pair of routers of a mesh whose router r is at (r % width, r / width) is as far apart as
// their coordinates' differences add up to.
void expect_mesh_distances(const Machine& m, int width) {
  const HopDistance d(m);
  for (RouterId a = 0; a < m.num_routers; ++a) {
    for (RouterId b = 0; b < m.num_routers; ++b) {
      const int dx = std::abs(int(a) % width - int(b) % width), dy = std::abs(int(a) / width - int(b) / width);
      EXPECT_EQ(d(a, b), static_cast<std::uint32_t>(dx + dy)) << a << " " << b;
    }
  }
}

// mesh2D 3 2: Scotch's terminal t is (x, y) = (t % 3, t / 3), x fastest; taskmap's mesh:2x3 numbers
// router (A, B) as 3A + B, so with A = y and B = x terminal t is router t.
TEST(ScotchTarget, MeshDimensionsAreReversedSoThatTerminalsAreRouters) {
  const Machine m = target("mesh3x2.tgt");
  ASSERT_NE(m.torus(), nullptr);
  EXPECT_EQ(m.torus()->sizes, (std::vector<std::uint32_t>{2, 3}));
  EXPECT_EQ(m.torus()->wrap, (std::vector<bool>{false, false}));
  expect_mesh_distances(m, 3);
}

// torus3D 2 3 4: terminal t = (t % 2, t / 2 % 3, t / 6); terminals 0 and 23 = (1, 2, 3) are one
// hop apart in each dimension (around the rings of 3 and 4).
TEST(ScotchTarget, TorusWrapsAround) {
  const Machine m = target("torus2x3x4.tgt");
  EXPECT_EQ(m.torus()->sizes, (std::vector<std::uint32_t>{4, 3, 2}));
  EXPECT_EQ(m.torus()->wrap, (std::vector<bool>{true, true, true}));
  const HopDistance d(m);
  EXPECT_EQ(d(0, 23), 3u);
  EXPECT_EQ(d(0, 2), 1u);   // y 0 -> 1
  EXPECT_EQ(d(0, 12), 2u);  // z 0 -> 2
  const Machine xd = target("torus4x3.xd.tgt");  // torusXD 2 4 3: x of 4, y of 3
  EXPECT_EQ(xd.torus()->sizes, (std::vector<std::uint32_t>{3, 4}));
}

TEST(ScotchTarget, HypercubeAndCompleteGraphs) {
  const Machine cube = target("hcub3.tgt");
  const HopDistance d(cube);
  EXPECT_EQ(cube.num_slots(), 8u);
  EXPECT_EQ(d(0, 7), 3u);
  EXPECT_EQ(d(1, 2), 2u);
  // cmplt 5: every terminal 1 from every other, through one switch.
  const Machine complete = target("cmplt5.tgt");
  const HopDistance dc(complete);
  EXPECT_EQ(complete.num_slots(), 5u);
  EXPECT_EQ(complete.kind_name(), "hier");
  EXPECT_EQ(dc(0, 4), 1u);
  EXPECT_EQ(dc(2, 3), 1u);
  // cmpltw 3 1 2 1: terminal 1 weighs 2, so it holds two slots.
  const Machine weighted = target("cmpltw3.tgt");
  EXPECT_EQ(weighted.num_slots(), 4u);
  EXPECT_EQ(weighted.slots_of_router(0), 1u);
  EXPECT_EQ(weighted.slots_of_router(1), 2u);
  EXPECT_EQ(weighted.router_of_slot(2), 1u);
  EXPECT_EQ(weighted.router_of_slot(3), 2u);
}

// tleaf 3 2 90 2 9 2 1: leaves 1, 1 + 9 and 1 + 9 + 90 apart, hier:2:2:2,dist=1:10:100.
TEST(ScotchTarget, TreeLeafIsAHierarchyOfTheSummedCosts) {
  const Machine m = target("tleaf2x2x2.tgt");
  const HierShape& h = std::get<HierShape>(m.shape);
  EXPECT_EQ(h.sizes, (std::vector<std::uint32_t>{2, 2, 2}));
  EXPECT_EQ(h.dist, (std::vector<std::uint32_t>{1, 10, 100}));
  const HopDistance d(m);
  EXPECT_EQ(d(0, 1), 1u);
  EXPECT_EQ(d(0, 3), 10u);
  EXPECT_EQ(d(3, 4), 100u);
}

// amk_grf's target of a 4x4 mesh graph (gmk_m2 4 4 numbers vertex (x, y) as 4y + x): the graph
// of its terminals at distance 1 is the mesh again, with the mesh's hop counts.
TEST(ScotchTarget, DecompositionOfAMeshIsTheMesh) {
  const Machine m = target("mesh4x4.deco1.tgt");
  EXPECT_EQ(m.num_routers, 16u);
  EXPECT_EQ(m.channels.size(), 48u);  // 24 links
  EXPECT_TRUE(m.scotch_terminals.empty());
  expect_mesh_distances(m, 4);
}

// amk_grf -l with vertices 4, 5, 6, 7 of that mesh (its second row): a path whose terminals keep
// the vertices' numbers as labels, routers 0 to 3 in label order.
TEST(ScotchTarget, LabelsOtherThanZeroToNMinusOneAreKept) {
  const Machine m = target("row1.deco1.tgt");
  EXPECT_EQ(m.num_routers, 4u);
  EXPECT_EQ(m.scotch_terminals, (std::vector<std::uint32_t>{4, 5, 6, 7}));
  const HopDistance d(m);
  EXPECT_EQ(d(0, 3), 3u);
  EXPECT_EQ(d(1, 2), 1u);
  const ScotchTerminals terminals(m);
  EXPECT_EQ(terminals.size(), 4u);
  EXPECT_EQ(terminals.router(5), RouterId{1});
  EXPECT_EQ(terminals.router(7), RouterId{3});
  EXPECT_EQ(terminals.router(0), std::nullopt);
  EXPECT_EQ(terminals.router(8), std::nullopt);
  EXPECT_EQ(terminals.number(2), 6u);
}

// deco 0, written by hand: the path 10 - 20 - 30 - 40 with its terminals declared in the order
// 30, 10, 40, 20, and the distances row by row in that order.
TEST(ScotchTarget, RawDecompositionReadsItsTriangleInDeclarationOrder) {
  const Machine m = target("path.deco0.tgt");
  EXPECT_EQ(m.scotch_terminals, (std::vector<std::uint32_t>{10, 20, 30, 40}));
  const HopDistance d(m);
  EXPECT_EQ(d(0, 1), 1u);
  EXPECT_EQ(d(0, 3), 3u);
  EXPECT_EQ(d(1, 3), 2u);
  EXPECT_EQ(m.channels.size(), 6u);
}

TEST(ScotchTarget, TerminalsOfOtherMachinesAreTheirRoutersWithSlots) {
  const Machine fat = make_machine("fattree:k=2,n=2");  // hosts are routers 0-3, switches 4-7
  const ScotchTerminals t(fat);
  EXPECT_EQ(t.size(), 4u);
  EXPECT_EQ(t.router(3), RouterId{3});
  EXPECT_EQ(t.router(4), std::nullopt);
  EXPECT_EQ(t.number(2), 2u);
}

TEST(ScotchTarget, BadTargetsNameTheFileAndLine) {
  const std::string dir = (std::filesystem::temp_directory_path() / "taskmap_scotch_targets").string();
  std::filesystem::create_directories(dir);
  auto error_of = [&](const std::string& text) {
    const std::string path = dir + "/t.tgt";
    { std::ofstream(path) << text; }
    return test::error_message([&] { read_scotch_target(path); }).substr(path.size());
  };
  EXPECT_EQ(error_of(""), ": empty file; a Scotch target starts with its kind (cmplt, hcub, mesh2D, torus3D, tleaf, ...)");
  EXPECT_EQ(error_of("torus3D 4 4\n"), ": ends before torus3D size of dimension 2 (after line 1)");
  EXPECT_EQ(error_of("mesh2D\n4 0\n"), ":2: mesh2D size of dimension 1 must be in [1, 4194304], not 0");
  EXPECT_EQ(error_of("hcub 3 4\n"), ":1: '4' after the end of the hcub target");
  EXPECT_EQ(error_of("tleaf 2\n4 0 2 1\n"), ":2: tleaf link cost of level 0 must be in [1, 1048576], not 0");
  EXPECT_EQ(error_of("ltleaf 1 4 1 1 0\n"), ":1: Scotch target 'ltleaf' is not read (taskmap reads cmplt, cmpltw, hcub, "
                                            "mesh2D, mesh3D, meshXD, torus2D, torus3D, torusXD, tleaf and deco 0 and 1)");
  EXPECT_EQ(error_of("deco 2\n"), ":1: deco 2 targets (a graph and its coarsenings, amk_grf -2) are not read; write the "
                                  "target with amk_grf without -2 (a deco 1 target)");
  EXPECT_EQ(error_of("cmpltw 1000 1 2\n"), ":1: cmpltw announces 1000 terminal weights but the file is too short to hold them");
  // Three terminals, 0 and 1 and 0 and 2 adjacent, but 1 and 2 said to be 3 apart (2 through 0).
  EXPECT_EQ(error_of("deco 0 3 5\n0 1 3\n1 1 4\n2 1 5\n1\n1 3\n"),
            ": the distances are not a graph's hop counts: terminals 1 and 2 are 3 apart in the table but 2 apart over "
            "the pairs at distance 1 (taskmap reads deco targets of unit-distance links, as amk_grf writes for a graph "
            "without edge weights)");
  EXPECT_EQ(error_of("deco 0 2 3\n5 1 2\n5 1 3\n1\n"), ": two terminals have the label 5");
  // cmplt n is a hier machine of n terminals and a router above them: at most 2^22 - 1 terminals.
  EXPECT_EQ(error_of("cmplt 4194304\n"), ":1: cmplt terminal count must be in [1, 4194303], not 4194304");
  // 2048 x 2048 leaves and 2049 switches: more routers than taskmap numbers (2^22).
  EXPECT_EQ(error_of("tleaf 2 2048 1 2048 1\n"), ":1: hier: 4196353 routers is more than taskmap supports (4194304)");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace taskmap
