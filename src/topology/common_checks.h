#pragma once
// Size checks shared by the machine builders: ids are 32-bit, so refuse machines that would
// overflow them (and, far earlier, exhaust memory) with a clear message.
#include <cstdint>

#include "taskmap/core/error.h"

namespace taskmap::detail {

inline constexpr std::uint64_t kMaxRouters = 1u << 22;
inline constexpr std::uint64_t kMaxSlots = 1u << 30;

inline void check_machine_size(const char* what, std::uint64_t routers, std::uint64_t nodes_per_router,
                               std::uint64_t slots_per_node) {
  if (routers == 0) fail("{}: the machine has no routers", what);
  if (nodes_per_router == 0) fail("{}: nodes per router must be at least 1", what);
  if (slots_per_node == 0) fail("{}: slots per node must be at least 1", what);
  if (routers > kMaxRouters) fail("{}: {} routers is more than taskmap supports ({})", what, routers, kMaxRouters);
  if (routers * nodes_per_router * slots_per_node > kMaxSlots) {
    fail("{}: {} slots is more than taskmap supports ({})", what, routers * nodes_per_router * slots_per_node,
         kMaxSlots);
  }
}

}  // namespace taskmap::detail
