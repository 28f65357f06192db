// Machines read from a cluster's files accept any path: quoted in the spec string, or unquoted
// up to the first ",KEY=" of a known key; a missing file is named exactly.
#include <gtest/gtest.h>

#include <filesystem>

#include "taskmap/core/error.h"
#include "taskmap/core/spec.h"
#include "test_support.h"

namespace taskmap {
namespace {

namespace fs = std::filesystem;

// A copy of a test instance under a directory whose name holds ',', '=', ':', a space, a
// quote and a non-ASCII letter.
std::string awkward_copy(const std::string& instance, const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / "N=64,ppn=16: run 'é'";
  fs::create_directories(dir);
  fs::copy_file(test::instance(instance), dir / name, fs::copy_options::overwrite_existing);
  return (dir / name).string();
}

TEST(FabricPaths, EveryFileBasedMachineTakesAQuotedPath) {
  const std::string conf = awkward_copy("cluster/two-leaves.conf", "topology=1.conf");
  EXPECT_EQ(make_machine("slurm:" + io::quote_spec_value(conf) + ",ppn=2").num_slots(), 12u);
  const std::string topo = awkward_copy("ibnet/oddities.topo", "fabric,a.topo");
  const std::string map = awkward_copy("ibnet/oddities.map", "guids=x.map");
  const Machine ib = make_machine("ibnet:" + io::quote_spec_value(topo) + ",map=" + io::quote_spec_value(map));
  EXPECT_NE(std::find(ib.node_table().names.begin(), ib.node_table().names.end(), "gpu07"),
            ib.node_table().names.end());  // named through the map file
  const std::string links = awkward_copy("aries/two-groups.links", "links,b.txt");
  EXPECT_GT(make_machine("aries:" + io::quote_spec_value(links)).num_slots(), 0u);
}

TEST(FabricPaths, AnUnquotedPathRunsToTheFirstKnownKey) {
  const fs::path dir = fs::path(testing::TempDir()) / "run=1,x";
  fs::create_directories(dir);
  fs::copy_file(test::instance("cluster/two-leaves.conf"), dir / "t.conf", fs::copy_options::overwrite_existing);
  // ",x/" is not ",KEY=": it stays in the path.
  EXPECT_EQ(make_machine("slurm:" + (dir / "t.conf").string() + ",ppn=3").num_slots(), 18u);
}

TEST(FabricPaths, AMissingFileIsNamedExactly) {
  const std::string missing = (fs::path(testing::TempDir()) / "no such, dir=2" / "topology.conf").string();
  for (const char* kind : {"slurm:", "ibnet:", "aries:"}) {
    SCOPED_TRACE(kind);
    try {
      make_machine(kind + io::quote_spec_value(missing));
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "cannot open '" + missing + "': No such file or directory");
    }
  }
}

}  // namespace
}  // namespace taskmap
