#include "taskmap/map/refine/refine_inject.h"

#include <fmt/format.h>
#include <metis.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "taskmap/core/error.h"
#include "taskmap/eval/recommendation.h"
#include "taskmap/map/router_placement.h"

namespace taskmap {
namespace {

struct Loads {
  double out = 0, in = 0;
};

double load_of(const Loads& l, const NodeLinkSpeeds& k) {
  const double out = k.out > 0 ? l.out / k.out : 0;
  const double in = k.in > 0 ? l.in / k.in : 0;
  return std::max(out, in);
}

// (the busier node's load, the two loads summed), compared within rounding.
struct PairScore {
  double busier = 0, sum = 0;
};
PairScore score_of(double x, double y) { return {std::max(x, y), x + y}; }
bool lower(const PairScore& a, const PairScore& b) {
  if (const int busier = compare_within_rounding(a.busier, b.busier); busier != 0) return busier < 0;
  return compare_within_rounding(a.sum, b.sum) < 0;
}

// A new split of a pair: its score, x's tasks, and the loads of x and y.
struct Split {
  PairScore score;
  std::vector<TaskId> x_tasks;
  std::array<Loads, 2> loads;
};

// METIS weights stay well inside 32 bits: the heaviest edge of a pair's graph at most 2^20,
// all of its edges together at most 2^28, the tasks' outside traffic together 2^24.
constexpr double kMaxEdgeWeight = double(1 << 20), kMaxEdgeSum = double(1 << 28), kOutsideSum = double(1 << 24);
// The nodes a pass starts pairs from: those whose load is at least this share of the busiest's.
constexpr double kBusy = 0.9;
// Bisection work (tasks bisected, times tries) a run may spend, per task of the job.
constexpr double kWorkPerTask = 128;

class InjectRefiner {
 public:
  InjectRefiner(const MappingProblem& problem, const Mapping& start, const InjectRefineOptions& options)
      : m_(problem.machine()),
        g_(problem.graph()),
        undirected_(detail::undirected_graph(g_)),
        options_(options),
        links_(node_link_speeds(m_)),
        tasks_of_(m_.num_nodes()),
        slots_of_(m_.num_nodes()),
        loads_(m_.num_nodes()),
        side_(g_.num_tasks(), -1),
        index_(g_.num_tasks(), -1) {
    const std::uint32_t n = g_.num_tasks();
    std::vector<NodeId> node_of(n);
    for (TaskId t = 0; t < n; ++t) {
      const SlotId s = start.slot_of_task[t];
      node_of[t] = m_.node_of_slot(s);
      tasks_of_[node_of[t]].push_back(t);
      slots_of_[node_of[t]].push_back(s);
    }
    // With one task per slot, a node may take tasks into its free slots: its slot list is then
    // its used slots, then its free ones, and it holds the first as many as it has tasks.
    // With more tasks than slots every node keeps its count.
    const bool one_per_slot = problem.tasks_per_slot() == 1;
    std::vector<bool> used(one_per_slot ? m_.num_slots() : 0, false);
    if (one_per_slot)
      for (TaskId t = 0; t < n; ++t) used[start.slot_of_task[t]] = true;
    for (NodeId node = 0; node < m_.num_nodes(); ++node) {
      std::sort(slots_of_[node].begin(), slots_of_[node].end());
      if (one_per_slot) {
        const SlotId first = m_.first_slot_of_node(node);
        for (SlotId s = first; s < first + m_.slots_of_node(node); ++s)
          if (!used[s]) slots_of_[node].push_back(s);
      }
    }
    // Who sends to each task: the in-edges, for the loads of the nodes' ejection links.
    in_offsets_.assign(n + 1, 0);
    for (TaskId t = 0; t < n; ++t)
      for (TaskId v : g_.targets(t)) ++in_offsets_[v + 1];
    for (TaskId t = 0; t < n; ++t) in_offsets_[t + 1] += in_offsets_[t];
    in_sources_.resize(g_.num_edges());
    in_volumes_.resize(g_.num_edges());
    std::vector<std::uint64_t> next(in_offsets_.begin(), in_offsets_.end() - 1);
    for (TaskId t = 0; t < n; ++t) {
      const auto targets = g_.targets(t);
      const auto volumes = g_.volumes(t);
      for (std::size_t e = 0; e < targets.size(); ++e) {
        in_sources_[next[targets[e]]] = t;
        in_volumes_[next[targets[e]]++] = volumes[e];
      }
    }
    for (TaskId t = 0; t < n; ++t) {
      const auto targets = g_.targets(t);
      const auto volumes = g_.volumes(t);
      for (std::size_t e = 0; e < targets.size(); ++e) {
        if (node_of[targets[e]] == node_of[t]) continue;
        loads_[node_of[t]].out += volumes[e];
        loads_[node_of[targets[e]]].in += volumes[e];
      }
    }
    const std::vector<std::uint32_t> group = leaf_groups(m_);
    std::map<std::uint32_t, std::vector<NodeId>> members;
    for (NodeId node = 0; node < m_.num_nodes(); ++node) {
      const RouterId r = m_.router_of_node(node);
      if (!slots_of_[node].empty() && r < group.size() && group[r] != UINT32_MAX) members[group[r]].push_back(node);
    }
    group_of_.assign(m_.num_nodes(), UINT32_MAX);
    for (auto& [id, nodes] : members) {
      for (NodeId node : nodes) group_of_[node] = static_cast<std::uint32_t>(groups_.size());
      groups_.push_back(std::move(nodes));
    }
  }

