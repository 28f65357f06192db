// read_hwloc_node: a node's levels and slots from hwloc XML, loaded by the hwloc library.
// The topology is loaded with its disallowed CPUs so that logical indices are those of the
// whole node (as Open MPI's rankfiles and lstopo number them); slots are then restricted to
// the allowed cpuset (an XML gathered inside a Slurm job allows only the job's CPUs).
#include <hwloc.h>
#include <hwloc/diff.h>

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"
#include "taskmap/topology/node_model.h"

namespace taskmap {
namespace {

// Owns an hwloc topology.
class HwlocTopology final {
 public:
  HwlocTopology() {
    if (hwloc_topology_init(&topology_) != 0) fail("cannot initialise hwloc: {}", std::strerror(errno));
  }
  ~HwlocTopology() { hwloc_topology_destroy(topology_); }
  HwlocTopology(const HwlocTopology&) = delete;
  HwlocTopology& operator=(const HwlocTopology&) = delete;
  hwloc_topology_t get() const { return topology_; }

 private:
  hwloc_topology_t topology_ = nullptr;
};

// Owns an hwloc bitmap.
class Bitmap final {
 public:
  Bitmap() : bitmap_(hwloc_bitmap_alloc()) {
    if (bitmap_ == nullptr) fail("hwloc: out of memory");
  }
  ~Bitmap() { hwloc_bitmap_free(bitmap_); }
  Bitmap(const Bitmap&) = delete;
  Bitmap& operator=(const Bitmap&) = delete;
  hwloc_bitmap_t get() const { return bitmap_; }

