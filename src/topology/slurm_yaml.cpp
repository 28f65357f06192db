// topology.yaml (Slurm >= 25.05): a list of named topologies, each a tree (switches with
// children and nodes), a block topology (block_sizes, blocks with nodes) or flat. The one named
// (machine key topology=), else the cluster default, else the first is read.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <unordered_map>

#include "slurm_topology.h"
#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"

namespace taskmap::slurm {
namespace {

// The line where a second YAML document begins ('---' at a line's start after the first's
// content, or content after a '...' end line), 0 when there is none.
std::size_t second_document_line(std::string_view text) {
  bool content = false, ended = false;
  std::size_t number = 0;
  auto blank = [](std::string_view rest) {
    const auto first = rest.find_first_not_of(" \t\r");
    return first == std::string_view::npos || rest[first] == '#';
  };
  auto marker = [](std::string_view line, std::string_view mark) {
    return line.starts_with(mark) && (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
  };
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    ++number;
    if (marker(line, "---")) {
      if (content) return number;
      content = !blank(line.substr(3));
    } else if (marker(line, "...")) {
      ended = content;
    } else if (!blank(line)) {
      if (ended) return number;
      content = true;
    }
  }
  return 0;
}

class YamlParser final {
 public:
  YamlParser(const std::string& source, std::string wanted, const WarningSink& warn)
      : warn_(warn), wanted_(std::move(wanted)) {
    decls_.source = source;
    decls_.yaml = true;
  }

  Declarations parse(const std::string& text) {
    YAML::Node root;
    try {
      // Slurm reads one document; a second after '---' would be passed over unseen. It is found
      // by its marker, not parsed: yaml-cpp 0.7's LoadAll can loop without end on a broken tail.
      if (const std::size_t second = second_document_line(text); second > 0) {
        warn_(fmt::format("{}:{}: a second YAML document begins here; read the first only", decls_.source, second));
      }
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {  // its message may quote a line break or a NUL it stopped at
      fail("{}:{}: {}", decls_.source, e.mark.line + 1, said(e));
    }
    try {
      read_topology(choose(root));
    } catch (const YAML::Exception& e) {  // a value of the wrong type (a map where text belongs, ...)
      fail("{}:{}: {}", decls_.source, e.mark.line + 1, said(e));
    }
    if (unknown_keys_ > 0) {
      warn_(fmt::format("{}:{}: {} ignored, first '{}:'", decls_.source, first_unknown_line_,
                        counted(unknown_keys_, "unknown key", "unknown keys"), first_unknown_key_));
    }
    return std::move(decls_);
  }

 private:
  // yaml-cpp's message, in words that say what is wrong where its own are terse.
  static std::string said(const YAML::Exception& e) {
    if (e.msg == "bad conversion") return "a value of the wrong kind here (a list or a map where text belongs, or the reverse)";
    if (e.msg == "bad file") return "YAML nested too deeply to read";
    return io::printable(e.msg);
  }
  std::size_t line_of(const YAML::Node& node) const { return static_cast<std::size_t>(node.Mark().line) + 1; }
  std::string where(const YAML::Node& node) const { return fmt::format("{}:{}", decls_.source, line_of(node)); }

  [[noreturn]] void fail_at(const YAML::Node& node, std::string_view problem) const {
    fail("{}: {}", where(node), problem);
  }

  // The topology named wanted_; without a name, the first marked cluster_default: true, else the
  // first one.
  YAML::Node choose(const YAML::Node& root) {
    std::vector<YAML::Node> topologies;
    if (root.IsSequence()) {
      for (const auto& entry : root) topologies.push_back(entry);
    } else if (root.IsMap()) {
      topologies.push_back(root);
    }
    if (topologies.empty()) fail("{}: no topology (expected a list of '- topology: NAME' entries)", decls_.source);
    std::size_t chosen = topologies.size(), defaults = 0;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < topologies.size(); ++i) {
      const auto& t = topologies[i];
      if (!t.IsMap() || !t["topology"]) fail_at(t, "expected 'topology: NAME' and its type (tree, block or flat)");
      names.push_back(text_of(t["topology"]));
      for (std::size_t j = 0; j < i; ++j) {
        if (names[j] == names[i]) {
          fail_at(t, fmt::format("topology '{}' is defined twice (first on line {})", names[i], line_of(topologies[j])));
        }
      }
      check_unique_keys(t);
      if (t["cluster_default"] && flag(t["cluster_default"], "cluster_default") && defaults++ == 0) chosen = i;
    }
    if (!wanted_.empty()) {
      const auto it = std::find(names.begin(), names.end(), wanted_);
      if (it == names.end()) {
        fail("{}: no topology '{}' (it has {})", decls_.source, wanted_, fmt::join(names, ", "));
      }
      return topologies[static_cast<std::size_t>(it - names.begin())];
    }
    const bool by_default = chosen < topologies.size();
    if (!by_default) chosen = 0;
    if (topologies.size() > 1) {
      std::vector<std::string> others;
      for (std::size_t i = 0; i < topologies.size(); ++i) {
        if (i != chosen) others.push_back(text_of(topologies[i]["topology"]));
      }
      warn_(fmt::format("{}: {} topologies, read '{}' ({}), not {}", decls_.source, topologies.size(),
                        text_of(topologies[chosen]["topology"]),
                        !by_default    ? std::string("the first; none is cluster_default")
                        : defaults > 1 ? fmt::format("the first of the {} marked cluster_default", defaults)
                                       : std::string("the cluster default"),
                        fmt::join(others, ", ")));
    }
    return topologies[chosen];
  }

