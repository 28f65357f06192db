// The routing that follows forwarding tables: each LID's one path, switch by switch.
#include <fmt/format.h>

#include <mutex>
#include <set>

#include "table_walk.h"
#include "taskmap/core/error.h"
#include "taskmap/routing/forwarding_tables.h"

namespace taskmap {
namespace {

class TableRouting final : public Routing {
 public:
  TableRouting(const Machine& machine, std::shared_ptr<const ForwardingTables> tables, std::string source,
               TableGaps gaps)
      : gaps_(std::move(gaps)),
        machine_(machine),
        shape_(std::get<FabricShape>(machine.shape)),
        tables_(std::move(tables)),
        subnet_(tables_->subnet ? *tables_->subnet : *shape_.subnet),
        source_(std::move(source)),
        ports_of_router_(machine.num_routers) {
    // A host's ports: those of its CAs that the fabric cables to a switch (they have an
    // injection channel); a switch router is addressed through its port 0.
    for (std::uint32_t node = 0; node < subnet_.nodes.size(); ++node) {
      const RouterId r = shape_.router_of_node[node];
      if (r == kNoRouter) continue;
      if (subnet_.nodes[node].is_switch()) {
        ports_of_router_[r].push_back({node, 0});
        continue;
      }
      for (std::uint32_t p = 1; p < subnet_.nodes[node].ports.size(); ++p) {
        if (shape_.channel_of_port[node][p] != kNoChannel) ports_of_router_[r].push_back({node, static_cast<std::uint8_t>(p)});
      }
    }
    max_switch_hops_ = static_cast<std::uint32_t>(subnet_.nodes.size());
  }

  ~TableRouting() override {
    if (skipped_.empty() || !gaps_.warn) return;
    gaps_.warn(fmt::format("{}: {} host pairs have no route in the tables and carry none of their traffic (unroutable=skip; "
                           "first: {})",
                           source_, skipped_.size(), first_skipped_));
  }

  bool follows_tables() const override { return true; }

  void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const override {
    const auto& from = ports_of_router_[src];
    const auto& to = ports_of_router_[dst];
    if (from.empty() || to.empty()) fail("{}: no route from {} to {}: no port of the subnet", source_, name(src), name(dst));
    const double per_source = 1.0 / static_cast<double>(from.size());
    for (std::size_t k = 0; k < from.size(); ++k) {
      const ib::PortRef target = to[k % to.size()];
      const ib::Port& target_port = subnet_.port(target);
      if (target_port.lid == 0) {
        fail("{}: no route from {} to {}: its port {} has no LID in {}", source_, name(src), name(dst), target.port,
             subnet_.source);
      }
      const std::uint32_t lids = 1u << target_port.lmc;
      for (std::uint32_t l = 0; l < lids; ++l) add_path(src, dst, from[k], target_port.lid + l, per_source / lids, out);
    }
  }

 private:
  void add_path(RouterId src, RouterId dst, ib::PortRef start, std::uint32_t lid, double fraction,
                std::vector<ChannelShare>& out) const {
    const std::size_t mark = out.size();
    try {
      follow(src, dst, start, lid, fraction, out);
    } catch (const Error& e) {
      if (!gaps_.skip) throw;
      out.resize(mark);  // the path carries nothing
      std::lock_guard lock(mutex_);
      if (skipped_.insert({src, dst}).second && skipped_.size() == 1) first_skipped_ = e.what();
    }
  }

  void follow(RouterId src, RouterId dst, ib::PortRef start, std::uint32_t lid, double fraction,
              std::vector<ChannelShare>& out) const {
    std::uint32_t node = start.node;
    if (!subnet_.nodes[node].is_switch()) {  // leave the CA through its port to its switch
      out.push_back({shape_.channel_of_port[node][start.port], fraction});
      node = subnet_.port(start).peer_node;
    }
    for (std::uint32_t hops = 0;; ++hops) {
      const detail::Step st = detail::step(subnet_, *tables_, node, lid);
      if (st.kind == detail::StepKind::Arrived) {
        if (st.port != 0) out.push_back({channel(node, st.port), fraction});
        return;
      }
      if (st.kind != detail::StepKind::Switch) {
        fail("{}: no route from {} to {}: {}", source_, name(src), name(dst), detail::describe_step(subnet_, node, lid, st));
      }
      if (hops > max_switch_hops_) {
        fail("{}: no route from {} to {}: LID {} loops (switch 0x{:016x} '{}' is met again)", source_, name(src),
             name(dst), lid, subnet_.nodes[node].guid, subnet_.nodes[node].description);
      }
      out.push_back({channel(node, st.port), fraction});
      node = st.next;
    }
  }

  ChannelId channel(std::uint32_t node, std::uint8_t port) const {
    const ChannelId c = shape_.channel_of_port[node][port];
    // A cable the fabric left out (a loopback, a CA-to-CA cable) carries nothing between routers.
    if (c == kNoChannel) {
      fail("{}: switch 0x{:016x} '{}' forwards through port {}, a cable that joins no two routers of the fabric", source_,
           subnet_.nodes[node].guid, subnet_.nodes[node].description, port);
    }
    return c;
  }

  // Hosts are routers 0 .. first_switch - 1: node n on router n, or inside GPU nodes a block each.
  std::string name(RouterId r) const {
    if (r < shape_.first_switch) {
      return machine_.node_name(machine_.gpu_links ? machine_.gpu_links->node_of_router[r] : r);
    }
    return fmt::format("switch '{}'", shape_.switch_names[r - shape_.first_switch]);
  }

  TableGaps gaps_;
  mutable std::mutex mutex_;
  mutable std::set<std::pair<RouterId, RouterId>> skipped_;
  mutable std::string first_skipped_;
  const Machine& machine_;
  const FabricShape& shape_;
  std::shared_ptr<const ForwardingTables> tables_;
  const ib::Subnet& subnet_;  // the tables' LIDs
  std::string source_;
  std::vector<std::vector<ib::PortRef>> ports_of_router_;
  std::uint32_t max_switch_hops_ = 0;
};

}  // namespace

std::unique_ptr<Routing> make_table_routing(const Machine& machine, std::shared_ptr<const ForwardingTables> tables,
                                            std::string source, TableGaps gaps) {
  const auto* shape = std::get_if<FabricShape>(&machine.shape);
  if (!shape || !shape->subnet) fail("{}: forwarding tables need an InfiniBand fabric read with ibnet:", source);
  return std::make_unique<TableRouting>(machine, std::move(tables), std::move(source), std::move(gaps));
}

}  // namespace taskmap
