#include "lattice_walk.h"

namespace taskmap::detail {

void walk_in_order(const MoveTable& moves, RouterId src, std::span<const Leg> legs, double weight,
                   std::vector<ChannelShare>& out) {
  RouterId r = src;
  for (const Leg& leg : legs) {
    for (std::uint32_t s = 0; s < leg.steps; ++s) {
      ChannelId c = moves.channel(r, leg.move);
      out.push_back({c, weight});
      r = moves.channels[c].dst;
    }
  }
}

void spread_over_orderings(const MoveTable& moves, RouterId src, std::span<const Leg> legs, double weight,
                           std::vector<ChannelShare>& out) {
  thread_local std::vector<Leg> active;
  active.clear();
  for (const Leg& l : legs) {
    if (l.steps > 0) active.push_back(l);
  }
  if (active.size() <= 1) {
    walk_in_order(moves, src, active, weight, out);
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
        out.push_back({c, f * weight});
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

}  // namespace taskmap::detail