  void read_topology(const YAML::Node& topology) {
    const std::string name = text_of(topology["topology"]);
    std::vector<std::string> types;
    for (const auto& entry : topology) {
      const auto key = entry.first.as<std::string>();
      if (key == "tree" || key == "block" || key == "flat") {
        types.push_back(key);
      } else if (key != "topology" && key != "cluster_default") {
        unknown(key, entry.first);
      }
    }
    if (types.size() != 1) {
      fail_at(topology, fmt::format("topology '{}' must have exactly one of tree, block or flat (it has {})", name,
                                    types.empty() ? "none" : fmt::format("{}", fmt::join(types, ", "))));
    }
    if (types.front() == "flat") fail_at(topology, fmt::format("topology '{}' is flat: it names no switch and no block", name));
    if (types.front() == "tree") {
      read_tree(topology["tree"]);
    } else {
      decls_.is_block = true;
      read_blocks(topology["block"]);
    }
  }

  void read_tree(const YAML::Node& tree) {
    const YAML::Node switches = entries(tree, "switches");
    other_keys(tree, {"switches"});
    for (const auto& entry : switches) {
      check_unique_keys(entry);
      SwitchDecl decl;
      decl.name = name_of(entry, "switch");
      decl.place.line = line_of(entry);
      for (const auto& field : entry) {
        const auto key = field.first.as<std::string>();
        if (key == "children") {
          decl.switches = hostlist(field.second);
        } else if (key == "nodes") {
          decl.nodes = hostlist(field.second);
        } else if (key != "switch") {
          unknown(key, field.first);
        }
      }
      decls_.switches.push_back(std::move(decl));
    }
  }

  void read_blocks(const YAML::Node& block) {
    check_block_sizes(block["block_sizes"]);
    const YAML::Node blocks = entries(block, "blocks");
    other_keys(block, {"blocks", "block_sizes"});
    for (const auto& entry : blocks) {
      check_unique_keys(entry);
      BlockDecl decl;
      decl.name = name_of(entry, "block");
      decl.place.line = line_of(entry);
      for (const auto& field : entry) {
        const auto key = field.first.as<std::string>();
        if (key == "nodes") {
          decl.nodes = hostlist(field.second);
        } else if (key != "block") {
          unknown(key, field.first);
        }
      }
      decls_.blocks.push_back(std::move(decl));
    }
  }

  // The sizes steer Slurm's placement only; they are checked, not kept.
  void check_block_sizes(const YAML::Node& sizes) const {
    if (!sizes) return;
    auto check = [this](const YAML::Node& size) {
      bool positive = size.IsScalar() && !size.Scalar().empty();
      if (positive) {
        for (std::string_view field : io::split_fields(size.Scalar(), true)) {
          const auto n = io::parse_int(field);
          positive = positive && n && *n > 0;
        }
      }
      if (!positive) fail_at(size, "block_sizes: expected positive numbers");
    };
    if (!sizes.IsSequence()) return check(sizes);
    for (const auto& size : sizes) check(size);
  }

