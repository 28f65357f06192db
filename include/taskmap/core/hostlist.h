#pragma once
// Host lists as Slurm writes them: "cn[0012-0015,0102],gpu01,r[1-2]n[01-16]". Ranges keep
// their leading zeros (the width of the range's first bound), several bracket groups in one
// name multiply out (r1n01, r1n02, ..., r2n16), commas outside brackets separate names.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace taskmap::io {

// Expands a host list in order (duplicates kept). Throws Error "SOURCE: host list 'TEXT':
// problem" on a syntax error (unclosed bracket, reversed range, empty name, a list that would
// expand to more than `max_hosts` names), LimitError when the names would take more than
// memory_limit().
// `held`: bytes the caller holds already of earlier lists (a file's), counted against the limit
// with this one's; returned names' share of that count is expanded_bytes(names). `max_why`
// says where max_hosts comes from, in the message that refuses more.
std::vector<std::string> expand_hostlist(std::string_view text, std::string_view source = "host list",
                                         std::size_t max_hosts = std::size_t{1} << 24, std::uint64_t held = 0,
                                         std::string_view max_why = {});
std::uint64_t expanded_bytes(const std::vector<std::string>& names);

// The inverse for display: sorted names folded into bracket ranges where they share a prefix.
std::string compress_hostlist(std::vector<std::string> names);

// Slurm's task counts per node, "2(x3),1" -> {2, 2, 2, 1}. Throws Error naming `source`.
std::vector<std::uint32_t> expand_slurm_counts(std::string_view text, std::string_view source);

}  // namespace taskmap::io
