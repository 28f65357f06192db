#pragma once
// Machine: routers joined by directed channels (each of a named link class with one
// bandwidth), compute nodes attached to routers, slots (cores) on nodes. The kind-specific
// shape (torus dimensions, Dragonfly wiring, PERCS buckets, ...) rides along for routing.
#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "taskmap/core/ids.h"
#include "taskmap/topology/infiniband.h"

namespace taskmap {


struct LinkClass {
  std::string name;
  double bandwidth = 1.0;
  // A node's own link to its switch (classes "inject", "eject"): a NIC, not the network.
  // Metrics report the MCL with and without them.
  bool host_link = false;
  // A link inside a node (NVLink, PCIe between a node's GPUs, NICs and CPUs): neither the
  // network nor a node's own link to it. Metrics report these classes apart (mcl_node).
  bool in_node = false;
};

struct Channel {
  RouterId src = 0;
  RouterId dst = 0;
  std::uint16_t link_class = 0;
};

// k-ary n-cube with a size and a wraparound flag per dimension (also meshes, hypercubes).
// Router ids are row-major: the first dimension (letter A) varies slowest.
struct TorusShape {
  std::vector<std::uint32_t> sizes;
  std::vector<bool> wrap;
  std::vector<std::uint32_t> strides;
  std::string letters;  // one letter per dimension: A, B, C, ... (T is reserved for the slot)
  // channel_of[(router * dims + dim) * 2 + dir], dir 0 = "+", 1 = "-"; kNoChannel at mesh borders.
  std::vector<ChannelId> channel_of;

  std::size_t dims() const { return sizes.size(); }
  std::uint32_t coord(RouterId r, std::size_t dim) const { return (r / strides[dim]) % sizes[dim]; }
  ChannelId channel(RouterId r, std::size_t dim, int dir) const {
    return channel_of[(static_cast<std::size_t>(r) * dims() + dim) * 2 + dir];
  }
};

// RT(a) / RTT(a) of [RTT-map] over the 2a x a rectangle; router id = x + 2a*y.
struct RectTorusShape {
  std::uint32_t a = 0;
  bool twisted = false;
  std::vector<ChannelId> channel_of;  // [router * 4 + k], k: 0 x+, 1 x-, 2 y+, 3 y-
  std::uint32_t width() const { return 2 * a; }
  std::uint32_t height() const { return a; }
};

enum class DragonflyWiring { Consecutive, PalmTree };

// The groups of a Dragonfly, balanced or not: each router is in one group; a channel between
// two routers of one group is local, between two groups global. The Dragonfly routings
// (minimal, valiant, ugal) route on this table alone, so they serve the balanced dragonfly of
// (p, a, h) and the Dragonflies read from files (Cray Aries wiring, the plain format) alike.
struct DragonflyGroups {
  std::vector<std::uint32_t> group_of;  // per router
  // Per group, its name in the source: the balanced machine's index, an Aries group number
  // (a missing group number has no entry), a plain file's label.
  std::vector<std::string> names;
  // The global channels from group G to group H, in channel id order (one per cable; several
  // when the groups are joined by several cables): global[pair_first[G * g + H] ..
  // pair_first[G * g + H + 1]).
  std::vector<std::uint32_t> pair_first;
  std::vector<ChannelId> global;
  // Why Dragonfly routing cannot route on these groups (a group that its local channels do not
  // connect, two groups with no global channel between them); empty when it can.
  std::string unroutable;

