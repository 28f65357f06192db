// Pattern readers and names, including malformed inputs.
#include <gtest/gtest.h>

#include "taskmap/core/error.h"
#include "test_support.h"

namespace taskmap {
namespace {

CommGraph pattern(const std::string& spec) { return build_pattern(parse_pattern_spec(spec)); }

std::string error_of(const std::string& spec) {
  return test::error_message([&] { pattern(spec); });
}

TEST(Readers, MetisWithEdgeWeights) {
  CommGraph g = pattern("file:" + test::instance("path4.graph"));
  EXPECT_EQ(g.num_tasks(), 4u);
  EXPECT_EQ(g.num_edges(), 6u);
  EXPECT_DOUBLE_EQ(g.volume(0, 1), 5);
  EXPECT_DOUBLE_EQ(g.volume(2, 1), 7);
  EXPECT_DOUBLE_EQ(g.volume(3, 2), 2);
}

TEST(Readers, MatrixMarketGeneralAndSymmetric) {
  CommGraph g = pattern("file:" + test::instance("three.mtx"));
  EXPECT_DOUBLE_EQ(g.volume(0, 1), 4.5);
  EXPECT_DOUBLE_EQ(g.volume(2, 0), 2);
  EXPECT_DOUBLE_EQ(g.volume(1, 0), 0);
  CommGraph s = pattern("file:" + test::instance("three_sym.mtx"));
  EXPECT_DOUBLE_EQ(s.volume(0, 1), 6);
  EXPECT_DOUBLE_EQ(s.volume(1, 0), 6);
  EXPECT_DOUBLE_EQ(s.volume(2, 1), 1);
}

TEST(Readers, ScotchGrfWithEdgeLoads) {
  CommGraph g = pattern("file:" + test::instance("three.grf"));
  EXPECT_EQ(g.num_tasks(), 3u);
  EXPECT_DOUBLE_EQ(g.volume(0, 1), 3);
  EXPECT_DOUBLE_EQ(g.volume(1, 2), 1);
  EXPECT_DOUBLE_EQ(g.volume(2, 1), 1);
}

TEST(Readers, EdgeListSumsDuplicatesAndAcceptsMessageCounts) {
  CommGraph g = pattern("file:" + test::instance("edges.txt"));
  EXPECT_EQ(g.num_tasks(), 4u);
  EXPECT_DOUBLE_EQ(g.volume(0, 1), 12);
  EXPECT_DOUBLE_EQ(g.volume(2, 3), 5.5);
  EXPECT_EQ(pattern("file:" + test::instance("edges.txt") + ",tasks=10").num_tasks(), 10u);
}

TEST(Readers, DenseMatricesCsvAndWhitespace) {
  for (std::string spec : {"file:" + test::instance("dense3.csv"), "file:" + test::instance("dense3.mat") + ",format=dense"}) {
    CommGraph g = pattern(spec);
    EXPECT_EQ(g.num_tasks(), 3u);
    EXPECT_DOUBLE_EQ(g.volume(0, 1), 3) << spec;
    EXPECT_DOUBLE_EQ(g.volume(1, 0), 1);
    EXPECT_DOUBLE_EQ(g.volume(2, 2), 7);
    EXPECT_EQ(g.num_edges(), 3u);
  }
}

TEST(Readers, MeasuredMatricesOfMapLib) {
  const std::string cg = test::shared_data("apps/maplib-64/cg/comm_matrix.p2p.size.csv");
  TASKMAP_REQUIRE_SHARED_DATA(cg);
  CommGraph g = pattern("file:" + cg);
  EXPECT_EQ(g.num_tasks(), 64u);
  EXPECT_DOUBLE_EQ(g.volume(0, 1), 296432832);
  EXPECT_DOUBLE_EQ(g.volume(1, 8), 296400000);
  EXPECT_DOUBLE_EQ(g.volume(0, 3), 0);
  CommGraph amg = pattern("file:" + test::shared_data("apps/maplib-64/amg/comm_matrix.p2p.size.csv"));
  EXPECT_EQ(amg.num_tasks(), 64u);
  EXPECT_DOUBLE_EQ(amg.volume(0, 1), 17737128);
}

TEST(Readers, GzippedMetisGraphOfPgpGiantCompo) {
  const std::string path = test::shared_data("graphs/PGPgiantcompo.graph.gz");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  CommGraph g = pattern("file:" + path);
  EXPECT_EQ(g.num_tasks(), 10680u);
  EXPECT_EQ(g.num_edges(), 2u * 24316);
}

TEST(Readers, MalformedFilesNameFileLineAndProblem) {
  auto bad = [](const std::string& f) { return test::instance("bad/" + f); };
  EXPECT_EQ(error_of("file:" + bad("truncated.graph")),
            bad("truncated.graph") + ": unexpected end of file after line 4: expected 4 vertex lines, found 3");
  EXPECT_EQ(error_of("file:" + bad("out_of_range.graph")), bad("out_of_range.graph") + ":5: task id 9 is out of range [1, 5)");
  EXPECT_NE(error_of("file:" + bad("wrong_edge_count.graph")).find("header announces 5 edges"), std::string::npos);
  EXPECT_EQ(error_of("file:" + bad("nonsquare.mtx")),
            bad("nonsquare.mtx") + ":2: matrix is 3x4; a communication matrix must be square");
  EXPECT_NE(error_of("file:" + bad("truncated.mtx")).find("expected 3 entries, found 2"), std::string::npos);
  EXPECT_EQ(error_of("file:" + bad("bad_degree.grf")), bad("bad_degree.grf") + ":5: degree 3 does not match the 2 fields that follow");
  EXPECT_EQ(error_of("file:" + bad("bad_id.txt")), bad("bad_id.txt") + ":2: task id 'x' is not an integer");
  EXPECT_EQ(error_of("file:" + bad("negative.txt")), bad("negative.txt") + ":1: volume -3 is negative");
  EXPECT_EQ(error_of("file:" + bad("ragged.csv")), bad("ragged.csv") + ":2: row has 2 values, the first row has 3");
  EXPECT_EQ(error_of("file:" + bad("short.hopbyte.txt")), bad("short.hopbyte.txt") + ":2: expected 'src dst bytes hops'");
  EXPECT_NE(error_of("file:" + bad("nothing-here.txt")).find("cannot open"), std::string::npos);
}

TEST(PatternNames, UnknownOrInvalidSpecsAreRejected) {
  EXPECT_NE(error_of("stencil:4x4").find("unknown pattern 'stencil'"), std::string::npos);
  EXPECT_NE(error_of("halo2d:4x4,points=7").find("points must be 5 or 9"), std::string::npos);
  EXPECT_NE(error_of("halo3d:4x4").find("expected 3 grid sizes"), std::string::npos);
  EXPECT_NE(error_of("file:x.txt,format=json").find("unknown format 'json'"), std::string::npos);
  EXPECT_NE(error_of("halo2d:4x4,periodic=maybe").find("not true or false"), std::string::npos);
}

}  // namespace
}  // namespace taskmap
