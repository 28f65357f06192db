#include "taskmap/eval/evaluator.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/core/progress.h"
#include "taskmap/dist/exact_sum.h"
#include "taskmap/topology/distance.h"
#include "taskmap/topology/node_model.h"

namespace taskmap {

namespace {

// What pass 1 over the task pairs leaves for routing: per destination router, the task pairs
// that reach it over the network and their estimated work (hop distance + 1 each).
struct Destinations {
  std::vector<std::uint64_t> pairs, work;
  std::uint64_t total_work = 0;
};

// The router pairs grouped by destination: destination r's pairs are flows[offset[r] ..
// offset[r] + merged[r]); block b holds destinations block_start[b] .. block_start[b + 1] - 1.
struct Grouped {
  const Routing& routing;
  std::vector<SourceFlow> flows;
  std::vector<std::uint64_t> offset, merged;
  std::vector<std::size_t> block_start;
  io::Progress* progress = nullptr;  // advanced by one per block routed
};

// The loads of one or more blocks, each routed into loads of its own and added exactly (a
// body of parallel_reduce: exact sums do not depend on how the blocks are split or joined).
struct BlockSums {
  const Grouped& grouped;
  const dist::FixedPoint& fixed;
  std::vector<dist::Int128> total;
  std::vector<double> block;  // the loads of the block being routed
  std::uint64_t additions = 0;

