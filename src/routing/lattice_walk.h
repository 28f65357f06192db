#pragma once
// Flow along lattice-like machines (tori, meshes, RT/RTT): a route is a multiset of unit
// moves ("legs": a move kind and a count). Dimension order walks the legs one after another;
// the minimal model spreads the flow evenly over every ordering of the unit moves, i.e. over
// every minimal path. The latter is computed exactly by a forward pass over the box of
// partial progress: a uniformly random ordering takes next a move of leg i with probability
// (remaining_i / remaining_total).
#include <span>
#include <vector>

#include "taskmap/routing/routing.h"

namespace taskmap::detail {

struct Leg {
  std::uint32_t move = 0;   // index into the per-router move table
  std::uint32_t steps = 0;
};

// table[router * moves_per_router + move] = channel taking that move from router.
struct MoveTable {
  const std::vector<ChannelId>& table;
  std::uint32_t moves_per_router;
  const std::vector<Channel>& channels;
  ChannelId channel(RouterId r, std::uint32_t move) const { return table[r * moves_per_router + move]; }
};

// Both call sink(channel, fraction x weight) once per channel crossed, in the order of
// Routing::route's shares.
template <typename Sink>
void walk_in_order(const MoveTable& moves, RouterId src, std::span<const Leg> legs, double weight, Sink&& sink) {
  RouterId r = src;
  for (const Leg& leg : legs) {
    for (std::uint32_t s = 0; s < leg.steps; ++s) {
      const ChannelId c = moves.channel(r, leg.move);
      sink(c, weight);
      r = moves.channels[c].dst;
    }
  }
}

template <typename Sink>
void spread_over_orderings(const MoveTable& moves, RouterId src, std::span<const Leg> legs, double weight,
                           Sink&& sink) {
  thread_local std::vector<Leg> active;
  active.clear();
  for (const Leg& l : legs) {
    if (l.steps > 0) active.push_back(l);
  }
  if (active.size() <= 1) {
    walk_in_order(moves, src, active, weight, sink);
    return;
  }
  // Mixed-radix box over progress per leg (last leg fastest); stride[i] advances leg i.
  const std::size_t n = active.size();
  thread_local std::vector<std::size_t> stride;
  thread_local std::vector<std::uint32_t> progress;
  thread_local std::vector<double> prob;
  thread_local std::vector<RouterId> router;
  stride.assign(n, 0);
  progress.assign(n, 0);
  std::size_t points = 1;
  std::uint32_t total_steps = 0;
  for (std::size_t i = n; i-- > 0;) {
    stride[i] = points;
    points *= active[i].steps + 1;
    total_steps += active[i].steps;
  }
  prob.assign(points, 0.0);
  router.resize(points);
  prob[0] = 1.0;
  router[0] = src;
  std::uint32_t done = 0;
  for (std::size_t idx = 0; idx < points; ++idx) {
    const double p = prob[idx];
    const std::uint32_t remaining = total_steps - done;
    if (remaining > 0 && p != 0.0) {
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t left = active[i].steps - progress[i];
        if (left == 0) continue;
        const double f = p * left / remaining;
        const ChannelId c = moves.channel(router[idx], active[i].move);
        sink(c, f * weight);
        prob[idx + stride[i]] += f;
        router[idx + stride[i]] = moves.channels[c].dst;
      }
    }
    // Odometer step to idx + 1.
    for (std::size_t i = n; i-- > 0;) {
      if (progress[i] < active[i].steps) {
        ++progress[i];
        ++done;
        break;
      }
      done -= progress[i];
      progress[i] = 0;
    }
  }
}

// The shares appended to `out`.
inline void walk_in_order(const MoveTable& moves, RouterId src, std::span<const Leg> legs, double weight,
                          std::vector<ChannelShare>& out) {
  walk_in_order(moves, src, legs, weight, [&](ChannelId c, double f) { out.push_back({c, f}); });
}
inline void spread_over_orderings(const MoveTable& moves, RouterId src, std::span<const Leg> legs, double weight,
                                  std::vector<ChannelShare>& out) {
  spread_over_orderings(moves, src, legs, weight, [&](ChannelId c, double f) { out.push_back({c, f}); });
}

}  // namespace taskmap::detail
