#include "taskmap/core/spec.h"

#include <fmt/format.h>

#include <algorithm>

#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"

namespace taskmap::io {

std::string_view spec_kind(std::string_view text) { return text.substr(0, text.find(':')); }

std::string read_quoted(std::string_view text, std::size_t& pos) {
  const std::size_t open = pos++;
  std::string value;
  while (true) {
    const std::size_t quote = text.find('\'', pos);
    if (quote == std::string_view::npos) {
      throw SpecSyntaxError(fmt::format("unterminated quote in {} (a quote inside is written twice: '')",
                                        text.substr(open)));
    }
    value.append(text.substr(pos, quote - pos));
    pos = quote + 1;
    if (pos < text.size() && text[pos] == '\'') {
      value += '\'';
      ++pos;
      continue;
    }
    return value;
  }
}

std::vector<SpecItem> lex_spec_items(std::string_view items, const SpecLexRules& rules) {
  std::vector<SpecItem> out;
  const std::size_t n = items.size();
  std::size_t pos = 0;
  for (bool first = true;; first = false) {
    if (pos >= n || items[pos] == ',') throw SpecSyntaxError("empty item");
    const std::size_t comma = std::min(items.find(',', pos), n);
    const std::size_t eq = items.find('=', pos);
    const bool has_eq = eq < comma;
    const std::string_view key = has_eq ? items.substr(pos, eq - pos) : std::string_view();
    bool keyed = has_eq;
    if (first && rules.bare_allowed && rules.bare_is_path) {
      // A bare path may hold '=': it is a key=value item only when it starts with a known key.
      keyed = has_eq && items[pos] != '\'' && rules.is_key(key);
    }
    if (!keyed && !(first && rules.bare_allowed)) {
      throw SpecSyntaxError(fmt::format("'{}' is not of the form key=value", items.substr(pos, comma - pos)));
    }
    SpecItem item;
    std::size_t start = pos;
    if (keyed) {
      if (key.empty()) throw SpecSyntaxError(fmt::format("'{}' has no key", items.substr(pos, comma - pos)));
      item.key = std::string(key);
      start = eq + 1;
    }
    const bool path = keyed ? rules.is_path_key(item.key) : rules.bare_is_path;
    if (path && start < n && items[start] == '\'') {
      pos = start;
      item.value = read_quoted(items, pos);
      item.quoted = true;
      if (pos < n && items[pos] != ',') {
        throw SpecSyntaxError(fmt::format("unexpected '{}' after the closing quote of '{}'",
                                          items.substr(pos, std::min(items.find(',', pos), n) - pos), item.value));
      }
    } else if (path) {
      // Up to the first ",KEY=" naming a key of this entry, else to the end.
      pos = n;
      for (std::size_t c = items.find(',', start); c != std::string_view::npos; c = items.find(',', c + 1)) {
        const std::size_t e = items.find('=', c + 1);
        if (e != std::string_view::npos && e < std::min(items.find(',', c + 1), n) &&
            rules.is_key(items.substr(c + 1, e - c - 1))) {
          pos = c;
          break;
        }
      }
      item.value = std::string(items.substr(start, pos - start));
    } else {
      pos = comma;
      item.value = std::string(items.substr(start, pos - start));
    }
    out.push_back(std::move(item));
    if (pos >= n) return out;
    ++pos;  // the comma
  }
}

std::vector<std::string_view> split_outside_quotes(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  bool quoted = false;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\'') quoted = !quoted;
    if (text[i] == separator && !quoted) parts.push_back(text.substr(begin, i - begin)), begin = i + 1;
  }
  parts.push_back(text.substr(begin));
  return parts;
}

std::string quote_spec_value(std::string_view value) {
  if (!value.empty() && value.find_first_of(",'=") == std::string_view::npos) return std::string(value);
  std::string out = "'";
  for (char c : value) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::optional<std::string> at_file_argument(std::string_view argument) {
  if (argument.empty() || argument.front() != '@') return std::nullopt;
  return std::string(argument.substr(1));
}

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
