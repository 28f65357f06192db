#include "taskmap/core/memory.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <fstream>

#include "taskmap/core/text_source.h"

namespace taskmap {
namespace {

std::atomic<std::uint64_t> g_limit{0};

// The first line of a cgroup file as a byte count; nullopt for "max", a missing file or junk.
std::optional<std::uint64_t> cgroup_bytes(const char* path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  auto v = io::parse_int(line);
  if (!v || *v <= 0) return std::nullopt;
  return static_cast<std::uint64_t>(*v);
}

}  // namespace

std::uint64_t default_memory_limit() {
  static const std::uint64_t limit = [] {
    std::uint64_t bytes = UINT64_MAX;
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0) bytes = saturating_mul(static_cast<std::uint64_t>(pages), static_cast<std::uint64_t>(page));
    for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
      if (auto cg = cgroup_bytes(path)) bytes = std::min(bytes, *cg);
    }
    return bytes / 5 * 4;
  }();
  return limit;
}

std::uint64_t memory_limit() {
  const std::uint64_t set = g_limit.load(std::memory_order_relaxed);
  return set != 0 ? set : default_memory_limit();
}

void set_memory_limit(std::uint64_t bytes) { g_limit.store(bytes, std::memory_order_relaxed); }

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  if (s.ends_with("IB") && s.size() > 2 && std::string_view("KMGT").find(s[s.size() - 3]) != std::string_view::npos) {
    s.resize(s.size() - 2);
  } else if (s.ends_with('B')) {
    s.pop_back();
  }
  unsigned shift = 0;
  if (!s.empty()) {
    switch (s.back()) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      default: break;
    }
    if (shift != 0) s.pop_back();
  }
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  auto v = io::parse_int(s);
  if (!v || *v <= 0) return std::nullopt;
  const std::uint64_t n = static_cast<std::uint64_t>(*v);
  if (shift != 0 && n > (UINT64_MAX >> shift)) return std::nullopt;
  return n << shift;
}

std::string format_bytes(std::uint64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  if (u == 0 || v >= 9.95) return fmt::format("{:.0f} {}", v, units[u]);
  std::string s = fmt::format("{:.1f}", v);
  if (s.ends_with(".0")) s.resize(s.size() - 2);
  return s + " " + units[u];
}

std::string format_count(std::uint64_t count) {
  if (count < 1000000) return fmt::format("{}", count);
  const int exponent = static_cast<int>(std::floor(std::log10(static_cast<double>(count))));
  std::string mantissa = fmt::format("{:.2f}", static_cast<double>(count) / std::pow(10.0, exponent));
  if (mantissa.starts_with("10")) return format_count(static_cast<std::uint64_t>(std::pow(10.0, exponent + 1)));
  while (mantissa.ends_with('0')) mantissa.pop_back();
  if (mantissa.ends_with('.')) mantissa.pop_back();
  return fmt::format("{}e{}", mantissa, exponent);
}

void check_memory(std::string_view subject, std::uint64_t bytes, std::string_view for_what) {
  const std::uint64_t limit = memory_limit();
  if (bytes <= limit) return;
  throw LimitError(fmt::format("{} needs about {} for {}; limit {} (--max-memory)", subject, format_bytes(bytes), for_what,
                               format_bytes(limit)));
}

}  // namespace taskmap
