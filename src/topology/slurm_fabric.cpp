// Slurm declarations -> Fabric. A tree's Switches= pairs become cables whether they list
// children or (in generated files) neighbours; blocks become one switch each under a root.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "slurm_topology.h"
#include "taskmap/core/error.h"

namespace taskmap::slurm {
namespace {

std::uint64_t pair_key(std::uint32_t a, std::uint32_t b) { return (std::uint64_t{a} << 32) | b; }

// Counts one kind of oddity and remembers its first example for the one warning about it.
struct Oddity {
  std::size_t count = 0;
  std::string example;
  void add(std::string_view text) {
    if (count++ == 0) example = text;
  }
};

// Node names -> host indices; GUID node names renamed through the map when there is one.
class HostTable final {
 public:
  HostTable(Fabric& fabric, const GuidMap* map, std::size_t nodes) : fabric_(fabric), map_(map) {
    index_.reserve(nodes);
  }

  std::uint32_t host_of(const std::string& node) {
    const std::string* name = &node;
    std::optional<std::string> mapped;
    if (map_ != nullptr && looks_like_guid(node)) {
      mapped = map_->host_of(node);
      if (mapped) {
        name = &*mapped;
      } else if (unmapped_seen_.insert(node).second) {
        unmapped_.add(node);
      }
    }
    auto [it, added] = index_.try_emplace(*name, static_cast<std::uint32_t>(fabric_.hosts.size()));
    if (added) fabric_.hosts.push_back(*name);
    return it->second;
  }

  // The port GUID of a node named by its GUID and renamed by the map (it orders a host's
  // NICs); 0 otherwise.
  std::uint64_t guid_of(std::string_view node) const {
    if (map_ == nullptr || !looks_like_guid(node)) return 0;
    const auto hex = normalize_guid(node);
    return hex && map_->host_of(node) ? std::stoull(*hex, nullptr, 16) : 0;
  }

  void warn(const WarningSink& warn) const {
    if (unmapped_.count == 0) return;
    warn(fmt::format("{}: {} not in {} kept as host names, e.g. '{}'", fabric_.source,
                     counted(unmapped_.count, "GUID node name", "GUID node names"), map_->source(), unmapped_.example));
  }

 private:
  // "0x155dfffd33ff33", "H-78e7d1030024535c", or 16 hex digits: a port GUID, not a host name.
  static bool looks_like_guid(std::string_view name) {
    if (name.starts_with("0x") || name.starts_with("0X") || name.starts_with("H-")) return normalize_guid(name).has_value();
    return name.size() == 16 && normalize_guid(name).has_value();
  }

  Fabric& fabric_;
  const GuidMap* map_;
  std::unordered_map<std::string, std::uint32_t> index_;
  std::unordered_set<std::string> unmapped_seen_;
  Oddity unmapped_;
};

std::size_t count_components(std::uint32_t switches, const std::vector<Fabric::Cable>& cables) {
  std::vector<std::uint32_t> parent(switches);
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&parent](std::uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::size_t components = switches;
  for (const auto& c : cables) {
    const auto a = find(c.a), b = find(c.b);
    if (a != b) {
      parent[a] = b;
      --components;
    }
  }
  return components;
}

class TreeBuilder final {
 public:
  TreeBuilder(const Declarations& decls, const GuidMap* map, const WarningSink& warn)
      : decls_(decls), warn_(warn), hosts_(fabric_, map, node_count(decls)) {
    fabric_.source = decls.source;
  }

  Fabric build() {
    if (decls_.switches.empty()) fail("{}: defines no switch", decls_.source);
    index_switches();
    for (std::uint32_t s = 0; s < decls_.switches.size(); ++s) add_cables(decls_.switches[s], s);
    first_switch_.reserve(node_count(decls_));
    fabric_.host_ports.reserve(node_count(decls_));
    for (std::uint32_t s = 0; s < decls_.switches.size(); ++s) add_host_ports(decls_.switches[s], s);
    if (fabric_.hosts.empty()) fail("{}: defines no node (no {} under any switch)", decls_.source, decls_.nodes_key());
    find_top_switches();
    warn_oddities();
    return std::move(fabric_);
  }

 private:
  static std::size_t node_count(const Declarations& decls) {
    std::size_t nodes = 0;
    for (const auto& decl : decls.switches) nodes += decl.nodes.size();
    return nodes;
  }

