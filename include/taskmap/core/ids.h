#pragma once
// The ids every module shares: routers, channels, nodes, slots and tasks are numbered densely
// from 0 in 32 bits.
#include <cstdint>
#include <limits>

namespace taskmap {

using RouterId = std::uint32_t;
using ChannelId = std::uint32_t;
using NodeId = std::uint32_t;
using SlotId = std::uint32_t;
using TaskId = std::uint32_t;
inline constexpr ChannelId kNoChannel = std::numeric_limits<ChannelId>::max();
inline constexpr RouterId kNoRouter = std::numeric_limits<RouterId>::max();
inline constexpr NodeId kNoNode = std::numeric_limits<NodeId>::max();
// The most tasks a pattern may have: task ids and counts stay positive 32-bit numbers.
inline constexpr std::uint64_t kMaxTaskCount = (std::uint64_t(1) << 31) - 1;

}  // namespace taskmap
