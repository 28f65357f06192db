// Real Blue Gene/Q data (shared/data/bgq): under the default ABCDET placement on the right
// partition, taskmap's hop distance reproduces every line's hop count, and eval's hop-bytes
// equals the file's total bytes x hops exactly.
#include <gtest/gtest.h>

#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/topology/distance.h"
#include "test_support.h"

namespace taskmap {
namespace {

using test::run_mapper;

struct Trace {
  const char* file;
  const char* machine;
};

// Partitions: n32 and Mira from the data README; n512 and n256 worked out from the hop
// counts (4x4x4x4x2, and 4x2x4x4x2 where A's wraparound is not determined by the data).
const Trace kTraces[] = {
    {"bgq/MiniMD_Vesta_n32_c1_w_hopbyte.txt.xz", "torus:2x2x2x2x2,ppn=1"},
    {"bgq/MiniMD_Vesta_n512_c16_w_hopbyte.txt.xz", "torus:4x4x4x4x2,ppn=16"},
    {"bgq/MiniAMR_Vesta_n256_c4_s1_hopbyte.txt.xz", "torus:4x2x4x4x2,ppn=4"},
    {"bgq/MiniMD_Mira_n1024_c16_w_hopbyte.txt.xz", "torus:4x4x4x8x2,mesh=D,ppn=16"},
};

void PrintTo(const Trace& t, std::ostream* os) { *os << t.file << " on " << t.machine; }

class BgqTrace : public ::testing::TestWithParam<Trace> {};

TEST_P(BgqTrace, DefaultMappingReproducesHopsAndHopBytes) {
  const std::string path = test::shared_data(GetParam().file);
  TASKMAP_REQUIRE_SHARED_DATA(path);
  Machine machine = make_machine(GetParam().machine);
  HopbyteTrace trace = read_hopbyte_trace(path);
  ASSERT_LE(trace.graph.num_tasks(), machine.num_slots());
  Mapping mapping = run_mapper("default", machine, trace.graph);
  HopDistance distance(machine);
  double file_hop_bytes = 0;
  std::size_t mismatches = 0;
  for (const HopbyteRecord& r : trace.records) {
    const RouterId a = machine.router_of_slot(mapping.slot_of_task[r.src]);
    const RouterId b = machine.router_of_slot(mapping.slot_of_task[r.dst]);
    if (distance(a, b) != r.hops && mismatches++ < 5) {
      ADD_FAILURE() << r.src << " -> " << r.dst << ": file says " << r.hops << " hops, taskmap " << distance(a, b);
    }
    file_hop_bytes += r.bytes * r.hops;
  }
  EXPECT_EQ(mismatches, 0u);
  auto routing = make_routing(machine, parse_routing_spec("minimal"));
  Metrics m = Evaluator(machine, *routing).evaluate(trace.graph, mapping);
  EXPECT_EQ(m.hop_bytes, file_hop_bytes);  // all byte counts are integers: the sums are exact
}

INSTANTIATE_TEST_SUITE_P(SharedData, BgqTrace, ::testing::ValuesIn(kTraces), [](const auto& info) {
  std::string name = info.param.file;
  name = name.substr(4, name.find("_hopbyte") - 4);
  for (char& c : name) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

}  // namespace
}  // namespace taskmap