  BlockSums(const Grouped& g, const dist::FixedPoint& f, std::size_t channels)
      : grouped(g), fixed(f), total(channels, 0) {}
  BlockSums(BlockSums& other, tbb::split) : BlockSums(other.grouped, other.fixed, other.total.size()) {}
  void operator()(const tbb::blocked_range<std::size_t>& blocks) {
    block.resize(total.size());
    for (std::size_t b = blocks.begin(); b != blocks.end(); ++b) {
      std::fill(block.begin(), block.end(), 0.0);
      for (std::size_t r = grouped.block_start[b]; r < grouped.block_start[b + 1]; ++r) {
        if (grouped.merged[r] == 0) continue;
        const std::span<const SourceFlow> into(grouped.flows.data() + grouped.offset[r], grouped.merged[r]);
        additions += grouped.routing.add_flows_to(static_cast<RouterId>(r), into, block);
      }
      for (std::size_t c = 0; c < block.size(); ++c) {
        if (block[c] != 0) total[c] += fixed.from_double(block[c]);
      }
      if (grouped.progress) grouped.progress->advance();
    }
  }
  void join(const BlockSums& right) {
    for (std::size_t c = 0; c < total.size(); ++c) total[c] += right.total[c];
    additions += right.additions;
  }
};

// Evaluations of at least this many task pairs show a progress bar (on a terminal).
constexpr std::uint64_t kProgressPairs = std::uint64_t{1} << 18;

// The router pairs routed one by one in (source, destination) order, as a serial sum.
void route_in_source_order(const Machine& machine, const Routing& routing, const CommGraph& graph,
                           const std::vector<RouterId>& router_of_task, const HopDistance& distance,
                           double routed_volume, std::vector<double>& load, Metrics& m) {
  struct RouterFlow {
    std::uint64_t key;
    double volume;
  };
  const std::uint64_t routers = machine.num_routers;
  std::vector<RouterFlow> flows;
  for (TaskId t = 0; t < graph.num_tasks(); ++t) {
    auto targets = graph.targets(t);
    auto volumes = graph.volumes(t);
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const RouterId rt = router_of_task[t], ru = router_of_task[targets[i]];
      if (targets[i] != t && ru != rt) flows.push_back({rt * routers + ru, volumes[i]});
    }
  }
  std::sort(flows.begin(), flows.end(), [](const RouterFlow& a, const RouterFlow& b) { return a.key < b.key; });
  std::vector<ChannelShare> shares;
  double routed_hops = 0;
  const bool adaptive = routing.adaptive();
  io::Progress progress("evaluating router pairs", flows.size(), flows.size() >= kProgressPairs);
  for (std::size_t i = 0; i < flows.size();) {
    if ((m.router_pairs & 0xfff) == 0) progress.set(i);
    const std::uint64_t key = flows[i].key;
    double v = 0;
    while (i < flows.size() && flows[i].key == key) v += flows[i++].volume;
    shares.clear();
    const auto src = static_cast<RouterId>(key / routers), dst = static_cast<RouterId>(key % routers);
    if (adaptive) routing.route_adaptive(src, dst, load, shares);
    else routing.route(src, dst, shares);
    for (const ChannelShare& s : shares) {
      load[s.channel] += v * s.fraction;
      routed_hops += v * s.fraction;
    }
    m.channel_updates += shares.size();
    m.router_pair_hops += distance(src, dst);
    ++m.router_pairs;
  }
  m.avg_routed_hops = routed_volume > 0 ? routed_hops / routed_volume : 0;
}

// The router pairs grouped by destination (sources in increasing order, a pair's task pairs
// summed in task order) into blocks of consecutive destinations of about `block_work` each,
// from the task pairs' work alone. This process routes its share of the blocks (consecutive
// blocks, in rank order; all of them alone), keeping only the task pairs towards them, in
// parallel, each block into loads of its own; the blocks' loads are added exactly, then over
// the processes (an integer MPI_Allreduce): the loads are the same bits at any thread and
// process count. The exact sums' bound is twice the routed volume (a flow adds at most its
// volume to a channel it crosses; no route crosses a channel twice).
void route_by_destination(const Machine& machine, const Routing& routing, const CommGraph& graph,
                          const std::vector<RouterId>& router_of_task, const HopDistance& distance,
                          const Destinations& into, std::uint64_t block_work, const dist::Processes& processes,
                          double routed_volume, std::vector<double>& load, Metrics& m) {
  const std::size_t routers = machine.num_routers;
  Grouped g{routing, {}, std::vector<std::uint64_t>(routers + 1, 0), std::vector<std::uint64_t>(routers, 0), {0}};
  std::uint64_t work = 0;
  for (std::size_t r = 0; r < routers; ++r) {
    work += into.work[r];
    if (work >= block_work) g.block_start.push_back(r + 1), work = 0;
  }
  if (g.block_start.back() != routers) g.block_start.push_back(routers);
  const dist::Slice mine = dist::slice_of(g.block_start.size() - 1, processes.rank(), processes.size());
  const std::size_t first = g.block_start[mine.begin], last = g.block_start[mine.end];
  for (std::size_t r = 0; r < routers; ++r) {
    g.offset[r + 1] = g.offset[r] + (r >= first && r < last ? into.pairs[r] : 0);
  }
  g.flows.resize(g.offset[routers]);
  {
    std::vector<std::uint64_t> next(g.offset.begin(), g.offset.end() - 1);
    for (TaskId t = 0; t < graph.num_tasks(); ++t) {
      auto targets = graph.targets(t);
      auto volumes = graph.volumes(t);
      const RouterId rt = router_of_task[t];
      for (std::size_t i = 0; i < targets.size(); ++i) {
        const RouterId ru = router_of_task[targets[i]];
        if (ru >= first && ru < last && targets[i] != t && ru != rt) g.flows[next[ru]++] = {rt, volumes[i]};
      }
    }
  }
  // Per destination: the sources in increasing order, a source's task pairs summed in task
  // order (the order they were filled in), in place.
  std::vector<std::uint64_t> hops(routers, 0);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(first, last), [&](const tbb::blocked_range<std::size_t>& range) {
    thread_local std::vector<std::uint64_t> order;  // source << 32 | position in the destination's list
    thread_local std::vector<SourceFlow> sorted;
    for (std::size_t r = range.begin(); r != range.end(); ++r) {
      SourceFlow* first_flow = g.flows.data() + g.offset[r];
      const std::size_t count = g.offset[r + 1] - g.offset[r];
      auto add = [&](const SourceFlow& f) {
        if (!sorted.empty() && sorted.back().src == f.src) sorted.back().volume += f.volume;
        else sorted.push_back(f);
      };
      sorted.clear();
      if (count <= UINT32_MAX) {
        order.resize(count);
        for (std::size_t i = 0; i < count; ++i) order[i] = std::uint64_t{first_flow[i].src} << 32 | i;
        std::sort(order.begin(), order.end());
        for (std::uint64_t key : order) add(first_flow[key & UINT32_MAX]);
      } else {
        std::stable_sort(first_flow, first_flow + count,
                         [](const SourceFlow& a, const SourceFlow& b) { return a.src < b.src; });
        for (std::size_t i = 0; i < count; ++i) add(first_flow[i]);
      }
      std::copy(sorted.begin(), sorted.end(), first_flow);
      g.merged[r] = sorted.size();
      for (const SourceFlow& f : sorted) hops[r] += distance(f.src, static_cast<RouterId>(r));
    }
  });

