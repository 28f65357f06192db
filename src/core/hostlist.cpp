#include "taskmap/core/hostlist.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/core/text_source.h"

namespace taskmap::io {
namespace {

constexpr std::size_t kMaxCounts = std::size_t{1} << 24;

bool is_space(char c) { return c == ' ' || c == '\t'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// A very long list is cut in messages: the line number says where the rest is.
std::string shown(std::string_view text) {
  constexpr std::size_t kShown = 60;
  return text.size() <= kShown ? std::string(text) : fmt::format("{}...", text.substr(0, kShown));
}

struct Range {
  std::uint64_t lo = 0, hi = 0;
  int width = 0;  // digits of the lower bound as written: its leading zeros are kept
};

// One name: literal pieces around bracket groups, "r" [1-2] "n" [01-16] "".
struct NamePattern {
  std::vector<std::string_view> literals;  // groups.size() + 1 pieces
  std::vector<std::vector<Range>> groups;
};

class HostListParser final {
 public:
  HostListParser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  // The list and the problem quote input, which may hold a line break (a YAML value): escaped.
  [[noreturn]] void fail_with(std::string_view problem) const {
    fail("{}: host list '{}': {}", source_, io::printable(shown(text_)), io::printable(problem));
  }

  // Splits at the commas and spaces outside brackets; as Slurm does, several in a row (or one
  // at either end) separate no empty name.
  std::vector<std::string_view> split_names() const {
    std::vector<std::string_view> names;
    std::size_t start = 0;
    int depth = 0;
    for (std::size_t i = 0; i <= text_.size(); ++i) {
      const char c = i < text_.size() ? text_[i] : ',';
      if (c == '[') {
        if (++depth > 1) fail_with("'[' inside brackets");
      } else if (c == ']') {
        if (--depth < 0) fail_with("']' without '['");
      } else if ((c == ',' || is_space(c)) && depth == 0) {
        if (i > start) names.push_back(text_.substr(start, i - start));
        start = i + 1;
      }
    }
    if (depth != 0) fail_with("unclosed '['");
    return names;
  }

  NamePattern parse_name(std::string_view name) const {
    NamePattern pattern;
    std::size_t pos = 0;
    while (true) {
      const std::size_t open = name.find('[', pos);
      const std::string_view literal = name.substr(pos, open == std::string_view::npos ? name.npos : open - pos);
      pattern.literals.push_back(literal);
      if (open == std::string_view::npos) break;
      const std::size_t close = name.find(']', open);  // split_names saw it balanced
      pattern.groups.push_back(parse_group(name.substr(open + 1, close - open - 1)));
      pos = close + 1;
    }
    return pattern;
  }

 private:
  std::vector<Range> parse_group(std::string_view group) const {
    std::vector<Range> ranges;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= group.size(); ++i) {
      if (i < group.size() && group[i] != ',') continue;
      ranges.push_back(parse_range(trim(group.substr(start, i - start))));
      start = i + 1;
    }
    return ranges;
  }

  Range parse_range(std::string_view item) const {
    if (item.empty()) fail_with("empty range in brackets");
    const std::size_t dash = item.find('-');
    const std::string_view lo = trim(item.substr(0, dash));
    const std::string_view hi = dash == std::string_view::npos ? lo : trim(item.substr(dash + 1));
    Range range{number(lo), number(hi), static_cast<int>(lo.size())};
    if (range.hi < range.lo) fail_with(fmt::format("reversed range {}-{}", lo, hi));
    return range;
  }

  std::uint64_t number(std::string_view digits) const {
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), is_digit)) {
      fail_with(fmt::format("'{}' is not a number", digits));
    }
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) fail_with(fmt::format("{} is too large", digits));
    return value;
  }

  std::string_view text_;
  std::string_view source_;
};

std::uint64_t name_count(const NamePattern& pattern) {
  std::uint64_t count = 1;
  for (const auto& group : pattern.groups) {
    std::uint64_t in_group = 0;
    for (const Range& r : group) in_group = saturating_add(in_group, saturating_add(r.hi - r.lo, 1));
    count = saturating_mul(count, in_group);
  }
  return count;
}

// Memory one expanded name of `length` characters takes: the string, its characters when they
// do not fit inside it, and what every caller then builds of it: a hash table of the names
// (allocations, the Slurm reader) and a copy in its own list. Measured: a list of 10^7 names
// given to --nodes peaked at about 150 bytes a name.
std::uint64_t bytes_of_name(std::uint64_t length) {
  constexpr std::uint64_t kInPlace = 15;   // libstdc++'s short-string capacity
  constexpr std::uint64_t kIndexed = 128;  // a hash table's node, bucket and key, and a second string
  return sizeof(std::string) + (length > kInPlace ? length + 1 : 0) + kIndexed;
}

std::uint64_t name_bytes(const NamePattern& pattern) {
  std::uint64_t length = 0;
  for (const auto& literal : pattern.literals) length += literal.size();
  for (const auto& group : pattern.groups) {
    std::uint64_t widest = 0;
    for (const Range& r : group) {
      widest = std::max<std::uint64_t>({widest, static_cast<std::uint64_t>(r.width), std::to_string(r.hi).size()});
    }
    length += widest;
  }
  return bytes_of_name(length);
}

void append_number(std::string& out, std::uint64_t value, int width) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  const int length = static_cast<int>(end - digits);
  if (length < width) out.append(static_cast<std::size_t>(width - length), '0');
  out.append(digits, end);
}

