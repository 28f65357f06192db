#pragma once
// The one syntax of every name on the command line: "kind[:item,item,...]" where an item is
// "key=value" or, for the first item only, a bare value (e.g. "torus:4x4x2,ppn=16",
// "order:TEDCBA", "random:seed=3"). Every key is checked: unknown ones are an error.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "taskmap/core/error.h"

namespace taskmap::io {

// ---- Lexing of spec strings (docs/spec-strings.md) ------------------------------------------
// "kind[:item,item,...]", an item "key=value"; the first item may be bare. A value of a path
// (or string) parameter may be quoted with single quotes, a quote inside written twice
// ('it''s.graph'); an unquoted one runs up to the first ",KEY=" where KEY is a key of the entry
// (so "file:run=1/g.graph" and "file:a,b.graph" need no quotes).

struct SpecItem {
  std::string key;    // empty for the bare first item
  std::string value;  // unquoted
  bool quoted = false;  // given in quotes: taken as it is, commas and '=' included
};

// What the lexer must know about the entry whose items it reads.
struct SpecLexRules {
  std::function<bool(std::string_view key)> is_key;        // a key of the entry (bare item excluded)
  std::function<bool(std::string_view key)> is_path_key;   // its value is a path or string (quotes, ",KEY=" rule)
  bool bare_allowed = false;                               // the first item may be bare
  bool bare_is_path = false;                               // ... and is a path
};

// The problem alone (no option or spec prefix); callers add where it comes from.
class SpecSyntaxError : public Error {
 public:
  using Error::Error;
};

// "torus" of "torus:4x4": the text before the first ':' (all of it when there is none).
std::string_view spec_kind(std::string_view text);
// The items after the first ':' (nullopt when there is no ':'), lexed by `rules`. Throws
// SpecSyntaxError: "empty item", "'x' is not of the form key=value", unterminated quotes.
std::vector<SpecItem> lex_spec_items(std::string_view items, const SpecLexRules& rules);
// Reads a quoted value starting at text[pos] == '\'': returns it unquoted and moves pos past
// the closing quote.
std::string read_quoted(std::string_view text, std::size_t& pos);
// `text` split at every `separator` outside quoted values ("A+B", "a,'b,c'" -> a | 'b,c').
std::vector<std::string_view> split_outside_quotes(std::string_view text, char separator);
// The inverse of read_quoted: the value quoted for a spec string when it needs it (a quote, a comma, or a
// leading quote), else as it is.
std::string quote_spec_value(std::string_view value);
// "@FILE" arguments: the path is the whole rest of the argument, taken literally (commas,
// '=', quotes and all). nullopt unless `argument` starts with '@'.
std::optional<std::string> at_file_argument(std::string_view argument);

// ---- Ad-hoc reader (mappers still parse with it) ----------------------------------------------

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
