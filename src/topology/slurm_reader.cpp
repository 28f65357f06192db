// Slurm topology files: topology.conf (topology/tree SwitchName= lines or topology/block
// BlockName= lines) and topology.yaml (Slurm >= 25.05). This file holds the entry point and
// the topology.conf parser; slurm_yaml.cpp the yaml one, slurm_fabric.cpp the Fabric builders.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <optional>

#include "slurm_topology.h"
#include "taskmap/core/error.h"
#include "taskmap/core/hostlist.h"
#include "taskmap/core/text_source.h"

namespace taskmap {
namespace slurm {

std::vector<std::string> NameBudget::expand(std::string_view hostlist, const std::string& where) {
  auto names = io::expand_hostlist(
      hostlist, where, kMaxNames - used_, held_,
      used_ == 0 ? "" : fmt::format("what is left of the {} names taskmap reads from one file", kMaxNames));
  used_ += names.size();
  held_ += io::expanded_bytes(names);
  return names;
}

namespace {

enum class LineKind { kSwitch, kBlock, kBlockSizes };

struct KeyValue {
  std::string key;  // lower case: Slurm's keys are case-insensitive
  std::string value;
  std::string written;  // the key as the file spells it
};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// The line's fields, split at spaces outside double quotes, quotes removed, as Slurm reads
// `Key="a value"`; spaces around a field's '=' are Slurm's too (`Key = value`).
std::vector<std::string> quoted_fields(std::string_view line, const io::LineCursor& cur) {
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  std::vector<std::string> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    if (is_space(line[i])) {
      ++i;
      continue;
    }
    std::string field;
    bool unquoted_equals = false;  // the field so far ends with an '=' outside quotes
    while (true) {
      while (i < line.size() && !is_space(line[i])) {
        if (line[i] != '"') {
          unquoted_equals = line[i] == '=';
          field += line[i++];
          continue;
        }
        const std::size_t close = line.find('"', i + 1);
        if (close == std::string_view::npos) cur.fail_here(fmt::format("unclosed '\"' in '{}'", line.substr(i)));
        field.append(line.substr(i + 1, close - i - 1));
        unquoted_equals = false;
        i = close + 1;
      }
      std::size_t next = i;
      while (next < line.size() && is_space(line[next])) ++next;
      if (next == line.size() || (line[next] != '=' && !unquoted_equals)) break;
      i = next;  // "Key = value": one field
    }
    fields.push_back(std::move(field));
  }
  return fields;
}

// "SwitchName=s1 Nodes=a, b LinkSpeed=10": the KEY=VALUE fields; a field after a value ending in
// ',' (or starting with ',') continues that value, so spaces around commas are tolerated.
std::vector<KeyValue> key_values(const std::vector<std::string>& fields, const io::LineCursor& cur) {
  std::vector<KeyValue> pairs;
  for (const std::string& field : fields) {
    const bool continues = !pairs.empty() && (pairs.back().value.ends_with(',') || field.starts_with(','));
    const std::size_t eq = field.find('=');
    if (continues && eq == std::string::npos) {
      pairs.back().value += field;
      continue;
    }
    if (eq == std::string::npos || eq == 0) cur.fail_here(fmt::format("expected KEY=VALUE, found '{}'", field));
    std::string key = lower(std::string_view(field).substr(0, eq));
    for (const auto& p : pairs) {
      if (p.key == key) cur.fail_here(fmt::format("{}= given twice", field.substr(0, eq)));
    }
    pairs.push_back({std::move(key), field.substr(eq + 1), field.substr(0, eq)});
  }
  return pairs;
}

// Slurm's reading of its files: '#' starts a comment unless a '\\' escapes it.
std::string_view without_comment(std::string_view line) {
  std::size_t slashes = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && slashes % 2 == 0) return line.substr(0, i);
    slashes = line[i] == '\\' ? slashes + 1 : 0;
  }
  return line;
}