  void index_switches() {
    index_.reserve(decls_.switches.size());
    std::size_t listings = 0;
    for (const auto& decl : decls_.switches) listings += decl.switches.size();
    lister_.reserve(listings);
    fabric_.cables.reserve(listings);
    for (const auto& decl : decls_.switches) {
      const auto [it, added] = index_.try_emplace(decl.name, static_cast<std::uint32_t>(fabric_.switches.size()));
      if (!added) {
        fail("{}: switch '{}' is defined twice (first on {})", decls_.where(decl.place), decl.name,
             decls_.earlier(decls_.switches[it->second].place, decl.place));
      }
      fabric_.switches.push_back(decl.name);
    }
    listed_.assign(fabric_.switches.size(), false);
  }

  // One cable per listed pair: B listed by A and A listed by B (neighbour lists) is one cable.
  void add_cables(const SwitchDecl& decl, std::uint32_t self) {
    for (const auto& name : decl.switches) {
      const auto it = index_.find(name);
      if (it == index_.end()) {
        fail("{}: switch '{}' is listed under {} but never defined ({})", decls_.where(decl.place), name,
             decls_.switches_key(),
             decls_.yaml ? fmt::format("no '- switch: {}' entry", name) : fmt::format("no SwitchName={} line", name));
      }
      const std::uint32_t other = it->second;
      if (other == self) {
        self_listed_.add(name);
        continue;
      }
      listed_[other] = true;
      const auto [lister, added] = lister_.try_emplace(pair_key(std::min(self, other), std::max(self, other)), self);
      if (added) {
        fabric_.cables.push_back({self, other, decl.gbps});
      } else if (lister->second == other) {
        lister->second = kBothEnds;
        two_cycles_.add(fmt::format("{} and {}", name, decl.name));
      } else {
        repeated_.add(fmt::format("{} under {}", name, decl.name));
      }
    }
  }

  void add_host_ports(const SwitchDecl& decl, std::uint32_t sw) {
    for (const auto& node : decl.nodes) {
      const auto [first, added] = first_switch_.try_emplace(node, sw);
      if (!added && !another_switch(node, first->second, sw, decl)) continue;
      fabric_.host_ports.push_back({hosts_.host_of(node), sw, decl.gbps, {}, hosts_.guid_of(node)});
    }
  }

  // A node seen before under `first`: true when `sw` is one more switch for it (a port to each).
  bool another_switch(std::string_view node, std::uint32_t first, std::uint32_t sw, const SwitchDecl& decl) {
    auto& more = more_switches_[node];
    if (first == sw || std::find(more.begin(), more.end(), sw) != more.end()) {
      repeated_.add(fmt::format("{} under {}", node, decl.name));
      return false;
    }
    if (more.empty()) several_leaves_.add(fmt::format("{} under {} and {}", node, fabric_.switches[first], decl.name));
    more.push_back(sw);
    return true;
  }

  void find_top_switches() {
    for (std::uint32_t s = 0; s < listed_.size(); ++s) {
      if (!listed_[s]) fabric_.top_switches.push_back(s);
    }
  }

  void warn_oddities() {
    const std::string& file = decls_.source;
    if (two_cycles_.count > 0) {
      warn_(fmt::format("{}: {} lists neighbours ({} two-cycles, e.g. {}): read as cables{}", file, decls_.switches_key(),
                        two_cycles_.count, two_cycles_.example,
                        fabric_.top_switches.empty() ? "; no switch is a root: the top switches are found from the cables"
                                                     : ""));
    }
    if (repeated_.count > 0) {
      warn_(fmt::format("{}: {} twice under one switch (ignored), e.g. {}", file,
                        counted(repeated_.count, "name listed", "names listed"), repeated_.example));
    }
    if (self_listed_.count > 0) {
      warn_(fmt::format("{}: {} under {} (ignored), e.g. {}", file,
                        counted(self_listed_.count, "switch lists itself", "switches list themselves"), decls_.switches_key(),
                        self_listed_.example));
    }
    if (several_leaves_.count > 0) {
      warn_(fmt::format("{}: {} under several switches (one port to each), e.g. {}", file,
                        counted(several_leaves_.count, "node", "nodes"), several_leaves_.example));
    }
    const std::size_t parts = count_components(static_cast<std::uint32_t>(fabric_.switches.size()), fabric_.cables);
    if (parts > 1) {
      warn_(fmt::format("{}: the switches form {} unconnected groups: joined under one added switch '{}' (the file "
                        "names no link between them)",
                        file, parts, kForestRoot));
      join_forest();
    }
    hosts_.warn(warn_);
  }

