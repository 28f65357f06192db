#include "taskmap/core/catalog.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>

#include "taskmap/core/error.h"
#include "taskmap/core/spec.h"
#include "taskmap/core/text_source.h"

namespace taskmap {
namespace {

std::string join(const std::vector<std::string_view>& names, std::string_view sep = ", ") {
  std::string out;
  for (std::string_view n : names) out += fmt::format("{}{}", out.empty() ? "" : sep, n);
  return out;
}

// "5 or 9", "a, b or c".
std::string join_or(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += fmt::format("{}{}", i == 0 ? "" : i + 1 == names.size() ? " or " : ", ", names[i]);
  }
  return out;
}

std::string number(double v) {
  if (std::nearbyint(v) == v && std::fabs(v) < 1e18) return fmt::format("{}", static_cast<std::int64_t>(v));
  return fmt::format("{}", v);
}

bool is_bare(const CatalogEntry& e, const CatalogParam& p) { return e.positional && &p == &e.params.front(); }

std::vector<std::string_view> keyed_names(const CatalogEntry& e) {
  std::vector<std::string_view> names;
  for (const CatalogParam& p : e.params) {
    if (!is_bare(e, p)) names.push_back(p.name);
  }
  return names;
}

// A path runs up to the first ",KEY=" naming a key of its entry, so a mistyped key after it
// ("FILE,PPN=8") reads as part of the path: when the path does not exist but the part before
// such an item does, that item is the unknown key it looks like.
std::optional<std::string> key_read_as_path(const CatalogEntry& e, const std::string& path) {
  std::error_code ec;  // an unreadable directory or an overlong name is no reason to stop: the reader says why
  if (path.find(',') == std::string::npos || std::filesystem::exists(path, ec)) return std::nullopt;
  for (std::size_t comma = path.find(','); comma != std::string::npos; comma = path.find(',', comma + 1)) {
    const std::size_t eq = path.find('=', comma + 1);
    if (eq == std::string::npos || eq > path.find(',', comma + 1) || !std::filesystem::exists(path.substr(0, comma), ec)) {
      continue;
    }
    const std::string key = path.substr(comma + 1, eq - comma - 1);
    std::string lower = key;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::vector<std::string_view> known = keyed_names(e);
    if (auto close = closest_name(lower, known)) {
      return fmt::format("{}: unknown parameter '{}'; did you mean '{}'?", e.name, key, *close);
    }
    return fmt::format("{}: unknown parameter '{}'; known: {}", e.name, key, join(known));
  }
  return std::nullopt;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// What a value looks like in a synopsis.
std::string placeholder(const CatalogParam& p) {
  switch (p.type) {
    case ParamType::Int: return p.choices.empty() ? "N" : join(p.choices, "|");
    case ParamType::Real: return "X";
    case ParamType::Bool: return "true|false";
    case ParamType::Choice: return join(p.choices, "|");
    case ParamType::Sizes: return p.separator == 'x' ? "AxBxC" : fmt::format("A{0}B{0}C", p.separator);
    case ParamType::Letters: return "LETTERS";
    case ParamType::Path: return "PATH";
    case ParamType::String: return "TEXT";
  }
  return "?";
}

// The values allowed, for the docs and `list`.
std::string allowed_text(const CatalogParam& p) {
  auto range = [&] {
    if (p.min && p.max) return fmt::format("[{}, {}]", number(*p.min), number(*p.max));
    if (p.min) return fmt::format(">= {}", number(*p.min));
    if (p.max) return fmt::format("<= {}", number(*p.max));
    return std::string();
  };
  switch (p.type) {
    case ParamType::Int: return p.choices.empty() ? range() : join_or(p.choices);
    case ParamType::Real: return range();
    case ParamType::Bool: return "true or false";
    case ParamType::Choice: return join_or(p.choices);
    case ParamType::Sizes: {
      std::string count = p.max_count == p.min_count ? fmt::format("{} sizes", p.min_count)
                          : p.max_count == 0        ? fmt::format("at least {} sizes", p.min_count)
                                                    : fmt::format("{} to {} sizes", p.min_count, p.max_count);
      return p.min || p.max ? fmt::format("{}, each in {}", count, range()) : count;
    }
    case ParamType::Letters: return "upper-case letters";
    case ParamType::Path: return "a file";
    case ParamType::String: return "";
  }
  return "";
}

std::string default_text(const CatalogParam& p) {
  if (p.required) return "required";
  if (!p.default_value.empty()) return std::string(p.default_value);
  return p.when_absent.empty() ? "none" : std::string(p.when_absent);
}

std::string md_cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string roff_text(std::string_view text) {
  std::string out;
  bool code = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '[' && i > 0) out += "\\:";
    if (c == '`') {
      out += code ? "\\fR" : "\\fB";
      code = !code;
    } else if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else if ((c == '.' || c == '\'') && out.empty()) {
      out += "\\&";
      out += static_cast<char>(c);
    } else if (c < 0x80) {
      out += static_cast<char>(c == '\n' ? ' ' : c);
    } else {
      // One UTF-8 sequence; a stray byte shows as U+FFFD.
      const int length = c >= 0xF8 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
      std::uint32_t point = length == 1 ? 0xFFFD : c & (0x7Fu >> length);
      for (int k = 1; k < length; ++k) {
        const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
        if ((next & 0xC0) != 0x80) {
          point = 0xFFFD;
          break;
        }
        point = (point << 6) | (next & 0x3F);
        ++i;
      }
      out += fmt::format("\\[u{:04X}]", point);
    }
    if (c == ',' || c == '|') out += "\\:";
  }
  if (code) out += "\\fR";
  return out;
}