  // Each thread's body keeps a block's loads and the sums of its blocks.
  const std::size_t live = std::min<std::size_t>(mine.end - mine.begin,
                                                 static_cast<std::size_t>(tbb::this_task_arena::max_concurrency()) + 1);
  check_memory(fmt::format("evaluating {} router pairs on '{}'", format_count(g.offset[routers]), machine.description),
               saturating_mul(saturating_mul(machine.channels.size(), 24), live),
               fmt::format("the channel loads and their sums of {} blocks at once", live));
  const dist::FixedPoint fixed(2 * routed_volume);
  io::Progress progress("evaluating blocks of destinations", mine.end - mine.begin, g.offset[routers] >= kProgressPairs);
  g.progress = &progress;
  BlockSums sums(g, fixed, machine.channels.size());
  tbb::parallel_reduce(tbb::blocked_range<std::size_t>(mine.begin, mine.end, 1), sums);
  processes.sum(sums.total);
  std::uint64_t counts[3] = {sums.additions, 0, 0};
  for (std::size_t r = first; r < last; ++r) counts[1] += g.merged[r], counts[2] += hops[r];
  processes.sum(counts);
  m.channel_updates = counts[0];
  m.router_pairs = counts[1];
  m.router_pair_hops = counts[2];
  load.resize(machine.channels.size());
  double routed_hops = 0;
  for (std::size_t c = 0; c < load.size(); ++c) {
    load[c] = fixed.to_double(sums.total[c]);
    routed_hops += load[c];
  }
  m.avg_routed_hops = routed_volume > 0 ? routed_hops / routed_volume : 0;
}

}  // namespace

