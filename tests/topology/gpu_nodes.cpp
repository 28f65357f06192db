// GPU nodes on a fabric: a router per GPU and per NIC, each GPU's traffic through its own NIC
// (or, with gpu=pxn, over NVLink to the GPU on the destination's rail), loads derived by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include <nlohmann/json.hpp>

#include "taskmap/eval/evaluator.h"
#include "taskmap/routing/routing.h"
#include "taskmap/topology/distance.h"
#include "taskmap/topology/fabric.h"
#include "taskmap/topology/node_topology.h"
#include "test_support.h"

namespace taskmap {
namespace {

// Two hosts a and b, each with NICs mlx5_0 on rail leaf0 and mlx5_1 on rail leaf1, both
// leaves under one spine; 400 Gb/s everywhere.
Fabric two_rails() {
  Fabric f;
  f.source = "two-rails";
  f.switches = {"leaf0", "leaf1", "spine"};
  f.hosts = {"a", "b"};
  // Listed out of NIC order: the NICs are ordered by name.
  f.host_ports = {{0, 1, 400, "mlx5_1"}, {0, 0, 400, "mlx5_0"}, {1, 0, 400, "mlx5_0"}, {1, 1, 400, "mlx5_1"}};
  f.cables = {{0, 2, 400}, {1, 2, 400}};
  f.rates_in_gbps = true;
  return f;
}

// Two GPUs per node, GPU k beside NIC k, 100 GB/s of NVLink to the NVSwitches, PCIe at 50 GB/s.
Machine two_rails_machine(std::string_view node = "gpus:2,nics=2,nvlink=100,pcie=50") {
  return build_fabric_machine(two_rails(), {.slots_per_node = 1,
                                            .gpu_model = read_node_topology(node, SlotUnit::Core),
                                            .description = "two-rails"});
}

// The routers: per host 2 GPUs, 2 NICs (in name order), the CPUs, the NVSwitches; then the switches.
enum : RouterId { kGpu0a, kGpu1a, kNic0a, kNic1a, kCpuA, kNvsA, kGpu0b, kGpu1b, kNic0b, kNic1b, kCpuB, kNvsB,
                  kLeaf0, kLeaf1, kSpine };

using Hops = std::set<std::pair<RouterId, RouterId>>;

// The (from, to) routers of every channel a unit flow crosses, each crossed with all of it.
Hops hops_of(const Machine& m, const Routing& r, RouterId src, RouterId dst) {
  Hops hops;
  for (const auto& [channel, load] : test::route_loads(r, src, dst)) {
    EXPECT_DOUBLE_EQ(load, 1.0) << m.channels[channel].src << "->" << m.channels[channel].dst;
    hops.emplace(m.channels[channel].src, m.channels[channel].dst);
  }
  return hops;
}

TEST(GpuNodes, RoutersSlotsAndClassesOfTwoRails) {
  const Machine m = two_rails_machine();
  EXPECT_EQ(m.num_routers, 15u);
  EXPECT_EQ(m.num_nodes(), 2u);
  EXPECT_EQ(m.num_slots(), 4u);
  EXPECT_EQ(m.router_of_slot(0), kGpu0a);
  EXPECT_EQ(m.router_of_slot(3), kGpu1b);
  EXPECT_EQ(m.slots_of_router(kNic0a), 0u);
  EXPECT_EQ(m.node_name(1), "b");
  // Per host: 2 PCIe pairs GPU-NIC, 2 GPU-CPU, 2 NVLink pairs to the switches; 4 NIC ports
  // each way; 2 cables each way.
  const auto counts = test::class_counts(m);
  EXPECT_EQ(counts.at("pcie"), 2 * (2 * 2 + 2 * 2));
  EXPECT_EQ(counts.at("nvlink"), 2 * (2 * 2));
  EXPECT_EQ(counts.at("inject"), 4);
  EXPECT_EQ(counts.at("link"), 4);
  for (const LinkClass& c : m.classes) {
    if (c.name == "nvlink") {
      EXPECT_DOUBLE_EQ(c.bandwidth, 100.0 * 8 / 400);
    }
    if (c.name == "pcie") {
      EXPECT_DOUBLE_EQ(c.bandwidth, 50.0 * 8 / 400);
    }
    EXPECT_EQ(c.in_node, c.name == "nvlink" || c.name == "pcie") << c.name;
  }
  // A GPU node stays whole in the leaves' groups: its routers are under all its NICs' leaves
  // (both hosts under leaf0 and leaf1: one group).
  const auto groups = leaf_groups(m);
  EXPECT_EQ(groups[kGpu0a], groups[kGpu1a]);
  EXPECT_EQ(groups[kGpu0a], groups[kGpu0b]);
  EXPECT_EQ(groups[kLeaf0], UINT32_MAX);
}

TEST(GpuNodes, DirectRoutesLeaveThroughTheGpusOwnNic) {
  const Machine m = two_rails_machine();
  const auto routing = make_routing(m, parse_routing_spec("ecmp"));
  // GPU 0 of a to GPU 1 of b: its NIC on rail 0, up to the spine, down rail 1 to b's NIC 1.
  EXPECT_EQ(hops_of(m, *routing, kGpu0a, kGpu1b),
            (Hops{{kGpu0a, kNic0a}, {kNic0a, kLeaf0}, {kLeaf0, kSpine}, {kSpine, kLeaf1}, {kLeaf1, kNic1b}, {kNic1b, kGpu1b}}));
  // On one rail: through the leaf alone.
  EXPECT_EQ(hops_of(m, *routing, kGpu0a, kGpu0b), (Hops{{kGpu0a, kNic0a}, {kNic0a, kLeaf0}, {kLeaf0, kNic0b}, {kNic0b, kGpu0b}}));
  // Inside a node: through the NVSwitches.
  EXPECT_EQ(hops_of(m, *routing, kGpu0a, kGpu1a), (Hops{{kGpu0a, kNvsA}, {kNvsA, kGpu1a}}));
}

// Hop distances go through the NICs, as the traffic does: GPU, NIC, leaf(, spine, leaf), NIC, GPU.
TEST(GpuNodes, HopDistancesThroughTheNics) {
  const Machine m = two_rails_machine();
  const HopDistance hops(m);
  EXPECT_EQ(hops(kGpu0a, kGpu1b), 6u);
  EXPECT_EQ(hops(kGpu0a, kGpu0b), 4u);
  EXPECT_EQ(hops(kGpu1b, kGpu0a), 6u);
  EXPECT_EQ(hops(kGpu0a, kGpu1a), 2u);  // through the NVSwitches
  EXPECT_EQ(hops(kLeaf0, kSpine), 1u);
  EXPECT_EQ(hops(kNic0a, kNic1b), 4u);
  // A node's CPUs and NVSwitches reach the network through a GPU and any NIC of the node (2
  // hops), as local searches that price every router ask: GPU 0 of a, NIC 0, leaf 0, NIC 0 of b,
  // then 2 to b's CPUs.
  EXPECT_EQ(hops(kGpu0a, kCpuB), 5u);
  EXPECT_EQ(hops(kNvsA, kGpu1b), 5u);
}

TEST(GpuNodes, PxnCrossesNvlinkToTheDestinationsRail) {
  const Machine m = two_rails_machine();
  const auto routing = make_routing(m, parse_routing_spec("ecmp:gpu=pxn"));
  // GPU 0 of a to GPU 1 of b: over NVLink to GPU 1 of a, out on rail 1; no spine.
  EXPECT_EQ(hops_of(m, *routing, kGpu0a, kGpu1b),
            (Hops{{kGpu0a, kNvsA}, {kNvsA, kGpu1a}, {kGpu1a, kNic1a}, {kNic1a, kLeaf1}, {kLeaf1, kNic1b}, {kNic1b, kGpu1b}}));
  // Already on the rail: as direct.
  EXPECT_EQ(hops_of(m, *routing, kGpu0a, kGpu0b), (Hops{{kGpu0a, kNic0a}, {kNic0a, kLeaf0}, {kLeaf0, kNic0b}, {kNic0b, kGpu0b}}));
}

TEST(GpuNodes, WithoutNvlinkGpusOfANodeMeetOverPcieThroughTheCpus) {
  const Machine m = two_rails_machine("gpus:2,nics=2,nvlink=0,pcie=50");
  const auto routing = make_routing(m, parse_routing_spec("ecmp"));
  // No NVSwitch router: host a's routers are GPU 0, GPU 1, NIC 0, NIC 1, CPUs (4).
  EXPECT_EQ(m.num_routers, 2u * 5 + 3);
  EXPECT_EQ(hops_of(m, *routing, 0, 1), (Hops{{0, 4}, {4, 1}}));
}

// One flow of volume 1 from GPU 0 of a to GPU 1 of b: the spine links carry it directly (the
// network's MCL 1), none of it with pxn, where NVLink carries it at bandwidth 2 (load 0.5).
TEST(GpuNodes, EvaluatorCountsTheNodesLinksApartFromTheNetwork) {
  const Machine m = two_rails_machine();
  const CommGraph graph = CommGraph::from_edges(4, {{0, 3, 1.0}, {3, 0, 1.0}});
  const Mapping identity{{0, 1, 2, 3}, ""};
  for (const bool pxn : {false, true}) {
    const auto routing = make_routing(m, parse_routing_spec(pxn ? "ecmp:gpu=pxn" : "ecmp"));
    const Metrics x = Evaluator(m, *routing).evaluate(graph, identity);
    double nvlink = 0, link = 0, pcie = 0;
    for (const auto& c : x.by_class) {
      if (c.name == "nvlink") nvlink = c.mcl;
      if (c.name == "link") link = c.mcl;
      if (c.name == "pcie") pcie = c.mcl;
    }
    EXPECT_DOUBLE_EQ(link, pxn ? 0.0 : 1.0) << pxn;
    EXPECT_DOUBLE_EQ(nvlink, pxn ? 0.5 : 0.0) << pxn;
    EXPECT_DOUBLE_EQ(pcie, 1.0) << pxn;
    EXPECT_DOUBLE_EQ(x.mcl_network, pxn ? 0.0 : 1.0) << pxn;
    EXPECT_DOUBLE_EQ(x.network_volume, 2.0);
    EXPECT_DOUBLE_EQ(x.node_volume, 0.0);
  }
  // Inside a node: node volume, routed over NVLink (2 hops each way), not the network's.
  const CommGraph inside = CommGraph::from_edges(4, {{0, 1, 1.0}, {1, 0, 1.0}});
  const auto routing = make_routing(m, parse_routing_spec("ecmp"));
  const Metrics x = Evaluator(m, *routing).evaluate(inside, identity);
  EXPECT_DOUBLE_EQ(x.node_volume, 2.0);
  EXPECT_DOUBLE_EQ(x.network_volume, 0.0);
  EXPECT_DOUBLE_EQ(x.hop_bytes, 4.0);
  EXPECT_DOUBLE_EQ(x.mcl_network, 0.0);
  EXPECT_DOUBLE_EQ(x.mcl, 1.0 / 2.0);  // NVLink at bandwidth 2 carries 1
}

TEST(GpuNodes, NicsThatDoNotMatchAreSharedWithOneWarning) {
  Fabric f = two_rails();
  std::vector<std::string> warnings;
  // Three NICs in the model, two ports on each host: neither by name nor by count.
  const Machine m = build_fabric_machine(f, {.slots_per_node = 1,
                                             .gpu_model = read_node_topology("gpus:2,nics=3", SlotUnit::Core),
                                             .warn = [&](const std::string& w) { warnings.push_back(w); },
                                             .description = "two-rails"});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("host 'a' and 1 other host"), std::string::npos) << warnings[0];
  const auto routing = make_routing(m, parse_routing_spec("ecmp"));
  // GPU 0 of a to GPU 0 of b: half through each NIC pair's... every NIC of a to every NIC of b.
  const auto loads = test::route_loads(*routing, kGpu0a, kGpu0b);
  double to_nics = 0;
  for (const auto& [channel, load] : loads) {
    if (m.channels[channel].src == kGpu0a) {
      to_nics += load;
      EXPECT_DOUBLE_EQ(load, 0.5);
    }
  }
  EXPECT_DOUBLE_EQ(to_nics, 1.0);
}

TEST(GpuNodes, PxnNeedsGpuNodes) {
  const Machine m = build_fabric_machine(two_rails(), {.slots_per_node = 2, .description = "two-rails"});
  const RoutingSpec pxn = parse_routing_spec("ecmp:gpu=pxn");
  EXPECT_TRUE(pxn.gpu_pxn);
  EXPECT_THROW(make_routing(m, pxn), Error);
}

}  // namespace
}  // namespace taskmap

