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

void walk_in_order(const MoveTable& moves, RouterId src, std::span<const Leg> legs, double weight,
                   std::vector<ChannelShare>& out);
void spread_over_orderings(const MoveTable& moves, RouterId src, std::span<const Leg> legs, double weight,
                           std::vector<ChannelShare>& out);

}  // namespace taskmap::detail
