#pragma once
// Fabric: a cluster's network as its files describe it (Slurm topology.conf/yaml,
// ibnetdiscover, Cray Aries wiring): named switches, named hosts, the cables between them.
// Readers fill it and only check what the file says; build_fabric_machine turns it into a
// Machine. Real files are messy: readers accept what a site has, report each oddity once
// through `warn` and refuse only what has no meaning (an Error "FILE:LINE: problem").
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "taskmap/topology/infiniband.h"
#include "taskmap/topology/machine.h"
#include "taskmap/topology/node_model.h"

namespace taskmap {

// Receives one line per oddity (already prefixed with the file name); the CLI prints it on
// stderr as "taskmap: warning: ...". Readers call it at most once per kind of oddity, with a
// count when it repeats ("3 hosts named from their GUID: ...").
using WarningSink = std::function<void(const std::string&)>;

struct Fabric {
  std::string source;  // the file it was read from, for messages

  std::vector<std::string> switches;  // switch names, unique
  std::vector<std::string> hosts;     // host (node) names, unique

  // A host's network port cabled to a switch: one per HCA port in use. Several for one host
  // (multi-rail) are allowed, to one switch or to several.
  struct HostPort {
    HostPort() = default;
    HostPort(std::uint32_t h, std::uint32_t s, double rate, std::string nic_name = {}, std::uint64_t port_guid = 0)
        : host(h), sw(s), gbps(rate), nic(std::move(nic_name)), guid(port_guid) {}
    std::uint32_t host = 0;
    std::uint32_t sw = 0;
    double gbps = 0;  // data rate; 0 when the file does not say
    // The NIC as its host names it ("mlx5_3", "HCA-1": an ibnetdiscover CA description after
    // the host name), and the port's GUID; empty and 0 when the file does not say. They order
    // a host's NICs for the GPUs beside them (GPU nodes).
    std::string nic;
    std::uint64_t guid = 0;
  };
  // One cable between two switches; parallel cables appear once each.
  struct Cable {
    std::uint32_t a = 0, b = 0;
    double gbps = 0;
  };
  std::vector<HostPort> host_ports;
  std::vector<Cable> cables;

  // True when the rates above are data rates in Gb/s (ibnetdiscover, Aries, the Dragonfly
  // file); false when they are in a site's own units (Slurm's LinkSpeed, "arbitrary units").
  bool rates_in_gbps = false;

  // Switches the file declares as the top of a tree (a Slurm tree's roots); empty when the
  // file does not say (then up*/down* takes the switches farthest from the hosts).
  std::vector<std::uint32_t> top_switches;

  // Dragonfly groups, for the formats that have them (Cray Aries wiring, the plain Dragonfly
  // format): per switch, an index into group_names. Empty for other fabrics. A cable between
  // two switches of one group is local, between two groups global (docs/topology-file.md).
  std::vector<std::uint32_t> switch_group;
  std::vector<std::string> group_names;

  // An InfiniBand fabric (ibnetdiscover): its whole subnet, and where the switches, host ports
  // and cables above are in it, for the routings that follow forwarding tables. Null and empty
  // for the other formats.
  std::shared_ptr<const ib::Subnet> subnet;
  std::vector<std::uint32_t> subnet_switch;               // per switch: its node
  std::vector<ib::PortRef> subnet_host_port;              // per host port: the CA's port
  std::vector<std::array<ib::PortRef, 2>> subnet_cable;  // per cable: the ports at a and at b

  // Nodes attached directly to a switch router rather than through a port of their own
  // (a Slurm block, an Aries router's 4 nodes): when true, every host has exactly one
  // HostPort and the host is placed on that switch with no injection channel.
  bool hosts_on_switches = false;
};

struct FabricOptions {
  std::uint32_t slots_per_node = 1;  // until a node model or an allocation says otherwise
  double default_gbps = 0;           // for ports and cables whose rate is unknown; 0: 1.0 relative
  // A node model whose slots are GPUs (NodeModel::gpu): every host gets a router per GPU, per
  // NIC (one per host port), one for its CPUs and one for its NVSwitches (GpuNodeLinks); a
  // GPU's traffic leaves through its NICs. Null: one router per host, its ports its rails.
  std::shared_ptr<const NodeModel> gpu_model = nullptr;
  WarningSink warn = {};  // a host whose NICs cannot be matched to the model's, once for all of them
  std::string description = {};  // the machine spec text
};

// Routers 0 .. hosts-1 (with a GPU model: each host's block of routers) are the hosts' own (one node each; their channels to their switches are
// of the classes "inject" (host -> switch) and "eject", one channel per HostPort, so traffic of
// a multi-rail host splits over its rails); the switches follow. Bandwidths are relative to the
// fabric's most common switch-to-switch rate (1.0); one link class per distinct rate. With
// hosts_on_switches, the switch routers hold the hosts and there are no injection channels.
// A fabric with Dragonfly groups (hosts on switches) gets them in FabricShape::dragonfly.
// Throws Error when a host has no port, a port or cable names an unknown index, or the
// switches are not connected.
Machine build_fabric_machine(const Fabric& fabric, const FabricOptions& options);

// Readers (one file format each). `map_file`, when not empty, renames GUIDs to host names
// (lines "host: 0xGUID" or "H-GUID host"); see docs/clusters.md.
// `topology`: which topology of a topology.yaml to read (empty: its cluster default).
Fabric read_slurm_topology(const std::string& path, const std::string& map_file, const WarningSink& warn,
                           const std::string& topology = {});
Fabric read_ibnetdiscover(const std::string& path, const std::string& map_file, const WarningSink& warn);
Fabric read_aries_links(const std::string& links_path, const std::string& nodes_path, const WarningSink& warn);
// taskmap's plain Dragonfly format ("router NAME GROUP", "link A B [global|local] [GBPS]",
// "nodes ROUTER COUNT"; docs/topology-file.md); read_aries_links reads it too.
Fabric read_dragonfly_file(const std::string& path, const WarningSink& warn);

// Data rate of an InfiniBand link "4xEDR", "1xSDR", "4xNDR", "4xFDR10" in Gb/s: the width
// times the rate a lane carries after its line code (SDR 2, DDR 4, QDR 8, FDR10 10, FDR 13.64,
// EDR 25, HDR 50, NDR 100, XDR 200); 0 when not recognised.
double infiniband_gbps(std::string_view width_speed);

}  // namespace taskmap