namespace taskmap {
namespace {

// Per node of a GPU machine: the leaf switch of each of its NICs, in NIC order.
std::vector<std::vector<std::string>> nic_leaves(const Machine& m) {
  const auto& links = *m.gpu_links;
  const auto& fabric = std::get<FabricShape>(m.shape);
  std::vector<std::string> leaf(m.num_routers);
  for (const Channel& c : m.channels) {
    if (m.classes[c.link_class].name.starts_with("inject")) leaf[c.src] = fabric.switch_names[c.dst - fabric.first_switch];
  }
  std::vector<std::vector<std::string>> out;
  for (const auto& node : links.nodes) {
    out.emplace_back();
    for (std::uint32_t i = 0; i < node.nics; ++i) out.back().push_back(leaf[node.first_nic + i]);
  }
  return out;
}

// Rail k: the leaves of NIC k of the nodes of `nics` NICs; the counts come from the files, read
// by a script apart from taskmap (NICs ordered by GUID, or by the CA description's NIC name).
std::vector<std::set<std::string>> rails(const Machine& m, std::size_t nics, std::string_view host_part = {}) {
  std::vector<std::set<std::string>> out(nics);
  const auto leaves = nic_leaves(m);
  for (NodeId n = 0; n < m.num_nodes(); ++n) {
    if (leaves[n].size() != nics || m.node_name(n).find(host_part) == std::string::npos) continue;
    for (std::size_t k = 0; k < nics; ++k) out[k].insert(leaves[n][k]);
  }
  return out;
}

TEST(GpuNodes, AzureNdRailsFromItsGuids) {
  const std::string dir = test::shared_data("topologies/slurm/");
  TASKMAP_REQUIRE_SHARED_DATA(dir + "azslurm_topology.txt");
  const Machine m = make_machine("slurm:" + dir + "azslurm_topology.txt,map=" + dir + "azslurm_nodes_guids.txt,node=gpus:8");
  EXPECT_EQ(m.num_nodes(), 16u);
  EXPECT_EQ(m.num_slots(), 128u);
  // 16 VMs x 8 HCAs: HCA k (by GUID) of every VM sits on one of 5 leaves of its own, the 8
  // rails on 40 distinct leaves.
  const auto r = rails(m, 8);
  std::set<std::string> all;
  for (const auto& leaves : r) {
    EXPECT_EQ(leaves.size(), 5u);
    all.insert(leaves.begin(), leaves.end());
  }
  EXPECT_EQ(all.size(), 40u);
  EXPECT_TRUE(r[0].contains("ibsw7"));  // hpcbench-hpc-1's lowest GUID, 0x155dfffd33ff33
}

TEST(GpuNodes, Gb200TraysNicsInNameOrder) {
  const std::string path = test::shared_data("topologies/ibnet/topograph_example.out.gz");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const Machine m = make_machine("ibnet:" + path + ",node=gpus:4");
  // 109 compute trays with 4 HCAs (HCA-1, -2, -5, -6 or mlx5_0, _1, _4, _5): NIC k on 7, 7, 8
  // and 8 leaves, 28 distinct leaves in all (two leaves serve two NIC positions).
  std::size_t trays = 0;
  for (const auto& leaves : nic_leaves(m)) trays += leaves.size() == 4;
  EXPECT_GE(trays, 109u);
  const auto r = rails(m, 4, "-dgx-");
  std::set<std::string> all;
  std::vector<std::size_t> sizes;
  for (const auto& leaves : r) sizes.push_back(leaves.size()), all.insert(leaves.begin(), leaves.end());
  EXPECT_EQ(sizes, (std::vector<std::size_t>{7, 7, 8, 8}));
  EXPECT_EQ(all.size(), 28u);
}

TEST(GpuNodes, Dgx2SixteenGpusOnNvswitches) {
  const std::string xml = test::shared_data("topologies/hwloc/hwloc_nvidiaDGX2.xml");
  TASKMAP_REQUIRE_SHARED_DATA(xml);
  const auto model = read_node_topology("hwloc:" + xml + ",slots=gpu", SlotUnit::Core);
  ASSERT_TRUE(model->gpu);
  EXPECT_EQ(model->num_slots(), 16u);
  Fabric f = two_rails();
  const Machine m = build_fabric_machine(f, {.slots_per_node = 1, .gpu_model = model, .description = "dgx2"});
  // Per node: 16 GPUs, 2 NICs, the CPUs, the NVSwitches; 16 x 2 NVLink channels to them at
  // 6 links x 25 GB/s per GPU (the file's NVLinkBandwidth rows, summed by hand).
  EXPECT_EQ(m.num_routers, 2u * (16 + 2 + 1 + 1) + 3);
  EXPECT_EQ(test::class_counts(m).at("nvlink"), 2 * 16 * 2);
  for (const LinkClass& c : m.classes) {
    if (c.name == "nvlink") {
      EXPECT_DOUBLE_EQ(c.bandwidth, 150.0 * 8 / 400);
    }
  }
  // The file has no NIC: GPU k on NIC k mod 2 of the host.
  const auto& links = *m.gpu_links;
  EXPECT_EQ(links.nic_router[links.nic_first[3]], 16u + 1);
}

}  // namespace
}  // namespace taskmap

