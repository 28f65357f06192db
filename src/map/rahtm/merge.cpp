#include "merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "parallel.h"
#include "taskmap/core/error.h"

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
}  // namespace

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
  std::vector<Cross> cross;             // grouped by the other block, in collection order
  std::vector<std::uint32_t> cross_at;  // [y] .. [y + 1]: the flows with block y
};

struct Merger::State {
  std::vector<std::int32_t> orient;  // per block, -1 = not placed yet
  std::vector<double> load;
  double mcl = 0, sumsq = 0;
};

Merger::Merger(const Machine& machine, RouteCache& routes, const CommGraph& clusters,
               std::vector<RouterId>& router_of_cluster, unsigned threads,
               std::function<void(const std::string&)> progress)
    : machine_(machine),
      torus_(*machine.torus()),
      routes_(routes),
      clusters_(clusters),
      router_of_cluster_(router_of_cluster),
      cluster_at_router_(machine.num_routers, kUnset),
      threads_(std::max(1u, threads)),
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

std::vector<Merger::Block> Merger::collect(const std::vector<Box>& children, const std::vector<Box>& context) const {
  const auto orientations = box_orientations(children.front().extent);
  std::vector<Block> blocks(children.size() + (context.empty() ? 0 : 1));
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
  if (!context.empty()) {  // one more block, in its current place only
    Block& fixed = blocks.back();
    fixed.pos.resize(1);
    for (const Box& box : context) {
      for_each_local(box.extent, [&](const std::vector<std::uint32_t>& x) {
        const std::uint32_t c = cluster_at_router_[router_at(box, orientations.front(), x)];
        if (c == kUnset) return;
        where[c] = {std::uint32_t(blocks.size() - 1), std::uint32_t(fixed.clusters.size())};
        fixed.clusters.push_back(c);
        fixed.pos[0].push_back(router_of_cluster_[c]);
      });
    }
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
          if (b < children.size()) blocks[b].internal.push_back({i, j, volumes[e]});
        } else {
          blocks[b].cross.push_back({ob, i, j, volumes[e], true});
          blocks[ob].cross.push_back({std::uint32_t(b), j, i, volumes[e], false});
        }
      }
    }
  }
  for (Block& block : blocks) {
    std::stable_sort(block.cross.begin(), block.cross.end(), [](auto& a, auto& b) { return a.other < b.other; });
    block.cross_at.assign(children.size() + 2, 0);  // partners: the children, then the context
    for (const auto& f : block.cross) ++block.cross_at[f.other + 1];
    std::partial_sum(block.cross_at.begin(), block.cross_at.end(), block.cross_at.begin());
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

namespace {

// Per-thread accumulator of load increments on a sparse set of channels.
struct Scratch {
  std::vector<double> delta;
  std::vector<ChannelId> touched;
  std::vector<std::int32_t> cross;  // try_add: the cross loads of the candidate, by cache slot
  std::vector<double> fixed;        // the static load of the block being tried, per channel
};

struct Bound {  // a candidate is only kept if it beats this (MCL, then sum of squares)
  double mcl = INFINITY, sumsq = INFINITY;
};

struct Candidate {
  double mcl, sumsq;
  std::uint32_t entry, orientation;
  // A total order (ties by position), so the kept candidates do not depend on thread timing.
  bool operator<(const Candidate& o) const {
    if (mcl != o.mcl) return mcl < o.mcl;
    if (sumsq != o.sumsq) return sumsq < o.sumsq;
    return entry != o.entry ? entry < o.entry : orientation < o.orientation;
  }
};

// Shares of a static load put first in try_add's order; the rest follow unordered.
constexpr std::size_t kOrderedShares = 256;

}  // namespace

// One node's merge: the children's blocks, their loads per orientation, and the beam search.
class Merger::NodeMerge {
 public:
  NodeMerge(Merger& m, const std::vector<Box>& children, const std::vector<Box>& context)
      : m_(m),
        blocks_(m.collect(children, context)),
        q_(static_cast<std::uint32_t>(children.size())),
        orientations_(static_cast<std::uint32_t>(blocks_.front().pos.size())),
        static_(blocks_.size(), std::vector<StaticLoad>(orientations_)),
        scratch_(m.threads_),
        caches_(m.threads_) {
    for (Scratch& s : scratch_) s.delta.assign(m.routes_.num_channels(), 0.0), s.fixed.assign(s.delta.size(), 0.0);
    for (CrossCache& c : caches_) c.slot.assign(std::size_t(q_) * orientations_, -1);
  }

  MergeResult run(std::uint32_t beam_width, bool fix_first);

 private:
  // Loads of a block's internal flows and of its flows with the context at one orientation:
  // the same in every beam state, so they are summed per channel once.
  struct StaticLoad {
    std::vector<ChannelShare> shares;  // try_add's order: those likely to exceed a bound first
    double max = 0, sumsq = 0;
    bool known = false;
  };
  // Per worker: the loads of the flows between block x at orientation o and each placed block
  // y at orientation oy, summed once per (y, oy) and shared by the beam entries that place y so.
  struct CrossCache {
    std::uint32_t x = kUnset, o = kUnset;
    std::vector<std::int32_t> slot;     // [y * orientations + oy]: index into loads, -1 = none yet
    std::vector<std::size_t> filled;    // the slots set for (x, o)
    std::vector<std::vector<ChannelShare>> loads;
  };

  State empty_state() const {
    State s;
    s.orient.assign(q_, -1);
    s.load.assign(m_.routes_.num_channels(), 0.0);
    return s;
  }
  // Adds a flow's route into the scratch's sparse delta.
  void accumulate(Scratch& w, RouterId u, RouterId v, double volume) {
    auto [first, last] = m_.routes_.route(u, v);
    for (auto* p = first; p != last; ++p) {
      if (w.delta[p->channel] == 0) w.touched.push_back(p->channel);
      w.delta[p->channel] += volume * p->load;
    }
  }
  // Adds the flows between block x at orientation o and block y at orientation oy.
  void accumulate_between(Scratch& w, std::uint32_t x, std::uint32_t o, std::uint32_t y, std::uint32_t oy) {
    const Block& X = blocks_[x];
    for (std::uint32_t k = X.cross_at[y]; k < X.cross_at[y + 1]; ++k) {
      const auto& f = X.cross[k];
      const RouterId here = X.pos[o][f.i], there = blocks_[y].pos[oy][f.j];
      f.outgoing ? accumulate(w, here, there, f.volume) : accumulate(w, there, here, f.volume);
    }
  }
  // Moves the scratch's delta into `out`, channels in the order they were first touched.
  static void drain(Scratch& w, std::vector<ChannelShare>& out) {
    out.clear();
    for (ChannelId ch : w.touched) out.push_back({ch, w.delta[ch]}), w.delta[ch] = 0;
    w.touched.clear();
  }
  const StaticLoad& static_load(std::uint32_t x, std::uint32_t o, Scratch& w);
  // Computes block x's static loads for every orientation, in parallel, each ordered for
  // try_add against `reference` (a state like those the block will be added to), if any.
  void prepare(std::uint32_t x, const State* reference = nullptr);
  std::int32_t cross_slot(CrossCache& c, Scratch& w, std::uint32_t x, std::uint32_t o, std::uint32_t y, std::uint32_t oy);
  bool try_add(const State& s, std::uint32_t x, std::uint32_t o, Bound worst, Scratch& w, CrossCache& cache,
               double& mcl, double& sumsq, State* into = nullptr);
  void commit(State& s, std::uint32_t x, std::uint32_t o);
  std::vector<std::uint32_t> merge_order();

  Merger& m_;
  const std::vector<Block> blocks_;  // blocks_[q_], if present: the context, in place
  const std::uint32_t q_, orientations_;
  std::vector<std::vector<StaticLoad>> static_;
  std::vector<Scratch> scratch_;    // one per worker thread
  std::vector<CrossCache> caches_;  // one per worker thread
};

const Merger::NodeMerge::StaticLoad& Merger::NodeMerge::static_load(std::uint32_t x, std::uint32_t o, Scratch& w) {
  StaticLoad& sum = static_[x][o];
  if (sum.known) return sum;
  const Block& X = blocks_[x];
  for (const auto& f : X.internal) accumulate(w, X.pos[o][f.i], X.pos[o][f.j], f.volume);
  accumulate_between(w, x, o, q_, 0);  // with the context
  drain(w, sum.shares);
  for (const ChannelShare& c : sum.shares) sum.max = std::max(sum.max, c.fraction), sum.sumsq += c.fraction * c.fraction;
  sum.known = true;
  return sum;
}

void Merger::NodeMerge::prepare(std::uint32_t x, const State* reference) {
  run_parallel(orientations_, m_.threads_, [&](std::size_t o, unsigned worker) {
    StaticLoad& sum = static_[x][o];
    static_load(x, static_cast<std::uint32_t>(o), scratch_[worker]);
    // Largest resulting load first: a candidate fails its bound on one of these soonest. Only
    // the head is sorted. The order is part of the method: sums of squares add up in it.
    auto level = [&](const ChannelShare& c) { return c.fraction + (reference ? reference->load[c.channel] : 0.0); };
    auto before = [&](const ChannelShare& a, const ChannelShare& b) {
      const double la = level(a), lb = level(b);
      return la != lb ? la > lb : a.channel < b.channel;
    };
    const auto head = sum.shares.begin() + std::min(kOrderedShares, sum.shares.size());
    std::nth_element(sum.shares.begin(), head, sum.shares.end(), before);
    std::sort(sum.shares.begin(), head, before);
  });
}

std::int32_t Merger::NodeMerge::cross_slot(CrossCache& c, Scratch& w, std::uint32_t x, std::uint32_t o, std::uint32_t y,
                                           std::uint32_t oy) {
  if (c.x != x || c.o != o) {
    for (std::size_t k : c.filled) c.slot[k] = -1;
    c.filled.clear();
    c.x = x, c.o = o;
  }
  const std::size_t k = std::size_t(y) * orientations_ + oy;
  if (c.slot[k] >= 0) return c.slot[k];
  c.slot[k] = static_cast<std::int32_t>(c.filled.size());
  c.filled.push_back(k);
  if (c.loads.size() < c.filled.size()) c.loads.emplace_back();
  accumulate_between(w, x, o, y, oy);
  drain(w, c.loads[c.slot[k]]);
  return c.slot[k];
}

// Loads block x adds to state s at orientation o: its static load, then its cross loads with
// the placed blocks in block order. Gives up (false) as soon as the result cannot beat
// `worst` (MCL, then sum of squares: both only grow as loads are added). On success mcl/sumsq
// describe the state with the block added, and `into` (if given) receives its loads. A
// candidate is only given up when it is certainly worse than `worst`, so which candidates
// survive does not depend on the bound a thread happens to hold: the partial MCL is computed
// as the final one is (load plus increment so far; floating-point addition of non-negative
// terms never decreases), so it never exceeds it, and the sum of squares, a lower bound up to
// rounding, gives up only at an MCL equal to the worst's and beyond a relative margin. Every
// channel's increment is summed in the same order (static, then block by block), so the
// loads, and the MCL, do not depend on the order of the shares; the sum of squares does, up
// to rounding.
bool Merger::NodeMerge::try_add(const State& s, std::uint32_t x, std::uint32_t o, Bound worst, Scratch& w,
                                CrossCache& cache, double& mcl, double& sumsq, State* into) {
  constexpr double kMargin = 1e-9;
  const double prune_sumsq = worst.sumsq * (1 + kMargin);
  auto hopeful = [&](double mcl_low, double sumsq_low) {
    return mcl_low < worst.mcl || (mcl_low == worst.mcl && sumsq_low <= prune_sumsq);
  };
  double mcl_so_far = s.mcl, sumsq_so_far = s.sumsq;
  auto increase = [&](ChannelId ch, double by) {
    const double before = s.load[ch] + w.delta[ch];
    if (w.delta[ch] == 0) w.touched.push_back(ch);
    w.delta[ch] += by;
    const double after = s.load[ch] + w.delta[ch];
    mcl_so_far = std::max(mcl_so_far, after);
    sumsq_so_far += (after - before) * (before + after);
    return hopeful(mcl_so_far, sumsq_so_far);
  };
  // The cross loads first: computing them uses the scratch.
  w.cross.clear();
  const Block& X = blocks_[x];
  for (std::uint32_t y = 0; y < q_; ++y)
    if (s.orient[y] >= 0 && X.cross_at[y] < X.cross_at[y + 1])
      w.cross.push_back(cross_slot(cache, w, x, o, y, static_cast<std::uint32_t>(s.orient[y])));
  // A cross share alone, added to the block's static load on its channel (w.fixed: set by
  // run() for the orientation being tried, zero elsewhere) and then to the state's load, bounds
  // that channel's final load from below: the final sum adds the same terms and more, in the
  // same grouping, and floating-point addition of non-negative terms is monotone. The flows
  // with the placed blocks decide most rejections, and they are few, so they are read first.
  for (std::int32_t slot : w.cross)
    for (const ChannelShare& c : cache.loads[slot])
      if (s.load[c.channel] + (w.fixed[c.channel] + c.fraction) > worst.mcl) return false;
  const StaticLoad& fixed = static_load(x, o, w);
  // Quick bounds first: loads are never negative, so the largest fixed share and the sum of
  // their squares bound the result from below.
  bool within = hopeful(std::max(s.mcl, fixed.max), s.sumsq + fixed.sumsq);
  // The static shares are on distinct channels and come first, so their part of the result
  // is known without touching the scratch: a reading pass rejects most candidates that fail
  // there; for the others they are then written as they are, and the cross shares added.
  for (std::size_t k = 0; within && k < fixed.shares.size(); ++k) {
    const double before = s.load[fixed.shares[k].channel], after = before + fixed.shares[k].fraction;
    mcl_so_far = std::max(mcl_so_far, after);
    sumsq_so_far += (after - before) * (before + after);
    within = hopeful(mcl_so_far, sumsq_so_far);
  }
  if (!within) return false;
  for (const ChannelShare& c : fixed.shares) w.delta[c.channel] = c.fraction, w.touched.push_back(c.channel);
  for (std::size_t b = 0; within && b < w.cross.size(); ++b)
    for (const ChannelShare& c : cache.loads[w.cross[b]])
      if (!(within = increase(c.channel, c.fraction))) break;
  if (!within) {
    for (ChannelId ch : w.touched) w.delta[ch] = 0;
    w.touched.clear();
    return false;
  }
  mcl = s.mcl, sumsq = s.sumsq;
  for (ChannelId ch : w.touched) {
    const double before = s.load[ch], after = before + w.delta[ch];
    mcl = std::max(mcl, after);
    sumsq += after * after - before * before;
    if (into) into->load[ch] = after;
    w.delta[ch] = 0;
  }
  w.touched.clear();
  return true;
}

void Merger::NodeMerge::commit(State& s, std::uint32_t x, std::uint32_t o) {
  double mcl = 0, sumsq = 0;  // with no bound, try_add always succeeds
  try_add(s, x, o, Bound{}, scratch_.front(), caches_.front(), mcl, sumsq, &s);
  s.orient[x] = static_cast<std::int32_t>(o);
  s.mcl = mcl, s.sumsq = sumsq;
}

// Pairwise MCL (the first block as placed, the second in its best orientation), averaged
// over partners, heaviest first, fixes the order in which blocks join the beam.
std::vector<std::uint32_t> Merger::NodeMerge::merge_order() {
  const std::uint32_t q = q_;
  if (q <= 2) return q == 2 ? std::vector<std::uint32_t>{0, 1} : std::vector<std::uint32_t>{0};
  std::vector<double> alone(q);
  std::vector<State> single(q);
  for (std::uint32_t x = 0; x < q; ++x) {
    single[x] = empty_state();
    commit(single[x], x, 0);
    alone[x] = single[x].mcl;
  }
  for (std::uint32_t y = 1; y < q; ++y) prepare(y);
  std::vector<std::vector<double>> pair(q, std::vector<double>(q, -1));
  run_parallel(q, m_.threads_, [&](std::size_t x, unsigned worker) {
    for (const auto& f : blocks_[x].cross) {  // row x is only written by this worker
      const std::uint32_t y = f.other;
      if (y < x || y == q || pair[x][y] >= 0) continue;
      double best = INFINITY;
      for (std::uint32_t o = 0; o < orientations_; ++o) {
        double mcl, sumsq;
        if (try_add(single[x], y, o, Bound{best, INFINITY}, scratch_[worker], caches_[worker], mcl, sumsq)) {
          best = std::min(best, mcl);
        }
      }
      pair[x][y] = best;
    }
  });
  for (std::uint32_t x = 0; x < q; ++x)
    for (std::uint32_t y = x + 1; y < q; ++y) pair[y][x] = pair[x][y];
  std::vector<double> average(q, 0.0);
  for (std::uint32_t x = 0; x < q; ++x) {
    for (std::uint32_t y = 0; y < q; ++y)
      if (y != x) average[x] += pair[x][y] >= 0 ? pair[x][y] : std::max(alone[x], alone[y]);
    if (q > 1) average[x] /= q - 1;
  }
  std::vector<std::uint32_t> order(q);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return average[a] > average[b]; });
  return order;
}