  double busiest() const {
    double most = 0;
    for (NodeId node = 0; node < m_.num_nodes(); ++node)
      if (!tasks_of_[node].empty()) most = std::max(most, load_of(loads_[node], links_[node]));
    return most;
  }

  void run(InjectRefineStats& stats) {
    double work = 0;
    // Its own budget of bisected tasks, or what options_.work converts to (units per bisected
    // task: kInjectUnitsPerBisectedEdge x (1 + the job's edges per task)) where that is less.
    const double per_task_edges = 1 + double(g_.num_edges()) / std::max(1.0, double(g_.num_tasks()));
    const double own = kWorkPerTask * double(g_.num_tasks());
    const double given = options_.work > 0 ? double(options_.work) * 1e6 / (kInjectUnitsPerBisectedEdge * per_task_edges) : own;
    const bool limited = given < own;
    const double budget = std::min(own, given);
    std::vector<std::uint32_t> version(m_.num_nodes(), 0);
    std::map<std::pair<NodeId, NodeId>, std::pair<std::uint32_t, std::uint32_t>> tried_at;
    for (std::uint32_t pass = 0; pass < options_.passes && work <= budget; ++pass) {
      ++stats.passes;
      // The busy nodes (within kBusy of the busiest), busiest first; each takes the partner
      // under its switches with which a new split lowers the pair's score most.
      std::vector<NodeId> order;
      std::vector<double> load(m_.num_nodes(), 0);
      double most = 0;
      for (const auto& nodes : groups_) {
        if (nodes.size() < 2) continue;
        for (NodeId node : nodes) {
          load[node] = load_of(loads_[node], links_[node]);
          most = std::max(most, load[node]);
          order.push_back(node);
        }
      }
      std::erase_if(order, [&](NodeId node) { return load[node] < kBusy * most; });
      std::stable_sort(order.begin(), order.end(), [&](NodeId a, NodeId b) { return load[a] > load[b]; });
      bool kept = false;
      for (NodeId x : order) {
        std::optional<std::pair<NodeId, Split>> best;  // the partner and the split
        PairScore best_gain;
        for (NodeId y : groups_[group_of_[x]]) {
          // Nodes of one task at most behind links of one speed only trade loads: refine-mcl's
          // moves and swaps do that.
          if (y == x || (tasks_of_[x].size() <= 1 && tasks_of_[y].size() <= 1 && links_[x].out == links_[y].out &&
                         links_[x].in == links_[y].in))
            continue;
          const std::pair<NodeId, NodeId> key{std::min(x, y), std::max(x, y)};
          const std::pair<std::uint32_t, std::uint32_t> now{version[key.first], version[key.second]};
          if (const auto at = tried_at.find(key); at != tried_at.end() && at->second == now) continue;
          if (work > budget) break;
          tried_at[key] = now;
          ++stats.pairs_tried;
          const std::vector<idx_t> counts = x_counts(x, y);
          work += double(tasks_of_[x].size() + tasks_of_[y].size()) * options_.tries * double(counts.size());
          const PairScore current = score_of(load_of(loads_[x], links_[x]), load_of(loads_[y], links_[y]));
          std::optional<Split> split = best_split(x, y, counts);
          if (!split || !lower(split->score, current)) continue;
          // Compared with the other partners by how much lower than the pair's own score.
          const PairScore gain{current.busier - split->score.busier, current.sum - split->score.sum};
          if (!best || lower(best_gain, gain)) best.emplace(y, std::move(*split)), best_gain = gain;
        }
        if (!best) continue;
        apply(x, best->first, best->second);
        ++version[x], ++version[best->first];
        ++stats.pairs_kept;
        kept = true;
      }
      if (!kept) break;
    }
    stats.out_of_work = limited && work > budget;
  }

