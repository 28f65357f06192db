#include "taskmap/routing/torus_flows.h"

#include <algorithm>
#include <cstdlib>

#include "lattice_walk.h"
#include "taskmap/core/error.h"

namespace taskmap {

namespace {

struct DimChoice {
  std::uint32_t dim = 0;
  std::uint32_t steps = 0;
  bool tie = false;  // both directions minimal
  int dir = 0;       // 0 = "+", 1 = "-" (first choice when tie)
};

const TorusShape& torus_of(const Machine& machine) {
  if (!machine.torus()) fail("machine '{}': torus flows need a torus or mesh", machine.description);
  return *machine.torus();
}

}  // namespace

TorusFlows::TorusFlows(const Machine& machine, bool minimal, std::vector<std::uint32_t> order, TieRule ties)
    : machine_(machine), shape_(torus_of(machine)), minimal_(minimal), order_(std::move(order)), ties_(ties) {
  std::uint64_t longest = 1;  // the largest remaining hop count of a minimal route
  for (std::size_t d = 0; d < shape_.dims(); ++d) longest += shape_.wrap[d] ? shape_.sizes[d] / 2 : shape_.sizes[d];
  inverse_.resize(longest + 1, 0.0);
  for (std::size_t s = 1; s < inverse_.size(); ++s) inverse_[s] = 1.0 / static_cast<double>(s);
  dense_ = true;
  for (std::size_t i = 0; dense_ && i < shape_.channel_of.size(); ++i) dense_ = shape_.channel_of[i] == i;
}

void TorusFlows::offsets_to(RouterId dst, std::span<const SourceFlow> flows, std::vector<std::int64_t>& out) const {
  const std::size_t n = shape_.dims();
  out.resize(flows.size() * n);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    RouterId s = flows[i].src, t = dst;
    for (std::size_t d = n; d-- > 0;) {  // the last dimension varies fastest
      const std::uint32_t k = shape_.sizes[d];
      std::int64_t x = std::int64_t(s % k) - std::int64_t(t % k);
      s /= k, t /= k;
      if (shape_.wrap[d]) {
        if (x < 0) x += k;
        if (2 * x > k) x -= k;
      }
      out[i * n + d] = x;
    }
  }
}

// The shares of src -> dst in Routing::route's order: the dimensions in routing order, each
// k/2 tie of a wrap dimension doubling the direction combinations (equal weights), and per
// combination either the walk in dimension order or the spread over its minimal paths.
template <typename Sink>
void TorusFlows::for_each_share(RouterId src, RouterId dst, Sink&& sink) const {
  thread_local std::vector<DimChoice> choices;
  thread_local std::vector<detail::Leg> legs;
  choices.clear();
  std::size_t ties = 0;
  for (std::uint32_t d : order_) {
    const std::uint32_t k = shape_.sizes[d];
    const std::int64_t cs = shape_.coord(src, d), cd = shape_.coord(dst, d);
    if (cs == cd) continue;
    DimChoice c{d, 0, false, 0};
    if (!shape_.wrap[d]) {
      c.steps = static_cast<std::uint32_t>(std::llabs(cd - cs));
      c.dir = cd > cs ? 0 : 1;
    } else {
      const std::uint32_t fwd = static_cast<std::uint32_t>((cd - cs + k) % k);
      if (2 * fwd < k) {
        c.steps = fwd;
      } else if (2 * fwd > k) {
        c.steps = k - fwd;
        c.dir = 1;
      } else if (ties_ == TieRule::SimGrid) {
        c.steps = fwd;
        c.dir = (2 * cs == k && cd == 0) ? 1 : 0;
      } else {
        c.steps = fwd;
        c.tie = true;
        ++ties;
      }
    }
    choices.push_back(c);
  }
  const std::size_t dims = shape_.dims();
  const detail::MoveTable moves{shape_.channel_of, static_cast<std::uint32_t>(dims * 2), machine_.channels};
  const double weight = 1.0 / static_cast<double>(1u << ties);
  legs.resize(choices.size());
  for (std::uint32_t combo = 0; combo < (1u << ties); ++combo) {
    std::size_t tie_index = 0;
    for (std::size_t i = 0; i < choices.size(); ++i) {
      int dir = choices[i].dir;
      if (choices[i].tie) dir = (combo >> tie_index++) & 1;
      legs[i] = detail::Leg{choices[i].dim * 2 + static_cast<std::uint32_t>(dir), choices[i].steps};
    }
    if (minimal_) {
      detail::spread_over_orderings(moves, src, legs, weight, sink);
      continue;
    }
    // Dimension order: the walk, the next router from the coordinates (not the channel table).
    RouterId r = src;
    for (const detail::Leg& leg : legs) {
      const std::uint32_t d = leg.move / 2, dir = leg.move % 2;
      const std::uint32_t k = shape_.sizes[d], stride = shape_.strides[d];
      std::uint32_t c = shape_.coord(r, d);
      for (std::uint32_t s = 0; s < leg.steps; ++s) {
        const std::size_t slot = (static_cast<std::size_t>(r) * dims + d) * 2 + dir;
        sink(dense_ ? static_cast<ChannelId>(slot) : shape_.channel_of[slot], weight);
        if (dir == 0) {
          if (++c == k) c = 0, r -= (k - 1) * stride;
          else r += stride;
        } else {
          if (c == 0) c = k - 1, r += (k - 1) * stride;
          else --c, r -= stride;
        }
      }
    }
  }
}

