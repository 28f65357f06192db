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
  std::vector<Leg> active;
  for (const Leg& l : legs) {
    if (l.steps > 0) active.push_back(l);
  }
  if (active.size() <= 1) {
    walk_in_order(moves, src, active, weight, out);
    return;
  }
  // Mixed-radix box over progress per leg; index stride[i] advances leg i by one step.
  const std::size_t n = active.size();
  std::vector<std::size_t> stride(n);
  std::size_t points = 1;
  for (std::size_t i = n; i-- > 0;) {
    stride[i] = points;
    points *= active[i].steps + 1;
  }
  thread_local std::vector<double> prob;
  thread_local std::vector<RouterId> router;
  prob.assign(points, 0.0);
  router.assign(points, 0);
  prob[0] = 1.0;
  router[0] = src;
  std::vector<std::uint32_t> progress(n, 0);
  std::uint32_t total_steps = 0;
  for (const Leg& l : active) total_steps += l.steps;
  for (std::size_t idx = 0; idx < points; ++idx) {
    // Decode progress from idx (last leg fastest).
    std::size_t rest = idx;
    std::uint32_t done = 0;
    for (std::size_t i = 0; i < n; ++i) {
      progress[i] = static_cast<std::uint32_t>(rest / stride[i]);
      rest %= stride[i];
      done += progress[i];
    }
    const double p = prob[idx];
    const std::uint32_t remaining = total_steps - done;
    if (remaining == 0 || p == 0.0) continue;
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
}

}  // namespace taskmap::detail
