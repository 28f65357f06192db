#pragma once
// The machine as the multilevel mapper sees it: one block per router with slots (blocks
// numbered in router order), each holding up to its slots x the balance's tasks per slot, and
// the hop distance between blocks (a table up to kMaxTable blocks, else the problem's
// HopDistance).
#include <cstdint>
#include <span>
#include <vector>

#include "taskmap/topology/distance.h"
#include "taskmap/topology/machine.h"

namespace taskmap::detail {

class BlockMachine {
 public:
  BlockMachine(const Machine& machine, const HopDistance& hops, std::uint32_t tasks_per_slot);

  std::uint32_t blocks() const { return static_cast<std::uint32_t>(router_.size()); }
  RouterId router(std::uint32_t block) const { return router_[block]; }
  // UINT32_MAX for a router without slots.
  std::uint32_t block_of_router(RouterId r) const { return block_of_router_[r]; }
  std::uint64_t capacity(std::uint32_t block) const { return capacity_[block]; }
  std::uint32_t distance(std::uint32_t a, std::uint32_t b) const {
    return table_.empty() ? hops_(router_[a], router_[b]) : table_[std::size_t(a) * blocks() + b];
  }
  // The blocks nearest to `block` (at the smallest distance above 0), at most kMostNearby.
  std::span<const std::uint32_t> nearby(std::uint32_t block) const {
    return {nearby_.data() + nearby_start_[block], nearby_.data() + nearby_start_[block + 1]};
  }

  static constexpr std::uint32_t kMaxTable = 4096;
  static constexpr std::uint32_t kMostNearby = 32;

 private:
  const HopDistance& hops_;
  std::vector<RouterId> router_;
  std::vector<std::uint32_t> block_of_router_;
  std::vector<std::uint64_t> capacity_;
  std::vector<std::uint16_t> table_;
  std::vector<std::uint32_t> nearby_start_, nearby_;
};

}  // namespace taskmap::detail
