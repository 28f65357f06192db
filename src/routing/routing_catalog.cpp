// The routing catalog: the one table of routings, their parameters and where they apply.
// Order matters: a machine's default routing is the first entry that applies to it.
#include "taskmap/routing/routing_catalog.h"

#include "taskmap/routing/routing.h"

namespace taskmap {
namespace {

bool is_torus(const Machine& m) { return m.torus() != nullptr; }
bool is_rect(const Machine& m) { return std::holds_alternative<RectTorusShape>(m.shape); }
bool is_dragonfly(const Machine& m) { return std::holds_alternative<DragonflyShape>(m.shape); }

// A balanced dragonfly (also an outline, which has no group table yet), or a fabric read
// with Dragonfly groups that Dragonfly routing can route on.
std::string dragonfly(const Machine& m) {
  if (is_dragonfly(m)) return "";
  const DragonflyGroups* groups = m.dragonfly_groups();
  if (!groups) return "it routes through Dragonfly groups";
  return groups->unroutable;
}
std::string lattice_or_dragonfly(const Machine& m) {
  if (is_torus(m) || is_rect(m) || is_dragonfly(m)) return "";
  if (m.dragonfly_groups()) return dragonfly(m);
  return "minimal routing is modelled on tori, meshes, hypercubes, RT/RTT and Dragonflies";
}
// Dragonfly minimal applies to a Dragonfly read from a file, but ecmp stays its default.
std::string not_a_fabric(const Machine& m) {
  return std::holds_alternative<FabricShape>(m.shape) ? "a fabric read from files defaults to ecmp" : "";
}
std::string lattice(const Machine& m) {
  return is_torus(m) || is_rect(m) ? "" : "dimension order needs a torus, mesh, hypercube or RT/RTT";
}
std::string percs(const Machine& m) {
  return std::holds_alternative<PercsShape>(m.shape) ? "" : "PERCS routes need a PERCS machine";
}
std::string fat_tree(const Machine& m) {
  return std::holds_alternative<FatTreeShape>(m.shape) ? "" : "dmodk is for fat-trees";
}

std::string hier(const Machine& m) {
  return std::holds_alternative<HierShape>(m.shape) ? "" : "tree routing is for hier machines";
}

std::string fabric(const Machine& m) {
  return std::holds_alternative<FabricShape>(m.shape) ? "" : "up*/down* needs a fabric read from a cluster's files";
}

std::string infiniband(const Machine& m) {
  const auto* f = std::get_if<FabricShape>(&m.shape);
  return f && f->subnet ? "" : "forwarding tables need an InfiniBand fabric read with ibnet: (its ports and LIDs)";
}

int tag(RoutingKind kind) { return static_cast<int>(kind); }

}  // namespace

const Catalog& routing_catalog() {
  // The routings of fabrics route between NICs; on GPU nodes this says how a GPU reaches them.
  static const CatalogParam gpu_path{
      .name = "gpu", .type = ParamType::Choice, .default_value = "direct", .choices = {"direct", "pxn"},
      .meaning = "on GPU nodes with NICs of their own (docs/gpus.md): a GPU's traffic to another node leaves through its "
                 "own NIC (direct), or first crosses NVLink to the GPU of its node on the destination's rail (pxn, "
                 "NCCL's PXN)"};
  static const Catalog catalog(
      {.noun = "routing",
       .plural = "routings",
       .option = "--routing",
       .title = "Routings",
       .intro = "Routings for `--routing`: oblivious flow models that give every channel a router pair's "
                "traffic crosses its share of that traffic (ugal chooses from the loads already placed). "
                "Without `--routing`, a machine gets the first routing of this list that applies to it, except that "
                "a Dragonfly read from a file (`aries:`) keeps `ecmp`, the default of fabrics.",
       .table_file = "src/routing/routing_catalog.cpp"},
      {
          {.name = "minimal",
           .tag = tag(RoutingKind::Minimal),
           .summary = "tori, RT/RTT: the flow split evenly over every minimal path (a wrap offset of exactly k/2 "
                      "splits between the directions); Dragonflies: local, global, local: between two groups "
                      "evenly over the global cables joining them, each reached from the source and left to the "
                      "destination by the shortest local paths; inside a group the shortest local paths (an even "
                      "split, parallel cables counting as distinct paths). Unlike ecmp it never crosses a third group",
           .reference = "[RAHTM]; RT/RTT [RTT-map]; Dragonfly [Dragonfly-BAC]",
           .applies_to = "torus, mesh, hypercube, rt, rtt, dragonfly (default on all); aries (its Dragonfly groups)",
           .applies = lattice_or_dragonfly,
           .default_on = not_a_fabric,
           .example = "minimal"},
          {.name = "dor",
           .tag = tag(RoutingKind::DimensionOrder),
           .summary = "dimension order; RT/RTT: x then y along each minimal record",
           .applies_to = "torus, mesh, hypercube, rt, rtt",
           .applies = lattice,
           .example = "dor:EDCBA,ties=simgrid",
           .positional = true,
           .params = {{.name = "order", .type = ParamType::Letters, .meaning = "the dimensions in routing order",
                       .when_absent = "A, B, C, ..."},
                      {.name = "ties", .type = ParamType::Choice, .default_value = "split",
                       .choices = {"split", "simgrid"},
                       .meaning = "a wrap offset of exactly k/2: split evenly, or one path as SimGrid's TORUS "
                                  "cluster (\"+\", except from coordinate k/2 to 0, \"-\")"}}},
          {.name = "direct",
           .tag = tag(RoutingKind::Direct),
           .summary = "striped L-L paths inside a supernode over the 8 bounce nodes; n_d L-D-L paths between "
                      "supernodes; self-loops carry load",
           .reference = "[PERCS-map §4.1]",
           .applies_to = "percs (default)",
           .applies = percs,
           .example = "direct"},
          {.name = "indirect",
           .tag = tag(RoutingKind::Indirect),
           .summary = "as direct inside a supernode; n_s*n_d L-D-L-D-L paths between supernodes",
           .reference = "[PERCS-map §5.1]",
           .applies_to = "percs",
           .applies = percs,
           .example = "indirect"},
          {.name = "valiant",
           .tag = tag(RoutingKind::Valiant),
           .summary = "through every intermediate group (all groups but the source's and the destination's), "
                      "evenly: minimal to the group, split evenly over the global cables into it and entering where "
                      "each lands, then minimal to the destination",
           .reference = "[Dragonfly-BAC]",
           .applies_to = "dragonfly, aries (its Dragonfly groups)",
           .applies = dragonfly,
           .default_on = not_a_fabric,
           .example = "valiant"},
          {.name = "ugal",
           .tag = tag(RoutingKind::Ugal),
           .summary = "flow-level UGAL-like choice (after UGAL-L): each router pair in order, minimally or through "
                      "the cheapest intermediate group, cost = hops (the route's mean) x the highest "
                      "load/bandwidth on its path",
           .reference = "[Dragonfly-BAC]",
           .applies_to = "dragonfly, aries (its Dragonfly groups)",
           .applies = dragonfly,
           .default_on = not_a_fabric,
           .example = "ugal"},
          {.name = "dmodk",
           .tag = tag(RoutingKind::DModK),
           .summary = "SimGrid's D-mod-k: up through the parent whose digit c is the destination's digit c-1, to "
                      "the first switch above the destination, then the one way down",
           .applies_to = "fattree (default)",
           .applies = fat_tree,
           .example = "dmodk"},
          {.name = "tree",
           .tag = tag(RoutingKind::Tree),
           .summary = "up from the source to the switch of the lowest group holding both ends, then down: a "
                      "tree's one path",
           .applies_to = "hier (default)",
           .applies = hier,
           .example = "tree"},
          {.name = "ecmp",
           .tag = tag(RoutingKind::Ecmp),
           .summary = "every shortest path carries an equal share (parallel channels count as distinct): min-hop "
                      "routing, as OpenSM's default",
           .applies_to = "any machine (default for graph, slurm, ibnet, aries)",
           .example = "ecmp",
           .params = {gpu_path}},
          {.name = "updn",
           .tag = tag(RoutingKind::UpDown),
           .summary = "up*/down*: routers ranked by distance from the top switches (ties by id), up hops first, then "
                      "only down hops; the shortest such routes share the flow evenly",
           .applies_to = "slurm, ibnet, aries",
           .applies = fabric,
           .example = "updn",
           .params = {gpu_path}},
          {.name = "lft",
           .tag = tag(RoutingKind::Tables),
           .summary = "the forwarding tables a subnet manager installed, as dumped on the cluster (ibroute, dump_lfts.sh, "
                      "dump_fts, OpenSM's opensm-lfts.dump; a file, a folder or a tar of them): each LID's one path, "
                      "a host's traffic spread over its ports and their LIDs",
           .applies_to = "ibnet",
           .applies = infiniband,
           .example = "lft:tables.tar.gz",
           .positional = true,
           .params = {{.name = "path", .type = ParamType::Path, .required = true,
                       .meaning = "the tables: a file, a folder of files or a tar archive"},
                      {.name = "unroutable", .type = ParamType::Choice, .default_value = "refuse",
                       .choices = {"refuse", "skip"},
                       .meaning = "a pair the tables do not route (an entry missing, a port with no cable, a loop): "
                                  "refused, or left without traffic and counted in one warning"},
                      gpu_path}},
          {.name = "opensm",
           .tag = tag(RoutingKind::OpenSm),
           .summary = "the tables OpenSM 3.3's routing engine would install on this fabric (a fresh subnet manager, the "
                      "file's LIDs), followed as lft follows a dump; refused where OpenSM's engine gives up (it would "
                      "fall back to minhop)",
           .reference = "[OpenSM]; the rules as taskmap computes them: docs/opensm.md",
           .applies_to = "ibnet",
           .applies = infiniband,
           .example = "opensm:updn,roots=roots.txt",
           .positional = true,
           .params = {{.name = "engine", .type = ParamType::Choice, .default_value = "minhop",
                       .choices = {"minhop", "updn", "dnup", "dfsssp", "ftree"},
                       .meaning = "OpenSM's engine (-R)"},
                      {.name = "roots", .type = ParamType::Path,
                       .meaning = "updn, ftree: a file of root switch GUIDs, one per line (OpenSM's -a)",
                       .when_absent = "the engine chooses"},
                      {.name = "lmc", .type = ParamType::Int, .default_value = "0", .min = 0, .max = 7,
                       .meaning = "OpenSM's -l: each CA port gets 2^lmc LIDs (a file LID not aligned to them moves)"},
                      {.name = "sm", .type = ParamType::String,
                       .meaning = "the subnet manager's port GUID (or its node's: a CA's first cabled port, a switch's "
                                  "port 0), whose LIDs OpenSM assigns first: with lmc above 0 it decides which LIDs move",
                       .when_absent = "port 1 of the CA that ran ibnetdiscover (the file's 'Initiated from' line or a "
                                      "DR trace's first CA), else port 1 of the CA of the lowest GUID"},
                      gpu_path}},
      });
  return catalog;
}

std::vector<std::string> routings_for(const Machine& machine) {
  std::vector<std::string> names;
  for (const CatalogEntry* e : routing_catalog().applicable(machine)) names.emplace_back(e->name);
  return names;
}

}  // namespace taskmap
