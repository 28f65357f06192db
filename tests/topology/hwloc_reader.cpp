// read_hwloc_node on the real hwloc XML files of data/topologies/hwloc (counts from SOURCES.md)
// and on hand-made ones; NodeModel::distance and NodeModel::flat.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include <fmt/format.h>

#include "taskmap/core/error.h"
#include "taskmap/topology/node_model.h"
#include "test_support.h"

namespace taskmap {
namespace {

std::string hwloc_file(const std::string& name) { return test::shared_data("topologies/hwloc/" + name); }

// "package=2 numa=8 core=112": each level with its number of distinct objects among the slots.
std::string layout(const NodeModel& model) {
  std::string out;
  for (std::size_t level = 0; level < model.levels.size(); ++level) {
    std::set<std::uint32_t> objects;
    for (const auto& path : model.path) objects.insert(path[level]);
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", model.levels[level], objects.size());
  }
  return out;
}

std::string error_of(const std::string& path, SlotUnit unit = SlotUnit::Core) {
  try {
    read_hwloc_node(path, unit);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

struct RealNode {
  const char* file;
  std::uint32_t cores;  // slots by core
  std::uint32_t pus;    // slots by PU
  const char* levels;   // by core; with PUs the core level is followed (or, without SMT, replaced) by "pu"
};

// Cores, PUs, packages and NUMA nodes are SOURCES.md's; where it gives no PU count, PUs were
// counted with `grep -c 'type="PU"' FILE` (marked "grep"). A level identical to the one below it
// is dropped, so "numa=2" on a two-socket node says 2 packages = 2 NUMA nodes; L3 counts in the
// layouts are hwloc-info's; a level with one object (1 package, 1 NUMA node) is dropped.
const RealNode kRealNodes[] = {
    {"fluxcore_ipa20.xml.gz", 112, 224, "package=2 numa=8 core=112"},   // SNC-4: its 8 Groups = the 8 NUMA nodes
    {"fluxcore_sierra.xml", 44, 176, "package=2 l3=23 core=44"},        // 4 of 6 NUMA nodes are GPU memory, no CPU
    {"fluxcore_tuo.SPX.xml", 96, 192, "numa=4 l3=12 core=96"},          // 4 packages = 4 NUMA
    {"hwloc-netloc_avakas_node001.xml", 12, 12, "numa=2 core=12"},      // PUs: grep; 2 packages, 1 L3 each
    {"hwloc-netloc_avakas_node002.xml", 12, 12, "numa=2 core=12"},      // PUs: grep
    {"hwloc-netloc_avakas_phi01.xml", 12, 12, "numa=2 core=12"},        // PUs: grep
    {"hwloc-netloc_plafrim_bonobo001.xml", 8, 8, "package=2 core=8"},   // PUs: grep; 1 NUMA, no L3
    {"hwloc_16amd64-4distances.v1.xml", 16, 16, "group=2 numa=8 core=16"},  // PUs: grep; 8 packages = 8 NUMA
    {"hwloc_192em64t-24n8c2t.xml.gz", 192, 384, "numa=24 core=192"},    // 24 packages = 24 NUMA
    {"hwloc_24em64t-2n6c2t-pci.xml", 12, 24, "numa=2 core=12"},
    {"hwloc_40intel64-2g2n4c+pci.output", 40, 40, "group=2 numa=4 core=40"},  // PUs: grep
    {"hwloc_64amd64-4p2n4ca2co.output", 64, 64, "package=4 numa=8 core=64"},  // PUs: grep
    // 64 cores of which 16 allowed (allowed_cpuset 0x0000ffff = packages P#0 and P#1 of one Group)
    {"hwloc_64intel64-3g2n+2n-irregulargroups+pci.xml", 16, 16, "numa=2 core=16"},
    {"hwloc_96em64t-4n4d3ca2co-pci.xml", 96, 96, "numa=4 package=16 core=96"},  // PUs: grep; NUMA above packages
    {"hwloc_AMD-19h-Zen3-2xEpyc-7763.output", 128, 128, "numa=2 l3=16 core=128"},
    {"hwloc_AMD-19h-Zen4-2xEpyc-9654.output.gz", 192, 384, "numa=2 l3=24 core=192"},
    {"hwloc_Intel-KnightsLanding-XeonPhi-7210.output", 64, 256, "core=64"},
    {"hwloc_Intel-SapphireRapids-2xXeonMax9460.output", 80, 160, "package=2 core=80"},
    {"hwloc_Intel-Skylake-2xXeon6140.output", 36, 72, "package=2 core=36"},
    {"hwloc_devel09-pci.xml", 4, 4, "numa=2 core=4"},                   // PUs: grep
    {"hwloc_memorysidecaches.xml", 40, 80, "package=2 numa=4 core=40"},
    {"hwloc_nvidia-dgx-gb10.output", 20, 20, "l3=2 core=20"},           // PUs: grep
    {"hwloc_nvidiaDGX2.xml", 4, 4, "numa=2 core=4"},                    // cores: grep
    {"hwloc_power8gpudistances.xml", 8, 16, "numa=2 core=8"},           // one L3 per core: same as core
    {"mpibind_arm64-ulna-hwloc1.xml", 64, 256, "numa=2 core=64"},
    {"mpibind_coral-lassen-hwloc1.xml", 40, 160, "package=2 l3=20 core=40"},  // 4 of 6 NUMA nodes are GPU memory
    {"mpibind_coral-lassen.xml", 40, 160, "numa=2 l3=20 core=40"},
    {"mpibind_cts1-quartz-smt1.xml", 36, 36, "numa=2 core=36"},
    {"mpibind_eas-tioga.xml", 64, 128, "numa=4 l3=8 core=64"},
    {"mpibind_epyc-corona.xml", 48, 96, "package=2 numa=8 l3=16 core=48"},
    // KNL SNC-4 flat: each cluster has a DDR and an MCDRAM NUMA node, so NUMA nodes do not
    // partition the cores; the 4 clusters are hwloc Groups
    {"mpibind_knl-snc4-flat-hwloc1.xml.gz", 68, 272, "group=4 core=68"},
};

std::string pu_layout(const RealNode& node) {
  std::string levels = node.levels;
  const std::string core = fmt::format("core={}", node.cores);
  const auto at = levels.rfind(core);
  const std::string pu = fmt::format("pu={}", node.pus);
  return levels.replace(at, core.size(), node.pus > node.cores ? core + " " + pu : pu);
}

TEST(HwlocReader, RealNodesHaveTheirCoresPusPackagesAndNumaNodes) {
  TASKMAP_REQUIRE_SHARED_DATA(hwloc_file(""));
  for (const auto& node : kRealNodes) {
    SCOPED_TRACE(node.file);
    const NodeModel by_core = read_hwloc_node(hwloc_file(node.file), SlotUnit::Core);
    EXPECT_EQ(by_core.num_slots(), node.cores);
    EXPECT_EQ(layout(by_core), node.levels);
    EXPECT_EQ(by_core.logical_index.size(), node.cores);
    EXPECT_EQ(by_core.os_cpu.size(), node.cores);
    const NodeModel by_pu = read_hwloc_node(hwloc_file(node.file), SlotUnit::Pu);
    EXPECT_EQ(by_pu.num_slots(), node.pus);
    EXPECT_EQ(layout(by_pu), pu_layout(node));
  }
}

// Every file of the directory is covered by a test: the table above or the ones below.
TEST(HwlocReader, EveryRealFileIsTested) {
  TASKMAP_REQUIRE_SHARED_DATA(hwloc_file(""));
  std::set<std::string> tested = {"hwloc_cxlmem+dax.v3.xml", "hwloc-netloc_avakas_node097.diff.xml",
                                  "hwloc-netloc_plafrim2_mirage01.xml"};
  for (const auto& node : kRealNodes) tested.insert(node.file);
  std::set<std::string> present;
  for (const auto& entry : std::filesystem::directory_iterator(hwloc_file(""))) {
    present.insert(entry.path().filename().string());
  }
  EXPECT_EQ(present, tested);
}

TEST(HwlocReader, RefusesTheFilesHwlocCannotLoadWithTheirReason) {
  TASKMAP_REQUIRE_SHARED_DATA(hwloc_file(""));
  const std::string v3 = hwloc_file("hwloc_cxlmem+dax.v3.xml");
  const std::string v3_error = error_of(v3);  // "FILE: hwloc 2.9.0 cannot load it: ..." (Debian's hwloc)
  EXPECT_EQ(v3_error.find(v3 + ": hwloc 2."), 0u) << v3_error;
  EXPECT_TRUE(v3_error.ends_with(" cannot load it: Invalid argument (XML version 3.0; this hwloc reads versions 1 and 2)"))
      << v3_error;
  const std::string diff = hwloc_file("hwloc-netloc_avakas_node097.diff.xml");
  EXPECT_EQ(error_of(diff, SlotUnit::Pu),
            diff + ": hwloc cannot load it: it is a topology diff against 'node002.xml', not a topology; apply it "
                   "to that file first (`hwloc-patch node002.xml " + diff + " OUT.xml`)");
}

TEST(HwlocReader, RefusesAFileCutShort) {
  // the first 1,500 bytes of two-packages.xml
  const std::string cut = test::instance("hwloc/cut.xml");
  EXPECT_EQ(error_of(cut), cut + ": hwloc XML that does not end with </topology>: is the file cut?");
}

TEST(HwlocReader, RefusesLstopoTextOutput) {
  // lstopo-no-graphics -i "pack:2 core:2 pu:2" --of console
  const std::string text = test::instance("hwloc/lstopo-console.txt");
  EXPECT_EQ(error_of(text),
            text + ": not hwloc XML: looks like lstopo's text output; write XML with `lstopo --of xml FILE`");
}

TEST(HwlocReader, TopologyGatheredInsideASlurmJobHasOneSlot) {
  TASKMAP_REQUIRE_SHARED_DATA(hwloc_file(""));
  // allowed_cpuset="0x00000002": PU P#1, the only PU of the 7th core in file order (logical 6).
  for (const auto unit : {SlotUnit::Core, SlotUnit::Pu}) {
    const NodeModel model = read_hwloc_node(hwloc_file("hwloc-netloc_plafrim2_mirage01.xml"), unit);
    ASSERT_EQ(model.num_slots(), 1u);
    EXPECT_TRUE(model.levels.empty());
    EXPECT_EQ(model.logical_index[0], 6u);
    EXPECT_EQ(model.os_cpu[0], 1u);
    EXPECT_EQ(model.distance(0, 0), 0u);
  }
}

// hwloc_24em64t-2n6c2t-pci.xml: 2 packages (one NUMA node each) of 6 cores of 2 PUs. In file
// order, package 0's cores hold PUs P#0,12 P#2,14 P#4,16 P#6,18 P#8,20 P#10,22 and package
// 1's P#1,13 P#3,15 ... P#11,23.
TEST(HwlocReader, DistanceBetweenPusOfARealNode) {
  TASKMAP_REQUIRE_SHARED_DATA(hwloc_file(""));
  const NodeModel model = read_hwloc_node(hwloc_file("hwloc_24em64t-2n6c2t-pci.xml"), SlotUnit::Pu);
  ASSERT_EQ(model.levels, (std::vector<std::string>{"numa", "core", "pu"}));
  ASSERT_EQ(model.num_slots(), 24u);
  EXPECT_EQ(model.os_cpu[0], 0u);
  EXPECT_EQ(model.os_cpu[1], 12u);
  EXPECT_EQ(model.os_cpu[2], 2u);
  EXPECT_EQ(model.os_cpu[12], 1u);
  // Open MPI's rankfile slot= under --use-hwthread-cpus: the PU's logical index, not its core's (6).
  EXPECT_EQ(model.logical_index[13], 13u);
  EXPECT_EQ(model.distance(0, 0), 0u);
  EXPECT_EQ(model.distance(0, 1), 1u);    // two PUs of one core
  EXPECT_EQ(model.distance(0, 2), 2u);    // two cores of one package
  EXPECT_EQ(model.distance(1, 11), 2u);
  EXPECT_EQ(model.distance(0, 12), 3u);   // two packages
  EXPECT_EQ(model.distance(23, 11), 3u);
  EXPECT_EQ(model.distance(12, 13), 1u);

  const NodeModel cores = read_hwloc_node(hwloc_file("hwloc_24em64t-2n6c2t-pci.xml"), SlotUnit::Core);
  EXPECT_EQ(cores.os_cpu, (std::vector<std::uint32_t>{0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11}));
  EXPECT_EQ(cores.distance(0, 5), 1u);
  EXPECT_EQ(cores.distance(5, 6), 2u);
  EXPECT_THROW(cores.distance(0, 12), Error);
}

// partly-allowed.xml: lstopo's synthetic "pack:1 core:3 pu:2" with allowed_cpuset 0x6 (PU P#1
// of core 0, P#2 of core 1): a core counts when any of its PUs is allowed, and its OS CPU is
// its first allowed PU.
TEST(HwlocReader, SlotsAreTheCoresWithAnAllowedPu) {
  const NodeModel cores = read_hwloc_node(test::instance("hwloc/partly-allowed.xml"), SlotUnit::Core);
  EXPECT_EQ(cores.levels, (std::vector<std::string>{"core"}));
  EXPECT_EQ(cores.logical_index, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(cores.os_cpu, (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(cores.os_cpus, (std::vector<std::vector<std::uint32_t>>{{1}, {2}}));  // only the allowed PUs
  const NodeModel pus = read_hwloc_node(test::instance("hwloc/partly-allowed.xml"), SlotUnit::Pu);
  EXPECT_EQ(pus.levels, (std::vector<std::string>{"pu"}));  // one allowed PU per core: core = pu
  // PU logical indexes count the disallowed PUs too, as Open MPI's topology does (P#0 is logical 0).
  EXPECT_EQ(pus.logical_index, (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(pus.os_cpu, (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(pus.distance(0, 1), 1u);
}

TEST(HwlocReader, PusWithoutCoreObjectsAreCoresOfTheirOwn) {
  // lstopo's synthetic "pack:1 pu:2": PUs, no Core objects (one package: no level of its own)
  const NodeModel model = read_hwloc_node(test::instance("hwloc/no-core.xml"), SlotUnit::Core);
  EXPECT_EQ(model.levels, (std::vector<std::string>{"core"}));
  EXPECT_EQ(model.os_cpu, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(read_hwloc_node(test::instance("hwloc/no-core.xml"), SlotUnit::Pu).levels, (std::vector<std::string>{"pu"}));
}

TEST(HwlocReader, DiesAreALevel) {
  // lstopo's synthetic "pack:1 die:2 core:2 pu:1": cores 0 and 1 on die 0, 2 and 3 on die 1
  const NodeModel model = read_hwloc_node(test::instance("hwloc/dies.xml"), SlotUnit::Core);
  EXPECT_EQ(model.levels, (std::vector<std::string>{"die", "core"}));
  EXPECT_EQ(model.distance(0, 1), 1u);  // one die: below it, the core level
  EXPECT_EQ(model.distance(1, 2), 2u);  // two dies: only the node is shared
}

TEST(HwlocReader, RefusesATopologyWithoutAllowedCore) {
  // partly-allowed.xml with allowed_cpuset 0x0
  const std::string path = test::instance("hwloc/none-allowed.xml");
  EXPECT_EQ(error_of(path), path + ": no allowed core (3 Core objects, allowed cpuset '')");
  EXPECT_EQ(error_of(test::instance("hwloc/missing.xml")).find("cannot open"), 0u);
}

TEST(NodeModel, FlatNodeHasEveryPairAtOneHop) {
  const NodeModel flat = NodeModel::flat(4);
  EXPECT_EQ(flat.num_slots(), 4u);
  EXPECT_TRUE(flat.levels.empty());
  for (std::uint32_t a = 0; a < 4; ++a)
    for (std::uint32_t b = 0; b < 4; ++b) EXPECT_EQ(flat.distance(a, b), a == b ? 0u : 1u) << a << " " << b;
  EXPECT_EQ(flat.os_cpu, (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_THROW(flat.distance(0, 4), Error);
  EXPECT_EQ(NodeModel::flat(0).num_slots(), 0u);
}

}  // namespace
}  // namespace taskmap