namespace taskmap {
namespace {

// Bad GPU jobs: one line each, exit 1, and no placement file.
TEST(GpuNodes, MoreRanksThanGpusOrNoGpusIsOneLine) {
  const std::string out = testing::TempDir() + "gpu_job_placement.txt";
  std::filesystem::remove(out);
  const auto more = test::run_taskmap("map --machine torus:2 --node-topology gpus:2 --pattern halo2d:2x3 --mapper "
                                      "default --out " + out);
  EXPECT_EQ(more.exit_code, 1);
  EXPECT_EQ(more.err, "taskmap: error: --pattern 'halo2d:2x3': 6 ranks but 4 GPUs on machine 'torus:2' (one rank per "
                      "GPU: give more nodes, or fewer ranks)\n");
  EXPECT_FALSE(std::filesystem::exists(out));
  const std::string xml = test::shared_data("topologies/hwloc/hwloc-netloc_avakas_node001.xml");
  TASKMAP_REQUIRE_SHARED_DATA(xml);
  const auto none = test::run_taskmap("map --machine torus:2 --node-topology hwloc:" + xml +
                                      ",slots=gpu --pattern halo2d:2x1 --mapper default --out " + out);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no GPU"), std::string::npos) << none.err;
  EXPECT_EQ(std::count(none.err.begin(), none.err.end(), '\n'), 1) << none.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  const auto misuse = test::run_taskmap("map --machine torus:2 --node-topology gpus:0 --pattern halo2d:2x1 --out " + out);
  EXPECT_EQ(misuse.exit_code, 2) << misuse.err;
}

}  // namespace
}  // namespace taskmap

