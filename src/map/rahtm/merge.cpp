#include "merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "taskmap/io/error.h"

namespace taskmap::rahtm {

std::uint32_t Box::num_routers() const {
  std::uint32_t n = 1;
  for (std::uint32_t e : extent) n *= e;
  return n;
}

std::vector<Orientation> box_orientations(const std::vector<std::uint32_t>& extent) {
  const std::size_t n = extent.size();
  std::vector<std::uint8_t> perm(n);
  std::iota(perm.begin(), perm.end(), std::uint8_t{0});
  std::vector<std::size_t> free_dims;
  for (std::size_t d = 0; d < n; ++d)
    if (extent[d] > 1) free_dims.push_back(d);
  std::vector<Orientation> out;
  do {
    bool ok = true;
    for (std::size_t d = 0; d < n && ok; ++d) ok = extent[perm[d]] == extent[d] && (extent[d] > 1 || perm[d] == d);
    if (!ok) continue;
    for (std::uint32_t mask = 0; mask < (1u << free_dims.size()); ++mask) {
      Orientation o{perm, std::vector<bool>(n, false)};
      for (std::size_t i = 0; i < free_dims.size(); ++i) o.reflect[free_dims[i]] = mask >> i & 1;
      out.push_back(std::move(o));
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
  return out;  // the identity permutation comes first, with mask 0 first
}

// ---------------------------------------------------------------------------------------------

namespace {
constexpr std::uint32_t kUnset = UINT32_MAX;
constexpr std::size_t kMaxPooledShares = std::size_t(1) << 26;  // 512 MiB of cached routes
}  // namespace

RouteCache::RouteCache(const Machine& machine, const Routing& routing)
    : routing_(routing), routers_(machine.num_routers) {
  if (routers_ > 4096) fail("RAHTM: machines above 4096 routers are not supported (this one has {})", routers_);
  inv_bandwidth_.reserve(machine.channels.size());
  for (const Channel& c : machine.channels) inv_bandwidth_.push_back(1.0 / machine.classes[c.link_class].bandwidth);
  begin_.assign(std::size_t(routers_) * routers_, 0);
  count_.assign(std::size_t(routers_) * routers_, kUnset);
}

std::pair<const RouteCache::Share*, const RouteCache::Share*> RouteCache::route(RouterId u, RouterId v) {
  const std::size_t pair = std::size_t(u) * routers_ + v;
  if (count_[pair] == kUnset) {
    scratch_.clear();
    if (u != v) routing_.route(u, v, scratch_);
    if (pool_.size() + scratch_.size() > kMaxPooledShares) {  // forget everything rather than grow
      pool_.clear();
      std::fill(count_.begin(), count_.end(), kUnset);
    }
    begin_[pair] = static_cast<std::uint32_t>(pool_.size());
    for (const ChannelShare& s : scratch_) {
      pool_.push_back({s.channel, static_cast<float>(s.fraction * inv_bandwidth_[s.channel])});
    }
    count_[pair] = static_cast<std::uint32_t>(scratch_.size());
  }
  const Share* first = pool_.data() + begin_[pair];
  return {first, first + count_[pair]};
}

// ---------------------------------------------------------------------------------------------

struct Merger::Block {
  Box box;
  std::vector<std::uint32_t> clusters;
  std::vector<std::vector<RouterId>> pos;  // [orientation][i]: router of clusters[i]
  struct Internal {
    std::uint32_t i, j;
    double volume;
  };
  struct Cross {
    std::uint32_t other, i, j;  // i in this block, j in block `other`
    double volume;
    bool outgoing;  // this block's cluster sends
  };
  std::vector<Internal> internal;
  std::vector<Cross> cross;
};

struct Merger::State {
  std::vector<std::int32_t> orient;  // per block, -1 = not placed yet
  std::vector<double> load;
  double mcl = 0, sumsq = 0;
};

Merger::Merger(const Machine& machine, RouteCache& routes, const CommGraph& clusters,
               std::vector<RouterId>& router_of_cluster, std::function<void(const std::string&)> progress)
    : machine_(machine),
      torus_(*machine.torus()),
      routes_(routes),
      clusters_(clusters),
      router_of_cluster_(router_of_cluster),
      cluster_at_router_(machine.num_routers, kUnset),
      progress_(std::move(progress)) {
  for (std::uint32_t c = 0; c < router_of_cluster_.size(); ++c) cluster_at_router_[router_of_cluster_[c]] = c;
}

RouterId Merger::router_at(const Box& box, const Orientation& o, const std::vector<std::uint32_t>& local) const {
  RouterId r = 0;
  for (std::size_t d = 0; d < local.size(); ++d) {
    const std::uint32_t y = o.reflect[d] ? box.extent[d] - 1 - local[d] : local[d];
    r += (box.origin[o.perm[d]] + y) * torus_.strides[o.perm[d]];
  }
  return r;
}

namespace {

// Calls f(local coordinates) for every router of a box, last dimension fastest.
template <typename F>
void for_each_local(const std::vector<std::uint32_t>& extent, F&& f) {
  std::vector<std::uint32_t> x(extent.size(), 0);
  const std::uint32_t n = std::accumulate(extent.begin(), extent.end(), 1u, std::multiplies<>());
  for (std::uint32_t k = 0; k < n; ++k) {
    f(x);
    for (std::size_t d = extent.size(); d-- > 0;) {
      if (++x[d] < extent[d]) break;
      x[d] = 0;
    }
  }
}

}  // namespace

std::vector<Merger::Block> Merger::collect(const std::vector<Box>& children) const {
  const auto orientations = box_orientations(children.front().extent);
  std::vector<Block> blocks(children.size());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> where(clusters_.num_tasks(), {kUnset, 0});
  for (std::size_t b = 0; b < children.size(); ++b) {
    Block& block = blocks[b];
    block.box = children[b];
    std::vector<std::vector<std::uint32_t>> locals;
    const Orientation& identity = orientations.front();
    for_each_local(block.box.extent, [&](const std::vector<std::uint32_t>& x) {
      const std::uint32_t c = cluster_at_router_[router_at(block.box, identity, x)];
      if (c == kUnset) return;
      where[c] = {std::uint32_t(b), std::uint32_t(block.clusters.size())};
      block.clusters.push_back(c);
      locals.push_back(x);
    });
    block.pos.resize(orientations.size());
    for (std::size_t o = 0; o < orientations.size(); ++o)
      for (const auto& x : locals) block.pos[o].push_back(router_at(block.box, orientations[o], x));
  }
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    for (std::uint32_t i = 0; i < blocks[b].clusters.size(); ++i) {
      const TaskId c = blocks[b].clusters[i];
      auto targets = clusters_.targets(c);
      auto volumes = clusters_.volumes(c);
      for (std::size_t e = 0; e < targets.size(); ++e) {
        const auto [ob, j] = where[targets[e]];
        if (ob == kUnset) continue;
        if (ob == b) {
          blocks[b].internal.push_back({i, j, volumes[e]});
        } else {
          blocks[b].cross.push_back({ob, i, j, volumes[e], true});
          blocks[ob].cross.push_back({std::uint32_t(b), j, i, volumes[e], false});
        }
      }
    }
  }
  return blocks;
}

std::vector<double> Merger::signature(const std::vector<Box>& children) const {
  std::vector<double> sig;
  std::vector<std::uint32_t> local_of(clusters_.num_tasks(), kUnset);
  const Orientation identity = box_orientations(children.front().extent).front();
  std::uint32_t index = 0;
  for (const Box& box : children) {
    for_each_local(box.extent, [&](const std::vector<std::uint32_t>& x) {
      const std::uint32_t c = cluster_at_router_[router_at(box, identity, x)];
      if (c != kUnset) local_of[c] = index, sig.push_back(index);  // occupancy
      ++index;
    });
  }
  sig.push_back(-1);
  for (TaskId c = 0; c < clusters_.num_tasks(); ++c) {
    if (local_of[c] == kUnset) continue;
    auto targets = clusters_.targets(c);
    auto volumes = clusters_.volumes(c);
    for (std::size_t e = 0; e < targets.size(); ++e) {
      if (local_of[targets[e]] == kUnset) continue;
      sig.insert(sig.end(), {double(local_of[c]), double(local_of[targets[e]]), volumes[e]});
    }
  }
  return sig;
}

void Merger::apply(const std::vector<Box>& children, const std::vector<std::uint32_t>& orientation) {
  const std::vector<Block> blocks = collect(children);
  for (const Block& b : blocks)
    for (std::uint32_t c : b.clusters) cluster_at_router_[router_of_cluster_[c]] = kUnset;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    for (std::uint32_t i = 0; i < blocks[b].clusters.size(); ++i) {
      const RouterId r = blocks[b].pos[orientation[b]][i];
      router_of_cluster_[blocks[b].clusters[i]] = r;
      cluster_at_router_[r] = blocks[b].clusters[i];
    }
  }
}

MergeResult Merger::merge(const std::vector<Box>& children, std::uint32_t beam_width, bool fix_first) {
  const std::vector<Block> blocks = collect(children);
  const std::uint32_t q = static_cast<std::uint32_t>(blocks.size());
  const std::uint32_t num_orientations = static_cast<std::uint32_t>(blocks.front().pos.size());
  const std::size_t channels = routes_.num_channels();
  std::vector<double> delta(channels, 0.0);
  std::vector<ChannelId> touched;

  // Calls add(u, v, volume) for every flow block x brings into state s at orientation o: its
  // internal flows and those to blocks already placed; stops when add returns false.
  auto for_each_new_flow = [&](const State& s, std::uint32_t x, std::uint32_t o, auto&& add) {
    const Block& X = blocks[x];
    for (const auto& f : X.internal)
      if (!add(X.pos[o][f.i], X.pos[o][f.j], f.volume)) return;
    for (const auto& f : X.cross) {
      if (s.orient[f.other] < 0) continue;
      const RouterId here = X.pos[o][f.i], there = blocks[f.other].pos[s.orient[f.other]][f.j];
      if (!(f.outgoing ? add(here, there, f.volume) : add(there, here, f.volume))) return;
    }
  };
  // Loads a block adds to a state at orientation o; with `bound`, gives up (false) as soon as
  // a channel exceeds it. On success mcl/sumsq describe the state with the block added.
  auto try_add = [&](const State& s, std::uint32_t x, std::uint32_t o, double bound, double& mcl,
                     double& sumsq) -> bool {
    bool within = true;
    for_each_new_flow(s, x, o, [&](RouterId u, RouterId v, double volume) {
      if (u == v) return true;
      auto [first, last] = routes_.route(u, v);
      for (auto* p = first; p != last; ++p) {
        if (delta[p->channel] == 0) touched.push_back(p->channel);
        delta[p->channel] += volume * p->load;
        if (s.load[p->channel] + delta[p->channel] > bound) within = false;
      }
      return within;
    });
    mcl = s.mcl, sumsq = s.sumsq;
    for (ChannelId ch : touched) {
      const double before = s.load[ch], after = before + delta[ch];
      mcl = std::max(mcl, after);
      sumsq += after * after - before * before;
      delta[ch] = 0;
    }
    touched.clear();
    return within;
  };
  auto commit = [&](State& s, std::uint32_t x, std::uint32_t o) {
    double mcl, sumsq;
    try_add(s, x, o, INFINITY, mcl, sumsq);  // leaves s untouched; the loads are added below
    for_each_new_flow(s, x, o, [&](RouterId u, RouterId v, double volume) {
      if (u == v) return true;
      auto [first, last] = routes_.route(u, v);
      for (auto* p = first; p != last; ++p) s.load[p->channel] += volume * p->load;
      return true;
    });
    s.orient[x] = static_cast<std::int32_t>(o);
    s.mcl = mcl, s.sumsq = sumsq;
  };
  auto empty_state = [&] {
    State s;
    s.orient.assign(q, -1);
    s.load.assign(channels, 0.0);
    return s;
  };

  MergeResult result;
  // The pseudo-pinned input: every block as the top-down phase left it.
  State input = empty_state();
  for (std::uint32_t x = 0; x < q; ++x) commit(input, x, 0);
  result.input_mcl = input.mcl;

  // Pairwise MCL (the first block as placed, the second in its best orientation) fixes the order.
  std::vector<double> alone(q);
  std::vector<State> single(q);
  for (std::uint32_t x = 0; x < q; ++x) {
    single[x] = empty_state();
    commit(single[x], x, 0);
    alone[x] = single[x].mcl;
  }
  std::vector<std::vector<double>> pair(q, std::vector<double>(q, -1));
  for (std::uint32_t x = 0; x < q; ++x) {
    for (const auto& f : blocks[x].cross) {
      const std::uint32_t y = f.other;
      if (y < x || pair[x][y] >= 0) continue;
      double best = INFINITY;
      for (std::uint32_t o = 0; o < num_orientations; ++o) {
        double mcl, sumsq;
        if (try_add(single[x], y, o, best, mcl, sumsq)) best = std::min(best, mcl);
      }
      pair[x][y] = pair[y][x] = best;
    }
  }
  std::vector<double> average(q, 0.0);
  for (std::uint32_t x = 0; x < q; ++x) {
    for (std::uint32_t y = 0; y < q; ++y)
      if (y != x) average[x] += pair[x][y] >= 0 ? pair[x][y] : std::max(alone[x], alone[y]);
    if (q > 1) average[x] /= q - 1;
  }
  std::vector<std::uint32_t> order(q);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return average[a] > average[b]; });

  // Beam: the first block in every orientation (or as placed), then one block per step.
  std::vector<State> beam;
  for (std::uint32_t o = 0; o < (fix_first ? 1 : num_orientations); ++o) {
    beam.push_back(empty_state());
    commit(beam.back(), order[0], o);
  }
  struct Candidate {
    double mcl, sumsq;
    std::uint32_t entry, orientation;
    bool operator<(const Candidate& other) const {
      return mcl != other.mcl ? mcl < other.mcl : sumsq < other.sumsq;
    }
  };
  for (std::uint32_t step = 1; step < q; ++step) {
    const std::uint32_t x = order[step];
    progress_(fmt::format("merging {} blocks: step {}/{}, beam {}", q, step, q - 1, beam.size()));
    std::vector<Candidate> heap;  // max-heap of the best beam_width candidates
    for (std::uint32_t e = 0; e < beam.size(); ++e) {
      for (std::uint32_t o = 0; o < num_orientations; ++o) {
        const bool full = heap.size() >= beam_width;
        const double bound = full ? heap.front().mcl * (1 + 1e-12) : INFINITY;
        Candidate c{0, 0, e, o};
        if (!try_add(beam[e], x, o, bound, c.mcl, c.sumsq)) continue;
        if (!full) {
          heap.push_back(c);
          std::push_heap(heap.begin(), heap.end());
        } else if (c < heap.front()) {
          std::pop_heap(heap.begin(), heap.end());
          heap.back() = c;
          std::push_heap(heap.begin(), heap.end());
        }
      }
    }
    std::sort_heap(heap.begin(), heap.end());
    std::vector<State> next;
    next.reserve(heap.size());
    for (const Candidate& c : heap) {
      next.push_back(beam[c.entry]);
      commit(next.back(), x, c.orientation);
    }
    beam = std::move(next);
    ++result.steps;
  }
  const State& best = beam.front();
  const bool keep_input = input.mcl < best.mcl || (input.mcl == best.mcl && input.sumsq <= best.sumsq);
  const State& chosen = keep_input ? input : best;
  result.mcl = chosen.mcl;
  for (std::int32_t o : chosen.orient) result.orientation.push_back(static_cast<std::uint32_t>(o));
  apply(children, result.orientation);
  return result;
}

}  // namespace taskmap::rahtm
