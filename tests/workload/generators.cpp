// Pattern generators: halos, transpose, all-to-all, the local mix of RT/RTT studies, NAS CG,
// BT and SP.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "taskmap/core/error.h"
#include "taskmap/topology/distance.h"
#include "taskmap/workload/generators.h"
#include "taskmap/workload/readers.h"
#include "test_support.h"

namespace taskmap {
namespace {

CommGraph pattern(const std::string& spec) { return build_pattern(parse_pattern_spec(spec)); }

TEST(Generators, PeriodicHaloSendsOneUnitPerTask) {
  CommGraph g = pattern("halo2d:4x6");
  EXPECT_EQ(g.num_tasks(), 24u);
  EXPECT_EQ(g.num_edges(), 96u);
  EXPECT_DOUBLE_EQ(g.volume(0, 1), 0.25);
  EXPECT_DOUBLE_EQ(g.volume(0, 5), 0.25);   // west wrap
  EXPECT_DOUBLE_EQ(g.volume(0, 18), 0.25);  // north wrap
  EXPECT_DOUBLE_EQ(g.total_volume(), 24.0);
}

TEST(Generators, NonPeriodicHaloDropsBorderEdges) {
  CommGraph g = pattern("halo2d:3x3,periodic=false");
  // 12 undirected edges in a 3x3 grid, both directions.
  EXPECT_EQ(g.num_edges(), 24u);
  EXPECT_DOUBLE_EQ(g.volume(0, 2), 0.0);
  CommGraph nine = pattern("halo2d:3x3,points=9,periodic=false");
  EXPECT_EQ(nine.num_edges(), 24u + 16u);  // plus 2 diagonals in each of the 4 unit squares, both ways
  EXPECT_DOUBLE_EQ(nine.volume(0, 4), 1.0 / 8);
}

TEST(Generators, Halo3dNeighbourCounts) {
  CommGraph seven = pattern("halo3d:4x4x4");
  EXPECT_EQ(seven.num_edges(), 64u * 6);
  CommGraph full = pattern("halo3d:4x4x4,points=27");
  EXPECT_EQ(full.num_edges(), 64u * 26);
  EXPECT_DOUBLE_EQ(full.volume(0, 21), 1.0 / 26);  // (1,1,1)
  EXPECT_NEAR(full.total_volume(), 64.0, 1e-9);
}

TEST(Generators, TransposeSendsHalfAlongTheRowHalfAlongTheColumn) {
  // 32 rows x 64 columns: 1/128 to each task of the row, 1/64 to each of the column.
  CommGraph g = pattern("transpose:32x64");
  EXPECT_DOUBLE_EQ(g.volume(0, 5), 1.0 / 128);
  EXPECT_DOUBLE_EQ(g.volume(0, 64 * 7), 1.0 / 64);
  EXPECT_DOUBLE_EQ(g.volume(0, 65), 0.0);
  // Self shares are left out: each task sends 1 - 1/128 - 1/64.
  EXPECT_NEAR(g.total_volume(), 2048.0 * (1 - 1.0 / 128 - 1.0 / 64), 1e-9);
}

TEST(Generators, AllToAll) {
  CommGraph g = pattern("alltoall:5");
  EXPECT_EQ(g.num_edges(), 20u);
  EXPECT_DOUBLE_EQ(g.volume(3, 1), 0.25);
}

// ---- patterns ----

TEST(Generators, LocalMixIsNeighbourSharePlusUniformShare) {
  const CommGraph g = make_localmix(4, 4, 0.4);
  EXPECT_DOUBLE_EQ(g.volume(0, 1), 0.4 / 4 + 0.6 / 16);
  EXPECT_DOUBLE_EQ(g.volume(0, 12), 0.4 / 4 + 0.6 / 16);  // periodic: row 3 is row 0's neighbour
  EXPECT_DOUBLE_EQ(g.volume(0, 0), 0.6 / 16);
  EXPECT_DOUBLE_EQ(g.volume(0, 10), 0.6 / 16);
  EXPECT_NEAR(g.total_volume(), 16.0, 1e-12);
  const CommGraph two = make_localmix(2, 4, 1.0);  // both vertical neighbours are the same task
  EXPECT_DOUBLE_EQ(two.volume(0, 4), 0.5);
  EXPECT_EQ(g.grid(), (std::vector<std::uint32_t>{4, 4}));
  EXPECT_THROW(parse_pattern_spec("localmix:4x4"), Error);
  EXPECT_THROW(parse_pattern_spec("localmix:4x4,alpha=1.5"), Error);
}

std::set<std::pair<TaskId, TaskId>> pairs_of(const CommGraph& g) {
  std::set<std::pair<TaskId, TaskId>> pairs;
  for (TaskId a = 0; a < g.num_tasks(); ++a)
    for (TaskId b : g.targets(a)) pairs.insert({a, b});
  return pairs;
}

TEST(NpbPatterns, CgPairsEqualTheMeasuredMatrixAt64Ranks) {
  const std::string path = test::shared_data("apps/maplib-64/cg/comm_matrix.p2p.size.csv");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const CommGraph measured = read_pattern_file(path, PatternFormat::Dense, 0);
  const CommGraph generated = make_npb_cg(64);
  ASSERT_EQ(measured.num_tasks(), 64u);
  EXPECT_EQ(pairs_of(generated), pairs_of(measured));
  EXPECT_EQ(generated.grid(), (std::vector<std::uint32_t>{8, 8}));
}

TEST(NpbPatterns, CgOnANonSquareGridHasHandDerivedPartners) {
  // 32 ranks: 4 rows x 8 columns. Rank 9 = (row 1, column 1): row partners columns 1^4, 1^2,
  // 1^1 = ranks 13, 11, 8; transpose 2 * ((9/2 % 4) * 4 + 9/2/4) + 9 % 2 = 3.
  const CommGraph g = make_npb_cg(32);
  EXPECT_EQ(g.grid(), (std::vector<std::uint32_t>{4, 8}));
  const auto t = g.targets(9);
  EXPECT_EQ(std::vector<TaskId>(t.begin(), t.end()), (std::vector<TaskId>{3, 8, 11, 13}));
  EXPECT_THROW(make_npb_cg(48), Error);
}

TEST(NpbPatterns, MultiPartitionNeighboursAndMessageSizes) {
  // p = 4, rank 5 = (i 1, j 1): successors (2,1) (1,2) (0,2) = 6, 9, 8; predecessors
  // (0,1) (1,0) (2,0) = 4, 1, 2. BT: 10 + 30 to successors, 10 + 5 to predecessors.
  const CommGraph bt = make_npb_multipartition(16, NpbSolver::BT);
  for (TaskId s : {6u, 9u, 8u}) EXPECT_DOUBLE_EQ(bt.volume(5, s), 40);
  for (TaskId p : {4u, 1u, 2u}) EXPECT_DOUBLE_EQ(bt.volume(5, p), 15);
  EXPECT_EQ(bt.targets(5).size(), 6u);
  const CommGraph sp = make_npb_multipartition(16, NpbSolver::SP);
  EXPECT_DOUBLE_EQ(sp.volume(5, 6), 32);
  EXPECT_DOUBLE_EQ(sp.volume(5, 4), 20);
  EXPECT_THROW(make_npb_multipartition(32, NpbSolver::SP), Error);
}

}  // namespace
}  // namespace taskmap