void TorusFlows::route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const {
  for_each_share(src, dst, [&](ChannelId c, double f) { out.push_back({c, f}); });
}

std::uint64_t TorusFlows::add_pair(RouterId src, RouterId dst, double volume, std::span<double> loads) const {
  std::uint64_t additions = 0;
  for_each_share(src, dst, [&](ChannelId c, double f) {
    loads[c] += volume * f;
    ++additions;
  });
  return additions;
}

namespace {

// A push of a router's mass one hop on: along move `move` (dimension * 2 + direction), a share
// weight / (hops left) of it, to the router box_step away in the box.
struct Push {
  std::uint32_t move;
  double weight;
  std::int64_t box_step;
};

// One row of the sweep: the routers whose coordinates but the last (the inner dimension) are
// fixed, at inner offsets x = lo .. hi from the destination. Mass arriving from other rows is
// in `mass` already; along the row it is carried from router to router in a register (the
// chain of a row is the sweep's critical path).
template <bool Dense>  // channel id = router * moves + move (every channel present), else channel_of
struct Row {
  std::span<double> loads;
  std::span<double> mass;
  const ChannelId* channel_of;
  const double* inverse;
  std::uint32_t moves;
  std::uint32_t inner_move;  // the inner dimension * 2: its "+" move; + 1: its "-" move
  std::int64_t lo = 0, hi = 0;
  bool tie = false;  // hi is a k/2 offset of a wrap dimension
  const std::uint64_t* inner_router = nullptr;  // router id part at inner offset x: [x - lo]
  std::span<const Push> outer = {};  // the row's pushes in the fixed dimensions
  std::int64_t box = 0;         // box index at x = lo
  std::uint64_t router = 0;     // router id part of the fixed dimensions
  std::uint32_t distance = 0;   // hops left in the fixed dimensions
  std::uint64_t additions = 0;

  double& load(std::uint64_t base, std::uint32_t move) const {
    if constexpr (Dense) return loads[base + move];
    return loads[channel_of[base + move]];
  }
  // The router at inner offset x holding mass m: its pushes in the fixed dimensions, and the
  // channel base of its moves along the row (0 when it is the destination).
  std::uint64_t push_outer(std::int64_t x, double m, std::uint32_t left) {
    const std::int64_t b = box + (x - lo);
    const double scale = m * inverse[left];
    const std::uint64_t base = (router + inner_router[x - lo]) * moves;
    for (const Push& p : outer) {
      const double f = scale * p.weight;
      load(base, p.move) += f;
      mass[static_cast<std::size_t>(b + p.box_step)] += f;
    }
    additions += outer.size();
    return base;
  }
  // Routers hi .. 1 (moving "-") or lo .. -1 (moving "+"): what each carries on to its
  // neighbour towards 0 is returned by the last.
  template <int Step>
  double run(std::int64_t from, std::int64_t to, double carry) {
    const std::uint32_t move = inner_move + (Step < 0 ? 1 : 0);
    for (std::int64_t x = from; x != to; x += Step) {
      const double m = mass[static_cast<std::size_t>(box + (x - lo))] + carry;
      if (m == 0.0) {
        carry = 0.0;
        continue;
      }
      const std::uint32_t distance_x = static_cast<std::uint32_t>(Step < 0 ? x : -x);
      const std::uint32_t left = distance + distance_x;
      carry = m * (static_cast<double>(distance_x) * inverse[left]);
      const std::uint64_t base = push_outer(x, m, left);
      load(base, move) += carry;
      ++additions;
    }
    return carry;
  }
  void sweep() {
    double from_above = 0.0;
    std::int64_t first = hi;
    if (tie) {  // offset k/2: half each way, the "+" half landing on -(k/2 - 1) (0 when k = 2)
      const double m = mass[static_cast<std::size_t>(box + (hi - lo))];
      if (m != 0.0) {
        const std::uint32_t left = distance + static_cast<std::uint32_t>(hi);
        const double half = 0.5 * m * (static_cast<double>(hi) * inverse[left]);
        const std::uint64_t base = push_outer(hi, m, left);
        load(base, inner_move) += half;
        load(base, inner_move + 1) += half;
        mass[static_cast<std::size_t>(box + (1 - hi) - lo)] += half;
        from_above = half;
        additions += 2;
      }
      first = hi - 1;
    }
    from_above = run<-1>(first, 0, from_above);
    const double from_below = run<1>(lo, 0, 0.0);
    const double m = mass[static_cast<std::size_t>(box - lo)] + from_above + from_below;
    if (m != 0.0 && distance > 0) push_outer(0, m, distance);
  }
};

}  // namespace

