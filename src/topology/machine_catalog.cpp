// The machine catalog: the one table of machine families and their parameters.
#include "taskmap/topology/machine_catalog.h"

#include "taskmap/topology/machine_spec.h"

namespace taskmap {
namespace {

constexpr double kMaxCount = 1 << 20;

// Parameters several families share; each default is written here once.
CatalogParam ppn(std::string_view default_value = "1") {
  return {.name = "ppn", .type = ParamType::Int, .default_value = default_value, .min = 1, .max = kMaxCount,
          .meaning = "slots (cores) per node"};
}
const CatalogParam kConc = {.name = "conc", .type = ParamType::Int, .default_value = "1", .min = 1, .max = kMaxCount,
                            .meaning = "nodes per router"};
CatalogParam required_count(std::string_view name, double max, std::string_view meaning) {
  return {.name = name, .type = ParamType::Int, .required = true, .min = 1, .max = max, .meaning = meaning};
}
CatalogParam lattice_sizes() {
  return {.name = "sizes", .type = ParamType::Sizes, .required = true, .min = 1, .max = 1 << 22, .min_count = 1,
          .max_count = 25,
          .meaning = "routers per dimension, dimensions lettered A, B, C, ... (skipping T), A slowest"};
}

int tag(MachineKind kind) { return static_cast<int>(kind); }

// The keys the machines read from a cluster's files share.
std::vector<CatalogParam> fabric_params(std::string_view file_meaning, CatalogParam side_file) {
  return {{.name = "path", .type = ParamType::Path, .required = true, .meaning = file_meaning},
          std::move(side_file),
          {.name = "node", .type = ParamType::Path, .meaning = "the inside of every node: hwloc:FILE (hwloc XML) or gpus:N (docs/node-topologies.md)",
           .when_absent = "flat nodes of ppn slots"},
          {.name = "slots", .type = ParamType::Choice, .default_value = "core", .choices = {"core", "pu", "gpu"},
           .meaning = "with node=hwloc:FILE: a slot is a core, a hardware thread, or a GPU (docs/gpus.md)"},
          ppn()};
}
CatalogParam guid_map() {
  return {.name = "map", .type = ParamType::Path,
          .meaning = "GUID-to-host map: 'host: 0xGUID' or 'H-GUID host' lines", .when_absent = "names as in the file"};
}

std::vector<CatalogParam> slurm_params() {
  std::vector<CatalogParam> params = fabric_params("Slurm topology.conf or topology.yaml", guid_map());
  params.insert(params.begin() + 2, {.name = "topology", .type = ParamType::String,
                                     .meaning = "which topology of a topology.yaml (its 'topology:' name)",
                                     .when_absent = "the one marked cluster_default, else the first"});
  return params;
}

std::vector<CatalogParam> ibnet_params() {
  std::vector<CatalogParam> params = fabric_params("ibnetdiscover output", guid_map());
  params.insert(params.begin() + 2, {.name = "lft", .type = ParamType::Path,
                                     .meaning = "the fabric's forwarding tables (as --routing lft: reads them): the "
                                                "default routing becomes lft:FILE",
                                     .when_absent = "ecmp"});
  return params;
}

}  // namespace

const Catalog& machine_catalog() {
  static const Catalog catalog(
      {.noun = "machine",
       .plural = "machines",
       .option = "--machine",
       .title = "Machines",
       .intro = "Machines for `--machine`. Slots are numbered router-major: slot = (router * conc + node) * ppn + "
                "core; torus routers are numbered row-major with A slowest, so the default placement is BG/Q's "
                "ABCDET order.",
       .table_file = "src/topology/machine_catalog.cpp"},
      {
          {.name = "torus",
           .tag = tag(MachineKind::Torus),
           .summary = "k-ary n-cube with any number of dimensions; a wrap dimension of size 2 has two parallel "
                      "channels per direction (BG/Q's E)",
           .example = "torus:4x4x4x8x2,mesh=D,ppn=16",
           .positional = true,
           .params = {lattice_sizes(),
                      {.name = "mesh", .type = ParamType::Letters, .meaning = "dimensions without wraparound",
                       .when_absent = "none"},
                      {.name = "wrap", .type = ParamType::Letters, .meaning = "dimensions with wraparound",
                       .when_absent = "all"},
                      kConc, ppn()}},
          {.name = "mesh",
           .tag = tag(MachineKind::Torus),
           .summary = "the torus without wraparound",
           .example = "mesh:8x8x8,wrap=A",
           .positional = true,
           .params = {lattice_sizes(),
                      {.name = "mesh", .type = ParamType::Letters, .meaning = "dimensions without wraparound",
                       .when_absent = "all"},
                      {.name = "wrap", .type = ParamType::Letters, .meaning = "dimensions given wraparound back",
                       .when_absent = "none"},
                      kConc, ppn()}},
          {.name = "hypercube",
           .tag = tag(MachineKind::Hypercube),
           .summary = "2x2x...x2 mesh, one channel per direction",
           .example = "hypercube:d=8",
           .params = {required_count("d", 22, "dimensions"), kConc, ppn()}},
          {.name = "rt",
           .tag = tag(MachineKind::RectTorus),
           .summary = "rectangular torus over a 2a x a router grid",
           .reference = "[RTT-map Def. 2.1]",
           .example = "rt:a=4,c=2",
           .params = {{.name = "a", .type = ParamType::Int, .required = true, .min = 2, .max = 1 << 11,
                       .meaning = "the grid is 2a x a routers"},
                      {.name = "c", .type = ParamType::Int, .min = 1, .max = kMaxCount,
                       .meaning = "nodes per router (the paper's c; give c or conc)", .when_absent = "conc"},
                      kConc, ppn()}},
          {.name = "rtt",
           .tag = tag(MachineKind::RectTwistedTorus),
           .summary = "rectangular twisted torus over a 2a x a router grid",
           .reference = "[RTT-map Def. 2.1]",
           .example = "rtt:a=4,c=2",
           .params = {{.name = "a", .type = ParamType::Int, .required = true, .min = 2, .max = 1 << 11,
                       .meaning = "the grid is 2a x a routers"},
                      {.name = "c", .type = ParamType::Int, .min = 1, .max = kMaxCount,
                       .meaning = "nodes per router (the paper's c; give c or conc)", .when_absent = "conc"},
                      kConc, ppn()}},
          {.name = "dragonfly",
           .tag = tag(MachineKind::Dragonfly),
           .summary = "g = a*h+1 groups of a routers, all-to-all inside a group, one global channel between each "
                      "pair of groups",
           .reference = "[Dragonfly-BAC]",
           .example = "dragonfly:p=2,a=4,h=2",
           .params = {required_count("p", kMaxCount, "nodes per router"),
                      required_count("a", 4096, "routers per group"),
                      required_count("h", 4096, "global ports per router"),
                      {.name = "wiring", .type = ParamType::Choice, .default_value = "consecutive",
                       .choices = {"consecutive", "palmtree"},
                       .meaning = "global ports: router s of group G owns ports s*h..s*h+h-1; port l goes to "
                                  "group (G+1+l) mod g (consecutive) or (G-1-l) mod g (palmtree)"},
                      ppn()}},
          {.name = "percs",
           .tag = tag(MachineKind::Percs),
           .summary = "PERCS: 32 nodes (hub chips) per supernode in drawers of 8; LL 21, LR 5, D 10 GB/s; "
                      "h = ns*nd/32 must be an integer <= 16",
           .reference = "[PERCS-map §2]",
           .example = "percs:ns=32,nd=4",
           .params = {required_count("ns", 4096, "supernodes"),
                      required_count("nd", 32, "D links between each pair of supernodes; divides 32"), ppn("4")}},
          {.name = "fattree",
           .tag = tag(MachineKind::FatTree),
           .summary = "k-ary n-tree as SimGrid's FAT_TREE cluster builds it: k^n nodes, n levels of k^(n-1) "
                      "switches, one link class per level; switches hold no nodes",
           .example = "fattree:k=4,n=3",
           .params = {required_count("k", 1 << 11, "arity"), required_count("n", 22, "levels"), ppn()}},
          {.name = "hier",
           .tag = tag(MachineKind::Hier),
           .summary = "KaHIP's process-mapping hierarchy: sizes bottom up (4:16:8: 4 slots per processor, 16 "
                      "processors per node, 8 nodes), slots numbered group-major as Scotch numbers a tleaf target; "
                      "two slots are as far apart as the dist of the lowest level whose group holds both, and "
                      "hop-bytes weighs traffic by it; routed up a tree of switches, one per group, and down",
           .reference = "[KaHIP-map]",
           .example = "hier:4:16:8,dist=1:10:100",
           .positional = true,
           .params = {{.name = "sizes", .type = ParamType::Sizes, .required = true, .min = 1, .max = 1 << 22,
                       .min_count = 1, .max_count = 16, .separator = ':',
                       .meaning = "groups (or slots) per group of the level above, lowest level first"},
                      {.name = "dist", .type = ParamType::Sizes, .required = true, .min = 1, .max = 1 << 30,
                       .min_count = 1, .max_count = 16, .separator = ':',
                       .meaning = "per level, lowest first: the distance of two slots whose lowest common group "
                                  "is of that level; must not decrease going up"}}},
          {.name = "tgt",
           .tag = tag(MachineKind::ScotchTarget),
           .summary = "a Scotch target architecture file (cmplt, cmpltw, hcub, mesh2D, mesh3D, meshXD, torus2D, "
                      "torus3D, torusXD, tleaf, deco 0 and 1), one router per terminal, slots in Scotch's "
                      "terminal order (docs/scotch.md)",
           .reference = "[Scotch]",
           .example = "tgt:torus.tgt,ppn=4",
           .positional = true,
           .params = {{.name = "path", .type = ParamType::Path, .required = true,
                       .meaning = "the target file, as scotch_gmap reads it"},
                      ppn()}},
          {.name = "graph",
           .tag = tag(MachineKind::Graph),
           .summary = "routers and channels read from a file (docs/topology-file.md)",
           .example = "graph:square.topo,conc=2",
           .positional = true,
           .params = {{.name = "path", .type = ParamType::Path, .required = true, .meaning = "the topology file"},
                      kConc, ppn()}},
          {.name = "slurm",
           .tag = tag(MachineKind::Slurm),
           .summary = "a cluster from Slurm's topology.conf (topology/tree: switches, their switches and nodes; "
                      "topology/block) or topology.yaml; each node has its own router and injection link",
           .example = "slurm:/etc/slurm/topology.conf,ppn=32",
           .positional = true,
           .params = slurm_params()},
          {.name = "ibnet",
           .tag = tag(MachineKind::Ibnet),
           .summary = "an InfiniBand fabric from ibnetdiscover output (plain or -p): switches, cables with their "
                      "rates, hosts by CA description (several HCAs of a host: several injection links)",
           .example = "ibnet:fabric.txt,map=guids.txt",
           .positional = true,
           .params = ibnet_params()},
          {.name = "aries",
           .tag = tag(MachineKind::Aries),
           .summary = "a Cray XC Dragonfly from the Aries routers' link list (rtr --phys-routes style: green, black, "
                      "blue links), 4 nodes per router",
           .example = "aries:links.txt,nodes=xtdb2proc.txt",
           .positional = true,
           .params = fabric_params("the Aries link list",
                                   {.name = "nodes", .type = ParamType::Path,
                                    .meaning = "xtdb2proc output: node ids (nid) per router",
                                    .when_absent = "nids numbered in router order"})},
      });
  return catalog;
}

}  // namespace taskmap