 private:
  hwloc_bitmap_t bitmap_;
};

std::string_view first_line(std::string_view text) {
  const auto start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return {};
  text.remove_prefix(start);
  return text.substr(0, text.find_first_of("\r\n"));
}

// lstopo's console output starts with the machine ("Machine (63GB total)") and names objects
// by logical index ("Package L#0").
bool looks_like_lstopo_text(std::string_view text) {
  return first_line(text).starts_with("Machine") || text.find(" L#") != std::string_view::npos;
}

void refuse_unless_xml(const std::string& path, std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte order mark
  const auto line = first_line(text);
  if (line.starts_with("<")) {
    // A file cut short (a copy that stopped, a full disk): hwloc's own words would not say so.
    const auto end = text.find_last_not_of(" \t\r\n");
    const bool topology =
        text.find("<topology ") != std::string_view::npos || text.find("<topology>") != std::string_view::npos;
    if (topology &&
        (end == std::string_view::npos || !text.substr(0, end + 1).ends_with("</topology>"))) {
      fail("{}: hwloc XML that does not end with </topology>: is the file cut?", path);
    }
    return;
  }
  if (looks_like_lstopo_text(text)) {
    fail("{}: not hwloc XML: looks like lstopo's text output; write XML with `lstopo --of xml FILE`", path);
  }
  if (line.empty()) fail("{}: not hwloc XML: the file is empty", path);
  fail("{}: not hwloc XML: it starts with '{}'", path, io::printable(line.substr(0, 40)));
}

// The version attribute of the <topology> element, for a clearer message when hwloc refuses
// a newer format (hwloc itself says why only with HWLOC_XML_VERBOSE set).
std::string declared_version(std::string_view text) {
  constexpr std::string_view kTag = "<topology version=\"";
  const auto at = text.find(kTag);
  if (at == std::string_view::npos) return {};
  const auto start = at + kTag.size();
  const auto end = text.find('"', start);
  if (end == std::string_view::npos || end - start > 16) return {};
  return std::string(text.substr(start, end - start));
}

// The value of attribute `name` in an XML start tag (not the tail of a longer name), if it has one.
std::optional<std::string_view> attribute_value(std::string_view tag, std::string_view name) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  for (auto at = tag.find(name); at != std::string_view::npos; at = tag.find(name, at + 1)) {
    if (at == 0 || !is_space(tag[at - 1])) continue;
    auto after = at + name.size();
    while (after < tag.size() && is_space(tag[after])) ++after;
    if (after >= tag.size() || tag[after] != '=') continue;
    ++after;
    while (after < tag.size() && is_space(tag[after])) ++after;
    if (after >= tag.size() || (tag[after] != '"' && tag[after] != '\'')) return std::string_view();
    const auto end = tag.find(tag[after], after + 1);
    return tag.substr(after + 1, end == std::string_view::npos ? std::string_view::npos : end - after - 1);
  }
  return std::nullopt;
}

bool has_attribute(std::string_view tag, std::string_view name) { return attribute_value(tag, name).has_value(); }

// The object types without a cpuset in hwloc's XML: I/O objects and Misc.
bool is_io_or_misc(std::string_view type) {
  return type == "Bridge" || type == "PCIDev" || type == "OSDev" || type == "Misc";
}

// The sets of an object, as hwloc writes them: comma-separated words of up to 8 hex digits with
// 0x, possibly empty between two words (a zero word), the first possibly "0xf...f" (an
// infinite set). hwloc 2.9 aborts or crashes on some other texts (",x00000008", "5x0000003f").
constexpr const char* kSetAttributes[] = {"cpuset",          "complete_cpuset", "online_cpuset",   "allowed_cpuset",
                                          "nodeset",         "complete_nodeset", "allowed_nodeset"};

bool is_bitmap_text(std::string_view text) {
  auto is_word = [](std::string_view w) {
    if (w.size() < 3 || w.size() > 10 || w[0] != '0' || w[1] != 'x') return false;
    return std::all_of(w.begin() + 2, w.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
  };
  std::size_t start = 0, word = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view w = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const bool last = comma == std::string_view::npos;
    const bool ok = is_word(w) || (word == 0 && w == "0xf...f") || (w.empty() && word > 0 && !last);
    if (!ok) return false;
    if (last) return true;
    start = comma + 1;
    ++word;
  }
}

// The largest OS index a PU or NUMA node may have: hwloc keeps one bit per index up to the
// largest in its sets, so a PU without os_index (taken as 2^32 - 1) or with a huge one makes it
// allocate and scan half a gigabyte. Linux numbers at most a few tens of thousands of CPUs.
constexpr std::uint64_t kMaxOsIndex = (std::uint64_t{1} << 20) - 1;

// hwloc 2.9 (Debian 12) crashes instead of refusing an object with a cpuset but no
// complete_cpuset, or a nodeset but no complete_nodeset (its exporter writes both; fixed upstream
// by open-mpi/hwloc#783), and, through its libxml2 plugin, a <!DOCTYPE> without a system id
// (open-mpi/hwloc#786). Such files were edited by hand or damaged: refused here first.
void refuse_what_hwloc_crashes_on(const std::string& path, std::string_view text) {
  auto line_of = [&](std::size_t at) {
    return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
  };
  constexpr std::string_view kObject = "<object";
  constexpr std::pair<const char*, const char*> kSets[] = {{"cpuset", "complete_cpuset"},
                                                           {"nodeset", "complete_nodeset"}};
  for (auto at = text.find(kObject); at != std::string_view::npos; at = text.find(kObject, at + 1)) {
    const std::string_view tag = text.substr(at, text.find('>', at) - at);
    for (const auto& [set, complete] : kSets) {
      if (!has_attribute(tag, set) || has_attribute(tag, complete)) continue;
      fail("{}:{}: an object with a {} but no {} (hwloc writes both; this hwloc library crashes on it)", path,
           line_of(at), set, complete);
    }
    for (const char* name : kSetAttributes) {
      const auto value = attribute_value(tag, name);
      if (!value || is_bitmap_text(*value)) continue;
      fail("{}:{}: {} '{}' is not an hwloc bitmap such as 0x000000ff,0x00000001 (this hwloc library crashes on it)",
           path, line_of(at), name, io::printable(*value));
    }
    const auto type = attribute_value(tag, "type");
    if (type && !is_io_or_misc(*type) && !has_attribute(tag, "cpuset")) {
      fail("{}:{}: a {} without a cpuset (hwloc writes one on every object but I/O and Misc ones; this hwloc "
           "library crashes on it)", path, line_of(at), io::printable(*type));
    }
    if (type != "PU" && type != "NUMANode") continue;
    const auto index = attribute_value(tag, "os_index");
    if (!index) fail("{}:{}: a {} without os_index (hwloc would reserve 512 MiB for it)", path, line_of(at), *type);
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(index->data(), index->data() + index->size(), value);
    if (error == std::errc() && end == index->data() + index->size() && value <= kMaxOsIndex) continue;
    fail("{}:{}: {} os_index '{}' is not a number up to {} (hwloc keeps a bit per index up to it)", path, line_of(at),
         *type, io::printable(*index), kMaxOsIndex);
  }
  if (const auto at = text.find("<!DOCTYPE"); at != std::string_view::npos) {
    const std::string_view declaration = text.substr(at, text.find('>', at) - at);
    if (declaration.find("SYSTEM") == std::string_view::npos && declaration.find("PUBLIC") == std::string_view::npos) {
      fail("{}:{}: a <!DOCTYPE> without a system id such as SYSTEM \"hwloc2.dtd\" (this hwloc library crashes on it)",
           path, line_of(at));
    }
  }
}

// hwloc could not load the text: say why, recognising a topology diff with hwloc's own reader.
[[noreturn]] void fail_to_load(const std::string& path, const std::string& text, int error) {
  hwloc_topology_diff_t diff = nullptr;
  char* refname = nullptr;
  if (hwloc_topology_diff_load_xmlbuffer(text.c_str(), static_cast<int>(text.size() + 1), &diff, &refname) == 0) {
    const std::string reference = refname != nullptr ? refname : "";
    hwloc_topology_diff_destroy(diff);
    std::free(refname);
    // Both come from the file: shown printable, so the message stays one line.
    const std::string shown = io::printable(reference);
    fail("{}: hwloc cannot load it: it is a topology diff against '{}', not a topology; apply it to that "
         "file first (`hwloc-patch {} {} OUT.xml`)",
         path, shown, shown.empty() ? "REFERENCE.xml" : shown, path);
  }
  const std::string version = declared_version(text);
  if (!version.empty() && version[0] != '1' && version[0] != '2') {
    fail("{}: hwloc {} cannot load it: {} (XML version {}; this hwloc reads versions 1 and 2)", path,
         HWLOC_VERSION, std::strerror(error), io::printable(version));
  }
  fail("{}: hwloc {} cannot load it: {}", path, HWLOC_VERSION, std::strerror(error));
}

void load(const HwlocTopology& topology, const std::string& path, const std::string& text) {
  if (text.size() >= static_cast<std::size_t>(INT_MAX)) fail("{}: too large for hwloc ({} bytes)", path, text.size());
  hwloc_topology_set_flags(topology.get(), HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  // The size counts the terminating '\0', as hwloc's own XML buffers do.
  if (hwloc_topology_set_xmlbuffer(topology.get(), text.c_str(), static_cast<int>(text.size() + 1)) != 0 ||
      hwloc_topology_load(topology.get()) != 0) {
    fail_to_load(path, text, errno);
  }
}

struct Slot {
  hwloc_obj_t object;  // the core, or the PU
  hwloc_obj_t core;
  std::vector<std::uint32_t> os_cpus;  // its allowed PUs, first = the slot's OS CPU
};

std::vector<std::uint32_t> members(hwloc_const_bitmap_t set) {
  std::vector<std::uint32_t> out;
  for (int i = hwloc_bitmap_first(set); i >= 0; i = hwloc_bitmap_next(set, i)) out.push_back(static_cast<std::uint32_t>(i));
  return out;
}

std::vector<Slot> allowed_slots(hwloc_topology_t topology, SlotUnit unit, const std::string& path) {
  const hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topology);
  std::vector<Slot> slots;
  Bitmap allowed_pus;
  const int cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
  if (cores == 0) {  // a topology of PUs without Core objects: each PU is a core of its own
    for (hwloc_obj_t pu = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PU, nullptr); pu != nullptr;
         pu = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PU, pu)) {
      if (hwloc_bitmap_isset(allowed, pu->os_index)) slots.push_back({pu, pu, {pu->os_index}});
    }
  }
  for (int i = 0; i < cores; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topology, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
    hwloc_bitmap_and(allowed_pus.get(), core->cpuset, allowed);
    if (hwloc_bitmap_iszero(allowed_pus.get())) continue;
    if (unit == SlotUnit::Core) {
      slots.push_back({core, core, members(allowed_pus.get())});
      continue;
    }
    for (hwloc_obj_t pu = hwloc_get_next_obj_inside_cpuset_by_type(topology, core->cpuset, HWLOC_OBJ_PU, nullptr);
         pu != nullptr; pu = hwloc_get_next_obj_inside_cpuset_by_type(topology, core->cpuset, HWLOC_OBJ_PU, pu)) {
      if (hwloc_bitmap_isset(allowed, pu->os_index)) slots.push_back({pu, core, {pu->os_index}});
    }
  }
  if (slots.empty()) {
    char* text = nullptr;
    hwloc_bitmap_list_asprintf(&text, allowed);
    const std::string set = text != nullptr ? text : "?";
    std::free(text);
    fail("{}: no allowed core ({} Core objects, allowed cpuset '{}')", path, cores, set);
  }
  return slots;
}