namespace taskmap {
namespace {

// NIC names that differ from the fabric's (hwloc's mlx5_0 against a CA description's HCA-1)
// but as many: matched by position, without a warning.
TEST(GpuNodes, NicsNamedOtherwiseMatchByPosition) {
  auto node = std::make_shared<GpuNode>(GpuNode::uniform(2, 2, 100, 50));
  node->nics[0].name = "HCA-1", node->nics[1].name = "HCA-2";
  NodeModel model = NodeModel::flat(2);
  model.unit = SlotUnit::Gpu;
  model.gpu = node;
  std::vector<std::string> warnings;
  const Machine m = build_fabric_machine(two_rails(), {.slots_per_node = 1,
                                                       .gpu_model = std::make_shared<const NodeModel>(model),
                                                       .warn = [&](const std::string& w) { warnings.push_back(w); },
                                                       .description = "two-rails"});
  EXPECT_TRUE(warnings.empty());
  const auto routing = make_routing(m, parse_routing_spec("ecmp"));
  EXPECT_EQ(hops_of(m, *routing, kGpu0a, kGpu0b), (Hops{{kGpu0a, kNic0a}, {kNic0a, kLeaf0}, {kLeaf0, kNic0b}, {kNic0b, kGpu0b}}));
}

// A fabric whose nodes sit on its switch routers (a Dragonfly file) has no port per NIC: its
// GPUs are the slots of the node, on the node's router, as cores are.
TEST(GpuNodes, OnSwitchRoutersGpusAreTheNodesSlots) {
  const Machine m = make_machine("aries:" + test::instance("aries/small.dragonfly") + ",node=gpus:4");
  EXPECT_EQ(m.gpu_links, nullptr);
  ASSERT_NE(m.node_model, nullptr);
  EXPECT_EQ(m.node_model->unit, SlotUnit::Gpu);
  EXPECT_EQ(m.num_slots(), 7u * 4);  // small.dragonfly's 7 nodes
}

// `info`'s JSON hosts: a GPU node's links are its NICs' (two, to leaf0 and leaf1).
TEST(GpuNodes, ReportsAGpuNodesLinksByItsNics) {
  const std::string dir = test::shared_data("topologies/slurm/");
  TASKMAP_REQUIRE_SHARED_DATA(dir + "azslurm_topology.txt");
  const auto run = test::run_taskmap("info --machine slurm:" + dir + "azslurm_topology.txt,map=" + dir +
                                     "azslurm_nodes_guids.txt,node=gpus:8 --format json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto hosts = nlohmann::json::parse(run.out)["hosts"];
  bool seen = false;
  for (const auto& h : hosts) {
    if (h["name"] != "hpcbench-hpc-1") continue;
    seen = true;
    EXPECT_EQ(h["links"], 8);  // its 8 HCAs, each on a leaf of its own (the GUID lines)
    EXPECT_EQ(h["switches"].size(), 8u);
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace taskmap

namespace taskmap {
namespace {

// The HTML report's tree picture on GPU nodes: hosts named by their nodes, each leaf counting
// the job's hosts that hang on it by a NIC (the Azure VM on its 8 rails' leaves).
TEST(GpuNodes, HtmlReportDrawsGpuHostsOnTheirLeaves) {
  const std::string dir = test::shared_data("topologies/slurm/");
  TASKMAP_REQUIRE_SHARED_DATA(dir + "azslurm_topology.txt");
  const std::string html = testing::TempDir() + "gpu_report.html";
  const auto run = test::run_taskmap("eval --machine slurm:" + dir + "azslurm_topology.txt,map=" + dir +
                                     "azslurm_nodes_guids.txt,node=gpus:8 --nodes hpcbench-hpc-1 --pattern halo2d:2x4 "
                                     "--mapper default --report " + html);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::ifstream in(html);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("hpcbench-hpc-1"), std::string::npos);
}

}  // namespace
}  // namespace taskmap
