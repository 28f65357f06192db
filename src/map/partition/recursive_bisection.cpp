#include "recursive_bisection.h"

#include <metis.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

namespace taskmap::detail {
namespace {

std::vector<RouterId> with_slots(const Machine& machine, const std::vector<RouterId>& routers) {
  std::vector<RouterId> out;
  for (RouterId r : routers)
    if (machine.slots_of_router(r) > 0) out.push_back(r);
  return out;
}

std::uint64_t slots_of(const Machine& machine, const std::vector<RouterId>& routers) {
  std::uint64_t sum = 0;
  for (RouterId r : routers) sum += machine.slots_of_router(r);
  return sum;
}

// Per router, what the splits share a job's tasks (`tasks`: their weight) by, where the job
// leaves slots free and the nodes' own links differ in speed (else empty: the slots): a node
// behind a slower link is given fewer tasks, in proportion to its speed as far as the free
// slots allow. At half speed, half as many tasks load its link as much as full nodes load
// theirs; with shares by slots METIS fills such a node like any other, and the refiners that
// keep each leaf's task count cannot empty it when its leaf has no free slot.
std::vector<double> task_capacities(const Machine& machine, double tasks) {
  const std::vector<double> of_node = link_speed_capacities(machine, tasks);
  if (of_node.empty()) return {};
  std::vector<double> capacity(machine.num_routers, 0);
  for (NodeId n = 0; n < machine.num_nodes(); ++n) capacity[machine.router_of_node(n)] += of_node[n];
  return capacity;
}

}  // namespace

RecursiveBisection::RecursiveBisection(const Machine& machine, double imbalance, std::uint32_t tries, std::int32_t seed,
                                       bool orient, bool leaves_first, bool by_link_speed)
    : machine_(machine),
      imbalance_(imbalance),
      tries_(tries),
      seed_(seed),
      orient_(orient),
      leaves_first_(leaves_first),
      by_link_speed_(by_link_speed) {
  if (!machine.torus() && !routers_alike(machine)) hierarchy_.emplace(machine);
}

// Splits breadth first, so that a split is oriented against pieces as fine as its own.
std::vector<RouterId> RecursiveBisection::run(const IntegerGraph& g, const std::vector<std::int32_t>& vertex_weights) const {
  std::vector<RouterId> router_of(g.vertices(), 0);
  std::vector<Piece> pieces(1);
  pieces[0].tasks.resize(g.vertices());
  std::iota(pieces[0].tasks.begin(), pieces[0].tasks.end(), TaskId{0});
  pieces[0].routers.resize(machine_.num_routers);
  std::iota(pieces[0].routers.begin(), pieces[0].routers.end(), RouterId{0});
  if (hierarchy_) pieces[0].routers = routers_with_slots(machine_);  // the splits go by distance: switches play no part
  std::optional<HopDistance> hops;
  std::vector<std::int32_t> index(g.vertices(), -1);  // bisect's scratch
  std::vector<std::uint32_t> piece_of;
  std::vector<RouterId> representative;  // per piece: its middle router with slots
  auto middle = [&](const std::vector<RouterId>& routers) {
    const std::vector<RouterId> holding = with_slots(machine_, routers);
    return holding.empty() ? routers.front() : holding[holding.size() / 2];
  };
  auto weight_of = [&](TaskId t) { return vertex_weights.empty() ? 1.0 : double(vertex_weights[t]); };
  double tasks_weight = 0;
  for (TaskId t = 0; t < g.vertices(); ++t) tasks_weight += weight_of(t);
  const std::vector<double> capacity = by_link_speed_ ? task_capacities(machine_, tasks_weight) : std::vector<double>{};
  auto capacity_of = [&](const std::vector<RouterId>& routers) {
    if (capacity.empty()) return double(slots_of(machine_, routers));
    double sum = 0;
    for (RouterId r : routers) sum += capacity[r];
    return sum;
  };
  if (leaves_first_) {
    if (std::vector<Piece> leaves = leaf_pieces(g, vertex_weights, capacity_of); !leaves.empty()) pieces = std::move(leaves);
  }
  if (orient_) {
    hops.emplace(machine_);
    piece_of.assign(g.vertices(), 0);
    for (std::uint32_t p = 0; p < pieces.size(); ++p) {
      for (TaskId t : pieces[p].tasks) piece_of[t] = p;
      representative.push_back(middle(pieces[p].routers));
    }
  }
  for (std::uint32_t p = 0; p < pieces.size(); ++p) {
    if (pieces[p].tasks.empty()) continue;
    const std::vector<RouterId> holding = with_slots(machine_, pieces[p].routers);
    if (holding.size() == 1) {
      for (TaskId t : pieces[p].tasks) router_of[t] = holding.front();
      continue;
    }
    auto [first, second] = hierarchy_ ? hierarchy_->split(holding) : std::pair<std::vector<RouterId>, std::vector<RouterId>>{};
    if (first.empty()) std::tie(first, second) = halve_routers(hierarchy_ ? holding : pieces[p].routers);
    double share = capacity_of(first) / capacity_of(pieces[p].routers);
    if (!capacity.empty()) {  // neither side beyond its slots
      double weight = 0;
      for (TaskId t : pieces[p].tasks) weight += weight_of(t);
      const double first_slots = double(slots_of(machine_, first)), second_slots = double(slots_of(machine_, second));
      if (weight <= first_slots + second_slots) share = std::clamp(share, 1 - second_slots / weight, first_slots / weight);
    }
    const std::vector<bool> in_first = bisect(g, vertex_weights, pieces[p].tasks, share, index);
    Piece a, b;
    for (std::size_t i = 0; i < pieces[p].tasks.size(); ++i) (in_first[i] ? a : b).tasks.push_back(pieces[p].tasks[i]);
    a.routers = std::move(first);
    b.routers = std::move(second);
    if (orient_) {
      const RouterId ra = middle(a.routers), rb = middle(b.routers);
      // The halves trade places when that suits their outside partners; only equal router
      // halves can take each other's task halves.
      if (slots_of(machine_, a.routers) == slots_of(machine_, b.routers) &&
          swapped_is_nearer(g, a.tasks, b.tasks, ra, rb, piece_of, p, representative, *hops)) {
        std::swap(a.tasks, b.tasks);
      }
      const auto id = static_cast<std::uint32_t>(pieces.size());
      for (TaskId t : a.tasks) piece_of[t] = id;
      for (TaskId t : b.tasks) piece_of[t] = id + 1;
      representative.push_back(ra);
      representative.push_back(rb);
    }
    pieces.push_back(std::move(a));
    pieces.push_back(std::move(b));
    pieces[p] = Piece{};
  }
  return router_of;
}

std::vector<RecursiveBisection::Piece> RecursiveBisection::leaf_pieces(
    const IntegerGraph& g, const std::vector<std::int32_t>& vertex_weights,
    const std::function<double(const std::vector<RouterId>&)>& capacity_of) const {
  const std::vector<std::uint32_t> group = leaf_groups(machine_);
  std::vector<Piece> leaves;
  std::vector<std::int32_t> leaf_of_group;
  for (RouterId r = 0; r < group.size(); ++r) {
    if (group[r] == UINT32_MAX || machine_.slots_of_router(r) == 0) continue;
    if (group[r] >= leaf_of_group.size()) leaf_of_group.resize(group[r] + 1, -1);
    if (leaf_of_group[group[r]] < 0) {
      leaf_of_group[group[r]] = static_cast<std::int32_t>(leaves.size());
      leaves.emplace_back();
    }
    leaves[static_cast<std::size_t>(leaf_of_group[group[r]])].routers.push_back(r);
  }
  const std::uint32_t n = g.vertices();
  if (leaves.size() < 2 || leaves.size() > n || g.targets.empty()) return {};
  std::vector<double> holds;  // what each leaf holds: its slots, or its share by link speed
  for (const Piece& leaf : leaves) holds.push_back(capacity_of(leaf.routers));
  const double total = std::accumulate(holds.begin(), holds.end(), 0.0);
  // METIS's recursive k-way first halves the list of parts (the first half of the leaves
  // against the second), so the list's order decides which leaves share a side of the first
  // cuts. In the routers' order, the small leaves of a job (the partly used ones a scheduler's
  // range starts and ends on) each take a piece of a different region of the task graph, and
  // every piece cuts into its neighbours; sorted by size, they sit side by side and share one
  // region. Hence three orders, the least cut kept (ties to the earlier): the routers', the
  // leaves by slots ascending, and descending.
  std::vector<std::vector<std::size_t>> orders(1, std::vector<std::size_t>(leaves.size()));
  std::iota(orders[0].begin(), orders[0].end(), std::size_t{0});
  std::vector<std::size_t> by_size = orders[0];
  std::stable_sort(by_size.begin(), by_size.end(), [&](std::size_t a, std::size_t b) { return holds[a] < holds[b]; });
  std::vector<std::size_t> by_size_down = orders[0];
  std::stable_sort(by_size_down.begin(), by_size_down.end(), [&](std::size_t a, std::size_t b) { return holds[a] > holds[b]; });
  for (std::vector<std::size_t> order : {by_size, by_size_down})
    if (std::find(orders.begin(), orders.end(), order) == orders.end()) orders.push_back(std::move(order));
  std::optional<std::vector<idx_t>> best;
  double best_cut = 0;
  for (const std::vector<std::size_t>& order : orders) {
    std::vector<real_t> share;
    for (std::size_t leaf : order) share.push_back(static_cast<real_t>(holds[leaf] / total));
    IntegerGraph copy = g;  // METIS takes non-const arrays
    std::vector<std::int32_t> weights = vertex_weights;
    std::optional<std::vector<idx_t>> part = metis_parts(copy, std::move(share), weights);
    if (!part) continue;
    for (idx_t& p : *part) p = static_cast<idx_t>(order[static_cast<std::size_t>(p)]);
    double cut = 0;
    for (TaskId t = 0; t < n; ++t)
      for (std::int32_t e = g.offsets[t]; e < g.offsets[t + 1]; ++e)
        if ((*part)[t] != (*part)[static_cast<std::size_t>(g.targets[e])]) cut += g.weights[e];
    if (!best || cut < best_cut) best = std::move(part), best_cut = cut;
  }
  if (!best) return {};
  for (TaskId t = 0; t < n; ++t) leaves[static_cast<std::size_t>((*best)[t])].tasks.push_back(t);
  improve_leaf_pairs(g, vertex_weights, holds, leaves);
  return leaves;
}

// The tasks of two leaves shared out again between them, pair after pair, most traffic between
// them first. An edge from either leaf to a third is cut wherever its task goes among the two,
// so the cut between the two is all that changes, and a lower one is kept (each leaf at most
// what it holds, or its share of the tasks when they outnumber that, or the tasks it had).
// Only leaves alike for the rest of the job (as far from each of its other leaves: two leaves
// of one pod) are paired, so that such an edge also goes as far as before. Where METIS's k-way
// cut one leaf's tasks out of several regions of the graph, sharing out again with a
// neighbour gathers them.
void RecursiveBisection::improve_leaf_pairs(const IntegerGraph& g, const std::vector<std::int32_t>& vertex_weights,
                                             const std::vector<double>& holds, std::vector<Piece>& leaves) const {
  if (leaves.size() > kLeafPairMaxLeaves) return;
  const std::uint32_t n = g.vertices();
  std::vector<std::uint32_t> leaf_of(n, 0);
  for (std::uint32_t l = 0; l < leaves.size(); ++l)
    for (TaskId t : leaves[l].tasks) leaf_of[t] = l;
  auto weight_of = [&](TaskId t) { return vertex_weights.empty() ? 1.0 : double(vertex_weights[t]); };
  // What a leaf may hold: `holds`, or with more tasks than that its share of the tasks.
  double tasks_weight = 0;
  for (TaskId t = 0; t < n; ++t) tasks_weight += weight_of(t);
  const double all_holds = std::accumulate(holds.begin(), holds.end(), 0.0);
  std::vector<double> capacity;
  for (double h : holds) capacity.push_back(h * std::max(1.0, tasks_weight / all_holds));
  std::vector<std::int32_t> member(n, -1);  // 0 or 1: a task's leaf in the pair being shared out
  std::vector<std::int32_t> index(n, -1);   // bisect's scratch
  // The weight of the edges between the pair's two leaves.
  auto cut_between = [&](const std::vector<TaskId>& tasks) {
    double cut = 0;
    for (TaskId t : tasks)
      for (std::int32_t e = g.offsets[t]; e < g.offsets[t + 1]; ++e) {
        const std::int32_t there = member[static_cast<std::size_t>(g.targets[e])];
        if (there >= 0 && there != member[t]) cut += g.weights[e];
      }
    return cut / 2;
  };
  // Shares the tasks of leaves a and b out again; true when that lowered the cut between them.
  // Tried: each leaf keeping its weight; where there are free slots, either leaf filling its
  // own from the other's tasks (taking all of them when they fit), and one bisection free to
  // end anywhere in between. With fewer tasks than slots, a leaf whose share cut a region of
  // the graph unevenly so takes a better one of a little more or less. `work` counts the
  // tasks bisected.
  auto share_out = [&](std::uint32_t a, std::uint32_t b, double& work) {
    std::vector<TaskId> tasks = leaves[a].tasks;
    tasks.insert(tasks.end(), leaves[b].tasks.begin(), leaves[b].tasks.end());
    double had_a = 0, had_b = 0;
    for (TaskId t : leaves[a].tasks) member[t] = 0, had_a += weight_of(t);
    for (TaskId t : leaves[b].tasks) member[t] = 1, had_b += weight_of(t);
    const double before = cut_between(tasks), total = had_a + had_b;
    // What a may hold: at least low_a, at most high_a.
    const double low_a = had_a - std::clamp(capacity[b] - had_b, 0.0, had_a);
    const double high_a = had_a + std::clamp(capacity[a] - had_a, 0.0, had_b);
    struct Option {
      double share;  // of the bisection; 0 or 1: one leaf takes all
      SplitSettings settings;
    };
    std::vector<Option> options{{had_a / total, {}}};
    if (high_a - low_a >= 1) {
      // Either leaf filling its free slots, and shares in proportion to the most each side may
      // hold with a balance that lets each side reach exactly that (METIS then takes the
      // least cut it finds anywhere in the range); a quarter of the run's tries each, so that
      // a job on a mostly free fabric does not take four times as long.
      const SplitSettings fewer{.tries = std::max(1u, tries_ / 4)};
      if (low_a < had_a) options.push_back({low_a / total, fewer});
      if (high_a > had_a) options.push_back({high_a / total, fewer});
      const double most_b = total - low_a;
      options.push_back({high_a / (high_a + most_b), {.balance = (high_a + most_b) / total, .tries = fewer.tries}});
    }
    std::optional<std::vector<bool>> best;
    double best_cut = before;
    for (const Option& option : options) {
      std::vector<bool> in_a(tasks.size(), option.share >= 1);
      if (option.share > 0 && option.share < 1) {
        in_a = bisect(g, vertex_weights, tasks, option.share, index, option.settings);
        work += double(tasks.size());
      }
      double now_a = 0, now_b = 0;
      for (std::size_t i = 0; i < tasks.size(); ++i) {
        member[tasks[i]] = in_a[i] ? 0 : 1;
        (in_a[i] ? now_a : now_b) += weight_of(tasks[i]);
      }
      const double cut = cut_between(tasks);
      if (now_a <= std::max(had_a, capacity[a]) && now_b <= std::max(had_b, capacity[b]) && cut < best_cut)
        best = std::move(in_a), best_cut = cut;
    }
    if (best) {
      leaves[a].tasks.clear();
      leaves[b].tasks.clear();
      for (std::size_t i = 0; i < tasks.size(); ++i) {  // a's tasks, then b's: each list is sorted again below
        leaf_of[tasks[i]] = (*best)[i] ? a : b;
        leaves[leaf_of[tasks[i]]].tasks.push_back(tasks[i]);
      }
      std::sort(leaves[a].tasks.begin(), leaves[a].tasks.end());
      std::sort(leaves[b].tasks.begin(), leaves[b].tasks.end());
    }
    for (TaskId t : tasks) member[t] = -1;
    return best.has_value();
  };
  // Leaves a and b are alike when hops(a, x) == hops(b, x) for every other leaf x. Each leaf's
  // distances to all leaves are summed into one hash (a commutative one: a sum of mixed
  // (leaf, hops) keys), so that a pair is compared in constant time: the two sums agree once
  // their own terms (0 to itself, d(a, b) to the other) are taken out.
  const HopDistance hops(machine_);
  auto mix = [](std::uint64_t leaf, std::uint64_t distance) {
    std::uint64_t z = (leaf << 32 | distance) + 0x9e3779b97f4a7c15ULL;  // splitmix64
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  auto representative = [&](std::uint32_t leaf) { return leaves[leaf].routers.front(); };
  std::vector<std::uint64_t> signature(leaves.size(), 0);
  for (std::uint32_t a = 0; a < leaves.size(); ++a)
    for (std::uint32_t x = 0; x < leaves.size(); ++x) signature[a] += mix(x, hops(representative(a), representative(x)));
  auto alike = [&](std::uint32_t a, std::uint32_t b) {
    const std::uint64_t d = hops(representative(a), representative(b));
    return signature[a] - mix(a, 0) - mix(b, d) == signature[b] - mix(b, 0) - mix(a, d);
  };
  // A pair is shared out again only when one of its leaves changed since it last was.
  std::vector<std::uint32_t> version(leaves.size(), 0);
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::uint32_t, std::uint32_t>> tried_at;
  for (int pass = 0; pass < kLeafPairPasses; ++pass) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, double> traffic;
    for (TaskId t = 0; t < n; ++t)
      for (std::int32_t e = g.offsets[t]; e < g.offsets[t + 1]; ++e) {
        const std::uint32_t a = leaf_of[t], b = leaf_of[static_cast<std::size_t>(g.targets[e])];
        if (a < b) traffic[{a, b}] += g.weights[e];
      }
    std::vector<std::pair<double, std::pair<std::uint32_t, std::uint32_t>>> pairs;
    for (const auto& [pair, volume] : traffic) pairs.push_back({-volume, pair});
    std::sort(pairs.begin(), pairs.end());  // most traffic first, then by leaf numbers
    // A pass shares out at most kLeafPairWork times the tasks: a leaf that talks with many
    // (a job scattered over a large fabric) is not bisected again with each of them.
    bool improved = false;
    double work = 0;
    for (const auto& [minus_volume, pair] : pairs) {
      if (!alike(pair.first, pair.second)) continue;
      const std::pair<std::uint32_t, std::uint32_t> now{version[pair.first], version[pair.second]};
      if (const auto at = tried_at.find(pair); at != tried_at.end() && at->second == now) continue;
      if (work > kLeafPairWork * double(n)) break;
      tried_at[pair] = now;
      if (share_out(pair.first, pair.second, work)) {
        tried_at[pair] = {++version[pair.first], ++version[pair.second]};
        improved = true;
      }
    }
    if (!improved) break;
  }
}

bool RecursiveBisection::swapped_is_nearer(const IntegerGraph& g, const std::vector<TaskId>& a,
                                           const std::vector<TaskId>& b, RouterId first, RouterId second,
                                           const std::vector<std::uint32_t>& piece_of, std::uint32_t self,
                                           const std::vector<RouterId>& representative,
                                           const HopDistance& hops) const {
  double kept = 0, swapped = 0;
  auto add = [&](const std::vector<TaskId>& side, RouterId here, RouterId there) {
    for (TaskId t : side) {
      for (std::int32_t e = g.offsets[t]; e < g.offsets[t + 1]; ++e) {
        const std::uint32_t q = piece_of[static_cast<std::size_t>(g.targets[e])];
        if (q == self) continue;
        const RouterId r = representative[q];
        kept += g.weights[e] * double(hops(here, r));
        swapped += g.weights[e] * double(hops(there, r));
      }
    }
  };
  add(a, first, second);
  add(b, second, first);
  return swapped < kept;
}

std::pair<std::vector<RouterId>, std::vector<RouterId>> RecursiveBisection::halve_routers(
    const std::vector<RouterId>& routers) const {
  std::vector<RouterId> first, second;
  if (const TorusShape* t = machine_.torus()) {
    // The set is a box: cut it across its longest side.
    std::size_t longest = 0;
    std::vector<std::uint32_t> low(t->dims(), UINT32_MAX), high(t->dims(), 0);
    for (RouterId r : routers)
      for (std::size_t d = 0; d < t->dims(); ++d) low[d] = std::min(low[d], t->coord(r, d)), high[d] = std::max(high[d], t->coord(r, d));
    for (std::size_t d = 1; d < t->dims(); ++d)
      if (high[d] - low[d] > high[longest] - low[longest]) longest = d;
    const std::uint32_t cut = low[longest] + (high[longest] - low[longest] + 1) / 2;
    for (RouterId r : routers) (t->coord(r, longest) < cut ? first : second).push_back(r);
    return {first, second};
  }
  // Other machines: METIS halves the routers' induced graph; where routers differ (switches
  // without slots, nodes of an allocation), it balances their slots.
  if (!adjacency_) {
    adjacency_ = router_adjacency(machine_);
    router_index_.assign(machine_.num_routers, -1);
  }
  IntegerGraph rg = router_graph(*adjacency_, routers, router_index_);
  std::vector<std::int32_t> weights;
  if (!routers_alike(machine_)) {
    for (RouterId r : routers) weights.push_back(static_cast<std::int32_t>(machine_.slots_of_router(r)));
  }
  const std::vector<bool> side = bisect_graph(rg, 0.5, std::move(weights));
  for (std::size_t i = 0; i < routers.size(); ++i) (side[i] ? first : second).push_back(routers[i]);
  if (slots_of(machine_, first) == 0 || slots_of(machine_, second) == 0) {
    // METIS gave up on a tiny or disconnected set: halve the routers with slots by id.
    const std::vector<RouterId> holding = with_slots(machine_, routers);
    first.assign(holding.begin(), holding.begin() + holding.size() / 2);
    second.assign(holding.begin() + holding.size() / 2, holding.end());
  }
  return {first, second};
}

// The run's METIS settings: its seed, its tries per split, and the --imbalance tolerance (at
// least 0.1%, below which METIS's own rounding leaves it no room) unless `settings` say otherwise.
std::optional<std::vector<idx_t>> RecursiveBisection::metis_parts(IntegerGraph& g, std::vector<real_t> shares,
                                                                  std::vector<std::int32_t>& vertex_weights,
                                                                  const SplitSettings& settings) const {
  idx_t vertices = static_cast<idx_t>(g.vertices()), constraints = 1, parts = static_cast<idx_t>(shares.size()), cut = 0;
  real_t ub = static_cast<real_t>(settings.balance > 1 ? settings.balance : 1 + std::max(imbalance_, 0.001));
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = seed_;
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_NCUTS] = static_cast<idx_t>(settings.tries > 0 ? settings.tries : tries_);
  std::vector<idx_t> part(g.vertices(), 0);
  idx_t* vwgt = vertex_weights.empty() ? nullptr : vertex_weights.data();
  if (METIS_PartGraphRecursive(&vertices, &constraints, g.offsets.data(), g.targets.data(), vwgt, nullptr,
                               g.weights.data(), &parts, shares.data(), &ub, options, &cut, part.data()) != METIS_OK) {
    return std::nullopt;
  }
  return part;
}

