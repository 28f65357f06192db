// OpenSM 3.3's ftree engine: switches ranked from the roots (or from the leaves), their ports
// grouped by remote, the switches indexed by tuples, then each compute node's LID routed down
// from every switch above its leaf with the least-used group and port (counters per group and
// port), and the switches' own LIDs the same way. The order of every sort and scan is OpenSM's,
// its quirks included (docs/routings.md, "OpenSM's engines").
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <memory>
#include <set>

#include "opensm_subnet.h"
#include "taskmap/core/error.h"

namespace taskmap::detail {
namespace {

constexpr std::uint32_t kUnranked = UINT32_MAX;
constexpr std::uint8_t kNoHops = 255;
using Tuple = std::array<std::uint8_t, 8>;
constexpr Tuple kNoTuple = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

[[noreturn]] void fails(const std::string& why) {
  fail("opensm:ftree: {}: OpenSM's ftree gives up and routes with minhop instead", why);
}

struct FtSwitch;

struct GroupPort {
  std::uint8_t port, remote_port;
  std::uint32_t counter_up = 0, counter_down = 0;
};

struct Group {
  FtSwitch* owner = nullptr;
  FtSwitch* remote_switch = nullptr;  // null: the group leads to a CA port
  std::uint32_t remote_lid = 0;
  std::vector<GroupPort> ports;
  std::uint32_t counter_up = 0, counter_down = 0;
};

struct FtSwitch {
  std::uint32_t index = 0;  // in the view (OpenSM's order)
  std::uint32_t lid = 0;
  std::uint32_t rank = kUnranked;
  bool has_tuple = false;
  Tuple tuple = kNoTuple;
  std::vector<Group*> down, up, siblings;
  bool is_leaf = false;
  std::uint32_t min_counter_down = 0;
  bool counter_up_changed = false;
  std::map<std::uint32_t, std::uint8_t> hops, lft;  // per LID
  std::uint8_t hops_of(std::uint32_t lid) const {
    const auto it = hops.find(lid);
    return it == hops.end() ? kNoHops : it->second;
  }
  std::uint8_t lft_of(std::uint32_t lid) const {
    const auto it = lft.find(lid);
    return it == lft.end() ? ib::kNoPort : it->second;
  }
};

class FatTree final {
 public:
  FatTree(const OsmView& v, const std::vector<std::uint64_t>& roots) : v_(v), roots_(roots), switches_(v.count()) {
    for (std::uint32_t i = 0; i < v.count(); ++i) switches_[i].index = i, switches_[i].lid = v.lid(i);
  }

  ForwardingTables run() {
    check_counts();
    rank();
    make_groups();
    find_leaves();
    if (roots_.empty()) validate_topology();
    index();
    check_reproducible();
    route();
    ForwardingTables tables = v_.empty_tables();
    for (const FtSwitch& s : switches_) {
      if (s.rank == kUnranked) continue;
      auto& table = tables.port[v_.node(s.index)];
      for (const auto& [lid, port] : s.lft) {
        if (port != ib::kNoPort && lid < table.size()) table[lid] = port;
      }
    }
    return tables;
  }

 private:
  const ib::Subnet& subnet() const { return v_.subnet(); }

  void check_counts() {
    if (v_.lmc() > 0) fails("it does not route LIDs with an LMC above 0");
    if (v_.count() < 2) fails(fmt::format("the fabric has {} switch{}: not a fat tree", v_.count(), v_.count() == 1 ? "" : "es"));
    std::size_t end_nodes = 0;
    for (std::uint32_t n = 0; n < subnet().nodes.size(); ++n) {
      const ib::Node& node = subnet().nodes[n];
      if (node.is_switch()) continue;
      ++end_nodes;
      if (node.kind == ib::NodeKind::Ca) cas_.push_back(n);
      for (std::uint32_t p = 1; p < node.ports.size(); ++p) {
        const auto r = v_.remote(n, p);
        if (r && !subnet().nodes[r->node].is_switch()) fails(fmt::format("CA '{}' is cabled to a CA", node.description));
      }
    }
    if (end_nodes < 2 || cas_.size() < 2) fails("fewer than two CAs");
    // OpenSM's CA table: CAs in its order of their GUIDs.
    std::stable_sort(cas_.begin(), cas_.end(), [&](std::uint32_t a, std::uint32_t b) {
      return ib::opensm_key(subnet().nodes[a].guid) < ib::opensm_key(subnet().nodes[b].guid);
    });
  }