  std::uint32_t num_groups() const { return static_cast<std::uint32_t>(names.size()); }
  // The global channels from group `from` to group `to`.
  std::pair<const ChannelId*, const ChannelId*> cables(std::uint32_t from, std::uint32_t to) const {
    const std::size_t pair = std::size_t{from} * num_groups() + to;
    return {global.data() + pair_first[pair], global.data() + pair_first[pair + 1]};
  }
};

// Dragonfly (p, a, h): g = a*h + 1 groups of a routers; router id = group * a + index.
struct DragonflyShape {
  std::uint32_t p = 0, a = 0, h = 0, g = 0;
  DragonflyWiring wiring = DragonflyWiring::Consecutive;
  std::vector<ChannelId> local_of;   // [router * a + t]: router -> router t of its group
  std::vector<ChannelId> global_of;  // [G * g + H]: the global channel from group G to group H
  std::vector<std::uint32_t> owner;  // [G * g + H]: index of the router of G holding that cable
  DragonflyGroups groups;            // group G = routers G*a .. G*a+a-1 (empty on an outline)
  RouterId router(std::uint32_t group, std::uint32_t index) const { return group * a + index; }
};

// PERCS (n_s, n_d) of [PERCS-map §2]: router = hub chip = node; id = supernode * 32 + node.
struct PercsShape {
  std::uint32_t ns = 0, nd = 0, bucket_size = 0, h = 0;
  static constexpr std::uint32_t kNodes = 32;
  static constexpr std::uint32_t kDrawerSize = 8;
  ChannelId d_base = 0;
  ChannelId l_channel(std::uint32_t sn, std::uint32_t u, std::uint32_t v) const {
    return (sn * kNodes + u) * kNodes + v;
  }
  ChannelId d_channel(std::uint32_t from, std::uint32_t bucket, std::uint32_t to) const {
    return d_base + (from * nd + bucket) * ns + to;
  }
  // Node of a supernode's bucket `bucket` holding the D link towards supernode `remote`.
  std::uint32_t port_node(std::uint32_t bucket, std::uint32_t remote) const {
    return bucket * bucket_size + remote % bucket_size;
  }
};

// k-ary n-tree (fat-tree) as SimGrid's FAT_TREE cluster builds it: k^n compute nodes, n
// levels of k^(n-1) switches. Routers 0 .. k^n - 1 are the compute nodes' own (one node each,
// their channel to the leaf switch is the injection link); the switches follow, level by
// level, and hold no nodes. Labels (digit 0 first) follow SimGrid: compute node i has digit
// j = (i / k^j) % k; a switch of level l at position p has digit 0 = 0 and digit j >= 1 =
// (p / k^(j-1)) % k. A child and its parent differ only in digit (parent level - 1).
struct FatTreeShape {
  std::uint32_t k = 2, n = 1;
  std::uint32_t hosts = 0;         // k^n
  std::uint32_t per_level = 0;     // k^(n-1) switches per level
  std::vector<ChannelId> up_of;    // [router * k + x]: to the parent whose digit (level) is x
  std::vector<ChannelId> down_of;  // [router * k + x]: to the child whose digit (level - 1) is x
  RouterId switch_id(std::uint32_t level, std::uint32_t position) const {
    return hosts + (level - 1) * per_level + position;
  }
};

// A hierarchy of groups in KaHIP's process-mapping convention ("hier:4:16:8,dist=1:10:100": 4
// slots per processor, 16 processors per node, 8 nodes). Levels count bottom up: a level-l group
// holds sizes[l-1] groups of level l-1 (level 0: the slots); the groups of the top level are the
// children of one root. Routers 0 .. leaves-1 are the slots' own, in slot order (group-major, as
// Scotch numbers a tleaf target's terminals), one node of one slot each; then one switch per
// group, level by level. Two slots whose lowest common group is of level l are dist[l-1] apart,
// and their traffic goes up the tree to that group's switch and down again.
struct HierShape {
  std::vector<std::uint32_t> sizes;  // per level, bottom up
  std::vector<std::uint32_t> dist;   // per level: the distance of two slots whose lowest common group is of it
  std::vector<RouterId> first;       // per level 0 .. L, then the router count: level l is first[l] .. first[l+1]-1
  std::vector<std::uint64_t> span;   // per level 0 .. L: slots below one router of that level (1, sizes[0], ...)
  std::vector<ChannelId> up_of;      // per router below the root: the channel to its parent
  std::vector<ChannelId> down_of;    // per router below the root: the channel from its parent

