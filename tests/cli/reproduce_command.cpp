// `taskmap reproduce` on the command line: the list, the output files, unknown names.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "taskmap/repro/reproduce.h"
#include "test_support.h"

namespace taskmap {
namespace {

TEST(ReproduceCli, ListsWritesFilesAndRefusesUnknownNames) {
  auto list = test::run_taskmap("reproduce --list");
  EXPECT_EQ(list.exit_code, 0);
  for (const char* n : {"percs-table1", "percs-table4", "rtt-table1", "rtt-fig5", "rtt-fig6", "dragonfly-fig4"}) {
    EXPECT_NE(list.out.find(n), std::string::npos) << n;
  }
  auto bad = test::run_taskmap("reproduce percs-table9");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("unknown reproduction 'percs-table9'"), std::string::npos) << bad.err;

  const auto dir = std::filesystem::temp_directory_path() / ("taskmap_repro_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto fig = test::run_taskmap("reproduce rtt-fig5 --out " + dir.string());
  ASSERT_EQ(fig.exit_code, 0) << fig.err;
  std::ifstream svg(dir / "rtt-fig5-throughput.svg");
  std::stringstream ss;
  ss << svg.rdbuf();
  EXPECT_NE(ss.str().find("<svg"), std::string::npos);
  EXPECT_NE(ss.str().find("RTT f^d (model)"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir / "rtt-fig5-distance.csv"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace taskmap
