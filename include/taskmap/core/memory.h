#pragma once
// The memory a run may use. Inputs whose size comes from a header field, an id or a pattern's
// parameters are checked against it before anything is allocated for them, so a short file or
// a typo in a size gets one line instead of an allocation that takes the machine down.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "taskmap/core/error.h"

namespace taskmap {

// Thrown when an input would need more memory than memory_limit() allows, or more tasks than
// task ids can number.
class LimitError : public Error {
 public:
  using Error::Error;
};

// Bytes a run may use: set_memory_limit's value, else 80% of the smaller of the physical
// memory and the cgroup's limit (memory.max, or memory.limit_in_bytes under cgroup v1).
std::uint64_t memory_limit();
// 0 goes back to the default.
void set_memory_limit(std::uint64_t bytes);
// The default memory_limit(), from the machine and the cgroup.
std::uint64_t default_memory_limit();

// "16G", "512M", "1024K", "2T" (binary multiples, case-insensitive, an optional trailing
// "B" or "iB") or a plain byte count; nullopt when malformed, zero or beyond 64 bits.
std::optional<std::uint64_t> parse_byte_size(std::string_view text);
// Rounded for messages: "24 GiB", "1.5 MiB", "512 B".
std::string format_bytes(std::uint64_t bytes);
// A count for messages: exact below a million, else three significant digits ("6e9", "1.07e9").
std::string format_count(std::uint64_t count);

// Throws LimitError "SUBJECT needs about B for FOR_WHAT; limit L (--max-memory)" when `bytes`
// exceed memory_limit(), e.g. "halo3d:1000x1000x1000 needs about 190 GiB for 6e9 flows; limit
// 19 GiB (--max-memory)". `bytes` is an estimate the caller computes with saturating_mul/add.
void check_memory(std::string_view subject, std::uint64_t bytes, std::string_view for_what);

// a * b and a + b, saturated at UINT64_MAX.
inline std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

}  // namespace taskmap