  bool update_rank(FtSwitch& s, std::uint32_t rank) {
    if (s.rank != kUnranked && s.rank <= rank) return false;
    s.rank = rank;
    return true;
  }

  // BFS over switch-to-switch cables; returns the rank of the last switch updated.
  std::uint32_t spread_ranks(std::deque<FtSwitch*> queue) {
    std::uint32_t last = 0;
    while (!queue.empty()) {
      FtSwitch* s = queue.front();
      queue.pop_front();
      for (std::uint32_t p = 1; p < v_.ports(s->index); ++p) {
        const std::uint32_t w = v_.peer_switch(s->index, p);
        if (w == kNone || w == s->index) continue;
        if (update_rank(switches_[w], s->rank + 1)) {
          last = switches_[w].rank;
          queue.push_back(&switches_[w]);
        }
      }
    }
    return last;
  }

  void rank() {
    std::deque<FtSwitch*> queue;
    if (!roots_.empty()) {
      for (std::uint64_t guid : roots_) {
        for (FtSwitch& s : switches_) {
          if (v_.sw(s.index).guid == guid) s.rank = 0, queue.push_back(&s);
        }
      }
      if (queue.empty()) fails("no GUID of the roots file is a switch");
      max_rank_ = spread_ranks(queue);
      return;
    }
    for (std::uint32_t ca : cas_) {
      for (std::uint32_t p = 1; p < subnet().nodes[ca].ports.size(); ++p) {
        const auto r = v_.remote(ca, p);
        if (!r || !subnet().nodes[r->node].is_switch()) continue;
        FtSwitch& s = switches_[v_.index(r->node)];
        if (update_rank(s, 0)) queue.push_back(&s);
      }
    }
    const std::uint32_t height = spread_ranks(queue);
    if (height == 0) fails("every switch has a CA (more than one root at rank 0): not a fat tree");
    for (FtSwitch& s : switches_) {
      if (s.rank != kUnranked) s.rank = height - s.rank;
    }
    queue.clear();
    for (FtSwitch& s : switches_) {
      if (s.rank == 0) {
        queue.push_back(&s);
      } else {
        s.rank = kUnranked;
      }
    }
    max_rank_ = spread_ranks(queue);
  }

  Group* group_in(std::vector<Group*>& list, std::uint32_t remote_lid) {
    for (Group* g : list) {
      if (g->remote_lid == remote_lid) return g;
    }
    return nullptr;
  }

  void make_groups() {
    for (FtSwitch& s : switches_) {
      if (s.rank == kUnranked) continue;
      const std::uint32_t node = v_.node(s.index);
      for (std::uint32_t p = 1; p < v_.ports(s.index); ++p) {
        const auto r = v_.remote(node, p);
        if (!r || r->node == node) continue;
        const ib::Node& far = subnet().nodes[r->node];
        if (far.kind == ib::NodeKind::Router) continue;
        std::vector<Group*>* list = nullptr;
        FtSwitch* remote = nullptr;
        std::uint32_t remote_lid = 0;
        if (!far.is_switch()) {
          list = &s.down;
          remote_lid = far.ports[r->port].lid;
        } else {
          remote = &switches_[v_.index(r->node)];
          remote_lid = remote->lid;
          list = s.rank > remote->rank ? &s.up : s.rank == remote->rank ? &s.siblings : &s.down;
        }
        Group* g = group_in(*list, remote_lid);
        if (!g) {
          groups_.push_back(std::make_unique<Group>());
          g = groups_.back().get();
          g->owner = &s;
          g->remote_switch = remote;
          g->remote_lid = remote_lid;
          list->push_back(g);
        }
        if (std::none_of(g->ports.begin(), g->ports.end(), [&](const GroupPort& gp) { return gp.port == p; })) {
          g->ports.push_back({static_cast<std::uint8_t>(p), r->port});
        }
      }
    }
  }