// Once a statement is joined, each '\\' goes and the character after it stays ('\\#' is '#').
std::string unescaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) ++i;
    out += text[i];
  }
  return out;
}

// Whether `line` ends (before trailing spaces) in an odd number of '\\'; if so, drops the last
// one and what follows it.
bool continued(std::string_view& line) {
  std::size_t end = line.size();
  while (end > 0 && std::isspace(static_cast<unsigned char>(line[end - 1]))) --end;
  std::size_t slashes = 0;
  while (slashes < end && line[end - 1 - slashes] == '\\') ++slashes;
  if (slashes % 2 == 0) return false;
  line = line.substr(0, end - 1);
  return true;
}

// Include lines nest at most this deep: Slurm sets no limit, and a file that includes itself
// would recurse for ever.
constexpr std::size_t kMaxIncludeDepth = 16;

class ConfParser final {
 public:
  ConfParser(const std::string& source, std::string text, const WarningSink& warn) : warn_(warn) {
    decls_.source = source;
    open_.push_back(std::make_unique<OpenFile>(OpenFile{io::LineCursor(source, std::move(text)), 0, canonical(source)}));
  }

  Declarations parse() {
    std::string statement;
    while (true) {
      const auto raw = cur().next_content_line("#");
      if (!raw) {  // the end of an included file goes back to the line after its Include
        if (open_.size() == 1) break;
        open_.pop_back();
        continue;
      }
      std::string_view line = without_comment(*raw);
      const bool goes_on = continued(line);
      statement.assign(line);
      // As Slurm reads its files: a line ending in an odd number of '\' goes on, without the
      // last '\', on the next line; a blank or comment line ends it.
      for (bool more = goes_on; more;) {
        const auto next = cur().next_content_line("", false);
        if (!next) break;
        std::string_view part = without_comment(*next);
        more = continued(part);
        statement.append(part);
      }
      const auto fields = quoted_fields(unescaped(statement), cur());
      if (!fields.empty() && lower(fields[0]) == "include") {
        include(fields);
        continue;
      }
      const auto pairs = key_values(fields, cur());
      if (!pairs.empty()) parse_line(pairs);
    }
    if (unknown_keys_ > 0) {
      warn_(fmt::format("{}: {} ignored, first '{}='", first_unknown_where_,
                        counted(unknown_keys_, "unknown key", "unknown keys"), first_unknown_key_));
    }
    return std::move(decls_);
  }

 private:
  struct OpenFile {
    io::LineCursor cursor;
    std::size_t index = 0;  // in Declarations::file
    std::filesystem::path canonical;  // empty when it cannot be found
  };

  static std::filesystem::path canonical(const std::string& path) {
    std::error_code error;
    auto p = std::filesystem::weakly_canonical(path, error);
    return error ? std::filesystem::path() : p;
  }

  io::LineCursor& cur() { return open_.back()->cursor; }
  const io::LineCursor& cur() const { return open_.back()->cursor; }
  Place place() const { return {open_.back()->index, cur().line_number()}; }

