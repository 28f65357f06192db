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

}  // namespace taskmap