  Mapping mapping() const {
    Mapping out;
    out.slot_of_task.assign(g_.num_tasks(), 0);
    for (NodeId node = 0; node < m_.num_nodes(); ++node) {
      const std::vector<TaskId>& tasks = tasks_of_[node];  // sorted
      std::vector<SlotId> slots(slots_of_[node].begin(), slots_of_[node].begin() + tasks.size());
      std::sort(slots.begin(), slots.end());
      for (std::size_t i = 0; i < tasks.size(); ++i) out.slot_of_task[tasks[i]] = slots[i];
    }
    return out;
  }

 private:
  // The loads of the pair's two sides as side_ marks them (0: x, 1: y; -1 outside the pair).
  std::array<Loads, 2> side_loads(const std::vector<TaskId>& tasks) const {
    std::array<Loads, 2> l{};
    for (TaskId t : tasks) {
      const int s = side_[t];
      const auto targets = g_.targets(t);
      const auto volumes = g_.volumes(t);
      for (std::size_t e = 0; e < targets.size(); ++e)
        if (side_[targets[e]] != s) l[static_cast<std::size_t>(s)].out += volumes[e];
      for (std::uint64_t e = in_offsets_[t]; e < in_offsets_[t + 1]; ++e)
        if (side_[in_sources_[e]] != s) l[static_cast<std::size_t>(s)].in += in_volumes_[e];
    }
    return l;
  }

  // The best of options_.tries METIS bisections of the pair's tasks for each count x may hold
  // (x_counts), alternately balancing the tasks' traffic with the rest of the job too and not;
  // its score, x's tasks and their loads. Nothing when METIS refuses every one.
  std::optional<Split> best_split(NodeId x, NodeId y, const std::vector<idx_t>& x_counts) {
    std::vector<TaskId> tasks = tasks_of_[x];
    tasks.insert(tasks.end(), tasks_of_[y].begin(), tasks_of_[y].end());
    const auto k = static_cast<idx_t>(tasks.size());
    for (std::size_t i = 0; i < tasks.size(); ++i) index_[tasks[i]] = static_cast<std::int32_t>(i);
    // The pair's graph, and each task's traffic with tasks outside the pair.
    std::vector<idx_t> xadj{0}, adjncy;
    std::vector<double> weights, outside(tasks.size(), 0);
    double edge_sum = 0, heaviest = 0, outside_sum = 0;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const TaskId t = tasks[i];
      for (std::uint64_t e = undirected_.offsets[t]; e < undirected_.offsets[t + 1]; ++e) {
        const std::int32_t j = index_[undirected_.targets[e]];
        if (j < 0) {
          outside[i] += undirected_.weights[e];
          continue;
        }
        adjncy.push_back(j);
        weights.push_back(undirected_.weights[e]);
        edge_sum += undirected_.weights[e];
        heaviest = std::max(heaviest, undirected_.weights[e]);
      }
      xadj.push_back(static_cast<idx_t>(adjncy.size()));
      outside_sum += outside[i];
    }
    for (TaskId t : tasks) index_[t] = -1;
    const double scale = heaviest > 0 ? std::min(kMaxEdgeWeight / heaviest, kMaxEdgeSum / edge_sum) : 1;
    std::vector<idx_t> adjwgt;
    for (double w : weights) adjwgt.push_back(static_cast<idx_t>(std::max(1.0, std::round(w * scale))));

