#pragma once
// One catalog per kind of choice (machines, routings, patterns, placement formats; mappers
// next): a table, in one file per kind, of entries with typed parameters (each default written
// once, in the table), a one-line description, a literature reference and where it applies.
// Parsing a spec string, the --help texts, `taskmap list`, error messages and the generated
// docs (docs/<plural>.md) all come from that table. Syntax: docs/spec-strings.md.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>
#include <variant>
#include <vector>

namespace taskmap {

enum class ParamType { Int, Real, Bool, Choice, Sizes, Letters, Path, String };
std::string_view param_type_name(ParamType type);  // "int", "real", ..., "sizes" (AxBxC)

struct CatalogParam {
  std::string_view name = {};  // the key; for the bare first parameter, its name in docs and messages
  ParamType type = ParamType::String;
  std::string_view default_value = {};  // parsed like a user's value; empty: none
  bool required = false;
  std::optional<double> min = {}, max = {};  // Int, Real: the value; Sizes: each size
  std::size_t min_count = 1, max_count = 0;  // Sizes: how many (0: no upper limit)
  char separator = 'x';  // Sizes: between the sizes ("4x4x2"); ':' for a list of levels ("4:16:8")
  std::vector<std::string_view> choices = {};  // Choice: the names; Int: the only values allowed
  std::string_view meaning = {};               // one line
  std::string_view when_absent = {};           // docs, for an optional parameter without default
};

// Where an entry applies, as a check on a subject (a Machine for routings): it returns the
// empty string when the entry applies, else the reason. Checked against the subject's type.
class Applicability {
 public:
  Applicability() = default;
  template <typename Subject>
  Applicability(std::string (*check)(const Subject&))  // NOLINT: implicit, for the tables
      : subject_(&typeid(Subject)), check_(reinterpret_cast<void (*)()>(check)) {}

  explicit operator bool() const { return check_ != nullptr; }
  template <typename Subject>
  std::string operator()(const Subject& subject) const {
    if (!check_) return {};
    if (*subject_ != typeid(Subject)) throw std::logic_error("catalog: applicability checked on the wrong type");
    return reinterpret_cast<std::string (*)(const Subject&)>(check_)(subject);
  }

 private:
  const std::type_info* subject_ = nullptr;
  void (*check_)() = nullptr;
};

struct CatalogEntry {
  std::string_view name = {};
  int tag = 0;                      // the owner's enum value for this entry (switch on it after parsing)
  std::string_view summary = {};    // one line
  std::string_view reference = {};  // "[RTT-map Def. 2.1]"; empty: taskmap's own
  std::string_view applies_to = {};  // "torus, mesh, hypercube"; empty: anything
  Applicability applies = {};       // the check behind applies_to, where there is one
  // Where the entry may be a subject's default when it is the first that applies (unset:
  // wherever it applies); e.g. a routing that applies to a machine without being its default.
  Applicability default_on = {};
  std::string_view example = {};    // a complete spec that parses (checked when the catalog is built)
  bool positional = false;        // params[0] is given bare: "torus:4x4x2", "file:PATH"
  std::vector<CatalogParam> params = {};
  // docs/PLURAL.md only: markdown after the parameter table (formulas and their sources); the
  // one-line texts above are what --help, `taskmap list` and the man page show.
  std::string_view details = {};

  const CatalogParam* param(std::string_view key) const;  // a keyed parameter (not the bare one)
};

struct CatalogInfo {
  std::string_view noun;        // "machine": "unknown machine 'x'"
  std::string_view plural;      // "machines": `taskmap list machines`, docs/machines.md
  std::string_view option;      // "--machine": names the option in messages
  std::string_view title;       // docs heading
  std::string_view intro;       // docs paragraph
  std::string_view table_file;  // where the table lives, e.g. "src/topology/machine_catalog.cpp"
};

class Catalog;

// A parsed and validated spec: typed getters give the user's value or the table's default.
// Asking for a parameter the entry lacks, with the wrong type, or one absent without default
// (check given() first) is a programming error (std::logic_error).
class SpecValues {
 public:
  const CatalogEntry& entry() const { return *entry_; }
  const std::string& text() const { return text_; }
  bool given(std::string_view key) const;