MergeResult Merger::NodeMerge::run(std::uint32_t beam_width, bool fix_first) {
  MergeResult result;
  // The pseudo-pinned input: every block as the top-down phase left it.
  State input = empty_state();
  for (std::uint32_t x = 0; x < q_; ++x) commit(input, x, 0);
  result.input_mcl = input.mcl;

  const std::vector<std::uint32_t> order = merge_order();
  // Beam: the first block in every orientation (or as placed), then one block per step.
  std::vector<State> beam;
  if (!fix_first) prepare(order[0]);
  for (std::uint32_t o = 0; o < (fix_first ? 1 : orientations_); ++o) {
    beam.push_back(empty_state());
    commit(beam.back(), order[0], o);
  }
  for (std::uint32_t step = 1; step < q_; ++step) {
    const std::uint32_t x = order[step];
    m_.progress_(fmt::format("merging {} blocks: step {}/{}, beam {}", q_, step, q_ - 1, beam.size()));
    prepare(x, &beam.front());
    // Each worker keeps its own best beam_width candidates (a max-heap); the union holds the
    // overall best beam_width. A work item is one orientation of the block against every
    // beam entry, best entry first, so that the entries share the block's cross loads.
    std::vector<std::vector<Candidate>> heaps(m_.threads_);
    run_parallel(orientations_, m_.threads_, [&](std::size_t item, unsigned worker) {
      std::vector<Candidate>& heap = heaps[worker];
      const auto o = static_cast<std::uint32_t>(item);
      Scratch& w = scratch_[worker];
      for (const ChannelShare& c : static_[x][o].shares) w.fixed[c.channel] = c.fraction;
      for (std::uint32_t e = 0; e < beam.size(); ++e) {
        const bool full = heap.size() >= beam_width;
        const Bound bound = full ? Bound{heap.front().mcl, heap.front().sumsq} : Bound{};
        Candidate c{0, 0, e, o};
        if (!try_add(beam[e], x, o, bound, scratch_[worker], caches_[worker], c.mcl, c.sumsq)) continue;
        if (!full) {
          heap.push_back(c);
          std::push_heap(heap.begin(), heap.end());
        } else if (c < heap.front()) {
          std::pop_heap(heap.begin(), heap.end());
          heap.back() = c;
          std::push_heap(heap.begin(), heap.end());
        }
      }
      for (const ChannelShare& c : static_[x][o].shares) w.fixed[c.channel] = 0;
    });
    std::vector<Candidate> kept;
    for (const auto& heap : heaps) kept.insert(kept.end(), heap.begin(), heap.end());
    std::sort(kept.begin(), kept.end());
    if (kept.size() > beam_width) kept.resize(beam_width);
    std::vector<State> next;
    next.reserve(kept.size());
    for (const Candidate& c : kept) {
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
  for (std::uint32_t x = 0; x < q_; ++x) result.orientation.push_back(static_cast<std::uint32_t>(chosen.orient[x]));
  return result;
}

MergeResult Merger::merge(const std::vector<Box>& children, std::uint32_t beam_width, bool fix_first,
                          const std::vector<Box>& context) {
  MergeResult result = NodeMerge(*this, children, context).run(beam_width, fix_first);
  apply(children, result.orientation);
  return result;
}

}  // namespace taskmap::rahtm