std::string_view param_type_name(ParamType type) {
  switch (type) {
    case ParamType::Int: return "int";
    case ParamType::Real: return "real";
    case ParamType::Bool: return "bool";
    case ParamType::Choice: return "choice";
    case ParamType::Sizes: return "sizes";
    case ParamType::Letters: return "letters";
    case ParamType::Path: return "path";
    case ParamType::String: return "string";
  }
  return "?";
}

const CatalogParam* CatalogEntry::param(std::string_view key) const {
  for (const CatalogParam& p : params) {
    if (p.name == key && !is_bare(*this, p)) return &p;
  }
  return nullptr;
}

// ---- Suggestions ---------------------------------------------------------------------------------

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::optional<std::string_view> closest_name(std::string_view word, const std::vector<std::string_view>& candidates) {
  const std::size_t limit = word.size() <= 4 ? 1 : 2;
  std::optional<std::string_view> best;
  std::size_t best_distance = limit + 1;
  for (std::string_view c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::vector<std::string_view> closest_names(std::string_view word, const std::vector<std::string_view>& candidates,
                                            std::size_t count) {
  std::vector<std::pair<std::size_t, std::size_t>> ranked;  // (distance, index)
  for (std::size_t i = 0; i < candidates.size(); ++i) ranked.emplace_back(edit_distance(word, candidates[i]), i);
  count = std::min(count, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(count), ranked.end());
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(candidates[ranked[i].second]);
  return out;
}

// ---- Values ----------------------------------------------------------------------------------------

bool SpecValues::given(std::string_view key) const {
  for (std::size_t i = 0; i < entry_->params.size(); ++i) {
    if (entry_->params[i].name == key) return !std::holds_alternative<std::monostate>(given_[i]);
  }
  throw std::logic_error(fmt::format("catalog: '{}' has no parameter '{}'", entry_->name, key));
}

const SpecValues::Value& SpecValues::value(std::string_view key, ParamType type) const {
  for (std::size_t i = 0; i < entry_->params.size(); ++i) {
    const CatalogParam& p = entry_->params[i];
    if (p.name != key) continue;
    const bool text_type = p.type == ParamType::Letters || p.type == ParamType::Path || p.type == ParamType::String;
    if (p.type != type && !(text_type && type == ParamType::String)) {
      throw std::logic_error(fmt::format("catalog: {}'s {} is of type {}", entry_->name, key, param_type_name(p.type)));
    }
    if (!std::holds_alternative<std::monostate>(given_[i])) return given_[i];
    if (!std::holds_alternative<std::monostate>(defaults_[i])) return defaults_[i];
    throw std::logic_error(fmt::format("catalog: {}'s {} is absent and has no default", entry_->name, key));
  }
  throw std::logic_error(fmt::format("catalog: '{}' has no parameter '{}'", entry_->name, key));
}

std::int64_t SpecValues::get_int(std::string_view key) const {
  return std::get<std::int64_t>(value(key, ParamType::Int));
}
double SpecValues::get_real(std::string_view key) const { return std::get<double>(value(key, ParamType::Real)); }
bool SpecValues::get_bool(std::string_view key) const { return std::get<bool>(value(key, ParamType::Bool)); }
const std::string& SpecValues::get_choice(std::string_view key) const {
  return std::get<std::string>(value(key, ParamType::Choice));
}
std::size_t SpecValues::choice_index(std::string_view key) const {
  const std::string& name = get_choice(key);
  for (const CatalogParam& p : entry_->params) {
    if (p.name != key) continue;
    for (std::size_t i = 0; i < p.choices.size(); ++i) {
      if (p.choices[i] == name) return i;
    }
  }
  throw std::logic_error("catalog: choice not in the table");
}
const std::vector<std::uint32_t>& SpecValues::get_sizes(std::string_view key) const {
  return std::get<std::vector<std::uint32_t>>(value(key, ParamType::Sizes));
}
const std::string& SpecValues::get_text(std::string_view key) const {
  return std::get<std::string>(value(key, ParamType::String));
}

void SpecValues::fail(const std::string& problem) const { catalog_->fail(text_, problem); }

// ---- Catalog ---------------------------------------------------------------------------------------

Catalog::Catalog(CatalogInfo info, std::vector<CatalogEntry> entries)
    : info_(info), entries_(std::move(entries)) {
  auto broken = [&](const std::string& what) {
    throw std::logic_error(fmt::format("{} catalog ({}): {}", info_.noun, info_.table_file, what));
  };
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const CatalogEntry& e = entries_[i];
    if (e.name.empty() || e.summary.empty() || e.example.empty()) broken(fmt::format("entry {} is incomplete", i));
    for (std::size_t j = 0; j < i; ++j) {
      if (entries_[j].name == e.name) broken(fmt::format("'{}' listed twice", e.name));
    }
    if (e.positional && e.params.empty()) broken(fmt::format("'{}' is positional without parameters", e.name));
    for (const CatalogParam& p : e.params) {
      if (p.name.empty() || p.meaning.empty()) broken(fmt::format("{}: a parameter has no name or meaning", e.name));
      if (std::count_if(e.params.begin(), e.params.end(), [&](const CatalogParam& q) { return q.name == p.name; }) != 1) {
        broken(fmt::format("{}: parameter '{}' listed twice", e.name, p.name));
      }
      if (p.required && !p.default_value.empty()) broken(fmt::format("{}: '{}' is required with a default", e.name, p.name));
      if (p.type == ParamType::Choice && p.choices.empty()) broken(fmt::format("{}: '{}' has no choices", e.name, p.name));
      if (!p.default_value.empty()) {
        try {
          parse_value(e, p, std::string(p.default_value), e.name);
        } catch (const Error& error) {
          broken(fmt::format("{}: default of '{}': {}", e.name, p.name, error.what()));
        }
      }
    }
  }
  for (const CatalogEntry& e : entries_) {
    try {
      if (parse(e.example).entry().name != e.name) broken(fmt::format("the example of '{}' names another entry", e.name));
    } catch (const Error& error) {
      broken(fmt::format("the example of '{}' does not parse: {}", e.name, error.what()));
    }
  }
}

const CatalogEntry* Catalog::find(std::string_view name) const {
  for (const CatalogEntry& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

void Catalog::fail(std::string_view text, const std::string& problem) const {
  taskmap::fail("{} '{}': {}", info_.option, text, problem);
}

SpecValues::Value Catalog::parse_value(const CatalogEntry& e, const CatalogParam& p, const std::string& raw,
                                       std::string_view text) const {
  const std::string in = fmt::format("{}: ", e.name);
  auto check_range = [&](double v, const std::string& shown) {
    if (p.min && v < *p.min) fail(text, in + fmt::format("{} must be at least {}, not {}", p.name, number(*p.min), shown));
    if (p.max && v > *p.max) fail(text, in + fmt::format("{} must be at most {}, not {}", p.name, number(*p.max), shown));
  };
  switch (p.type) {
    case ParamType::Int: {
      auto v = io::parse_int(raw);
      if (!v) fail(text, in + fmt::format("{}='{}' is not an integer", p.name, raw));
      if (!p.choices.empty() && std::find(p.choices.begin(), p.choices.end(), std::to_string(*v)) == p.choices.end()) {
        fail(text, in + fmt::format("{} must be {}, not {}", p.name, join_or(p.choices), *v));
      }
      check_range(static_cast<double>(*v), std::to_string(*v));
      return *v;
    }
    case ParamType::Real: {
      auto v = io::parse_double(raw);
      if (!v) fail(text, in + fmt::format("{}='{}' is not a number", p.name, raw));
      check_range(*v, raw);
      return *v;
    }
    case ParamType::Bool:
      if (raw == "true" || raw == "1" || raw == "yes") return true;
      if (raw == "false" || raw == "0" || raw == "no") return false;
      fail(text, in + fmt::format("{}='{}' is not true or false", p.name, raw));
    case ParamType::Choice: {
      if (std::find(p.choices.begin(), p.choices.end(), raw) != p.choices.end()) return raw;
      if (auto close = closest_name(raw, p.choices)) fail(text, in + fmt::format("unknown {} '{}'; did you mean '{}'?", p.name, raw, *close));
      fail(text, in + fmt::format("unknown {} '{}'; known: {}", p.name, raw, join(p.choices)));
    }
    case ParamType::Sizes: {
      constexpr double kMaxSize = std::numeric_limits<std::uint32_t>::max();
      std::vector<std::uint32_t> sizes;
      std::string_view rest = raw;
      while (true) {
        const std::size_t x = rest.find(p.separator);
        const std::string_view item = rest.substr(0, x);
        auto v = io::parse_int(item);
        if (!v) fail(text, in + fmt::format("'{}' is not a size", item));
        // A size is stored as a uint32_t: a table without a limit still has the type's.
        const double size = static_cast<double>(*v);
        const double max = std::min(p.max.value_or(kMaxSize), kMaxSize);
        const bool grid = p.separator == 'x';
        const std::string what = grid ? "dimension size" : fmt::format("{} value", p.name);
        if (*v < 1 || (p.min && size < *p.min)) fail(text, in + fmt::format("{} {} must be at least {}", what, *v, number(p.min.value_or(1))));
        if (size > max) fail(text, in + fmt::format("{} {} is too large (at most {})", grid ? "size" : what, *v, number(max)));
        sizes.push_back(static_cast<std::uint32_t>(*v));
        if (x == std::string_view::npos) break;
        rest = rest.substr(x + 1);
      }
      if (p.min_count == p.max_count && sizes.size() != p.min_count) {
        fail(text, in + fmt::format("expected {} {}, got {}", p.min_count, p.separator == 'x' ? "grid sizes" : "values", sizes.size()));
      }
      if (sizes.size() < p.min_count) fail(text, in + fmt::format("at least {} sizes", p.min_count));
      if (p.max_count && sizes.size() > p.max_count) {
        fail(text, in + fmt::format("at most {} {}", p.max_count, p.separator == 'x' ? "dimensions" : fmt::format("{} values", p.name)));
      }
      return sizes;
    }
    case ParamType::Letters:
      if (raw.empty()) fail(text, in + fmt::format("{}= is empty", p.name));
      for (char c : raw) {
        if (c < 'A' || c > 'Z') fail(text, in + fmt::format("{}={}: '{}' is not an upper-case letter", p.name, raw, c));
      }
      return raw;
    case ParamType::Path:
      if (raw.empty()) fail(text, in + fmt::format("{} is empty", p.name));
      return raw;
    case ParamType::String: return raw;
  }
  fail(text, in + "unhandled parameter type");
}

SpecValues Catalog::parse(std::string_view text) const {
  if (text.empty()) fail(text, "empty value");
  const std::string_view kind = io::spec_kind(text);
  if (kind.empty()) fail(text, "missing name before ':'");
  const CatalogEntry* e = find(kind);
  if (!e) {
    std::vector<std::string_view> names;
    for (const CatalogEntry& x : entries_) names.push_back(x.name);
    if (auto close = closest_name(kind, names)) {
      fail(text, fmt::format("unknown {} '{}'; did you mean '{}'?", info_.noun, kind, *close));
    }
    fail(text, fmt::format("unknown {} '{}'; known: {}", info_.noun, kind, join(names)));
  }
  SpecValues values;
  values.catalog_ = this;
  values.entry_ = e;
  values.text_ = std::string(text);
  values.given_.assign(e->params.size(), {});
  values.defaults_.assign(e->params.size(), {});
  auto index_of = [&](std::string_view key) -> std::optional<std::size_t> {
    for (std::size_t i = e->positional ? 1 : 0; i < e->params.size(); ++i) {
      if (e->params[i].name == key) return i;
    }
    return std::nullopt;
  };
  if (kind.size() < text.size()) {
    if (e->params.empty()) fail(text, fmt::format("'{}' takes no parameters", kind));
    io::SpecLexRules rules;
    rules.is_key = [&](std::string_view key) { return index_of(key).has_value(); };
    rules.is_path_key = [&](std::string_view key) {
      auto i = index_of(key);
      return i && (e->params[*i].type == ParamType::Path || e->params[*i].type == ParamType::String);
    };
    rules.bare_allowed = e->positional;
    rules.bare_is_path = e->positional && e->params[0].type == ParamType::Path;
    std::vector<io::SpecItem> items;
    try {
      items = io::lex_spec_items(text.substr(kind.size() + 1), rules);
    } catch (const io::SpecSyntaxError& error) {
      fail(text, fmt::format("{}: {}", kind, error.what()));
    }
    for (const io::SpecItem& item : items) {
      std::size_t i = 0;
      if (!item.key.empty()) {
        auto found = index_of(item.key);
        if (!found) {
          const auto known = keyed_names(*e);
          if (known.empty()) fail(text, fmt::format("{}: unknown parameter '{}'; it takes none", kind, item.key));
          fail(text, fmt::format("{}: unknown parameter '{}'; known: {}", kind, item.key, join(known)));
        }
        i = *found;
        if (!std::holds_alternative<std::monostate>(values.given_[i])) {
          fail(text, fmt::format("{}: {} given twice", kind, item.key));
        }
      }
      // A quoted path is taken as it is; an unquoted one may hold a mistyped key.
      if (e->params[i].type == ParamType::Path && !item.quoted) {
        if (auto problem = key_read_as_path(*e, item.value)) fail(text, *problem);
      }
      values.given_[i] = parse_value(*e, e->params[i], item.value, text);
    }
  }
  for (std::size_t i = 0; i < e->params.size(); ++i) {
    const CatalogParam& p = e->params[i];
    if (!std::holds_alternative<std::monostate>(values.given_[i])) continue;
    if (p.required) {
      if (is_bare(*e, p)) fail(text, fmt::format("{}: missing {}, e.g. {}", kind, upper(p.name), e->example));
      fail(text, fmt::format("{}: missing {}=, e.g. {}", kind, p.name, e->example));
    }
    if (!p.default_value.empty()) values.defaults_[i] = parse_value(*e, p, std::string(p.default_value), text);
  }
  return values;
}

// ---- Rendering --------------------------------------------------------------------------------------

std::string entry_synopsis(const CatalogEntry& e) {
  std::string out(e.name);
  bool first = true;
  for (const CatalogParam& p : e.params) {
    const char* sep = first ? ":" : ",";
    std::string item = is_bare(e, p) ? upper(p.name) : fmt::format("{}={}", p.name, placeholder(p));
    out += p.required ? fmt::format("{}{}", sep, item) : fmt::format("[{}{}]", sep, item);
    first = false;
  }
  return out;
}

std::string catalog_help(const Catalog& c) {
  std::vector<std::string> synopses;
  for (const CatalogEntry& e : c.entries()) synopses.push_back(entry_synopsis(e));
  return fmt::format("{}: {} (details: taskmap list {})", c.info().title, fmt::join(synopses, ", "), c.info().plural);
}

std::string render_text(const Catalog& c) {
  std::string out;
  for (const CatalogEntry& e : c.entries()) {
    out += fmt::format("{}\n  {}\n", entry_synopsis(e), e.summary);
    if (!e.applies_to.empty()) out += fmt::format("  applies to: {}\n", e.applies_to);
    if (!e.reference.empty()) out += fmt::format("  reference: {}\n", e.reference);
    out += fmt::format("  example: {}\n", e.example);
    std::size_t width = 0;
    for (const CatalogParam& p : e.params) width = std::max(width, p.name.size());
    for (const CatalogParam& p : e.params) {
      std::string allowed = allowed_text(p);
      out += fmt::format("  {:<{}}  {}{}, {}{}: {}\n", p.name, width, param_type_name(p.type),
                         is_bare(e, p) ? " (bare)" : "", p.required ? "required" : "default " + default_text(p),
                         allowed.empty() ? "" : ", " + allowed, p.meaning);
    }
    out += "\n";
  }
  return out;
}

std::string render_markdown(const Catalog& c) {
  const CatalogInfo& info = c.info();
  std::string out = fmt::format("# {}\n\n", info.title);
  out += fmt::format(
      "<!-- Generated from the table in {} by `taskmap list {} --format markdown`\n"
      "     (scripts/gen_docs.sh); do not edit by hand. -->\n\n",
      info.table_file, info.plural);
  out += fmt::format("{}\n\nEvery spec follows one grammar: [spec strings](spec-strings.md). "
                     "`taskmap list {}` prints this list.\n\n",
                     info.intro, info.plural);
  // The columns only the entries fill: where they apply, their references.
  const bool applies = std::any_of(c.entries().begin(), c.entries().end(), [](auto& e) { return !e.applies_to.empty(); });
  const bool references = std::any_of(c.entries().begin(), c.entries().end(), [](auto& e) { return !e.reference.empty(); });
  out += fmt::format("| {} | description |{}{}\n|---|---|{}{}\n", info.noun, applies ? " applies to |" : "",
                     references ? " reference |" : "", applies ? "---|" : "", references ? "---|" : "");
  for (const CatalogEntry& e : c.entries()) {
    out += fmt::format("| [`{}`](#{}) | {} |", e.name, e.name, md_cell(e.summary));
    if (applies) out += fmt::format(" {} |", e.applies_to.empty() ? "any" : md_cell(e.applies_to));
    if (references) out += fmt::format(" {} |", md_cell(e.reference));
    out += "\n";
  }
  for (const CatalogEntry& e : c.entries()) {
    out += fmt::format("\n## {}\n\n`{}`\n\n{}\n\n", e.name, entry_synopsis(e), e.summary);
    if (!e.applies_to.empty()) out += fmt::format("Applies to: {}.\n", e.applies_to);
    if (!e.reference.empty()) out += fmt::format("Reference: {}.\n", e.reference);
    out += fmt::format("Example: `{}`\n", e.example);
    if (e.params.empty()) out += "\nNo parameters.\n";
    if (!e.params.empty()) out += "\n| parameter | type | default | allowed | meaning |\n|---|---|---|---|---|\n";
    for (const CatalogParam& p : e.params) {
      out += fmt::format("| `{}`{} | {} | {} | {} | {} |\n", is_bare(e, p) ? upper(p.name) : std::string(p.name),
                         is_bare(e, p) ? " (bare)" : "", param_type_name(p.type), md_cell(default_text(p)),
                         md_cell(allowed_text(p)), md_cell(p.meaning));
    }
    if (!e.details.empty()) out += fmt::format("\n{}\n", e.details);
  }
  return out;
}

std::string render_man(const Catalog& c) {
  const CatalogInfo& info = c.info();
  std::string out = fmt::format(".SH {}\n{}\n", upper(info.title), roff_text(info.intro));
  out += fmt::format(".PP\n\\fBtaskmap list {}\\fR prints this list (and docs/{}.md).\n", info.plural, info.plural);
  for (const CatalogEntry& e : c.entries()) {
    out += fmt::format(".TP\n\\fB{}\\fR\n{}\n", roff_text(entry_synopsis(e)), roff_text(e.summary));
    if (!e.applies_to.empty()) out += fmt::format(".br\nApplies to: {}.\n", roff_text(e.applies_to));
    if (!e.reference.empty()) out += fmt::format(".br\nReference: {}.\n", roff_text(e.reference));
    out += fmt::format(".br\nExample: \\fB{}\\fR\n", roff_text(e.example));
    if (e.params.empty()) continue;
    out += ".RS\n";
    for (const CatalogParam& p : e.params) {
      const std::string allowed = allowed_text(p);
      out += fmt::format(".TP\n\\fI{}\\fR{}\n{}, {}{}: {}\n", roff_text(is_bare(e, p) ? upper(p.name) : p.name),
                         is_bare(e, p) ? " (bare)" : "", param_type_name(p.type),
                         roff_text(p.required ? "required" : "default " + default_text(p)),
                         allowed.empty() ? "" : ", " + roff_text(allowed), roff_text(p.meaning));
    }
    out += ".RE\n";
  }
  return out;
}

}  // namespace taskmap