  // A map's keys each once: a second 'nodes:' in one entry would replace the first unseen.
  void check_unique_keys(const YAML::Node& map) const {
    std::unordered_map<std::string, std::size_t> seen;  // key -> its line
    for (const auto& field : map) {
      const auto key = field.first.as<std::string>();
      const auto [it, first] = seen.emplace(key, line_of(field.first));
      if (!first) fail_at(field.first, fmt::format("'{}:' is given twice (first on line {})", io::printable(key), it->second));
    }
  }

  // Keys of `map` other than `known` count as unknown.
  void other_keys(const YAML::Node& map, std::initializer_list<std::string_view> known) {
    check_unique_keys(map);
    for (const auto& field : map) {
      const auto key = field.first.as<std::string>();
      if (std::find(known.begin(), known.end(), key) == known.end()) unknown(key, field.first);
    }
  }

  bool flag(const YAML::Node& value, std::string_view key) const {
    bool on = false;
    if (!value.IsScalar() || !YAML::convert<bool>::decode(value, on)) {
      fail_at(value, fmt::format("{}: expected true or false, found '{}'", key,
                                 value.IsScalar()  ? io::printable(value.Scalar())
                                 : value.IsNull() ? std::string("nothing")
                                                  : std::string("a list or map")));
    }
    return on;
  }

  YAML::Node entries(const YAML::Node& parent, const char* key) const {
    if (!parent.IsMap()) fail_at(parent, fmt::format("expected '{}:' under it", key));
    const YAML::Node list = parent[key];
    if (!list) fail_at(parent, fmt::format("no '{}:' list", key));
    if (!list.IsSequence() && !list.IsNull()) fail_at(list, fmt::format("'{}:' is not a list", key));
    for (const auto& entry : list) {
      if (!entry.IsMap()) fail_at(entry, fmt::format("an entry of '{}:' is not a map", key));
    }
    return list;
  }

  std::string name_of(const YAML::Node& entry, const char* key) const {
    const YAML::Node name = entry[key];
    if (!name || !name.IsScalar() || name.Scalar().empty()) fail_at(entry, fmt::format("entry without '{}: NAME'", key));
    return text_of(name);
  }

  // A scalar taken as text (a name, a host list): one line, as in topology.conf. YAML can quote
  // a line break or a NUL into it, which would end up in host names and messages.
  std::string text_of(const YAML::Node& scalar) const {
    std::string text = scalar.as<std::string>();
    if (std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
      fail_at(scalar, fmt::format("'{}' holds a control character", io::printable(text)));
    }
    return text;
  }

  // "node[01-04]", or a list of such strings.
  std::vector<std::string> hostlist(const YAML::Node& value) {
    if (value.IsNull()) return {};
    if (value.IsScalar()) return budget_.expand(text_of(value), where(value));
    if (!value.IsSequence()) fail_at(value, "expected a host list");
    std::vector<std::string> names;
    for (const auto& item : value) {
      if (!item.IsScalar()) fail_at(item, "expected a host list");
      auto more = budget_.expand(text_of(item), where(item));
      names.insert(names.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    return names;
  }

  void unknown(const std::string& key, const YAML::Node& at) {
    if (unknown_keys_++ == 0) {
      first_unknown_key_ = io::printable(key);
      first_unknown_line_ = line_of(at);
    }
  }

  const WarningSink& warn_;
  std::string wanted_;  // the topology's name; empty: the cluster default
  Declarations decls_;
  NameBudget budget_;
  std::size_t unknown_keys_ = 0;
  std::string first_unknown_key_;
  std::size_t first_unknown_line_ = 0;
};

}  // namespace

Declarations parse_slurm_yaml(const std::string& source, const std::string& text, const std::string& topology,
                              const WarningSink& warn) {
  return YamlParser(source, topology, warn).parse(text);
}

}  // namespace taskmap::slurm