  std::uint32_t levels() const { return static_cast<std::uint32_t>(sizes.size()); }
  std::uint32_t level_of(RouterId r) const {
    std::uint32_t l = 0;
    while (r >= first[l + 1]) ++l;
    return l;
  }
  // The first slot below router r.
  std::uint64_t first_leaf(RouterId r) const {
    const std::uint32_t l = level_of(r);
    return (r - first[l]) * span[l];
  }
  // The lowest level (at least that of a and of b) whose group holds both routers.
  std::uint32_t common_level(RouterId a, RouterId b) const {
    std::uint32_t l = std::max(level_of(a), level_of(b));
    const std::uint64_t la = first_leaf(a), lb = first_leaf(b);
    while (la / span[l] != lb / span[l]) ++l;
    return l;
  }
  // The distance of two routers: 0 for one router, else dist of the level of their lowest
  // common group (for two slots: KaHIP's distance; a switch counts as its group).
  std::uint32_t distance(RouterId a, RouterId b) const { return a == b ? 0 : dist[common_level(a, b) - 1]; }
};

// A topology read from a file; routed by shortest paths.
struct GraphShape {
  std::string path;
};

// A cluster's fabric read from its files (Slurm, ibnetdiscover, Cray Aries wiring): routers
// 0 .. hosts-1 are the nodes' own when the nodes have injection links, then the switches.
// Routed by shortest paths (ecmp) or up*/down* (updn) from the top switches.
struct FabricShape {
  std::string source;
  std::string format;                   // "slurm", "ibnet", "aries" (also for the plain Dragonfly format)
  std::vector<std::string> switch_names;  // of routers first_switch ..
  RouterId first_switch = 0;
  std::vector<RouterId> top_switches;   // up*/down* roots (router ids)
  // A Dragonfly read from a file (Aries wiring, the plain format): its groups, so that the
  // Dragonfly routings apply too; empty (no group) for other fabrics.
  DragonflyGroups dragonfly;
  // An InfiniBand fabric's subnet (Fabric::subnet; null for other formats), and what routes
  // through it need: per subnet node, the machine router it belongs to (a CA: its host's
  // router; a switch: its own; kNoRouter: not in the fabric), and per node and port number the
  // channel that leaves the node through that port (kNoChannel: none).
  std::shared_ptr<const ib::Subnet> subnet;
  std::vector<RouterId> router_of_node;
  std::vector<std::vector<ChannelId>> channel_of_port;
  // The forwarding tables the machine spec names (ibnet:FILE,lft=TABLES): the machine's
  // default routing is then lft:TABLES. Empty: none named.
  std::string tables;
};

using MachineShape =
    std::variant<TorusShape, RectTorusShape, DragonflyShape, PercsShape, FatTreeShape, HierShape, GraphShape, FabricShape>;

struct NodeModel;

// The insides of nodes whose slots are GPUs with routers of their own (a fabric built with a
// GPU node model, GpuNode): per node, one router per GPU (holding its slot), one per NIC (the
// network's endpoint: the inject/eject channels of its port), one for the CPUs' PCIe root and,
// with NVSwitches, one for them. The network's channels come first (0 .. first_node_channel-1),
// the node's own (classes with LinkClass::in_node) after, so that a routing of the network
// alone is built on the machine cut at first_node_channel.
struct GpuNodeLinks {
  ChannelId first_node_channel = 0;
  struct Node {
    RouterId first_gpu = 0;
    std::uint32_t gpus = 0;
    RouterId first_nic = 0;
    std::uint32_t nics = 0;
    RouterId cpu = kNoRouter;
    RouterId nvswitch = kNoRouter;
  };
  std::vector<Node> nodes;             // per node of the machine
  std::vector<NodeId> node_of_router;  // per router: the node it is inside, or kNoNode (a switch)
  // Per router: a GPU's links. nic_first[r] .. nic_first[r + 1] index nic_router, to_nic and
  // from_nic: the NICs it sends and receives through (its nearest; all of its node's when
  // they could not be matched), with the PCIe channels to and from each.
  std::vector<std::uint32_t> nic_first;
  std::vector<RouterId> nic_router;
  std::vector<ChannelId> to_nic, from_nic;
  std::vector<ChannelId> to_cpu, from_cpu;            // per router: a GPU's PCIe to its node's CPUs
  std::vector<ChannelId> to_nvswitch, from_nvswitch;  // per router: a GPU's NVLinks to the switch
  // Per router: a GPU's direct NVLinks, (peer GPU router, channel) sorted by peer:
  // nvlink[nvlink_first[r] .. nvlink_first[r + 1]).
  std::vector<std::uint32_t> nvlink_first;
  std::vector<std::pair<RouterId, ChannelId>> nvlink;
  // Per router: for a NIC, its rail: its position among its node's NICs (NIC k of every node
  // is rail k, as a rail-optimized fabric cables them and NCCL pairs them); UINT32_MAX otherwise.
  std::vector<std::uint32_t> rail;