  void find_leaves() {
    // Compute nodes: every CA port cabled to a ranked switch.
    bool first_found = false;
    for (std::uint32_t ca : cas_) {
      for (std::uint32_t p = 1; p < subnet().nodes[ca].ports.size(); ++p) {
        const auto r = v_.remote(ca, p);
        if (!r || !subnet().nodes[r->node].is_switch()) continue;
        FtSwitch& s = switches_[v_.index(r->node)];
        if (s.rank == kUnranked) continue;
        if (!first_found) first_found = true, first_cn_rank_ = s.rank;
        leaf_switches_.push_back(&s);
      }
    }
    if (!first_found) fails("no compute node (CA) is cabled to a ranked switch");
    leaf_rank_ = roots_.empty() ? max_rank_ : first_cn_rank_;
    if (leaf_rank_ + 1 < 2 || leaf_rank_ + 1 > 8) {
      fails(fmt::format("a tree of {} levels: OpenSM's ftree routes trees of 2 to 8", leaf_rank_ + 1));
    }
    for (FtSwitch* s : leaf_switches_) {
      s->is_leaf = true;
      if (s->rank != leaf_rank_) {
        fails(fmt::format("a compute node is cabled to switch 0x{:016x} of rank {}, while the leaves' rank is {}",
                          v_.sw(s->index).guid, s->rank, leaf_rank_));
      }
    }
  }

  // OpenSM's fabric_validate_topology (only without a roots file): every switch of a rank has
  // as many up groups (and, above the leaves, down groups) as the first of its rank, with as
  // many ports in each as that switch's first.
  void validate_topology() {
    std::map<std::uint32_t, const FtSwitch*> reference;
    for (const FtSwitch& s : switches_) {
      if (s.rank == kUnranked) continue;
      const auto [it, first] = reference.emplace(s.rank, &s);
      if (first) continue;
      const FtSwitch& r = *it->second;
      const bool leaf = s.rank == leaf_rank_;
      auto uneven = [&](const std::string& what) {
        fails(fmt::format("switch 0x{:016x} has {} than switch 0x{:016x} of the same rank {}: not a fat tree",
                          v_.sw(s.index).guid, what, v_.sw(r.index).guid, s.rank));
      };
      if (s.up.size() != r.up.size()) uneven("another number of up groups");
      if (!leaf && s.down.size() != r.down.size()) uneven("another number of down groups");
      for (const Group* g : s.up) {
        if (!r.up.empty() && g->ports.size() != r.up[0]->ports.size()) uneven("an up group of another width");
      }
      if (!leaf && !s.down.empty() && !r.down.empty() && s.down[0]->ports.size() != r.down[0]->ports.size()) {
        uneven("a down group of another width");
      }
    }
  }

  Tuple new_tuple(const Tuple& from, bool down) {
    Tuple t = from;
    std::size_t at = 0;
    if (down) {
      t[0] = static_cast<std::uint8_t>(t[0] + 1);
      at = std::size_t{from[0]} + 1;
    } else {
      t[0] = static_cast<std::uint8_t>(t[0] - 1);
      at = from[0];
    }
    if (at >= t.size()) fails("the switches' tuples overflow");
    for (std::uint32_t i = 0; i < 255; ++i) {
      t[at] = static_cast<std::uint8_t>(i);
      if (!tuples_.count(t)) return t;
    }
    fails("no free tuple for a switch");
  }

  void assign(FtSwitch& s, const Tuple& t) {
    s.tuple = t;
    s.has_tuple = true;
    tuples_.insert(t);
  }

  static Tuple key_of(const Group* g) { return g->remote_switch && g->remote_switch->has_tuple ? g->remote_switch->tuple : kNoTuple; }