// Every combination, the first group varying slowest.
void expand_pattern(const NamePattern& pattern, std::size_t group, std::string& prefix,
                    std::vector<std::string>& out) {
  prefix += pattern.literals[group];
  if (group == pattern.groups.size()) {
    out.push_back(prefix);
  } else {
    const std::size_t base = prefix.size();
    for (const Range& r : pattern.groups[group]) {
      for (std::uint64_t v = r.lo;; ++v) {
        append_number(prefix, v, r.width);
        expand_pattern(pattern, group + 1, prefix, out);
        prefix.resize(base);
        if (v == r.hi) break;
      }
    }
  }
  prefix.resize(prefix.size() - pattern.literals[group].size());
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view text, std::string_view source, std::size_t max_hosts,
                                         std::uint64_t held, std::string_view max_why) {
  if (trim(text).empty()) return {};
  const HostListParser parser(text, source);
  std::vector<NamePattern> patterns;
  std::uint64_t total = 0;
  for (std::string_view name : parser.split_names()) {
    patterns.push_back(parser.parse_name(name));
    total = saturating_add(total, name_count(patterns.back()));
  }
  if (total > max_hosts) {
    parser.fail_with(fmt::format("expands to more than {} names{}", max_hosts,
                                 max_why.empty() ? "" : fmt::format(" ({})", max_why)));
  }
  std::uint64_t bytes = held;
  for (const auto& pattern : patterns) {
    bytes = saturating_add(bytes, saturating_mul(name_count(pattern), name_bytes(pattern)));
  }
  check_memory(fmt::format("{}: host list '{}'", source, printable(shown(text))), bytes,
               held > 0 ? fmt::format("{} names with the earlier lists'", format_count(total))
                        : fmt::format("{} names", format_count(total)));
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(total));
  std::string prefix;
  for (const auto& pattern : patterns) expand_pattern(pattern, 0, prefix, names);
  return names;
}

std::uint64_t expanded_bytes(const std::vector<std::string>& names) {
  std::uint64_t bytes = 0;
  for (const std::string& name : names) bytes += bytes_of_name(name.size());
  return bytes;
}

namespace {

// "cn012" -> prefix "cn", digits "012"; digits empty when the name does not end in one.
std::pair<std::string_view, std::string_view> split_number(std::string_view name) {
  std::size_t first = name.size();
  while (first > 0 && is_digit(name[first - 1])) --first;
  return {name.substr(0, first), name.substr(first)};
}

// A number fits a group of padded width w when it has w digits; numbers written without a
// leading zero form the group of width 0 (written as they are).
bool padded(std::string_view digits) { return digits.size() > 1 && digits.front() == '0'; }

}  // namespace

std::string compress_hostlist(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  // Widths that some name of a prefix writes with leading zeros.
  std::map<std::pair<std::string_view, std::size_t>, bool> padded_widths;
  for (const auto& name : names) {
    const auto [prefix, digits] = split_number(name);
    if (padded(digits)) padded_widths[{prefix, digits.size()}] = true;
  }
  // (prefix, width) -> numbers; names without a number stand alone (width -1).
  std::map<std::tuple<std::string_view, long, std::string_view>, std::vector<std::uint64_t>> groups;
  for (const auto& name : names) {
    const auto [prefix, digits] = split_number(name);
    std::uint64_t value = 0;
    const bool numeric = !digits.empty() && digits.size() <= 19 &&
                         std::from_chars(digits.data(), digits.data() + digits.size(), value).ec == std::errc();
    if (!numeric) {
      groups[{name, -1, name}];
      continue;
    }
    const bool in_padded = padded(digits) || padded_widths.count({prefix, digits.size()}) > 0;
    groups[{prefix, in_padded ? static_cast<long>(digits.size()) : 0, {}}].push_back(value);
  }
  std::string out;
  for (auto& [key, values] : groups) {
    const auto& [prefix, width, whole] = key;
    if (!out.empty()) out += ',';
    if (width < 0) {
      out += whole;
      continue;
    }
    std::sort(values.begin(), values.end());
    out += prefix;
    if (values.size() > 1) out += '[';
    for (std::size_t i = 0; i < values.size();) {
      std::size_t j = i;
      while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
      if (i > 0) out += ',';
      append_number(out, values[i], static_cast<int>(width));
      if (j > i) {
        out += '-';
        append_number(out, values[j], static_cast<int>(width));
      }
      i = j + 1;
    }
    if (values.size() > 1) out += ']';
  }
  return out;
}

std::vector<std::uint32_t> expand_slurm_counts(std::string_view text, std::string_view source) {
  std::vector<std::uint32_t> counts;
  auto failure = [&](std::string_view problem) {
    fail("{}: task counts '{}': {}", source, io::printable(shown(text)), io::printable(problem));
  };
  auto parse = [&](std::string_view digits, std::string_view what) -> std::uint64_t {
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() || value > UINT32_MAX) {
      failure(fmt::format("{} '{}' is not a number", what, digits));
    }
    return value;
  };
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != ',') continue;
    const std::string_view item = trim(text.substr(start, i - start));
    start = i + 1;
    std::uint64_t repeat = 1;
    std::string_view count = item;
    if (const std::size_t open = item.find('('); open != std::string_view::npos) {
      if (!item.ends_with(')') || item.substr(open + 1, 1) != "x") failure(fmt::format("'{}' is not N(xM)", item));
      count = item.substr(0, open);
      repeat = parse(item.substr(open + 2, item.size() - open - 3), "repeat");
      if (repeat == 0) failure(fmt::format("'{}' repeats zero times", item));
    }
    const auto value = static_cast<std::uint32_t>(parse(count, "count"));
    if (repeat > kMaxCounts - counts.size()) failure(fmt::format("more than {} counts", kMaxCounts));
    counts.insert(counts.end(), static_cast<std::size_t>(repeat), value);
  }
  return counts;
}

}  // namespace taskmap::io