  bool is_gpu(RouterId r) const { return to_cpu[r] != kNoChannel; }  // every GPU has its PCIe to the CPUs
  // The direct NVLink from GPU a to GPU b, or kNoChannel.
  ChannelId nvlink_channel(RouterId a, RouterId b) const {
    const auto* first = nvlink.data() + nvlink_first[a];
    const auto* last = nvlink.data() + nvlink_first[a + 1];
    const auto* it = std::lower_bound(first, last, std::pair{b, ChannelId{0}});
    return it != last && it->first == b ? it->second : kNoChannel;
  }
};

// Per-node facts of machines whose nodes differ or have names (read from a fabric's files, or
// restricted to a job's allocation). Nodes are numbered in router order.
struct NodeTable {
  std::vector<std::string> names;  // one per node, or empty: unnamed
  std::vector<RouterId> router;    // per node, nondecreasing
  std::vector<SlotId> first_slot;  // per node, then the total: node n has slots first_slot[n] ..[n+1]-1
  // True when every slot has a router of its own: slot k of node n is on router router[n] + k
  // (GPU nodes, GpuNodeLinks); false: a node's slots are all on router[n].
  bool router_per_slot = false;
};

// The bytes a slot of a machine with a NodeTable costs: its entry in the node-of-slot table
// and its share of what every mapper and the evaluator keep per slot. Machine::set_nodes checks
// them against the memory limit; a reader that knows the slot count first checks them itself,
// so that the refusal names its file.
inline constexpr std::uint64_t kBytesPerTableSlot = 16;

// Slots are numbered node-major, nodes router-major. On the papers' machines every host router
// holds nodes_per_router nodes of slots_per_node slots and the numbering is arithmetic; a
// machine given a NodeTable (set_nodes) has named nodes with their own slot counts (0 for a
// node outside the job's allocation).
class Machine {
 public:
  std::string description;  // the spec it was built from
  std::uint32_t num_routers = 0;
  // Routers 0 .. host_routers - 1 hold the nodes, the others (a fat-tree's switches) none;
  // 0 means every router holds nodes.
  std::uint32_t host_routers = 0;
  std::uint32_t nodes_per_router = 1;
  std::uint32_t slots_per_node = 1;  // with a NodeTable: the nominal count (a full node's)
  // Built with BuildDetail::Outline (builders.h): no channels; only described, never routed.
  bool outline = false;
  std::vector<LinkClass> classes;
  // Bytes/s of a link of class bandwidth 1, when the machine's description gives real rates
  // (PERCS's GB/s; a fabric's cables in Gb/s); 0: bandwidths are relative only.
  double link_bytes_per_s = 0;
  std::vector<Channel> channels;
  MachineShape shape;
  // The inside of every node (hwloc), or null: a flat node. Its slots are the node's first
  // slots: node slot k is the model's slot k.
  std::shared_ptr<const NodeModel> node_model;
  // The Scotch terminal number of each router with slots, in router order, when the machine was
  // read from a Scotch target that numbers its terminals otherwise (a deco target's labels);
  // empty: the routers with slots are terminals 0, 1, ... in router order (scotch_target.h).
  std::vector<std::uint32_t> scotch_terminals;
  // GPU nodes with routers of their own inside (null: a node is one router, or shares one).
  std::shared_ptr<const GpuNodeLinks> gpu_links;

  std::uint32_t num_host_routers() const { return host_routers ? host_routers : num_routers; }
  // True on the papers' machines: every host router holds the same nodes and slots.
  bool uniform() const { return table_.router.empty(); }
  std::uint32_t num_nodes() const {
    return uniform() ? num_host_routers() * nodes_per_router : static_cast<std::uint32_t>(table_.router.size());
  }
  std::uint32_t num_slots() const {
    return uniform() ? num_nodes() * slots_per_node : table_.first_slot.back();
  }
  NodeId node_of_slot(SlotId s) const { return uniform() ? s / slots_per_node : node_of_slot_[s]; }
  RouterId router_of_node(NodeId n) const { return uniform() ? n / nodes_per_router : table_.router[n]; }
  RouterId router_of_slot(SlotId s) const {
    return slot_router_.empty() ? router_of_node(node_of_slot(s)) : slot_router_[s];
  }
  SlotId first_slot_of_node(NodeId n) const { return uniform() ? n * slots_per_node : table_.first_slot[n]; }
  std::uint32_t slots_of_node(NodeId n) const {
    return uniform() ? slots_per_node : table_.first_slot[n + 1] - table_.first_slot[n];
  }
  // The slot's index inside its node (a core of the node model).
  std::uint32_t slot_in_node(SlotId s) const { return s - first_slot_of_node(node_of_slot(s)); }
  // Slots of router r are first_slot_of_router(r) .. first_slot_of_router(r + 1) - 1.
  SlotId first_slot_of_router(RouterId r) const;
  std::uint32_t slots_of_router(RouterId r) const { return first_slot_of_router(r + 1) - first_slot_of_router(r); }
  // The node's host name: from the NodeTable, else "" (unnamed).
  const std::string& node_name(NodeId n) const;
  bool named_nodes() const { return !table_.names.empty(); }
  const NodeTable& node_table() const { return table_; }
  // Installs per-node facts; checks that routers are nondecreasing and below num_routers,
  // slot offsets nondecreasing, names unique or absent, and the slot tables within the memory
  // limit (kBytesPerTableSlot each). Throws Error otherwise.
  void set_nodes(NodeTable table);