  // A forest: one added switch above a top switch of each tree (or, for a tree with no top, its
  // first switch), so that traffic between the trees has a route.
  static constexpr std::string_view kForestRoot = "forest-root";
  void join_forest() {
    const auto switches = static_cast<std::uint32_t>(fabric_.switches.size());
    std::vector<std::uint32_t> part(switches);
    std::iota(part.begin(), part.end(), 0u);
    auto find = [&part](std::uint32_t x) {
      while (part[x] != x) x = part[x] = part[part[x]];
      return x;
    };
    for (const auto& c : fabric_.cables) part[find(c.a)] = find(c.b);
    std::vector<std::uint32_t> representative(switches, UINT32_MAX);
    for (std::uint32_t t : fabric_.top_switches) {
      if (representative[find(t)] == UINT32_MAX) representative[find(t)] = t;
    }
    for (std::uint32_t s = 0; s < switches; ++s) {
      if (representative[find(s)] == UINT32_MAX) representative[find(s)] = s;
    }
    const std::uint32_t root = switches;
    fabric_.switches.emplace_back(kForestRoot);
    for (std::uint32_t s = 0; s < switches; ++s) {
      if (find(s) == s) fabric_.cables.push_back({root, representative[s], 0});
    }
    fabric_.top_switches = {root};
  }

  const Declarations& decls_;
  const WarningSink& warn_;
  Fabric fabric_;
  HostTable hosts_;
  std::unordered_map<std::string_view, std::uint32_t> index_;  // names held by decls_
  std::vector<bool> listed_;                            // listed under some other switch's Switches=
  // Cable (low, high) -> the switch that listed it, or kBothEnds once each end has listed the other.
  static constexpr std::uint32_t kBothEnds = UINT32_MAX;
  std::unordered_map<std::uint64_t, std::uint32_t> lister_;
  // Node names as written (held by decls_) -> their first switch, and any others.
  std::unordered_map<std::string_view, std::uint32_t> first_switch_;
  std::unordered_map<std::string_view, std::vector<std::uint32_t>> more_switches_;
  Oddity two_cycles_, repeated_, self_listed_, several_leaves_;
};

}  // namespace

Fabric tree_fabric(const Declarations& decls, const GuidMap* map, const WarningSink& warn) {
  return TreeBuilder(decls, map, warn).build();
}

Fabric block_fabric(const Declarations& decls, const GuidMap* map, const WarningSink& warn) {
  if (decls.blocks.empty()) {
    fail("{}: defines no block ({})", decls.source,
         decls.yaml ? "its 'blocks:' list is empty" : "every BlockName= line is commented out?");
  }
  Fabric fabric;
  fabric.source = decls.source;
  std::size_t nodes = 0;
  for (const auto& block : decls.blocks) nodes += block.nodes.size();
  HostTable hosts(fabric, map, nodes);
  fabric.host_ports.reserve(nodes);
  std::unordered_map<std::string, std::size_t> block_index;
  std::unordered_map<std::string, std::size_t> node_block;  // node name as written -> block index
  Oddity empty_blocks;
  for (const auto& block : decls.blocks) {
    const auto [it, added] = block_index.try_emplace(block.name, fabric.switches.size());
    if (!added) {
      fail("{}: block '{}' is defined twice (first on {})", decls.where(block.place), block.name,
           decls.earlier(decls.blocks[it->second].place, block.place));
    }
    const auto sw = static_cast<std::uint32_t>(fabric.switches.size());
    fabric.switches.push_back(block.name);
    if (block.nodes.empty()) empty_blocks.add(block.name);
    for (const auto& node : block.nodes) {
      const auto [in, first] = node_block.try_emplace(node, sw);
      if (!first) {
        fail("{}: node '{}' is already in block '{}' ({})", decls.where(block.place), node, fabric.switches[in->second],
             decls.earlier(decls.blocks[in->second].place, block.place));
      }
      fabric.host_ports.push_back({hosts.host_of(node), sw, 0.0});
    }
  }
  if (fabric.hosts.empty()) fail("{}: its blocks hold no node", decls.source);
  // A block says nothing about links: its nodes share one switch, and the blocks one root.
  std::string root = "blocks";
  while (block_index.count(root) > 0) root += "_root";
  const auto root_index = static_cast<std::uint32_t>(fabric.switches.size());
  fabric.switches.push_back(root);
  for (std::uint32_t b = 0; b < root_index; ++b) fabric.cables.push_back({root_index, b, 0.0});
  fabric.top_switches = {root_index};
  if (empty_blocks.count > 0) {
    warn(fmt::format("{}: {} with no node, e.g. '{}'", decls.source, counted(empty_blocks.count, "block", "blocks"),
                     empty_blocks.example));
  }
  hosts.warn(warn);
  return fabric;
}

}  // namespace taskmap::slurm