  // "Include FILE", as Slurm reads it: FILE relative to the directory of the file that
  // includes it, read in its place. Slurm's one substitution, %c for ClusterName, has no value
  // in a topology file.
  void include(const std::vector<std::string>& fields) {
    if (fields.size() != 2) {
      cur().fail_here(fields.size() == 1 ? "Include without a file name"
                                         : fmt::format("Include takes one file name, found {} words after it",
                                                       fields.size() - 1));
    }
    const std::string& name = fields[1];
    if (name.find("%c") != std::string::npos) {
      cur().fail_here(fmt::format("Include {}: '%c' stands for slurm.conf's ClusterName, which a topology file "
                                  "does not know; write the name out",
                                  name));
    }
    std::string path = name;
    if (!name.starts_with('/')) {
      const std::string& including = cur().source();
      const std::size_t slash = including.rfind('/');
      path = slash == std::string::npos ? name : including.substr(0, slash + 1) + name;
    }
    const std::filesystem::path included = canonical(path);
    for (const auto& file : open_) {
      if (!included.empty() && file->canonical == included) {
        cur().fail_here(fmt::format("Include {}: {} is already being read (an Include loop)", name, path));
      }
    }
    if (open_.size() > kMaxIncludeDepth) {
      cur().fail_here(fmt::format("Include {}: Include lines nested more than {} deep", name, kMaxIncludeDepth));
    }
    std::error_code error;
    if (!std::filesystem::exists(path, error)) cur().fail_here(fmt::format("Include {}: no file {}", name, path));
    if (!std::filesystem::is_regular_file(path, error)) {
      cur().fail_here(fmt::format("Include {}: {} is not a regular file", name, path));
    }
    decls_.included.push_back(path);
    open_.push_back(std::make_unique<OpenFile>(
        OpenFile{io::LineCursor(path, io::read_text_file(path)), decls_.included.size(), included}));
  }

  void parse_line(const std::vector<KeyValue>& pairs) {
    const LineKind kind = line_kind(pairs.front().key);
    const bool block = kind != LineKind::kSwitch;
    if (!kind_place_) {
      kind_place_ = place();
      kind_key_ = key_name(kind);
      decls_.is_block = block;
    } else if (block != decls_.is_block) {
      cur().fail_here(fmt::format("{}= line in a topology/{} file ({}= on {}): tree and block lines cannot be mixed",
                                 key_name(kind), decls_.is_block ? "block" : "tree", kind_key_,
                                 decls_.earlier(*kind_place_, place())));
    }
    switch (kind) {
      case LineKind::kSwitch: return switch_line(pairs);
      case LineKind::kBlock: return block_line(pairs);
      case LineKind::kBlockSizes: return block_sizes_line(pairs.front().value);
    }
  }

  static const char* key_name(LineKind kind) {
    switch (kind) {
      case LineKind::kSwitch: return "SwitchName";
      case LineKind::kBlock: return "BlockName";
      case LineKind::kBlockSizes: return "BlockSizes";
    }
    return "";
  }

  LineKind line_kind(const std::string& first_key) const {
    if (first_key == "switchname") return LineKind::kSwitch;
    if (first_key == "blockname") return LineKind::kBlock;
    if (first_key == "blocksizes") return LineKind::kBlockSizes;
    cur().fail_here(fmt::format("expected SwitchName=, BlockName= or BlockSizes= first, found '{}='", first_key));
  }

  std::string where() const { return decls_.where(place()); }

  std::string name_of(const KeyValue& first) const {
    if (first.value.empty()) cur().fail_here(fmt::format("{}= has no name", key_name(line_kind(first.key))));
    return first.value;
  }

  void unknown(const KeyValue& pair) {
    if (unknown_keys_++ == 0) {
      first_unknown_key_ = pair.written;
      first_unknown_where_ = where();
    }
  }

  void switch_line(const std::vector<KeyValue>& pairs) {
    SwitchDecl decl;
    decl.name = name_of(pairs.front());
    decl.place = place();
    for (std::size_t i = 1; i < pairs.size(); ++i) {
      const auto& [key, value, written] = pairs[i];
      if (key == "switches") {
        decl.switches = budget_.expand(value, where());
      } else if (key == "nodes") {
        decl.nodes = budget_.expand(value, where());
      } else if (key == "linkspeed") {
        const auto speed = io::parse_double(value);
        // Slurm keeps LinkSpeed as a 32-bit count; far outside that, ratios of two speeds over-
        // or underflow.
        constexpr double kMinLinkSpeed = 1e-3, kMaxLinkSpeed = 4294967295.0;
        if (!speed || *speed < 0 || (*speed > 0 && *speed < kMinLinkSpeed) || *speed > kMaxLinkSpeed) {
          cur().fail_here(fmt::format("LinkSpeed '{}' is not 0 or a number from {} to {:.0f}", value, kMinLinkSpeed,
                                      kMaxLinkSpeed));
        }
        decl.gbps = *speed;
      } else {
        unknown(pairs[i]);
      }
    }
    decls_.switches.push_back(std::move(decl));
  }

