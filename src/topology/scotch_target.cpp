// Scotch target architecture files (tgt:FILE): each kind becomes the taskmap machine of the same
// distances, with Scotch's terminal order as the slot order (docs/scotch.md). The kinds, their
// fields and their terminal numbering follow Scotch 7's target loaders.
#include "taskmap/topology/scotch_target.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "common_checks.h"
#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/core/text_source.h"
#include "taskmap/topology/builders.h"
#include "taskmap/topology/distance.h"

namespace taskmap {
namespace {

constexpr std::int64_t kMaxTerminals = detail::kMaxRouters;
// Scotch's Anum is 32 bits in Debian's build.
constexpr std::int64_t kMaxScotchNumber = std::numeric_limits<std::int32_t>::max();

// A structured machine of the target's sizes, built once its outline's channels fit the memory
// limit: a few bytes of a target name millions of terminals. A builder's refusal (too many
// slots) names the file and line.
template <typename Build>
Machine checked_build(const io::TokenCursor& in, Build&& build) {
  const std::string place = fmt::format("{}:{}", in.source(), in.line_number());
  try {
    Machine outline = build(BuildDetail::Outline);
    outline.outline = true;  // counted in closed form
    std::uint64_t channels = 0;
    for (std::uint64_t c : channels_per_class(outline)) channels += c;
    check_memory(place, estimated_bytes(outline), format_count(channels) + " channels");
    return build(BuildDetail::Full);
  } catch (const LimitError&) {
    throw;  // names the place already
  } catch (const Error& e) {
    fail("{}: {}", place, e.what());
  }
}

// Mesh and torus sizes in Scotch's order (first dimension fastest) as a taskmap lattice (A slowest).
Machine lattice(io::TokenCursor& in, std::string_view kind, std::size_t dims, bool wrap, std::uint32_t slots) {
  TorusParams params;
  std::uint64_t terminals = 1;
  for (std::size_t d = 0; d < dims; ++d) {
    const auto size = in.next_int(fmt::format("{} size of dimension {}", kind, d), 1, kMaxTerminals);
    terminals *= static_cast<std::uint64_t>(size);
    if (terminals > static_cast<std::uint64_t>(kMaxTerminals)) {
      in.fail_here(fmt::format("{} has more than {} terminals, more than taskmap supports", kind, kMaxTerminals));
    }
    params.sizes.insert(params.sizes.begin(), static_cast<std::uint32_t>(size));
  }
  params.wrap.assign(dims, wrap);
  params.slots_per_node = slots;
  return checked_build(in, [&](BuildDetail detail) { return build_torus(params, detail); });
}

// Terminals of a weighted target: a router each, holding weight x slots slots.
void set_terminal_weights(Machine& m, const std::vector<std::uint32_t>& weights, std::uint32_t slots,
                          const std::string& path) {
  if (std::all_of(weights.begin(), weights.end(), [](std::uint32_t w) { return w == 1; })) return;
  std::uint64_t total = 0;
  for (std::uint32_t w : weights) total += std::uint64_t{w} * slots;
  if (total > detail::kMaxSlots) {
    fail("{}: the terminals' weights add up to {} slots, more than taskmap supports ({})", path, total,
         detail::kMaxSlots);
  }
  check_memory(path, saturating_mul(total, kBytesPerTableSlot), format_count(total) + " slots (the terminals' weights)");
  NodeTable table;
  table.first_slot.push_back(0);
  for (RouterId r = 0; r < weights.size(); ++r) {
    table.router.push_back(r);
    table.first_slot.push_back(table.first_slot.back() + weights[r] * slots);
  }
  m.set_nodes(std::move(table));
}

Machine complete(io::TokenCursor& in, bool weighted, std::uint32_t slots, const std::string& path) {
  // The complete graph's hier machine has a router over the terminals.
  const auto n = in.next_int(weighted ? "cmpltw terminal count" : "cmplt terminal count", 1, kMaxTerminals - 1);
  std::vector<std::uint32_t> weights;
  if (weighted) {
    if (static_cast<std::size_t>(n) > in.tokens_left_at_most()) {
      in.fail_here(fmt::format("cmpltw announces {} terminal weights but the file is too short to hold them", n));
    }
    for (std::int64_t t = 0; t < n; ++t) {
      weights.push_back(static_cast<std::uint32_t>(in.next_int(fmt::format("weight of terminal {}", t), 1, kMaxScotchNumber)));
    }
  }
  // Every terminal 1 from every other: one level of a hierarchy.
  const HierParams params{.sizes = {static_cast<std::uint32_t>(n)}, .dist = {1}, .slots_per_node = slots};
  Machine m = checked_build(in, [&](BuildDetail detail) { return build_hier(params, detail); });
  if (weighted) set_terminal_weights(m, weights, slots, path);
  return m;
}

// "tleaf L size_1 cost_1 ... size_L cost_L", the root's level first; a leaf's distance to another
// is the sum of the costs on the way up from it to their lowest common ancestor.
Machine tree_leaf(io::TokenCursor& in, std::uint32_t slots) {
  const auto levels = in.next_int("tleaf level count", 1, 16);
  HierParams params;
  params.slots_per_node = slots;
  std::vector<std::uint32_t> costs;
  std::uint64_t leaves = 1;
  for (std::int64_t l = 0; l < levels; ++l) {
    const auto size = in.next_int(fmt::format("tleaf size of level {}", l), 2, kMaxTerminals);
    leaves *= static_cast<std::uint64_t>(size);
    if (leaves > static_cast<std::uint64_t>(kMaxTerminals)) {
      in.fail_here(fmt::format("tleaf has more than {} leaves, more than taskmap supports", kMaxTerminals));
    }
    params.sizes.insert(params.sizes.begin(), static_cast<std::uint32_t>(size));
    costs.insert(costs.begin(), static_cast<std::uint32_t>(in.next_int(fmt::format("tleaf link cost of level {}", l), 1, 1 << 20)));
  }
  std::uint32_t distance = 0;
  for (std::uint32_t cost : costs) params.dist.push_back(distance += cost);
  return checked_build(in, [&](BuildDetail detail) { return build_hier(params, detail); });
}

// A deco target: terminal labels and weights, and the distance of every pair of terminals.
struct Decomposition {
  std::vector<std::int64_t> labels;   // per terminal, in the order read
  std::vector<std::uint32_t> weights;
  std::vector<std::uint32_t> distance;  // n x n
  std::size_t size() const { return labels.size(); }
  std::uint32_t& at(std::size_t i, std::size_t j) { return distance[i * size() + j]; }
};

void check_table_memory(io::TokenCursor& in, std::uint64_t entries, std::uint64_t terminals) {
  if (entries > in.tokens_left_at_most()) {
    in.fail_here(fmt::format("deco announces {} distances but the file is too short to hold them", entries));
  }
  // The table as read, the n x n distances, and at most a channel per ordered pair.
  check_memory(fmt::format("{}:{}", in.source(), in.line_number()),
               saturating_add(saturating_mul(terminals * terminals, 4 + sizeof(Channel)), saturating_mul(entries, 4)),
               format_count(terminals) + " terminals' distance table");
}

// "deco 0 n max": n lines "label weight domain", then the distances of terminal i to terminals
// 0 .. i-1 for i = 1 .. n-1, in the order of the terminals' lines.
Decomposition raw_decomposition(io::TokenCursor& in) {
  const auto n = in.next_int("deco terminal count", 1, kMaxTerminals);
  const auto domains = in.next_int("deco largest domain number", n, kMaxScotchNumber);
  if (static_cast<std::uint64_t>(n) * 3 > in.tokens_left_at_most()) {
    in.fail_here(fmt::format("deco announces {} terminals but the file is too short to hold them", n));
  }
  Decomposition d;
  for (std::int64_t t = 0; t < n; ++t) {
    d.labels.push_back(in.next_int(fmt::format("label of terminal {}", t), 0, kMaxScotchNumber));
    d.weights.push_back(static_cast<std::uint32_t>(in.next_int(fmt::format("weight of terminal {}", t), 1, kMaxScotchNumber)));
    in.next_int(fmt::format("domain number of terminal {}", t), 1, domains);
  }
  const auto terminals = static_cast<std::uint64_t>(n);
  check_table_memory(in, terminals * (terminals - 1) / 2, terminals);
  d.distance.assign(terminals * terminals, 0);
  for (std::size_t i = 1; i < terminals; ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      d.at(i, j) = d.at(j, i) = static_cast<std::uint32_t>(
          in.next_int(fmt::format("distance of terminals {} and {}", d.labels[i], d.labels[j]), 1, kMaxScotchNumber));
    }
  }
  return d;
}

// "deco 1 n max" (as amk_grf writes it): max lines "label size weight", one per domain of the
// decomposition (domain i's children are 2i and 2i+1), then the distances of domains i > j,
// i = 2 .. max. The terminals are the domains of size 1; a label held by several (a domain with
// one terminal below it) is the terminal's of the deepest, as Scotch looks it up.
Decomposition compiled_decomposition(io::TokenCursor& in) {
  const auto n = in.next_int("deco terminal count", 1, kMaxTerminals);
  const auto domains = in.next_int("deco domain count", n, 2 * kMaxTerminals);
  if (static_cast<std::uint64_t>(domains) * 3 > in.tokens_left_at_most()) {
    in.fail_here(fmt::format("deco announces {} domains but the file is too short to hold them", domains));
  }
  std::vector<std::int64_t> label(static_cast<std::size_t>(domains)), size(label.size()), weight(label.size());
  for (std::size_t i = 0; i < label.size(); ++i) {
    label[i] = in.next_int(fmt::format("label of domain {}", i + 1), -1, kMaxScotchNumber);
    size[i] = in.next_int(fmt::format("size of domain {}", i + 1), 0, kMaxScotchNumber);
    weight[i] = in.next_int(fmt::format("weight of domain {}", i + 1), 0, kMaxScotchNumber);
  }
  const auto domain_count = static_cast<std::uint64_t>(domains);
  const std::size_t table_line = in.line_number();
  check_table_memory(in, domain_count * (domain_count - 1) / 2, static_cast<std::uint64_t>(n));
  std::vector<std::uint32_t> table(domain_count * (domain_count - 1) / 2);
  for (std::size_t k = 0; k < table.size(); ++k) {
    table[k] = static_cast<std::uint32_t>(in.next_int("domain distance", 0, kMaxScotchNumber));
  }
  // Terminal domains, deepest first; then in label order for the reading below.
  Decomposition d;
  std::vector<std::size_t> domain_of;  // per terminal
  for (std::size_t i = label.size(); i-- > 0;) {
    if (size[i] != 1) continue;
    if (std::find(d.labels.begin(), d.labels.end(), label[i]) != d.labels.end()) continue;
    if (label[i] < 0 || weight[i] < 1) {
      fail("{}: domain {} is a terminal (size 1) with label {} and weight {}; a terminal has a label of 0 or more "
           "and a weight of 1 or more", in.source(), i + 1, label[i], weight[i]);
    }
    d.labels.push_back(label[i]);
    d.weights.push_back(static_cast<std::uint32_t>(weight[i]));
    domain_of.push_back(i + 1);
  }
  if (d.size() != static_cast<std::size_t>(n)) {
    fail("{}: the header announces {} terminals but {} domains of size 1 have distinct labels", in.source(), n, d.size());
  }
  d.distance.assign(d.size() * d.size(), 0);
  for (std::size_t a = 0; a < d.size(); ++a) {
    for (std::size_t b = 0; b < a; ++b) {
      const std::size_t i = std::max(domain_of[a], domain_of[b]), j = std::min(domain_of[a], domain_of[b]);
      const std::uint32_t value = table[(i - 1) * (i - 2) / 2 + j - 1];
      if (value == 0) {
        fail("{}:{}: terminals {} and {} are at distance 0 in the table that starts here; distinct terminals are "
             "at least 1 apart", in.source(), table_line, d.labels[a], d.labels[b]);
      }
      d.at(a, b) = d.at(b, a) = value;
    }
  }
  return d;
}

// The graph of the terminals at distance 1, when its hop counts are the table's distances.
Machine decomposition_machine(Decomposition d, const std::string& path, std::uint32_t slots) {
  const std::size_t n = d.size();
  // Routers in label order.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return d.labels[a] < d.labels[b]; });
  for (std::size_t i = 1; i < n; ++i) {
    if (d.labels[order[i]] == d.labels[order[i - 1]]) fail("{}: two terminals have the label {}", path, d.labels[order[i]]);
  }
  detail::check_machine_size(path.c_str(), n, 1, slots);
  Machine m;
  m.num_routers = static_cast<std::uint32_t>(n);
  m.slots_per_node = slots;
  m.shape = GraphShape{path};
  const std::uint16_t link = m.add_class("link", 1.0);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      if (a != b && d.at(order[a], order[b]) == 1) m.add_channel(static_cast<RouterId>(a), static_cast<RouterId>(b), link);
    }
  }
  // Breadth-first from every terminal over those links: the table must be the hop counts.
  const ChannelAdjacency adjacency(m, false);
  std::vector<std::uint32_t> hops(n);
  std::vector<RouterId> queue(n);
  for (std::size_t a = 0; a < n; ++a) {
    bfs_row(m, adjacency, static_cast<RouterId>(a), hops, queue);
    for (std::size_t b = 0; b < n; ++b) {
      if (hops[b] == d.at(order[a], order[b])) continue;
      const std::string through = hops[b] == UINT32_MAX ? "unreachable" : fmt::format("{} apart", hops[b]);
      fail("{}: the distances are not a graph's hop counts: terminals {} and {} are {} apart in the table but {} "
           "over the pairs at distance 1 (taskmap reads deco targets of unit-distance links, as amk_grf writes for "
           "a graph without edge weights)",
           path, d.labels[order[a]], d.labels[order[b]], d.at(order[a], order[b]), through);
    }
  }
  std::vector<std::uint32_t> weights(n), labels(n);
  bool identity = true;
  for (std::size_t r = 0; r < n; ++r) {
    weights[r] = d.weights[order[r]];
    labels[r] = static_cast<std::uint32_t>(d.labels[order[r]]);
    identity = identity && labels[r] == r;
  }
  set_terminal_weights(m, weights, slots, path);
  if (!identity) m.scotch_terminals = std::move(labels);
  return m;
}