    const double speed_x = links_[x].slower();
    const double speed_y = links_[y].slower();
    const auto x_outside_share = static_cast<real_t>(speed_x + speed_y > 0 ? speed_x / (speed_x + speed_y) : 0.5);

    std::optional<Split> best;
    std::vector<idx_t> part(tasks.size());
    const auto consider = [&] {
      for (std::size_t i = 0; i < tasks.size(); ++i) side_[tasks[i]] = static_cast<std::int8_t>(part[i]);
      const std::array<Loads, 2> loads = side_loads(tasks);
      const PairScore score = score_of(load_of(loads[0], links_[x]), load_of(loads[1], links_[y]));
      if (!best || lower(score, best->score)) {
        best = Split{score, {}, loads};
        for (std::size_t i = 0; i < tasks.size(); ++i)
          if (part[i] == 0) best->x_tasks.push_back(tasks[i]);
      }
    };
    for (const idx_t x_count : x_counts) {
      if (x_count == 0 || x_count == k) {  // one node takes them all
        std::fill(part.begin(), part.end(), x_count == 0 ? 1 : 0);
        consider();
        continue;
      }
      const auto x_share = static_cast<real_t>(double(x_count) / double(k));
      for (std::uint32_t attempt = 0; attempt < options_.tries; ++attempt) {
        idx_t constraints = attempt % 2 == 0 && outside_sum > 0 ? 2 : 1;
        std::vector<idx_t> vwgt;
        for (std::size_t i = 0; i < tasks.size(); ++i) {
          vwgt.push_back(1);
          if (constraints == 2) vwgt.push_back(static_cast<idx_t>(std::round(outside[i] / outside_sum * kOutsideSum)));
        }
        std::vector<real_t> tpwgts = constraints == 2 ? std::vector<real_t>{x_share, x_outside_share, 1 - x_share, 1 - x_outside_share}
                                                      : std::vector<real_t>{x_share, 1 - x_share};
        std::vector<real_t> ubvec = constraints == 2 ? std::vector<real_t>{1.001f, 1.05f} : std::vector<real_t>{1.001f};
        idx_t options[METIS_NOPTIONS];
        METIS_SetDefaultOptions(options);
        options[METIS_OPTION_SEED] = static_cast<idx_t>((options_.seed + attempt) % 1000000007u);
        options[METIS_OPTION_NUMBERING] = 0;
        idx_t vertices = k, parts = 2, cut = 0;
        if (adjncy.empty() || METIS_PartGraphRecursive(&vertices, &constraints, xadj.data(), adjncy.data(), vwgt.data(),
                                                       nullptr, adjwgt.data(), &parts, tpwgts.data(), ubvec.data(),
                                                       options, &cut, part.data()) != METIS_OK) {
          continue;
        }
        even_out(tasks, xadj, adjncy, adjwgt, x_count, part);
        consider();
      }
    }
    for (TaskId t : tasks) side_[t] = -1;
    return best;
  }

  // The task counts x may hold after a new split with y: its own, and when y has free slots
  // (one task per slot), x giving y as many tasks as they take, or half as many: a node
  // whose link is slow, or whose tasks talk much with the rest of the job, gets relieved by
  // holding fewer tasks. x never takes more than it has: it is the busier node of the pair.
  std::vector<idx_t> x_counts(NodeId x, NodeId y) const {
    const auto has = static_cast<idx_t>(tasks_of_[x].size());
    const auto free_y = static_cast<idx_t>(slots_of_[y].size() - tasks_of_[y].size());
    std::vector<idx_t> counts;
    if (!tasks_of_[y].empty()) counts.push_back(has);
    const idx_t give = std::min(has, free_y);
    if (give > 0) counts.push_back(has - give);
    if (give > 1) counts.push_back(has - (give + 1) / 2);
    return counts;
  }