  void block_line(const std::vector<KeyValue>& pairs) {
    BlockDecl decl;
    decl.name = name_of(pairs.front());
    decl.place = place();
    for (std::size_t i = 1; i < pairs.size(); ++i) {
      if (pairs[i].key == "nodes") {
        decl.nodes = budget_.expand(pairs[i].value, where());
      } else {
        unknown(pairs[i]);
      }
    }
    decls_.blocks.push_back(std::move(decl));
  }

  // The sizes steer Slurm's placement only; they are checked, not kept.
  void block_sizes_line(std::string_view sizes) const {
    for (std::string_view size : io::split_fields(sizes, true)) {
      const auto n = io::parse_int(size);
      if (!n || *n <= 0) cur().fail_here(fmt::format("BlockSizes: '{}' is not a positive number", size));
    }
  }

  std::vector<std::unique_ptr<OpenFile>> open_;  // the topology file, then the files included, innermost last
  const WarningSink& warn_;
  Declarations decls_;
  NameBudget budget_;
  std::optional<Place> kind_place_;  // the first line, which says tree or block
  const char* kind_key_ = "";
  std::size_t unknown_keys_ = 0;
  std::string first_unknown_key_;
  std::string first_unknown_where_;
};

}  // namespace

Declarations parse_slurm_conf(const std::string& source, std::string text, const WarningSink& warn) {
  return ConfParser(source, std::move(text), warn).parse();
}

}  // namespace slurm

namespace {

// topology.yaml by its name, or by its first line that is neither blank, a comment nor "---".
bool is_yaml(const std::string& path, std::string_view text) {
  std::string_view name = path;
  if (name.ends_with(".gz") || name.ends_with(".xz")) name.remove_suffix(3);
  if (name.ends_with(".yaml") || name.ends_with(".yml")) return true;
  io::LineCursor cur(path, std::string(text.substr(0, std::min<std::size_t>(text.size(), 4096))));  // names it in errors
  while (auto line = cur.next_content_line("#")) {
    std::string_view l = *line;
    auto skip_blanks = [&l] { l.remove_prefix(std::min(l.find_first_not_of(" \t"), l.size())); };
    skip_blanks();
    if (l.starts_with("---")) continue;
    if (l.starts_with("[") || l.starts_with("{")) return true;  // flow style (JSON)
    if (l.starts_with("-")) {  // "- topology: NAME"
      l.remove_prefix(1);
      skip_blanks();
    }
    // "topology: NAME", "cluster_default: true": a YAML key, where topology.conf has KEY=VALUE.
    const std::size_t word = std::min(l.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"), l.size());
    return word > 0 && l.substr(word).starts_with(":");
  }
  return false;
}

}  // namespace

Fabric read_slurm_topology(const std::string& path, const std::string& map_file, const WarningSink& sink,
                           const std::string& topology) {
  const WarningSink warn = sink ? sink : [](const std::string&) {};
  std::string text = io::read_text_file(path);
  const bool yaml = is_yaml(path, text);
  if (!yaml && !topology.empty()) {
    fail("{}: topology={} chooses among the topologies of a topology.yaml, and this is a topology.conf (one topology)",
         path, topology);
  }
  const slurm::Declarations decls =
      yaml ? slurm::parse_slurm_yaml(path, text, topology, warn) : slurm::parse_slurm_conf(path, std::move(text), warn);
  std::optional<GuidMap> map;
  if (!map_file.empty()) map = GuidMap::read(map_file);
  const GuidMap* guids = map ? &*map : nullptr;
  return decls.is_block ? slurm::block_fabric(decls, guids, warn) : slurm::tree_fabric(decls, guids, warn);
}

}  // namespace taskmap