// Bisects the tasks' induced subgraph; `share` of the tasks (by weight) go to the first side.
std::vector<bool> RecursiveBisection::bisect(const IntegerGraph& g, const std::vector<std::int32_t>& vertex_weights,
                                             const std::vector<TaskId>& tasks, double share,
                                             std::vector<std::int32_t>& index, const SplitSettings& settings) const {
  for (std::size_t i = 0; i < tasks.size(); ++i) index[tasks[i]] = static_cast<std::int32_t>(i);
  IntegerGraph sub;
  std::vector<std::int32_t> sub_weights;
  for (TaskId t : tasks) {
    for (std::int32_t e = g.offsets[t]; e < g.offsets[t + 1]; ++e) {
      if (index[g.targets[e]] < 0) continue;
      sub.targets.push_back(index[g.targets[e]]);
      sub.weights.push_back(g.weights[e]);
    }
    sub.offsets.push_back(static_cast<std::int32_t>(sub.targets.size()));
    if (!vertex_weights.empty()) sub_weights.push_back(vertex_weights[t]);
  }
  for (TaskId t : tasks) index[t] = -1;
  return bisect_graph(sub, share, std::move(sub_weights), settings);
}

// METIS two-way split with target weights share : 1 - share; without edges (or on a METIS
// refusal) the vertices in order until the first side holds its share of their weight.
std::vector<bool> RecursiveBisection::bisect_graph(IntegerGraph& g, double share,
                                                   std::vector<std::int32_t> vertex_weights,
                                                   const SplitSettings& settings) const {
  const std::uint32_t n = g.vertices();
  std::vector<bool> first(n, false);
  if (n >= 2 && !g.targets.empty()) {
    const std::vector<real_t> shares = {static_cast<real_t>(share), static_cast<real_t>(1 - share)};
    if (const auto part = metis_parts(g, shares, vertex_weights, settings)) {
      for (std::uint32_t i = 0; i < n; ++i) first[i] = (*part)[i] == 0;
      return first;
    }
  }
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < n; ++i) total += vertex_weights.empty() ? 1 : std::uint64_t(vertex_weights[i]);
  const double wanted = share * double(total);
  double taken = 0;
  for (std::uint32_t i = 0; i < n && taken + 0.5 <= wanted; ++i) {
    first[i] = true;
    taken += vertex_weights.empty() ? 1.0 : double(vertex_weights[i]);
  }
  return first;
}

}  // namespace taskmap::detail
