// read_hwloc_node with slots=gpu: a node's GPUs, the NICs nearest each on the PCIe tree and the
// GPU links, on the real hwloc XML files of data/topologies/hwloc and on hand-made ones; and
// NodeModel::restricted_to on GPU slots.
#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "taskmap/core/error.h"
#include "taskmap/topology/node_model.h"
#include "test_support.h"

namespace taskmap {
namespace {

std::string hwloc_file(const std::string& name) { return test::shared_data("topologies/hwloc/" + name); }

std::string error_of(const std::string& path) {
  try {
    read_hwloc_node(path, SlotUnit::Gpu);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::vector<std::string> gpu_names(const GpuNode& node) {
  std::vector<std::string> out;
  for (const auto& gpu : node.gpus) out.push_back(gpu.name);
  return out;
}

std::vector<std::string> nic_names(const GpuNode& node) {
  std::vector<std::string> out;
  for (const auto& nic : node.nics) out.push_back(nic.name);
  return out;
}

std::vector<std::vector<std::uint32_t>> nearest_nics(const GpuNode& node) {
  std::vector<std::vector<std::uint32_t>> out;
  for (const auto& gpu : node.gpus) out.push_back(gpu.nics);
  return out;
}

enum class Links { None, NvLink, NvSwitch, Xgmi };

struct GpuFile {
  const char* file;
  std::uint32_t gpus;
  const char* first;  // GPU 0's name
  std::uint32_t nics;
  Links links;
};

// Counted in each file by hand from its OS devices (grep 'type="OSDev"', name and osdev_type:
// 1 GPU, 2 network, 3 OpenFabrics, 5 CoProcessor), one GPU per PCI device whatever its names;
// links from the file's <distances2> NVLinkBandwidth or XGMIBandwidth matrix.
const GpuFile kGpuFiles[] = {
    {"fluxcore_ipa20.xml.gz", 4, "cuda0", 4, Links::NvLink},       // cuda+nvml+opencl per GPU; mlx5_0-3
    {"fluxcore_sierra.xml", 4, "cuda0", 4, Links::None},           // cuda+renderD per GPU; mlx5_0-3
    {"fluxcore_tuo.SPX.xml", 4, "rsmi0", 5, Links::Xgmi},          // no OpenFabrics: enp129s0, hsi0-3
    {"hwloc-netloc_avakas_phi01.xml", 2, "mic0", 1, Links::None},  // 2 Xeon Phi CoProcessors; qib0
    {"hwloc_nvidiaDGX2.xml", 16, "nvml0", 0, Links::NvSwitch},     // 16 nvml, 12 NVSwitch PCI devices
    {"hwloc_power8gpudistances.xml", 4, "cuda0", 0, Links::NvLink},
    {"mpibind_arm64-ulna-hwloc1.xml", 2, "renderD128", 4, Links::None},  // card0: the BMC's VGA, no render node
    {"mpibind_coral-lassen-hwloc1.xml", 4, "renderD128", 4, Links::None},  // card0: the BMC's VGA
    {"mpibind_coral-lassen.xml", 4, "cuda0", 4, Links::None},
    {"mpibind_eas-tioga.xml", 8, "rsmi0", 5, Links::Xgmi},  // no OpenFabrics: ens2, hsi0-3
    {"mpibind_epyc-corona.xml", 4, "opencl0d0", 1, Links::None},
};

// The files without a GPU OS device (96em64t and knl-snc4 have only a DRM card0, a display).
const char* const kNoGpuFiles[] = {
    "hwloc-netloc_avakas_node001.xml", "hwloc-netloc_avakas_node002.xml", "hwloc-netloc_plafrim2_mirage01.xml",
    "hwloc-netloc_plafrim_bonobo001.xml", "hwloc_16amd64-4distances.v1.xml", "hwloc_192em64t-24n8c2t.xml.gz",
    "hwloc_24em64t-2n6c2t-pci.xml", "hwloc_40intel64-2g2n4c+pci.output", "hwloc_64amd64-4p2n4ca2co.output",
    "hwloc_64intel64-3g2n+2n-irregulargroups+pci.xml", "hwloc_96em64t-4n4d3ca2co-pci.xml",
    "hwloc_AMD-19h-Zen3-2xEpyc-7763.output", "hwloc_AMD-19h-Zen4-2xEpyc-9654.output.gz",
    "hwloc_Intel-KnightsLanding-XeonPhi-7210.output", "hwloc_Intel-SapphireRapids-2xXeonMax9460.output",
    "hwloc_Intel-Skylake-2xXeon6140.output", "hwloc_devel09-pci.xml", "hwloc_memorysidecaches.xml",
    "hwloc_nvidia-dgx-gb10.output", "mpibind_cts1-quartz-smt1.xml", "mpibind_knl-snc4-flat-hwloc1.xml.gz",
};

TEST(HwlocGpus, RealNodesHaveTheirGpusNicsAndLinks) {
  TASKMAP_REQUIRE_SHARED_DATA(hwloc_file(""));
  for (const auto& file : kGpuFiles) {
    SCOPED_TRACE(file.file);
    const NodeModel model = read_hwloc_node(hwloc_file(file.file), SlotUnit::Gpu);
    ASSERT_NE(model.gpu, nullptr);
    const GpuNode& node = *model.gpu;
    EXPECT_EQ(model.unit, SlotUnit::Gpu);
    EXPECT_EQ(model.num_slots(), file.gpus);
    EXPECT_EQ(model.units_in_node, file.gpus);
    ASSERT_EQ(node.num_gpus(), file.gpus);
    EXPECT_EQ(node.gpus[0].name, file.first);
    EXPECT_EQ(node.nics.size(), file.nics);
    for (std::uint32_t g = 0; g < node.num_gpus(); ++g) {
      EXPECT_EQ(node.gpus[g].device, g);
      EXPECT_EQ(node.gpus[g].os_cpus, model.os_cpus[g]);
      EXPECT_FALSE(model.os_cpus[g].empty());
      // Its core: among its CPUs, and not that of an earlier GPU of the same CPUs while they
      // have cores to spare.
      EXPECT_NE(std::find(model.os_cpus[g].begin(), model.os_cpus[g].end(), model.os_cpu[g]), model.os_cpus[g].end());
      for (std::uint32_t e = 0; e < g; ++e) {
        if (model.os_cpus[e] == model.os_cpus[g] && g < 2) {
          EXPECT_NE(model.os_cpu[e], model.os_cpu[g]);
        }
      }
      EXPECT_EQ(node.gpus[g].nics.empty(), file.nics == 0);
      EXPECT_EQ(model.path[g].size(), model.levels.size());
    }
    EXPECT_EQ(model.levels.back(), "gpu");
    EXPECT_EQ(node.nvlink_gbs.empty(), file.links == Links::None);
    EXPECT_EQ(node.has_nvswitch(), file.links == Links::NvSwitch);
    if (!node.nvlink_gbs.empty()) {
      EXPECT_EQ(node.nvlink_gbs.size(), std::size_t{file.gpus} * file.gpus);
    }
  }
}

TEST(HwlocGpus, RefusesANodeWithoutGpus) {
  TASKMAP_REQUIRE_SHARED_DATA(hwloc_file(""));
  for (const char* file : kNoGpuFiles) {
    const std::string path = hwloc_file(file);
    EXPECT_EQ(error_of(path), path + ": no GPU (hwloc OS device of type GPU or CoProcessor); slots=gpu needs a "
                                     "node's GPUs");
  }
}

// Every loadable file of the directory is in one of the two tables above.
TEST(HwlocGpus, EveryLoadableRealFileIsTested) {
  TASKMAP_REQUIRE_SHARED_DATA(hwloc_file(""));
  std::set<std::string> tested = {"hwloc_cxlmem+dax.v3.xml", "hwloc-netloc_avakas_node097.diff.xml"};
  for (const auto& file : kGpuFiles) tested.insert(file.file);
  for (const char* file : kNoGpuFiles) tested.insert(file);
  std::set<std::string> present;
  for (const auto& entry : std::filesystem::directory_iterator(hwloc_file(""))) {
    present.insert(entry.path().filename().string());
  }
  EXPECT_EQ(present, tested);
}

// mpibind_coral-lassen.xml (POWER9, 2 packages): in each package, two V100s (cuda+nvml under
// PCI 0004:04/05 and 0035:03/04) behind one PCIe switch, and one dual-port ConnectX (mlx5_0 and
// mlx5_1 on 0003:01:00.0/.1; mlx5_2, mlx5_3 on 0033:01:00.0/.1) on another host bridge: each
// GPU's nearest NICs are its package's two, which share only the package with it. Package 0
// holds PUs 8-87 (cpuset 0x00ffffff,0xffffffff,0xffffff00), package 8 PUs 96-175; 20 cores each.
TEST(HwlocGpus, EachGpuHasItsPackagesNics) {
  TASKMAP_REQUIRE_SHARED_DATA(hwloc_file(""));
  const NodeModel model = read_hwloc_node(hwloc_file("mpibind_coral-lassen.xml"), SlotUnit::Gpu);
  const GpuNode& node = *model.gpu;
  EXPECT_EQ(gpu_names(node), (std::vector<std::string>{"cuda0", "cuda1", "cuda2", "cuda3"}));
  EXPECT_EQ(nic_names(node), (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}));
  EXPECT_EQ(nearest_nics(node), (std::vector<std::vector<std::uint32_t>>{{0, 1}, {0, 1}, {2, 3}, {2, 3}}));
  EXPECT_EQ(model.levels, (std::vector<std::string>{"numa", "gpu"}));
  EXPECT_EQ(model.distance(0, 1), 1u);
  EXPECT_EQ(model.distance(1, 2), 2u);
  // The j-th GPU of a package on its j-th core: cores 0 and 1 (PUs 8-11, 12-15 in the file's
  // cpusets 0xf00, 0xf000), then 20 and 21 of the second package.
  EXPECT_EQ(model.os_cpu, (std::vector<std::uint32_t>{8, 12, 96, 100}));
  EXPECT_EQ(model.os_cpus[0].size(), 80u);
  EXPECT_EQ(model.os_cpus[3].back(), 175u);
  EXPECT_EQ(model.logical_index, (std::vector<std::uint32_t>{0, 1, 20, 21}));
  for (const auto& gpu : node.gpus) EXPECT_NEAR(gpu.pcie_gbs, 15.753846, 1e-5);  // pci_link_speed
  for (const auto& nic : node.nics) EXPECT_NEAR(nic.pcie_gbs, 15.753846, 1e-5);
  EXPECT_TRUE(node.nvlink_gbs.empty());
}

// fluxcore_ipa20.xml.gz: the PCIe switches decide. cuda0 (0000:4e) shares switch 49:00.0 with
// mlx5_0 and mlx5_1 (4d:00.0/.1), cuda1 (5f) switch 5a:00.0 with mlx5_2 (5e), cuda3 (db)
// switch d8:00.0 with mlx5_3 (da); cuda2 (cb, host bridge c7) shares only package 1's group
// with mlx5_3, the only NIC of that package. hwloc's own order is mlx5_2, mlx5_0, mlx5_1,
// mlx5_3 and cuda1, cuda0, cuda3, cuda2 (the file's host bridge order): names are sorted.
TEST(HwlocGpus, NearestNicsFollowThePcieSwitches) {
  TASKMAP_REQUIRE_SHARED_DATA(hwloc_file(""));
  const NodeModel model = read_hwloc_node(hwloc_file("fluxcore_ipa20.xml.gz"), SlotUnit::Gpu);
  const GpuNode& node = *model.gpu;
  EXPECT_EQ(gpu_names(node), (std::vector<std::string>{"cuda0", "cuda1", "cuda2", "cuda3"}));
  EXPECT_EQ(nic_names(node), (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}));
  EXPECT_EQ(nearest_nics(node), (std::vector<std::vector<std::uint32_t>>{{0, 1}, {2}, {3}, {3}}));
  EXPECT_NEAR(node.gpus[0].pcie_gbs, 63.015385, 1e-5);
  EXPECT_NEAR(node.nics[0].pcie_gbs, 31.507692, 1e-5);  // behind a 31.5 GB/s switch port
  EXPECT_NEAR(node.nics[2].pcie_gbs, 63.015385, 1e-5);
  // NVLinkBandwidth: 150000 MB/s between every pair of the 4 GPUs.
  for (std::uint32_t a = 0; a < 4; ++a)
    for (std::uint32_t b = 0; b < 4; ++b) EXPECT_EQ(node.nvlink_gbs[a * 4 + b], a == b ? 0 : 150) << a << " " << b;
  EXPECT_FALSE(node.has_nvswitch());
}

// mpibind_eas-tioga.xml (MI250X): 8 GCDs rsmi0-7, one per L3 (CCD), and no OpenFabrics device,
// so the NICs are the network interfaces: ens2 (Ethernet, under the first NUMA group) and hsi0-3
// (one per odd L3). Per GCD, by hand from the tree (group / L3): rsmi0 G3/L3#6, rsmi1 G3/L3#7
// beside hsi0, rsmi2 G1/L3#2, rsmi3 G1/L3#3 beside hsi1, rsmi4 G0/L3#0, rsmi5 G0/L3#1 beside
// hsi2, rsmi6 G2/L3#4, rsmi7 G2/L3#5 beside hsi3; ens2 in G0 outside any L3, so rsmi4 ties
// between ens2 and hsi2. hwloc lists the GCDs as rsmi4 5 2 3 6 7 0 1; ROCm numbers them by name.
TEST(HwlocGpus, GpusAreInTheirNamesOrderAndNicsFallBackToNetworkInterfaces) {
  TASKMAP_REQUIRE_SHARED_DATA(hwloc_file(""));
  const NodeModel model = read_hwloc_node(hwloc_file("mpibind_eas-tioga.xml"), SlotUnit::Gpu);
  const GpuNode& node = *model.gpu;
  EXPECT_EQ(gpu_names(node),
            (std::vector<std::string>{"rsmi0", "rsmi1", "rsmi2", "rsmi3", "rsmi4", "rsmi5", "rsmi6", "rsmi7"}));
  EXPECT_EQ(nic_names(node), (std::vector<std::string>{"ens2", "hsi0", "hsi1", "hsi2", "hsi3"}));
  EXPECT_EQ(nearest_nics(node),
            (std::vector<std::vector<std::uint32_t>>{{1}, {1}, {2}, {2}, {0, 3}, {3}, {4}, {4}}));
  for (const auto& cpus : model.os_cpus) EXPECT_EQ(cpus.size(), 16u);  // an L3: 8 cores of 2 PUs
  // XGMIBandwidth: 100000 MB/s between every pair of the 8 GCDs.
  ASSERT_EQ(node.nvlink_gbs.size(), 64u);
  for (std::uint32_t a = 0; a < 8; ++a)
    for (std::uint32_t b = 0; b < 8; ++b) EXPECT_EQ(node.nvlink_gbs[a * 8 + b], a == b ? 0 : 100) << a << " " << b;
}

// hwloc_nvidiaDGX2.xml: NVLinkBandwidth is 28 x 28, nvml0-15 then 12 NVSwitch PCI devices. No
// GPU pair has a direct link; each GPU row has 6 entries of 25000 MB/s to switches (counted in the
// <u64values>): 150 GB/s. GPUs nvml0-7 hang from package 0 (PUs 0, 1), nvml8-15 from package 1
// (PUs 24, 25); 4 cores, 2 per package.
TEST(HwlocGpus, Dgx2GpusReachEachOtherThroughNvSwitches) {
  TASKMAP_REQUIRE_SHARED_DATA(hwloc_file(""));
  const NodeModel model = read_hwloc_node(hwloc_file("hwloc_nvidiaDGX2.xml"), SlotUnit::Gpu);
  const GpuNode& node = *model.gpu;
  ASSERT_EQ(node.num_gpus(), 16u);
  EXPECT_EQ(node.gpus[10].name, "nvml10");
  EXPECT_TRUE(node.nics.empty());
  ASSERT_EQ(node.nvlink_gbs.size(), 256u);
  for (double gbs : node.nvlink_gbs) EXPECT_EQ(gbs, 0);
  EXPECT_EQ(node.nvswitch_gbs, std::vector<double>(16, 150));
  EXPECT_TRUE(node.has_nvswitch());
  EXPECT_EQ(model.os_cpus[0], (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(model.os_cpus[15], (std::vector<std::uint32_t>{24, 25}));
  EXPECT_EQ(model.logical_index[8], 2u);
  EXPECT_EQ(model.levels, (std::vector<std::string>{"numa", "gpu"}));
  EXPECT_EQ(model.distance(0, 7), 1u);
  EXPECT_EQ(model.distance(7, 8), 2u);
  for (const auto& gpu : node.gpus) EXPECT_NEAR(gpu.pcie_gbs, 15.753846, 1e-5);
}

// hwloc_power8gpudistances.xml: each GPU is cuda, opencl and nvml under one PCI device.
// NVLinkBandwidth (6 x 6: nvml0-3, then the 2 packages): nvml0-nvml1 and nvml2-nvml3 40000 MB/s,
// and each GPU 40000 to its own package, a host link left out of the GPU links.
TEST(HwlocGpus, Power8NvLinksBetweenGpuPairs) {
  TASKMAP_REQUIRE_SHARED_DATA(hwloc_file(""));
  const NodeModel model = read_hwloc_node(hwloc_file("hwloc_power8gpudistances.xml"), SlotUnit::Gpu);
  const GpuNode& node = *model.gpu;
  EXPECT_EQ(gpu_names(node), (std::vector<std::string>{"cuda0", "cuda1", "cuda2", "cuda3"}));
  EXPECT_EQ(node.nvlink_gbs, (std::vector<double>{0, 40, 0, 0,  //
                                                  40, 0, 0, 0,  //
                                                  0, 0, 0, 40,  //
                                                  0, 0, 40, 0}));
  EXPECT_TRUE(node.nvswitch_gbs.empty());
  // package 0: cpuset 0x03030303
  EXPECT_EQ(model.os_cpus[0], (std::vector<std::uint32_t>{0, 1, 8, 9, 16, 17, 24, 25}));
}

// gpus.xml: 2 packages of one core; package 0 holds a GPU seen as nvml0 and cuda0 and an
// InfiniBand adapter seen as mlx5_0 and ib0, package 1 the GPU cuda1 and the adapter mlx5_1
// (link speed 0: not known).
TEST(HwlocGpus, HandMadeNode) {
  const NodeModel model = read_hwloc_node(test::instance("hwloc/gpus.xml"), SlotUnit::Gpu);
  const GpuNode& node = *model.gpu;
  EXPECT_EQ(node.source, test::instance("hwloc/gpus.xml"));
  EXPECT_EQ(gpu_names(node), (std::vector<std::string>{"cuda0", "cuda1"}));
  EXPECT_EQ(nic_names(node), (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
  EXPECT_EQ(nearest_nics(node), (std::vector<std::vector<std::uint32_t>>{{0}, {1}}));
  EXPECT_EQ(model.os_cpus, (std::vector<std::vector<std::uint32_t>>{{0}, {1}}));
  EXPECT_EQ(model.logical_index, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(model.levels, (std::vector<std::string>{"gpu"}));  // one GPU per package: the same level
  EXPECT_NEAR(node.nics[0].pcie_gbs, 31.507692, 1e-5);
  EXPECT_EQ(node.nics[1].pcie_gbs, 0);
  EXPECT_TRUE(node.nvlink_gbs.empty());
  // The CPU side of the same file is unchanged by its I/O devices.
  const NodeModel cores = read_hwloc_node(test::instance("hwloc/gpus.xml"), SlotUnit::Core);
  EXPECT_EQ(cores.num_slots(), 2u);
  EXPECT_EQ(cores.gpu, nullptr);
}

// gpus.xml with mlx5_0's kind 8, a value hwloc's enumeration does not have (hwloc keeps what the
// XML says; found by fuzzing, which read it as the enumeration): neither GPU nor NIC, so the node
// has one NIC, mlx5_1.
TEST(HwlocGpus, AnOsDeviceOfAnUnknownKindIsLeftOut) {
  const NodeModel model = read_hwloc_node(test::instance("hwloc/osdev-unknown-kind.xml"), SlotUnit::Gpu);
  EXPECT_EQ(gpu_names(*model.gpu), (std::vector<std::string>{"cuda0", "cuda1"}));
  EXPECT_EQ(nic_names(*model.gpu), (std::vector<std::string>{"mlx5_1"}));
}

TEST(HwlocGpus, RefusesAGpuWithoutAllowedCpuAndANicNamedTwice) {
  // gpus.xml with allowed_cpuset 0x1: cuda1's package has no allowed PU
  const std::string no_locality = test::instance("hwloc/gpu-without-locality.xml");
  EXPECT_EQ(error_of(no_locality), no_locality + ": GPU 'cuda1' has no CPU locality");
  // The same with the first core's cpuset empty: hwloc keeps CPU 0 in cuda0's locality but no
  // PU object for it (found by fuzzing: a null object was read).
  const std::string no_pu = test::instance("hwloc/gpu-core-without-pu.xml");
  EXPECT_EQ(error_of(no_pu), no_pu + ": GPU 'cuda0' is near CPU 0, but the file gives no PU for it");
  // A fuzzed variant of gpus.xml (the first core's cpuset empty, the second PU renumbered): the
  // core nearest cuda0 holds none of its CPUs (an index past the end was read).
  const std::string outside = test::instance("hwloc/gpu-core-cpuset-inconsistent.xml");
  EXPECT_EQ(error_of(outside), outside + ": GPU 'cuda0' is near a core whose cpuset holds none of the GPU's CPUs");
  // gpus.xml with mlx5_1 renamed mlx5_0
  const std::string twice = test::instance("hwloc/nic-twice.xml");
  EXPECT_EQ(error_of(twice), twice + ": NIC 'mlx5_0' appears twice");
}

// restricted_to keeps the chosen GPUs' entries, their device indices and every NIC.
TEST(HwlocGpus, RestrictedToKeepsTheChosenGpusAndTheirLinks) {
  TASKMAP_REQUIRE_SHARED_DATA(hwloc_file(""));
  const NodeModel model = read_hwloc_node(hwloc_file("hwloc_power8gpudistances.xml"), SlotUnit::Gpu);
  const NodeModel two = model.restricted_to({3, 2});
  ASSERT_NE(two.gpu, nullptr);
  EXPECT_EQ(two.num_slots(), 2u);
  EXPECT_EQ(gpu_names(*two.gpu), (std::vector<std::string>{"cuda3", "cuda2"}));
  EXPECT_EQ(two.gpu->gpus[0].device, 3u);
  EXPECT_EQ(two.gpu->nvlink_gbs, (std::vector<double>{0, 40, 40, 0}));
  EXPECT_TRUE(two.gpu->nvswitch_gbs.empty());
  EXPECT_EQ(model.gpu->num_gpus(), 4u);  // the original is untouched

  const NodeModel dgx = read_hwloc_node(hwloc_file("hwloc_nvidiaDGX2.xml"), SlotUnit::Gpu).restricted_to({0, 9, 15});
  EXPECT_EQ(dgx.gpu->nvswitch_gbs, (std::vector<double>{150, 150, 150}));
  EXPECT_EQ(dgx.gpu->nvlink_gbs, std::vector<double>(9, 0));

  const NodeModel lassen = read_hwloc_node(hwloc_file("mpibind_coral-lassen.xml"), SlotUnit::Gpu).restricted_to({2});
  EXPECT_EQ(lassen.gpu->nics.size(), 4u);
  EXPECT_EQ(lassen.gpu->gpus[0].nics, (std::vector<std::uint32_t>{2, 3}));
  EXPECT_EQ(NodeModel::flat(2).restricted_to({1}).gpu, nullptr);
}

}  // namespace
}  // namespace taskmap