  void index() {
    FtSwitch* first = nullptr;
    for (FtSwitch& s : switches_) {
      if (s.rank != kUnranked && s.is_leaf) {
        first = &s;
        break;
      }
    }
    Tuple t = kNoTuple;
    t[0] = static_cast<std::uint8_t>(first->rank);
    for (std::uint32_t i = 1; i <= leaf_rank_ && i < t.size(); ++i) t[i] = 0;
    assign(*first, t);
    std::deque<FtSwitch*> queue{first};
    // A group to a CA sorts before the switches' groups (it has no tuple; OpenSM's sort keeps
    // it first), groups keep their order among equals.
    auto by_tuple = [](const Group* a, const Group* b) {
      if (!a->remote_switch || !b->remote_switch) return !a->remote_switch && b->remote_switch;
      return key_of(a) < key_of(b);
    };
    while (!queue.empty()) {
      FtSwitch* s = queue.front();
      queue.pop_front();
      if (s->rank < leaf_rank_) {
        for (Group* g : s->down) {
          if (!g->remote_switch || g->remote_switch->has_tuple) continue;
          assign(*g->remote_switch, new_tuple(s->tuple, true));
          queue.push_back(g->remote_switch);
        }
        std::stable_sort(s->down.begin(), s->down.end(), by_tuple);
      }
      if (s->rank != 0 && (first->rank != 0 || !s->is_leaf)) {
        for (Group* g : s->up) {
          if (g->remote_switch->has_tuple) continue;
          assign(*g->remote_switch, new_tuple(s->tuple, false));
          queue.push_back(g->remote_switch);
        }
        std::stable_sort(s->up.begin(), s->up.end(), by_tuple);
      }
    }
    std::vector<FtSwitch*> at_leaf_rank;
    for (FtSwitch& s : switches_) {
      if (s.rank == leaf_rank_) at_leaf_rank.push_back(&s);
    }
    std::stable_sort(at_leaf_rank.begin(), at_leaf_rank.end(), [](const FtSwitch* a, const FtSwitch* b) {
      return (a->has_tuple ? a->tuple : kNoTuple) < (b->has_tuple ? b->tuple : kNoTuple);
    });
    std::size_t lo = at_leaf_rank.size(), hi = 0;
    for (std::size_t i = 0; i < at_leaf_rank.size(); ++i) {
      if (at_leaf_rank[i]->is_leaf) lo = std::min(lo, i), hi = i;
    }
    leaves_.assign(at_leaf_rank.begin() + static_cast<std::ptrdiff_t>(lo), at_leaf_rank.begin() + static_cast<std::ptrdiff_t>(hi) + 1);
    std::size_t real_leaves = 0;
    for (const FtSwitch* s : leaves_) real_leaves += s->is_leaf;
    if (real_leaves < 2) fails("fewer than two leaf switches with compute nodes");
    for (const FtSwitch* s : leaves_) {
      std::uint32_t cns = 0;
      for (const Group* g : s->down) cns += g->remote_switch == nullptr;
      max_cn_per_leaf_ = std::max(max_cn_per_leaf_, cns);
    }
  }

  // OpenSM re-sorts a switch's down groups (bubble_sort_up) once a route through one of its
  // switch groups or sibling groups changed its counters. Its comparison reads the remote of
  // every group as a switch's tuple; for a group to a CA that remote is an HCA record, and the
  // bytes read are parts of two heap pointers of that record (ftree_hca_t's up_port_groups and
  // disconnected_ports): the order then depends on OpenSM's memory addresses. On a leaf that
  // reorders its CN groups while fabric_route_to_cns walks them by index, so some CNs are routed
  // twice and others never (their LIDs get no entry at all). Nothing in the fabric tells that
  // order, so these tables cannot be reproduced: refuse rather than print other ones.
  void check_reproducible() const {
    for (const FtSwitch& s : switches_) {
      if (s.rank == kUnranked) continue;
      std::size_t to_cas = 0, to_switches = 0;
      for (const Group* g : s.down) (g->remote_switch ? to_switches : to_cas) += 1;
      if (to_cas == 0 || s.down.size() < 2 || (s.siblings.empty() && to_switches == 0)) continue;
      fail("opensm:ftree: switch 0x{:016x} has {} CA port{} and cables to {} switch{} of its own rank{}: OpenSM's ftree "
           "runs, but orders that switch's CA ports by its own memory addresses (it reads an HCA record as a "
           "switch's), so its tables cannot be reproduced; remove those cables or use another engine",
           v_.sw(s.index).guid, to_cas, to_cas == 1 ? "" : "s", s.siblings.size() + to_switches,
           s.siblings.size() + to_switches == 1 ? "" : "es", to_switches ? " or below" : "");
    }
  }