  const TorusShape* torus() const { return std::get_if<TorusShape>(&shape); }
  // The Dragonfly groups of a balanced dragonfly or of a Dragonfly read from a file; else null.
  const DragonflyGroups* dragonfly_groups() const;
  std::string kind_name() const;

  // Appends a channel and returns its id.
  ChannelId add_channel(RouterId src, RouterId dst, std::uint16_t link_class);
  // Fails on a bad bandwidth, a name defined twice, or a class beyond kMaxLinkClasses.
  std::uint16_t add_class(std::string name, double bandwidth);

  // Channel::link_class is 16 bits wide.
  static constexpr std::size_t kMaxLinkClasses = std::size_t{1} << 16;

 private:
  NodeTable table_;
  std::vector<NodeId> node_of_slot_;       // with a NodeTable
  std::vector<SlotId> router_first_slot_;  // with a NodeTable: per router, then the total
  std::vector<RouterId> slot_router_;      // with NodeTable::router_per_slot: per slot
};

// True when the machine's slots are GPUs (--node-topology gpus:N or hwloc:FILE,slots=gpu).
bool has_gpu_slots(const Machine& machine);
// The machine cut at its network's channels: with GPU nodes (gpu_links), without the nodes' own
// links, which come after (the routings of the network and its hop distances work on it);
// otherwise the machine as it is.
Machine network_part(const Machine& machine);

// True on a fabric whose hosts hang on switches of their own (FabricShape, first_switch > 0: a
// tree read from Slurm or ibnetdiscover files); there the traffic leaving the leaf switches
// (Metrics::leaf_uplink_volume) is what a job shares with the rest of the cluster.
bool has_leaf_switches(const Machine& machine);
// Per router: for a host router of such a fabric, the index of the set of switches it is
// cabled to (hosts under the same leaf, or the same leaves for multi-rail hosts, share it),
// numbered in router order; UINT32_MAX for the switches. Empty on other machines.
std::vector<std::uint32_t> leaf_groups(const Machine& machine);
// Per node: the speed of its own links (injection, ejection) each way, their count times the
// slowest one's bandwidth (a multi-rail node's traffic is split evenly over its links, so
// its busiest link carries traffic / count); 0: the node has no such link. The links of a node
// are those of its router (the fabrics with such links give each host a router of its own).
struct NodeLinkSpeeds {
  double out = 0, in = 0;
  double slower() const { return std::min(out, in); }
};
std::vector<NodeLinkSpeeds> node_link_speeds(const Machine& machine);
// True when every node with slots has its own links and they are not all as fast (the slower
// way of each node compared, equal within a relative 1e-9: 3 x 100/3 and 100 Gb/s are alike);
// `speeds`: node_link_speeds(machine), when the caller has them.
bool node_link_speeds_differ(const Machine& machine, const std::vector<NodeLinkSpeeds>& speeds);
bool node_link_speeds_differ(const Machine& machine);
// Per node: its slots in proportion to the speed of its own links, slots x its speed / the
// fastest node's (0 for a node without slots): what it would hold if every node's links were
// to carry the same load. Empty unless node_link_speeds_differ.
std::vector<double> slots_by_link_speed(const Machine& machine);
// Per node, for a job of `tasks` tasks (their weight) fewer than the slots, where
// node_link_speeds_differ (else empty): the most it should hold, its slots by link speed, each
// moved the same fraction of the way back to its slots when those hold fewer than the job. The
// fastest nodes' are their slots; they add up to the larger of the job and the slots by link
// speed, and a node's share of the job is its capacity x tasks / that sum.
std::vector<double> link_speed_capacities(const Machine& machine, double tasks);

// The nodes sorted by host name as Slurm and the launchers sort hosts: runs of digits compare
// as numbers ("cn2" < "cn10"), the rest as text. Unnamed nodes: node order.
std::vector<NodeId> nodes_in_name_order(const Machine& machine);
// That order on two names.
bool hostname_less(std::string_view a, std::string_view b);

// Channels of each link class (by class id): counted on a built machine, closed forms on an outline.
std::vector<std::uint64_t> channels_per_class(const Machine& machine);

// Classifies the machine's channels by the groups of their routers (group_of: per router, an
// index into `names`) and finds why, if at all, Dragonfly routing cannot route on them.
DragonflyGroups make_dragonfly_groups(const Machine& machine, std::vector<std::uint32_t> group_of,
                                      std::vector<std::string> names);

// The bytes a structured machine's full build takes (its channels and channel tables), from its outline.
std::uint64_t estimated_bytes(const Machine& outline);

}  // namespace taskmap