struct Level {
  std::string name;
  std::vector<std::uint32_t> index;  // per slot
};

// The level of the slots' ancestors at a tree depth. A slot with no ancestor there (an
// irregular Group level) stands for its nearest deeper ancestor, numbered past the depth's
// own objects so that it shares the level with nobody else.
Level tree_level(hwloc_topology_t topology, const std::vector<Slot>& slots, int depth, std::string name) {
  Level level{std::move(name), {}};
  const auto own = static_cast<std::uint32_t>(hwloc_get_nbobjs_by_depth(topology, depth));
  std::map<hwloc_obj_t, std::uint32_t> stand_ins;
  for (const auto& slot : slots) {
    hwloc_obj_t ancestor = slot.object->depth == depth ? slot.object
                                                       : hwloc_get_ancestor_obj_by_depth(topology, depth, slot.object);
    // (the helper returns a shallower ancestor when the slot's branch skips the depth)
    if (ancestor != nullptr && ancestor->depth == depth) {
      level.index.push_back(ancestor->logical_index);
      continue;
    }
    hwloc_obj_t stand_in = slot.object;
    while (stand_in->parent != nullptr && stand_in->parent->depth > depth) stand_in = stand_in->parent;
    const auto [it, added] = stand_ins.emplace(stand_in, own + static_cast<std::uint32_t>(stand_ins.size()));
    level.index.push_back(it->second);
  }
  return level;
}

