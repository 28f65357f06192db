#pragma once
// The routers and links inside GPU nodes of a fabric (FabricOptions::gpu_model): each host's
// block of routers (its GPUs, its NICs, its CPUs' PCIe root, its NVSwitches), which NICs
// each GPU sends through, and the node's own channels (GpuNodeLinks).
#include <cstdint>
#include <memory>
#include <vector>

#include "class_table.h"
#include "taskmap/topology/fabric.h"
#include "taskmap/topology/machine.h"
#include "taskmap/topology/node_model.h"

namespace taskmap::detail {

// Network rate assumed for a fabric whose files give no rates (Slurm's own units), so that a
// GPU's NVLink and PCIe can be set beside its links: NDR, 400 Gb/s, today's GPU fabrics' rate.
inline constexpr double kAssumedLinkGbps = 400;

class GpuNodeLayout {
 public:
  // Orders each host's ports (its NICs: by name in natural order when every port is named, else
  // by GUID when every port has one, else in file order) and matches them to the model's NICs
  // (by name, else by position when the counts agree; a model without NICs puts GPU k on the
  // host's NIC k mod its NIC count). A host whose NICs cannot be matched sends every GPU's
  // traffic over all its NICs: one warning names the first such host and counts them.
  GpuNodeLayout(const Fabric& fabric, const GpuNode& node, const WarningSink& warn);

  RouterId routers() const { return first_.back(); }  // the hosts' routers, all blocks
  std::uint32_t gpus() const { return node_.num_gpus(); }
  RouterId first_router(std::uint32_t host) const { return first_[host]; }
  RouterId router_of_port(std::size_t port) const { return port_router_[port]; }

  // The fabric's link of bandwidth 1: its rate in the fabric's units (ClassTable's
  // reference) and in Gb/s (0: not known; kAssumedLinkGbps then).
  struct Reference {
    double units = 1;
    double gbps = 0;
  };
  // The classes of the node's own links ("pcie", "nvlink").
  void collect_classes(ClassTable& classes, Reference reference) const;
  // Adds the node's own channels after the network's (which must all be there) and returns
  // where everything is.
  std::shared_ptr<const GpuNodeLinks> add_node_channels(Machine& m, const ClassTable& classes,
                                                        Reference reference) const;

 private:
  // GB/s of the PCIe between GPU `gpu` and the NIC at `position` of `host`, and of the GPU's own.
  double nic_gbs(std::uint32_t host, std::uint32_t gpu, std::uint32_t position) const;
  double gpu_gbs(std::uint32_t gpu) const;

  const GpuNode& node_;
  std::vector<RouterId> first_;                     // per host, then the total
  std::vector<std::vector<std::uint32_t>> ports_;   // per host: its ports in NIC order
  std::vector<RouterId> port_router_;               // per port: its NIC's router
  // Per host: the model NIC at each position of ports_ (or UINT32_MAX), and per GPU the
  // positions it sends through.
  std::vector<std::vector<std::vector<std::uint32_t>>> gpu_positions_;
  std::vector<std::vector<std::uint32_t>> model_nic_;
};

}  // namespace taskmap::detail