Machine decomposition(io::TokenCursor& in, std::uint32_t slots) {
  const auto type = in.next_int("deco type", 0, 2);
  if (type == 2) {
    in.fail_here("deco 2 targets (a graph and its coarsenings, amk_grf -2) are not read; write the target with "
                 "amk_grf without -2 (a deco 1 target)");
  }
  Decomposition d = type == 0 ? raw_decomposition(in) : compiled_decomposition(in);
  return decomposition_machine(std::move(d), in.source(), slots);
}

}  // namespace

Machine read_scotch_target(const std::string& path, std::uint32_t slots_per_terminal) {
  io::TokenCursor in(path, io::read_text_file(path));
  const auto name = in.next();
  if (!name) fail("{}: empty file; a Scotch target starts with its kind (cmplt, hcub, mesh2D, torus3D, tleaf, ...)", path);
  const std::string kind(*name);
  const std::uint32_t slots = slots_per_terminal;
  Machine m;
  if (kind == "cmplt" || kind == "cmpltw") {
    m = complete(in, kind == "cmpltw", slots, path);
  } else if (kind == "hcub") {
    const auto d = static_cast<std::uint32_t>(in.next_int("hcub dimension", 1, 22));
    m = checked_build(in, [&](BuildDetail detail) { return build_hypercube(d, 1, slots, detail); });
  } else if (kind == "mesh2D" || kind == "torus2D" || kind == "mesh3D" || kind == "torus3D") {
    m = lattice(in, kind, kind.ends_with("2D") ? 2 : 3, kind.starts_with("torus"), slots);
  } else if (kind == "meshXD" || kind == "torusXD") {
    const auto dims = in.next_int(kind + " dimension count", 1, 25);
    m = lattice(in, kind, static_cast<std::size_t>(dims), kind == "torusXD", slots);
  } else if (kind == "tleaf") {
    m = tree_leaf(in, slots);
  } else if (kind == "deco") {
    m = decomposition(in, slots);
  } else if (kind == "ltleaf" || kind == "sub" || kind == "dist" || kind == "varcmplt" || kind == "varhcub") {
    in.fail_here(fmt::format("Scotch target '{}' is not read (taskmap reads cmplt, cmpltw, hcub, mesh2D, mesh3D, "
                             "meshXD, torus2D, torus3D, torusXD, tleaf and deco 0 and 1)", kind));
  } else {
    in.fail_here(fmt::format("'{}' is not a Scotch target kind (cmplt, cmpltw, hcub, mesh2D, mesh3D, meshXD, torus2D, "
                             "torus3D, torusXD, tleaf, deco)", io::printable(kind)));
  }
  if (auto extra = in.next()) {
    in.fail_here(fmt::format("'{}' after the end of the {} target", io::printable(*extra), kind));
  }
  return m;
}