// NUMA nodes form a level when each slot's CPUs lie in exactly one NUMA node holding CPUs
// (not so with KNL's MCDRAM beside DDR, where each cluster has two). Returns the level and the
// deepest depth the NUMA nodes hang from, or nothing.
struct NumaLevel {
  Level level;
  int attach_depth = -1;
};
std::optional<NumaLevel> numa_level(hwloc_topology_t topology, const std::vector<Slot>& slots) {
  std::vector<hwloc_obj_t> nodes;
  for (hwloc_obj_t node = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, nullptr); node != nullptr;
       node = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, node)) {
    if (!hwloc_bitmap_iszero(node->cpuset)) nodes.push_back(node);
  }
  NumaLevel numa{{"numa", {}}, -1};
  for (const auto& slot : slots) {
    hwloc_obj_t home = nullptr;
    for (hwloc_obj_t node : nodes) {
      if (!hwloc_bitmap_intersects(node->cpuset, slot.object->cpuset)) continue;
      if (home != nullptr) return std::nullopt;
      home = node;
    }
    if (home == nullptr) return std::nullopt;
    numa.level.index.push_back(home->logical_index);
    numa.attach_depth = std::max(numa.attach_depth, home->parent->depth);
  }
  return numa;
}

// Package, die, NUMA, L3 (below the package and more than one per package), Group, core and,
// for PU slots, PU levels, outermost first. NUMA comes right below the object its nodes hang from.
std::vector<Level> candidate_levels(hwloc_topology_t topology, const std::vector<Slot>& slots, SlotUnit unit) {
  const int package_depth = hwloc_get_type_depth(topology, HWLOC_OBJ_PACKAGE);
  const bool several_l3_per_package =
      package_depth >= 0 &&
      hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_L3CACHE) > hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE);
  auto numa = numa_level(topology, slots);
  const bool no_cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE) == 0;
  std::vector<Level> levels;
  const int depths = hwloc_topology_get_depth(topology);
  for (int depth = 0; depth < depths; ++depth) {
    switch (hwloc_get_depth_type(topology, depth)) {
      case HWLOC_OBJ_PACKAGE: levels.push_back(tree_level(topology, slots, depth, "package")); break;
      case HWLOC_OBJ_DIE: levels.push_back(tree_level(topology, slots, depth, "die")); break;
      case HWLOC_OBJ_GROUP: levels.push_back(tree_level(topology, slots, depth, "group")); break;
      case HWLOC_OBJ_CORE: levels.push_back(tree_level(topology, slots, depth, "core")); break;
      case HWLOC_OBJ_L3CACHE:
        if (several_l3_per_package && depth > package_depth) levels.push_back(tree_level(topology, slots, depth, "l3"));
        break;
      case HWLOC_OBJ_PU:
        if (unit == SlotUnit::Pu) {
          levels.push_back(tree_level(topology, slots, depth, "pu"));
        } else if (no_cores) {
          levels.push_back(tree_level(topology, slots, depth, "core"));  // the PUs stand for cores
        }
        break;
      default: break;
    }
    if (numa && numa->attach_depth == depth) levels.push_back(std::move(numa->level));
  }
  return levels;
}