  static int compare_index(const Group* a, const Group* b) {
    const Tuple x = key_of(a), y = key_of(b);
    return (x > y) - (x < y);
  }
  static int compare_up(const Group* a, const Group* b) {
    if (a->counter_up != b->counter_up) return a->counter_up > b->counter_up ? 1 : -1;
    return compare_index(a, b);
  }
  static int compare_down(const Group* a, const Group* b) {
    if (a->counter_down != b->counter_down) return a->counter_down > b->counter_down ? 1 : -1;
    // OpenSM tests only the "greater" side of this comparison.
    if (a->remote_switch && b->remote_switch && a->remote_switch->min_counter_down > b->remote_switch->min_counter_down) {
      return 1;
    }
    return compare_index(a, b);
  }
  template <typename Compare>
  static void bubble_sort(std::vector<Group*>& list, Compare compare) {
    const std::size_t n = list.size();
    bool swapped = true;
    for (std::size_t i = 0; swapped; ++i) {
      swapped = false;
      for (std::size_t j = 1; j + i < n; ++j) {
        if (compare(list[j], list[j - 1]) < 0) std::swap(list[j - 1], list[j]), swapped = true;
      }
    }
  }

  static GroupPort* least_used(Group& g, bool up) {
    GroupPort* best = nullptr;
    for (GroupPort& p : g.ports) {
      if (!best || (up ? p.counter_up < best->counter_up : p.counter_down < best->counter_down)) best = &p;
    }
    return best;
  }

  // OpenSM's fabric_route_upgoing_by_going_down: fills the switches below s.
  bool go_down(FtSwitch& s, const FtSwitch* previous, std::uint32_t lid, bool main, std::uint8_t hops) {
    if (s.down.empty()) return false;
    if (s.counter_up_changed) {
      bubble_sort(s.down, compare_up);
      s.counter_up_changed = false;
    }
    if (!s.siblings.empty()) bubble_sort(s.siblings, compare_up);
    std::vector<Group*> groups = s.down;
    if (lid != 0) groups.insert(groups.end(), s.siblings.begin(), s.siblings.end());
    bool created = false;
    for (Group* g : groups) {
      if (!g->remote_switch) {
        created = true;
        continue;
      }
      if (previous && g->remote_lid == previous->lid) continue;
      if (g->ports.empty()) continue;
      GroupPort* port = least_used(*g, true);
      FtSwitch& remote = *g->remote_switch;
      const std::uint8_t known = remote.hops_of(lid);
      if (known != kNoHops && hops + 1 >= known) continue;
      remote.lft[lid] = port->remote_port;
      remote.hops[lid] = static_cast<std::uint8_t>(hops + 1);
      const bool routed = go_down(remote, nullptr, lid, main, static_cast<std::uint8_t>(hops + 1));
      created = created || routed;
      if (routed) {
        ++port->counter_up;
        ++g->counter_up;
        g->owner->counter_up_changed = true;
      }
    }
    return created;
  }