std::uint64_t TorusFlows::add_merged(RouterId dst, std::span<const SourceFlow> flows, std::span<double> loads) const {
  if (!minimal_) fail("TorusFlows::add_merged: the flows of dimension order routing do not merge");
  thread_local std::vector<std::int64_t> offsets;
  offsets_to(dst, flows, offsets);
  return merge(dst, flows, offsets, loads);
}

std::uint64_t TorusFlows::merge(RouterId dst, std::span<const SourceFlow> flows, std::span<const std::int64_t> offsets,
                                std::span<double> loads) const {
  const std::size_t n = shape_.dims();
  if (flows.empty() || n == 0) return 0;
  // The box: per dimension, the span [lo, hi] of the sources' offsets x = coordinate - dst's
  // (and, from a k/2 tie, where its "+" move lands: -(k/2 - 1)); box index = sum (x - lo) x
  // box_stride, the last dimension fastest.
  struct Dim {
    std::int64_t lo = 0, hi = 0, k = 0;
    std::uint32_t at = 0;  // dst's coordinate
    bool tie = false;      // hi is a k/2 offset of a wrap dimension
    std::int64_t box_stride = 1;
  };
  thread_local std::vector<Dim> dim;
  thread_local std::vector<double> mass;
  dim.assign(n, Dim{});
  for (std::size_t d = 0; d < n; ++d) dim[d].at = shape_.coord(dst, d), dim[d].k = shape_.sizes[d];
  for (std::size_t i = 0; i < flows.size(); ++i) {
    for (std::size_t d = 0; d < n; ++d) {
      const std::int64_t x = offsets[i * n + d];
      dim[d].lo = std::min(dim[d].lo, x), dim[d].hi = std::max(dim[d].hi, x);
    }
  }
  std::int64_t volume = 1;
  for (std::size_t d = n; d-- > 0;) {
    Dim& g = dim[d];
    g.tie = shape_.wrap[d] && 2 * g.hi == g.k;
    if (g.tie) g.lo = std::min(g.lo, 1 - g.hi);
    g.box_stride = volume;
    volume *= g.hi - g.lo + 1;
  }
  mass.assign(static_cast<std::size_t>(volume), 0.0);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    std::int64_t index = 0;
    for (std::size_t d = 0; d < n; ++d) index += (offsets[i * n + d] - dim[d].lo) * dim[d].box_stride;
    mass[static_cast<std::size_t>(index)] += flows[i].volume;
  }
  // A router's id part in dimension d at offset x.
  auto router_part = [&](std::size_t d, std::int64_t x) {
    std::int64_t c = dim[d].at + x;
    if (shape_.wrap[d]) c = (c + dim[d].k) % dim[d].k;
    return static_cast<std::uint64_t>(c) * shape_.strides[d];
  };
  // Sweep order of an outer dimension's offsets: hi .. 1 (the k/2 tie first), lo .. -1, 0.
  // Every router's mass then comes from routers before it (one step further from dst in one
  // dimension): the rows in the odometer order of the outer dimensions (the first slowest),
  // each row as Row::sweep does it.
  thread_local std::vector<std::vector<std::int64_t>> order;
  order.resize(n);
  for (std::size_t d = 0; d + 1 < n; ++d) {
    order[d].clear();
    for (std::int64_t x = dim[d].hi; x >= 1; --x) order[d].push_back(x);
    for (std::int64_t x = dim[d].lo; x <= -1; ++x) order[d].push_back(x);
    order[d].push_back(0);
  }
  const Dim& inner = dim[n - 1];
  thread_local std::vector<std::uint64_t> inner_router;
  inner_router.clear();
  for (std::int64_t x = inner.lo; x <= inner.hi; ++x) inner_router.push_back(router_part(n - 1, x));
  thread_local std::vector<Push> outer;
  thread_local std::vector<std::size_t> at;
  auto sweep_rows = [&](auto& row) {
    row.lo = inner.lo, row.hi = inner.hi, row.tie = inner.tie, row.inner_router = inner_router.data();
    at.assign(n - 1, 0);
    while (true) {
      outer.clear();
      row.box = 0, row.router = 0, row.distance = 0;
      for (std::size_t d = 0; d + 1 < n; ++d) {
        const Dim& g = dim[d];
        const std::int64_t x = order[d][at[d]];
        row.box += (x - g.lo) * g.box_stride;
        row.router += router_part(d, x);
        row.distance += static_cast<std::uint32_t>(std::llabs(x));
        const auto move = static_cast<std::uint32_t>(2 * d);
        const double distance = static_cast<double>(std::llabs(x));
        if (x == 0) continue;
        if (g.tie && x == g.hi) {  // half each way, the "+" half landing on -(k/2 - 1)
          outer.push_back({move, 0.5 * distance, (1 - 2 * g.hi) * g.box_stride});
          outer.push_back({move + 1, 0.5 * distance, -g.box_stride});
        } else {
          outer.push_back(x > 0 ? Push{move + 1, distance, -g.box_stride} : Push{move, distance, g.box_stride});
        }
      }
      row.outer = outer;
      row.sweep();
      std::size_t d = n - 1;
      while (d > 0 && ++at[d - 1] == order[d - 1].size()) at[--d] = 0;
      if (d == 0) break;
    }
    return row.additions;
  };
  const auto moves = static_cast<std::uint32_t>(2 * n), inner_move = static_cast<std::uint32_t>(2 * (n - 1));
  if (dense_) {
    Row<true> row{loads, mass, nullptr, inverse_.data(), moves, inner_move};
    return sweep_rows(row);
  }
  Row<false> row{loads, mass, shape_.channel_of.data(), inverse_.data(), moves, inner_move};
  return sweep_rows(row);
}