  std::int64_t get_int(std::string_view key) const;
  double get_real(std::string_view key) const;
  bool get_bool(std::string_view key) const;
  const std::string& get_choice(std::string_view key) const;
  std::size_t choice_index(std::string_view key) const;  // position in the table's choices
  const std::vector<std::uint32_t>& get_sizes(std::string_view key) const;
  const std::string& get_text(std::string_view key) const;  // Letters, Path, String

  // Throws Error "OPTION 'TEXT': problem".
  [[noreturn]] void fail(const std::string& problem) const;

 private:
  friend class Catalog;
  using Value = std::variant<std::monostate, std::int64_t, double, bool, std::string, std::vector<std::uint32_t>>;
  const Value& value(std::string_view key, ParamType type) const;
  const Catalog* catalog_ = nullptr;
  const CatalogEntry* entry_ = nullptr;
  std::string text_;
  std::vector<Value> given_;     // per entry param; monostate when absent
  std::vector<Value> defaults_;  // per entry param; monostate when none
};

class Catalog {
 public:
  // Checks the table (unique names, defaults that parse, examples that parse, ...): a broken
  // table throws std::logic_error.
  Catalog(CatalogInfo info, std::vector<CatalogEntry> entries);

  const CatalogInfo& info() const { return info_; }
  const std::vector<CatalogEntry>& entries() const { return entries_; }
  const CatalogEntry* find(std::string_view name) const;

  // Parses "kind[:item,...]" against the table; throws Error with one line naming the option
  // and the value, e.g. "--routing 'dro': unknown routing 'dro'; did you mean 'dor'?".
  SpecValues parse(std::string_view text) const;

  // The entries that apply to `subject`, in table order (an entry without check applies).
  template <typename Subject>
  std::vector<const CatalogEntry*> applicable(const Subject& subject) const {
    std::vector<const CatalogEntry*> out;
    for (const CatalogEntry& e : entries_) {
      if (e.applies(subject).empty()) out.push_back(&e);
    }
    return out;
  }

  // The subject's default: the first entry, in table order, that applies to it and may be its
  // default (CatalogEntry::default_on); null when none does.
  template <typename Subject>
  const CatalogEntry* default_entry(const Subject& subject) const {
    for (const CatalogEntry& e : entries_) {
      if (e.applies(subject).empty() && e.default_on(subject).empty()) return &e;
    }
    return nullptr;
  }

  [[noreturn]] void fail(std::string_view text, const std::string& problem) const;

 private:
  SpecValues::Value parse_value(const CatalogEntry& e, const CatalogParam& p, const std::string& raw,
                                std::string_view text) const;
  CatalogInfo info_;
  std::vector<CatalogEntry> entries_;
};

// ---- Rendering, all from the table -------------------------------------------------------------
// "torus:SIZES[,mesh=LETTERS][,wrap=LETTERS][,conc=INT][,ppn=INT]"
std::string entry_synopsis(const CatalogEntry& entry);
// One paragraph for an option's --help: every entry's synopsis.
std::string catalog_help(const Catalog& catalog);
// `taskmap list PLURAL`: one block per entry (synopsis, description, parameters).
std::string render_text(const Catalog& catalog);
// docs/PLURAL.md.
std::string render_markdown(const Catalog& catalog);
// The catalog's section of the taskmap(1) man page (man(7) macros): the intro, then per entry
// its synopsis, description, where it applies, reference, example and parameters.
std::string render_man(const Catalog& catalog);
// `text` as roff input for one filled line of a man page: backslashes and hyphens escaped (\-
// keeps options and names copyable), `code` in bold, a leading dot or quote neutralized,
// non-ASCII characters as \[uXXXX] (groff and mandoc read them whatever the locale), break
// points after commas and bars and before brackets (a spec has no spaces to break at).
std::string roff_text(std::string_view text);

// Optimal-string-alignment edit distance (a swap of neighbours counts 1).
std::size_t edit_distance(std::string_view a, std::string_view b);
// The closest candidate within a small distance ("did you mean"), if any.
std::optional<std::string_view> closest_name(std::string_view word, const std::vector<std::string_view>& candidates);
// The `count` candidates nearest to `word` by edit distance, nearest first (ties: candidate order).
std::vector<std::string_view> closest_names(std::string_view word, const std::vector<std::string_view>& candidates,
                                            std::size_t count);

}  // namespace taskmap
