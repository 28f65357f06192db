#include "taskmap/core/spec.h"

#include <fmt/format.h>

#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"

namespace taskmap::io {

SpecReader::SpecReader(std::string what, std::string_view text) : what_(std::move(what)), text_(text) {
  if (text.empty()) fail("empty value");
  std::size_t colon = text.find(':');
  kind_ = std::string(text.substr(0, colon));
  if (kind_.empty()) fail("missing name before ':'");
  if (colon == std::string_view::npos) return;
  std::string_view rest = text.substr(colon + 1);
  bool first = true;
  while (true) {
    std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    if (item.empty()) fail("empty item");
    std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      if (!first) fail(fmt::format("'{}' is not of the form key=value", item));
      bare_ = std::string(item);
    } else {
      std::string key(item.substr(0, eq));
      if (key.empty()) fail(fmt::format("'{}' has no key", item));
      if (values_.count(key)) fail(fmt::format("key '{}' given twice", key));
      values_[key] = std::string(item.substr(eq + 1));
    }
    first = false;
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
}

std::optional<std::string> SpecReader::get_string(const std::string& key) {
  auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  used_.insert(key);
  return it->second;
}

std::optional<std::int64_t> SpecReader::get_int(const std::string& key, std::int64_t min, std::int64_t max) {
  auto s = get_string(key);
  if (!s) return std::nullopt;
  auto v = parse_int(*s);
  if (!v) fail(fmt::format("{}='{}' is not an integer", key, *s));
  if (*v < min || *v > max) fail(fmt::format("{}={} is out of range [{}, {}]", key, *v, min, max));
  return v;
}

std::optional<double> SpecReader::get_double(const std::string& key) {
  auto s = get_string(key);
  if (!s) return std::nullopt;
  auto v = parse_double(*s);
  if (!v) fail(fmt::format("{}='{}' is not a number", key, *s));
  return v;
}

std::optional<bool> SpecReader::get_bool(const std::string& key) {
  auto s = get_string(key);
  if (!s) return std::nullopt;
  if (*s == "true" || *s == "1" || *s == "yes") return true;
  if (*s == "false" || *s == "0" || *s == "no") return false;
  fail(fmt::format("{}='{}' is not true or false", key, *s));
}

std::vector<std::uint32_t> SpecReader::bare_sizes(const std::string& example, std::int64_t max) {
  if (!bare_) fail(fmt::format("missing sizes, e.g. {}", example));
  return parse_sizes(*bare_, max);
}

std::optional<std::vector<std::uint32_t>> SpecReader::get_sizes(const std::string& key, std::int64_t max) {
  auto s = get_string(key);
  if (!s) return std::nullopt;
  return parse_sizes(*s, max);
}

std::optional<std::size_t> SpecReader::get_choice(const std::string& key, std::initializer_list<std::string_view> names) {
  auto s = get_string(key);
  if (!s) return std::nullopt;
  std::size_t i = 0;
  std::string list;
  for (std::string_view name : names) {
    if (name == *s) return i;
    list += fmt::format("{}{}", i++ ? ", " : "", name);
  }
  fail(fmt::format("{}='{}' is not one of {}", key, *s, list));
}

std::vector<std::uint32_t> SpecReader::parse_sizes(std::string_view text, std::int64_t max) const {
  std::vector<std::uint32_t> sizes;
  std::string_view rest = text;
  while (true) {
    const std::size_t x = rest.find('x');
    const std::string_view item = rest.substr(0, x);
    auto v = parse_int(item);
    if (!v) fail(fmt::format("'{}' is not a size", item));
    if (*v < 1) fail(fmt::format("dimension size {} must be at least 1", *v));
    if (*v > max) fail(fmt::format("size {} is too large (at most {})", *v, max));
    sizes.push_back(static_cast<std::uint32_t>(*v));
    if (x == std::string_view::npos) break;
    rest = rest.substr(x + 1);
  }
  return sizes;
}

void SpecReader::finish() const {
  for (const auto& [key, value] : values_) {
    if (!used_.count(key)) fail(fmt::format("unknown key '{}' for '{}'", key, kind_));
  }
}

void SpecReader::fail(const std::string& problem) const {
  taskmap::fail("{} '{}': {}", what_, text_, problem);
}

}  // namespace taskmap::io
