// Routes on a machine with GPU nodes (GpuNodeLinks): inside a node over its own links, between
// nodes from the GPU to its NIC, through the network as the network's routing goes, and from
// the destination's NIC to its GPU; with pxn, first over NVLink to the GPU of the source's node
// whose NIC is on the destination NIC's rail (NCCL's PXN), when the source's own is not.

#include "routing_impl.h"

namespace taskmap::detail {
namespace {

class GpuNodeRouting final : public Routing {
 public:
  GpuNodeRouting(const Machine& m, std::unique_ptr<Machine> network, std::unique_ptr<Routing> base, bool pxn)
      : links_(*m.gpu_links), network_(std::move(network)), base_(std::move(base)), pxn_(pxn) {}

  void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const override {
    if (!links_.is_gpu(src) || !links_.is_gpu(dst)) {  // the network's own routers
      base_->route(src, dst, out);
      return;
    }
    if (links_.node_of_router[src] == links_.node_of_router[dst]) {
      inside(src, dst, 1.0, out);
      return;
    }
    const std::uint32_t nics = links_.nic_first[dst + 1] - links_.nic_first[dst];
    for (std::uint32_t j = links_.nic_first[dst]; j < links_.nic_first[dst + 1]; ++j) {
      const double share = 1.0 / nics;
      if (pxn_ && proxy(src, j, share, out)) continue;
      const std::uint32_t own = links_.nic_first[src + 1] - links_.nic_first[src];
      for (std::uint32_t i = links_.nic_first[src]; i < links_.nic_first[src + 1]; ++i) {
        through(i, j, share / own, out);
      }
    }
  }

  bool follows_tables() const override { return base_->follows_tables(); }

 private:
  // From a GPU's NIC entry i to a GPU's NIC entry j: GPU -> NIC, the network, NIC -> GPU.
  void through(std::uint32_t i, std::uint32_t j, double share, std::vector<ChannelShare>& out) const {
    out.push_back({links_.to_nic[i], share});
    const RouterId a = links_.nic_router[i], b = links_.nic_router[j];
    if (a != b) {
      thread_local std::vector<ChannelShare> network;
      network.clear();
      base_->route(a, b, network);
      for (const ChannelShare& s : network) out.push_back({s.channel, s.fraction * share});
    }
    out.push_back({links_.from_nic[j], share});
  }

  // PXN: when no NIC of src is on the rail of dst's NIC entry j, the first GPU of src's node
  // with a NIC on it carries the traffic: src -> that GPU inside the node, then its NIC.
  bool proxy(RouterId src, std::uint32_t j, double share, std::vector<ChannelShare>& out) const {
    const std::uint32_t rail = links_.rail[links_.nic_router[j]];
    auto on_rail = [&](RouterId gpu) -> std::uint32_t {
      for (std::uint32_t i = links_.nic_first[gpu]; i < links_.nic_first[gpu + 1]; ++i) {
        if (links_.rail[links_.nic_router[i]] == rail) return i;
      }
      return UINT32_MAX;
    };
    if (on_rail(src) != UINT32_MAX) {
      through(on_rail(src), j, share, out);
      return true;
    }
    const GpuNodeLinks::Node& node = links_.nodes[links_.node_of_router[src]];
    for (RouterId g = node.first_gpu; g < node.first_gpu + node.gpus; ++g) {
      if (const std::uint32_t i = on_rail(g); i != UINT32_MAX) {
        inside(src, g, share, out);
        through(i, j, share, out);
        return true;
      }
    }
    return false;  // no GPU of the node is on that rail: the GPU's own NICs
  }

  // Between two GPUs of one node: their direct NVLink, else through the NVSwitches, else over
  // PCIe through the CPUs.
  void inside(RouterId a, RouterId b, double share, std::vector<ChannelShare>& out) const {
    if (const ChannelId direct = links_.nvlink_channel(a, b); direct != kNoChannel) {
      out.push_back({direct, share});
    } else if (links_.to_nvswitch[a] != kNoChannel && links_.from_nvswitch[b] != kNoChannel) {
      out.push_back({links_.to_nvswitch[a], share});
      out.push_back({links_.from_nvswitch[b], share});
    } else {
      out.push_back({links_.to_cpu[a], share});
      out.push_back({links_.from_cpu[b], share});
    }
  }

  const GpuNodeLinks& links_;
  std::unique_ptr<Machine> network_;  // the machine cut at its network's channels, base_'s
  std::unique_ptr<Routing> base_;
  bool pxn_;
};

}  // namespace

std::unique_ptr<Routing> make_gpu_node_routing(const Machine& m, std::unique_ptr<Machine> network,
                                               std::unique_ptr<Routing> base, bool pxn) {
  return std::make_unique<GpuNodeRouting>(m, std::move(network), std::move(base), pxn);
}

}  // namespace taskmap::detail