  // OpenSM's fabric_route_downgoing_by_going_up: fills the switches above s.
  bool go_up(FtSwitch& s, const FtSwitch* previous, std::uint32_t lid, bool main, std::uint8_t hops) {
    bool created = go_down(s, previous, lid, main, hops);
    if (s.rank == 0 || s.up.empty()) return created;
    bubble_sort(s.up, compare_down);
    Group& main_group = *s.up[0];
    GroupPort* main_port = least_used(main_group, false);
    FtSwitch& above = *main_group.remote_switch;
    const auto next = static_cast<std::uint8_t>(hops + 1);
    if (main) {
      ++main_group.counter_down;
      ++main_port->counter_down;
      if (main_group.counter_down == above.min_counter_down + 1) {
        std::uint32_t least = 1u << 30;
        for (const Group* g : above.down) least = std::min(least, g->counter_down);
        above.min_counter_down = least;
      }
      if (above.lft_of(lid) == ib::kNoPort || next < above.hops_of(lid)) {
        above.lft[lid] = main_port->remote_port;
        above.hops[lid] = next;
      }
      created = go_up(above, &s, lid, main, next) || created;
    }
    for (std::size_t i = main ? 1 : 0; i < s.up.size(); ++i) {
      Group& g = *s.up[i];
      FtSwitch& remote = *g.remote_switch;
      if (remote.lft_of(lid) != ib::kNoPort && next >= remote.hops_of(lid)) continue;
      if (g.ports.empty()) continue;
      GroupPort* port = least_used(g, false);
      remote.lft[lid] = port->remote_port;
      remote.hops[lid] = next;
      created = go_up(remote, &s, lid, false, next) || created;
    }
    if (!s.siblings.empty()) bubble_sort(s.siblings, compare_down);
    for (Group* g : s.siblings) {
      FtSwitch& remote = *g->remote_switch;
      if (remote.lft_of(lid) != ib::kNoPort && next >= remote.hops_of(lid)) continue;
      GroupPort* port = least_used(*g, false);
      remote.lft[lid] = port->remote_port;
      remote.hops[lid] = next;
      const bool routed = go_up(remote, &s, lid, false, next);
      created = created || routed;
      if (routed) {
        ++main_group.counter_down;  // OpenSM counts the main group here, not the sibling's
        ++port->counter_down;
      }
    }
    return created;
  }

  void route() {
    for (FtSwitch* leaf : leaves_) {
      std::uint32_t routed = 0;
      // The CN groups as they stand now: routing does not reorder a leaf's CA groups.
      const std::vector<Group*> down = leaf->down;
      for (Group* g : down) {
        if (g->remote_switch) continue;
        const std::uint32_t lid = g->remote_lid;
        leaf->lft[lid] = g->ports[0].port;
        leaf->hops[lid] = 1;
        go_up(*leaf, nullptr, lid, true, 1);
        ++routed;
      }
      // Dummy destinations (LID 0) keep the counters as if every leaf had as many CNs.
      for (std::uint32_t d = routed; d < max_cn_per_leaf_; ++d) {
        leaf->hops[0] = 1;
        go_up(*leaf, nullptr, 0, true, 1);
        for (FtSwitch& s : switches_) s.hops.erase(0), s.lft.erase(0);
      }
    }
    for (FtSwitch& s : switches_) {
      if (s.rank == kUnranked) continue;
      s.lft[s.lid] = 0;
      s.hops[s.lid] = 0;
      go_up(s, nullptr, s.lid, false, 0);
    }
  }

  const OsmView& v_;
  const std::vector<std::uint64_t>& roots_;
  std::vector<FtSwitch> switches_;  // in OpenSM's order
  std::vector<std::unique_ptr<Group>> groups_;
  std::vector<std::uint32_t> cas_;
  std::vector<FtSwitch*> leaf_switches_, leaves_;
  std::set<Tuple> tuples_;
  std::uint32_t max_rank_ = 0, leaf_rank_ = 0, first_cn_rank_ = 0, max_cn_per_leaf_ = 0;
};

}  // namespace

ForwardingTables fat_tree_tables(const OsmView& view, const std::vector<std::uint64_t>& roots) {
  return FatTree(view, roots).run();
}

}  // namespace taskmap::detail