Metrics Evaluator::evaluate(const CommGraph& graph, const Mapping& mapping, std::vector<double>* loads_out) const {
  validate_mapping(mapping, machine_, graph.num_tasks(), "mapping", UINT32_MAX);  // many-to-one allowed
  // Peak: a router per task, a record per task pair crossing the network (16 bytes), four
  // counters per router, the loads (and when routed in blocks, those of the blocks being
  // summed: checked there). Routes are streamed, so flow-hops cost time, not memory.
  check_memory(fmt::format("evaluating {} task pairs on '{}'", format_count(graph.num_edges()), machine_.description),
               saturating_add(saturating_add(saturating_mul(graph.num_edges(), 16), saturating_mul(graph.num_tasks(), 4)),
                              saturating_add(saturating_mul(machine_.num_routers, 32),
                                             saturating_mul(machine_.channels.size(), 16))),
               format_count(graph.num_edges()) + " router-pair records");
  std::unique_ptr<HopDistance> own_distance;
  if (!distance_) own_distance = std::make_unique<HopDistance>(machine_);
  const HopDistance& distance = distance_ ? *distance_ : *own_distance;
  const NodeModel* model = machine_.node_model.get();
  auto node_distance = [&](SlotId a, SlotId b) -> double {
    if (a == b) return 0;
    return model ? model->distance(machine_.slot_in_node(a), machine_.slot_in_node(b)) : 1;
  };
  Metrics m;
  m.channels_total = machine_.channels.size();

  // 1. Task pairs, in task order: traffic inside a node or a router is free; the rest is
  // counted per destination router for routing.
  std::vector<RouterId> router_of_task(graph.num_tasks());
  for (TaskId t = 0; t < graph.num_tasks(); ++t) router_of_task[t] = machine_.router_of_slot(mapping.slot_of_task[t]);
  Destinations into;
  into.pairs.assign(machine_.num_routers, 0);
  into.work.assign(machine_.num_routers, 0);
  double weighted_hops = 0;
  std::uint64_t hop_sum = 0;
  double self_volume = 0;
  double inside_volume = 0;  // routed inside GPU nodes
  for (TaskId t = 0; t < graph.num_tasks(); ++t) {
    const SlotId st = mapping.slot_of_task[t];
    const NodeId nt = machine_.node_of_slot(st);
    const RouterId rt = router_of_task[t];
    auto targets = graph.targets(t);
    auto volumes = graph.volumes(t);
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const double v = volumes[i];
      m.total_volume += v;
      if (targets[i] == t) {  // a task talking to itself is not a communicating pair
        self_volume += v;
        continue;
      }
      ++m.task_pairs;
      const SlotId su = mapping.slot_of_task[targets[i]];
      const NodeId nu = machine_.node_of_slot(su);
      const RouterId ru = router_of_task[targets[i]];
      if (nu == nt) {
        m.node_volume += v;
        m.node_hop_bytes += v * node_distance(st, su);
        // Inside a GPU node each GPU has a router: the pair crosses the node's own links
        // (counted in hop-bytes as routed hops, but not in the network's volume).
        if (ru == rt || !machine_.gpu_links) continue;
        inside_volume += v;
      } else if (ru == rt) {
        continue;
      } else {
        m.network_volume += v;
      }
      const std::uint32_t hops = distance(rt, ru);
      weighted_hops += v * hops;
      hop_sum += hops;
      m.max_dilation = std::max(m.max_dilation, hops);
      ++into.pairs[ru];
      into.work[ru] += hops + 1;
      into.total_work += hops + 1;
    }
  }
  m.hop_bytes = weighted_hops;
  // Both directions of a pair are in weighted_hops (the distances are symmetric on every machine
  // but file graphs with one-way channels, where this is the mean of the two directions' costs).
  m.j = weighted_hops / 2;
  const double communicating_volume = m.total_volume - self_volume;
  m.avg_dilation = communicating_volume > 0 ? weighted_hops / communicating_volume : 0;
  m.avg_dilation_unweighted = m.task_pairs > 0 ? static_cast<double>(hop_sum) / static_cast<double>(m.task_pairs) : 0;

  // 2. Route every router pair once and add its shares to the channel loads. An adaptive
  // routing places each flow by the loads of the flows before it: serial by nature. In source
  // order the leader of the processes routes, and the others receive its loads.
  std::vector<double> load(machine_.channels.size(), 0.0);
  // Everything routed: the network's volume and, on GPU nodes, the volume between a node's GPUs
  // (the mean routed hops divide by it; it bounds the exact sums).
  const double routed_volume = m.network_volume + inside_volume;
  const std::uint64_t block_work =
      options_.block_work ? options_.block_work : std::max<std::uint64_t>(std::uint64_t{1} << 22, 4 * machine_.channels.size());
  const dist::Processes& processes = *processes_;
  if (routing_.adaptive() || into.total_work <= block_work) {
    dist::on_leader(processes, [&] {
      route_in_source_order(machine_, routing_, graph, router_of_task, distance, routed_volume, load, m);
    });
    processes.broadcast(load, 0);
    std::uint64_t counts[3] = {m.channel_updates, m.router_pairs, m.router_pair_hops};
    processes.broadcast(counts, sizeof counts, 0);
    processes.broadcast(&m.avg_routed_hops, sizeof m.avg_routed_hops, 0);
    m.channel_updates = counts[0], m.router_pairs = counts[1], m.router_pair_hops = counts[2];
  } else {
    route_by_destination(machine_, routing_, graph, router_of_task, distance, into, block_work, processes,
                         routed_volume, load, m);
  }

  // 3. Metrics over channels, overall and per link class.
  m.by_class.resize(machine_.classes.size());
  for (std::size_t c = 0; c < machine_.classes.size(); ++c) {
    m.by_class[c].name = machine_.classes[c].name;
    m.by_class[c].bandwidth = machine_.classes[c].bandwidth;
  }
  double sum_util = 0;
  for (ChannelId e = 0; e < load.size(); ++e) {
    ClassMetrics& cm = m.by_class[machine_.channels[e].link_class];
    ++cm.channels;
    if (load[e] <= 0) continue;
    ++cm.channels_used;
    ++m.channels_used;
    cm.max_load = std::max(cm.max_load, load[e]);
    sum_util += load[e] / cm.bandwidth;
  }
  for (ClassMetrics& cm : m.by_class) {
    cm.mcl = cm.max_load / cm.bandwidth;
    cm.throughput = cm.mcl > 0 ? 1 / cm.mcl : 0;
    m.mcl = std::max(m.mcl, cm.mcl);
  }
  for (std::size_t c = 0; c < machine_.classes.size(); ++c) {
    const LinkClass& k = machine_.classes[c];
    if (!k.host_link && !k.in_node) m.mcl_network = std::max(m.mcl_network, m.by_class[c].mcl);
  }
  if (const auto* fabric = std::get_if<FabricShape>(&machine_.shape)) {
    std::vector<char> leaf(machine_.num_routers, 0);
    for (const Channel& c : machine_.channels) {
      if (machine_.classes[c.link_class].host_link && c.dst >= fabric->first_switch) leaf[c.dst] = 1;
    }
    if (fabric->first_switch == 0) {  // hosts on switch routers: the routers holding slots
      for (NodeId n = 0; n < machine_.num_nodes(); ++n) leaf[machine_.router_of_node(n)] = 1;
    }
    for (ChannelId e = 0; e < load.size(); ++e) {
      const Channel& c = machine_.channels[e];
      if (leaf[c.src] && c.dst >= fabric->first_switch && !machine_.classes[c.link_class].host_link) {
        m.leaf_uplink_volume += load[e];
      }
    }
  }
  for (const ClassMetrics& cm : m.by_class) {
    if (m.mcl > 0 && cm.mcl >= m.mcl * (1 - 1e-9)) {
      m.bottleneck_class.push_back(cm.name);
    }
  }
  m.throughput = m.mcl > 0 ? 1 / m.mcl : 0;
  m.load_imbalance = m.channels_used > 0 ? m.mcl / (sum_util / static_cast<double>(m.channels_used)) : 0;
  if (loads_out) *loads_out = std::move(load);
  return m;
}

}  // namespace taskmap