ScotchTerminals::ScotchTerminals(const Machine& machine) : number_of_router_(machine.num_routers, UINT32_MAX) {
  for (RouterId r = 0; r < machine.num_routers; ++r) {
    if (machine.slots_of_router(r) == 0) continue;
    const std::size_t i = routers_.size();
    routers_.push_back(r);
    numbers_.push_back(machine.scotch_terminals.empty() ? static_cast<std::uint32_t>(i) : machine.scotch_terminals.at(i));
    number_of_router_[r] = numbers_.back();
    identity_ = identity_ && numbers_.back() == i;
  }
}

std::optional<RouterId> ScotchTerminals::router(std::int64_t terminal) const {
  if (terminal < 0) return std::nullopt;
  if (identity_) {
    if (static_cast<std::uint64_t>(terminal) >= routers_.size()) return std::nullopt;
    return routers_[static_cast<std::size_t>(terminal)];
  }
  // Labels are increasing in router order (read_scotch_target sorts them).
  const auto it = std::lower_bound(numbers_.begin(), numbers_.end(), terminal,
                                   [](std::uint32_t a, std::int64_t b) { return std::int64_t{a} < b; });
  if (it == numbers_.end() || *it != terminal) return std::nullopt;
  return routers_[static_cast<std::size_t>(it - numbers_.begin())];
}

std::string TleafLevels::text() const {
  std::string out = fmt::format("tleaf {}", sizes.size());
  for (std::size_t l = 0; l < sizes.size(); ++l) out += fmt::format(" {} {}", sizes[l], costs[l]);
  return out;
}

TleafLevels tleaf_levels(const HierShape& hier) {
  // Bottom up: levels of one group left out, levels of the distance of the one below merged.
  std::vector<std::uint32_t> sizes, dist;
  for (std::uint32_t l = 0; l < hier.levels(); ++l) {
    if (hier.sizes[l] == 1) continue;
    if (!dist.empty() && dist.back() == hier.dist[l]) {
      sizes.back() *= hier.sizes[l];
    } else {
      sizes.push_back(hier.sizes[l]);
      dist.push_back(hier.dist[l]);
    }
  }
  TleafLevels out;
  for (std::size_t l = sizes.size(); l-- > 0;) {
    out.sizes.push_back(sizes[l]);
    out.costs.push_back(dist[l] - (l > 0 ? dist[l - 1] : 0));
  }
  return out;
}

}  // namespace taskmap