  // Moves tasks across until side 0 holds exactly x_count: each time the one whose move
  // raises the cut least (lowest index on ties).
  static void even_out(const std::vector<TaskId>& tasks, const std::vector<idx_t>& xadj, const std::vector<idx_t>& adjncy,
                       const std::vector<idx_t>& adjwgt, idx_t x_count, std::vector<idx_t>& part) {
    idx_t on_x = static_cast<idx_t>(std::count(part.begin(), part.end(), 0));
    while (on_x != x_count) {
      const idx_t from = on_x > x_count ? 0 : 1;
      std::size_t pick = tasks.size();
      std::int64_t pick_gain = std::numeric_limits<std::int64_t>::min();
      for (std::size_t i = 0; i < tasks.size(); ++i) {
        if (part[i] != from) continue;
        std::int64_t gain = 0;  // cut saved by the move: edges to the other side minus to its own
        for (idx_t e = xadj[i]; e < xadj[i + 1]; ++e) gain += part[static_cast<std::size_t>(adjncy[e])] == from ? -adjwgt[e] : adjwgt[e];
        if (gain > pick_gain) pick = i, pick_gain = gain;
      }
      part[pick] = 1 - from;
      on_x += from == 0 ? -1 : 1;
    }
  }

  void apply(NodeId x, NodeId y, const Split& split) {
    std::vector<TaskId> tasks = tasks_of_[x];
    tasks.insert(tasks.end(), tasks_of_[y].begin(), tasks_of_[y].end());
    for (TaskId t : split.x_tasks) side_[t] = 0;
    tasks_of_[x].clear();
    tasks_of_[y].clear();
    for (TaskId t : tasks) {
      tasks_of_[side_[t] == 0 ? x : y].push_back(t);
      side_[t] = -1;
    }
    std::sort(tasks_of_[x].begin(), tasks_of_[x].end());
    std::sort(tasks_of_[y].begin(), tasks_of_[y].end());
    loads_[x] = split.loads[0];
    loads_[y] = split.loads[1];
  }

  const Machine& m_;
  const CommGraph& g_;
  const detail::UndirectedGraph undirected_;
  InjectRefineOptions options_;
  std::vector<NodeLinkSpeeds> links_;
  std::vector<std::vector<TaskId>> tasks_of_;
  // Per node: the slots it holds, then its free ones (as many as the tasks it may hold).
  std::vector<std::vector<SlotId>> slots_of_;
  std::vector<Loads> loads_;
  std::vector<std::uint64_t> in_offsets_;
  std::vector<TaskId> in_sources_;
  std::vector<double> in_volumes_;
  std::vector<std::vector<NodeId>> groups_;  // the nodes with tasks under each set of leaf switches
  std::vector<std::uint32_t> group_of_;       // per node: its index in groups_, UINT32_MAX for none
  std::vector<std::int8_t> side_;            // scratch: 0, 1 in the pair being split, else -1
  std::vector<std::int32_t> index_;          // scratch: a task's index in the pair, else -1
};

}  // namespace

bool has_injection_links(const Machine& machine) {
  if (!has_leaf_switches(machine)) return false;
  return std::any_of(machine.channels.begin(), machine.channels.end(),
                     [&](const Channel& c) { return machine.classes[c.link_class].host_link; });
}

std::string why_no_injection_links(const Machine& machine) {
  if (has_injection_links(machine)) return "";
  return fmt::format("it needs a fabric with leaf switches and injection links (a Slurm or ibnetdiscover tree), not {}",
                     machine.kind_name());
}

Mapping refine_injection(const MappingProblem& problem, Mapping start, const InjectRefineOptions& options,
                         InjectRefineStats* stats) {
  const Machine& m = problem.machine();
  if (std::string why = why_no_injection_links(m); !why.empty()) fail("refine-inject: {}", why);
  InjectRefineStats local;
  InjectRefineStats& s = stats ? *stats : local;
  InjectRefiner refiner(problem, start, options);
  s.before = refiner.busiest();
  refiner.run(s);
  s.after = refiner.busiest();
  Mapping out = refiner.mapping();
  out.note = std::move(start.note);
  return out;
}

}  // namespace taskmap