std::size_t distinct(const Level& level) {
  return std::set<std::uint32_t>(level.index.begin(), level.index.end()).size();
}

// True when slots that differ at `outer` also differ at `inner` (inner nests in outer).
bool refines(const Level& inner, const Level& outer) {
  std::map<std::uint32_t, std::uint32_t> parent;
  for (std::size_t s = 0; s < inner.index.size(); ++s) {
    const auto [it, added] = parent.emplace(inner.index[s], outer.index[s]);
    if (it->second != outer.index[s]) return false;
  }
  return true;
}

// Keeps the levels that tell slots apart: a level nesting in the one above it, with more than
// one object, and not identical to the level below it. The slot level is always last.
std::vector<Level> informative_levels(std::vector<Level> candidates) {
  std::vector<Level> nested;
  for (auto& level : candidates) {
    if (distinct(level) <= 1) continue;
    if (!nested.empty() && !refines(level, nested.back())) continue;
    nested.push_back(std::move(level));
  }
  std::vector<Level> kept;
  for (std::size_t i = 0; i < nested.size(); ++i) {
    if (i + 1 < nested.size() && distinct(nested[i]) == distinct(nested[i + 1])) continue;
    kept.push_back(std::move(nested[i]));
  }
  return kept;
}

}  // namespace

NodeModel read_hwloc_node(const std::string& path, SlotUnit unit) {
  const std::string text = io::read_text_file(path);
  refuse_unless_xml(path, text);
  refuse_what_hwloc_crashes_on(path, text);
  HwlocTopology topology;
  load(topology, path, text);
  const auto slots = allowed_slots(topology.get(), unit, path);

  NodeModel model;
  model.source = path;
  model.unit = unit;
  const auto levels = informative_levels(candidate_levels(topology.get(), slots, unit));
  model.path.assign(slots.size(), std::vector<std::uint32_t>(levels.size()));
  for (std::size_t l = 0; l < levels.size(); ++l) {
    model.levels.push_back(levels[l].name);
    for (std::size_t s = 0; s < slots.size(); ++s) model.path[s][l] = levels[l].index[s];
  }
  const int cores = hwloc_get_nbobjs_by_type(topology.get(), HWLOC_OBJ_CORE);
  const int pus = hwloc_get_nbobjs_by_type(topology.get(), HWLOC_OBJ_PU);
  model.units_in_node = static_cast<std::uint32_t>(std::max(0, unit == SlotUnit::Pu || cores == 0 ? pus : cores));
  for (const auto& slot : slots) {
    model.logical_index.push_back(slot.object->logical_index);
    model.os_cpu.push_back(slot.os_cpus.front());
    model.os_cpus.push_back(slot.os_cpus);
  }
  return model;
}

}  // namespace taskmap
