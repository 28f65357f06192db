#pragma once
// The one syntax of every name on the command line: "kind[:item,item,...]" where an item is
// "key=value" or, for the first item only, a bare value (e.g. "torus:4x4x2,ppn=16",
// "order:TEDCBA", "random:seed=3"). Every key is checked: unknown ones are an error.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace taskmap::io {

class SpecReader {
 public:
  // `what` names the option for messages, e.g. "--machine".
  SpecReader(std::string what, std::string_view text);

  const std::string& kind() const { return kind_; }
  const std::string& text() const { return text_; }
  // The bare first item ("4x4x2", "TEDCBA", a file path), if any.
  const std::optional<std::string>& bare() const { return bare_; }

  std::optional<std::string> get_string(const std::string& key);
  std::optional<std::int64_t> get_int(const std::string& key, std::int64_t min, std::int64_t max);
  std::optional<double> get_double(const std::string& key);
  std::optional<bool> get_bool(const std::string& key);
  // The bare item as sizes "AxBxC", each in [1, max]; fails naming `example` when absent.
  std::vector<std::uint32_t> bare_sizes(const std::string& example, std::int64_t max);
  // key=AxBxC sizes.
  std::optional<std::vector<std::uint32_t>> get_sizes(const std::string& key, std::int64_t max);
  // key=NAME where NAME is one of `names`: its position; fails listing the names otherwise.
  std::optional<std::size_t> get_choice(const std::string& key, std::initializer_list<std::string_view> names);

  // Throws if a key was given that nobody asked for.
  void finish() const;
  [[noreturn]] void fail(const std::string& problem) const;

 private:
  std::vector<std::uint32_t> parse_sizes(std::string_view text, std::int64_t max) const;
  std::string what_;
  std::string text_;
  std::string kind_;
  std::optional<std::string> bare_;
  std::map<std::string, std::string> values_;
  std::set<std::string> used_;
};

}  // namespace taskmap::io