std::uint64_t TorusFlows::add_flows_to(RouterId dst, std::span<const SourceFlow> flows, std::span<double> loads) const {
  if (minimal_ && flows.size() > 1) {
    // Points of the flows' own boxes of minimal paths (a k/2 tie doubles a box) against the
    // routers of the box the sources span around dst.
    thread_local std::vector<std::int64_t> offsets;
    offsets_to(dst, flows, offsets);
    const std::size_t n = shape_.dims();
    std::uint64_t own = 0, merged = 1;
    thread_local std::vector<std::int64_t> lo, hi;
    lo.assign(n, 0), hi.assign(n, 0);
    for (std::size_t i = 0; i < flows.size(); ++i) {
      std::uint64_t points = 1;
      for (std::size_t d = 0; d < n; ++d) {
        const std::int64_t x = offsets[i * n + d];
        points *= static_cast<std::uint64_t>(std::llabs(x) + 1) * (shape_.wrap[d] && 2 * x == shape_.sizes[d] ? 2 : 1);
        lo[d] = std::min(lo[d], x), hi[d] = std::max(hi[d], x);
      }
      own += points;
    }
    for (std::size_t d = 0; d < n; ++d) {
      const bool tie = shape_.wrap[d] && 2 * hi[d] == shape_.sizes[d];
      merged *= static_cast<std::uint64_t>(hi[d] - std::min(lo[d], tie ? 1 - hi[d] : lo[d]) + 1);
    }
    if (merged < own) return merge(dst, flows, offsets, loads);
  }
  std::uint64_t additions = 0;
  for (const SourceFlow& f : flows) additions += add_pair(f.src, dst, f.volume, loads);
  return additions;
}

}  // namespace taskmap
