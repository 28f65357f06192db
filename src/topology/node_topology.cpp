// The node-topology catalog: what --node-topology (and a fabric machine's node=) accepts.
#include "taskmap/topology/node_topology.h"

#include <fmt/format.h>

namespace taskmap {
namespace {

enum class NodeTopologyKind { Hwloc, Gpus };

int tag(NodeTopologyKind kind) { return static_cast<int>(kind); }

}  // namespace

const Catalog& node_topology_catalog() {
  static const Catalog catalog(
      {.noun = "node-topology",
       .plural = "node-topologies",
       .option = "--node-topology",
       .title = "Node topologies",
       .intro = "The inside of every node of the machine: its slots (cores, hardware threads or GPUs) and how far "
                "apart they are. Without one, a node is flat: ppn slots, each one hop from the others. GPU nodes "
                "(slots=gpu, gpus:) on a fabric read from files get a router per GPU and per NIC: see docs/gpus.md.",
       .table_file = "src/topology/node_topology.cpp"},
      {
          {.name = "hwloc",
           .tag = tag(NodeTopologyKind::Hwloc),
           .summary = "hwloc XML of one node (`lstopo --of xml FILE`, v1 or v2): its cores, caches, NUMA nodes and "
                      "packages; with slots=gpu its GPUs, the NICs nearest each on the PCIe tree and NVML's NVLink "
                      "bandwidths",
           .reference = "[hwloc]",
           .example = "hwloc:node.xml,slots=gpu",
           .positional = true,
           .params = {{.name = "path", .type = ParamType::Path, .required = true, .meaning = "the hwloc XML file"},
                      {.name = "slots", .type = ParamType::Choice, .choices = {"core", "pu", "gpu"},
                       .meaning = "a slot is a core, a hardware thread, or a GPU (one rank per GPU)",
                       .when_absent = "the machine's slots= (core)"}}},
          {.name = "gpus",
           .tag = tag(NodeTopologyKind::Gpus),
           .summary = "a GPU node described by counts: N GPUs, GPU k beside NIC k mod nics, every GPU on the node's "
                      "NVSwitches",
           .example = "gpus:8,nics=8",
           .positional = true,
           .params = {{.name = "count", .type = ParamType::Int, .required = true, .min = 1, .max = 1024,
                       .meaning = "GPUs per node"},
                      {.name = "nics", .type = ParamType::Int, .default_value = "0", .min = 0, .max = 1024,
                       .meaning = "NICs per node; 0: the node's ports in the fabric's file, GPU k on port k mod "
                                  "their count"},
                      {.name = "nvlink", .type = ParamType::Real, .default_value = "450", .min = 0, .max = 1e6,
                       .meaning = "GB/s each way between a GPU and the node's NVSwitches (450: NVLink 4, H100 SXM); "
                                  "0: no NVLink, GPUs meet over PCIe"},
                      {.name = "pcie", .type = ParamType::Real, .default_value = "64", .min = 0.001, .max = 1e6,
                       .meaning = "GB/s each way of a GPU's and a NIC's PCIe link (64: PCIe 5.0 x16)"}}},
      });
  return catalog;
}

std::shared_ptr<const NodeModel> read_node_topology(std::string_view spec, SlotUnit unit) {
  const SpecValues v = node_topology_catalog().parse(spec);
  if (static_cast<NodeTopologyKind>(v.entry().tag) == NodeTopologyKind::Hwloc) {
    if (v.given("slots")) unit = static_cast<SlotUnit>(v.choice_index("slots"));
    return std::make_shared<const NodeModel>(read_hwloc_node(v.get_text("path"), unit));
  }
  const auto gpus = static_cast<std::uint32_t>(v.get_int("count"));
  auto node = std::make_shared<GpuNode>(GpuNode::uniform(gpus, static_cast<std::uint32_t>(v.get_int("nics")),
                                                         v.get_real("nvlink"), v.get_real("pcie")));
  node->source = std::string(spec);
  NodeModel model = NodeModel::flat(gpus);
  model.source = std::string(spec);
  model.unit = SlotUnit::Gpu;
  model.units_in_node = gpus;
  model.gpu = std::move(node);
  return std::make_shared<const NodeModel>(std::move(model));
}

void check_node_topology_spec(std::string_view spec) { (void)node_topology_catalog().parse(spec); }

}  // namespace taskmap
