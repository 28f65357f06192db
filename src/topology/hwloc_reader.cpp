// read_hwloc_node: a node's levels and slots from hwloc XML, loaded by the hwloc library.
// The topology is loaded with its disallowed CPUs so that logical indices are those of the
// whole node (as Open MPI's rankfiles and lstopo number them); slots are then restricted to
// the allowed cpuset (an XML gathered inside a Slurm job allows only the job's CPUs). With
// slots=gpu, the topology keeps its PCI and OS devices, and the slots are the node's GPUs.
#include <hwloc.h>
#include <hwloc/diff.h>
#include <hwloc/distances.h>

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
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

// With `io`, PCI and OS devices are kept (hwloc drops every I/O object by default).
void load(const HwlocTopology& topology, const std::string& path, const std::string& text, bool io) {
  if (text.size() >= static_cast<std::size_t>(INT_MAX)) fail("{}: too large for hwloc ({} bytes)", path, text.size());
  hwloc_topology_set_flags(topology.get(), HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  if (io) hwloc_topology_set_io_types_filter(topology.get(), HWLOC_TYPE_FILTER_KEEP_ALL);
  // The size counts the terminating '\0', as hwloc's own XML buffers do.
  if (hwloc_topology_set_xmlbuffer(topology.get(), text.c_str(), static_cast<int>(text.size() + 1)) != 0 ||
      hwloc_topology_load(topology.get()) != 0) {
    fail_to_load(path, text, errno);
  }
}

struct Slot {
  hwloc_obj_t object;  // the core, or the PU; for a GPU, the CPU-side object it hangs from
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
// Tree levels deeper than `deepest` are left out (GPU slots hang from a package or a group, and
// the cores below it do not tell them apart).
std::vector<Level> candidate_levels(hwloc_topology_t topology, const std::vector<Slot>& slots, SlotUnit unit,
                                    int deepest = INT_MAX) {
  const int package_depth = hwloc_get_type_depth(topology, HWLOC_OBJ_PACKAGE);
  const bool several_l3_per_package =
      package_depth >= 0 &&
      hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_L3CACHE) > hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE);
  auto numa = numa_level(topology, slots);
  const bool no_cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE) == 0;
  std::vector<Level> levels;
  const int depths = hwloc_topology_get_depth(topology);
  for (int depth = 0; depth < depths; ++depth) {
    if (depth <= deepest) {
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


// ---- slots=gpu ----

// Device names in the order of the numbers in them ("cuda2" before "cuda10", "opencl0d1"
// before "opencl1d0"): the vendor library's or the kernel's own enumeration, which is what
// CUDA_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES count. hwloc's tree order follows the package
// each device hangs from instead (rsmi4 before rsmi0 on an MI250X node).
bool natural_less(std::string_view a, std::string_view b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      const auto na = a.substr(i, ie - i), nb = b.substr(j, je - j);
      const auto ta = na.substr(std::min(na.find_first_not_of('0'), na.size()));
      const auto tb = nb.substr(std::min(nb.find_first_not_of('0'), nb.size()));
      if (ta.size() != tb.size()) return ta.size() < tb.size();
      if (ta != tb) return ta < tb;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

// One GPU shows as several OS devices (cuda0, nvml0 and opencl0d0 under one PCI device); its
// name is the first kind here it has: CUDA, NVML, ROCm SMI, Level Zero, OpenCL, then any other
// GPU or CoProcessor device (a Xeon Phi's mic0). A DRM render node (renderD128, what hwloc 1
// saw of a GPU) counts only on a node where none of those is found, and DRM cards and control
// nodes never do: a board's display controller has them too.
constexpr int kRenderNode = 6;
std::optional<int> gpu_name_rank(std::string_view name) {
  constexpr std::string_view kPreferred[] = {"cuda", "nvml", "rsmi", "ze", "opencl"};
  for (std::size_t k = 0; k < std::size(kPreferred); ++k) {
    if (name.starts_with(kPreferred[k])) return static_cast<int>(k);
  }
  if (name.starts_with("renderD")) return kRenderNode;
  if (name.starts_with("card") || name.starts_with("controlD")) return std::nullopt;
  return static_cast<int>(std::size(kPreferred));
}

// The PCI device an OS device belongs to, or null when it hangs from no PCI device.
hwloc_obj_t pci_device_of(hwloc_obj_t osdev) {
  hwloc_obj_t parent = osdev->parent;
  while (parent != nullptr && parent->type == HWLOC_OBJ_OS_DEVICE) parent = parent->parent;
  return parent != nullptr && parent->type == HWLOC_OBJ_PCI_DEVICE ? parent : nullptr;
}

double link_gbs(hwloc_obj_t pci) {
  return pci != nullptr && pci->attr->pcidev.linkspeed > 0 ? static_cast<double>(pci->attr->pcidev.linkspeed) : 0;
}

struct Device {
  hwloc_obj_t osdev;
  hwloc_obj_t anchor;  // its PCI device, or itself outside PCI: what two names of one GPU share
  int rank = 0;
};

// An OS device's kind as hwloc stored it: read as its integer, since an XML file may give a value
// outside the enumeration (osdev_type="8"), which hwloc keeps as it is.
int osdev_kind(hwloc_obj_t osdev) {
  static_assert(sizeof(hwloc_obj_osdev_type_t) == sizeof(int));
  int kind = 0;
  std::memcpy(&kind, &osdev->attr->osdev.type, sizeof kind);
  return kind;
}

bool device_less(const Device& a, const Device& b) {
  if (a.rank != b.rank) return a.rank < b.rank;
  return natural_less(a.osdev->name, b.osdev->name);
}

std::vector<Device> find_gpus(hwloc_topology_t topology, const std::string& path) {
  std::vector<Device> best;  // per anchor, in hwloc's order of first sight
  for (hwloc_obj_t osdev = hwloc_get_next_osdev(topology, nullptr); osdev != nullptr;
       osdev = hwloc_get_next_osdev(topology, osdev)) {
    const int kind = osdev_kind(osdev);
    if ((kind != HWLOC_OBJ_OSDEV_GPU && kind != HWLOC_OBJ_OSDEV_COPROC) || osdev->name == nullptr) continue;
    const auto rank = gpu_name_rank(osdev->name);
    if (!rank) continue;
    const hwloc_obj_t pci = pci_device_of(osdev);
    const Device device{osdev, pci != nullptr ? pci : osdev, *rank};
    const auto same = std::find_if(best.begin(), best.end(), [&](const Device& d) { return d.anchor == device.anchor; });
    if (same == best.end()) {
      best.push_back(device);
    } else if (device_less(device, *same)) {
      *same = device;
    }
  }
  if (std::any_of(best.begin(), best.end(), [](const Device& d) { return d.rank < kRenderNode; })) {
    std::erase_if(best, [](const Device& d) { return d.rank == kRenderNode; });
  }
  if (best.empty()) {
    fail("{}: no GPU (hwloc OS device of type GPU or CoProcessor); slots=gpu needs a node's GPUs", path);
  }
  std::stable_sort(best.begin(), best.end(), device_less);
  for (std::size_t k = 1; k < best.size(); ++k) {
    if (std::string_view(best[k].osdev->name) == best[k - 1].osdev->name) {
      fail("{}: GPU '{}' appears twice", path, io::printable(best[k].osdev->name));
    }
  }
  return best;
}

// The NICs: OpenFabrics devices (mlx5_0, hfi1_0, qib0), one per adapter whatever its ports;
// network interfaces (ib0, eth0, hsi0) only on a node without any, since an InfiniBand adapter
// shows as both (mlx5_0 and its ib0) and a node's Ethernet ports are rarely its fabric's.
std::vector<Device> find_nics(hwloc_topology_t topology, const std::string& path) {
  std::vector<Device> fabrics, networks;
  for (hwloc_obj_t osdev = hwloc_get_next_osdev(topology, nullptr); osdev != nullptr;
       osdev = hwloc_get_next_osdev(topology, osdev)) {
    if (osdev->name == nullptr) continue;
    const hwloc_obj_t pci = pci_device_of(osdev);
    const Device device{osdev, pci != nullptr ? pci : osdev, 0};
    if (osdev_kind(osdev) == HWLOC_OBJ_OSDEV_OPENFABRICS) fabrics.push_back(device);
    if (osdev_kind(osdev) == HWLOC_OBJ_OSDEV_NETWORK) networks.push_back(device);
  }
  auto nics = fabrics.empty() ? std::move(networks) : std::move(fabrics);
  std::stable_sort(nics.begin(), nics.end(), device_less);
  for (std::size_t k = 1; k < nics.size(); ++k) {
    if (std::string_view(nics[k].osdev->name) == nics[k - 1].osdev->name) {
      fail("{}: NIC '{}' appears twice", path, io::printable(nics[k].osdev->name));
    }
  }
  return nics;
}

// How many ancestors two objects share, the root included. hwloc_get_common_ancestor_obj
// compares depths, which does not work for I/O objects (their depths are negative constants).
std::size_t shared_ancestors(hwloc_obj_t a, hwloc_obj_t b) {
  auto chain = [](hwloc_obj_t obj) {
    std::vector<hwloc_obj_t> out;
    for (; obj != nullptr; obj = obj->parent) out.push_back(obj);
    std::reverse(out.begin(), out.end());
    return out;
  };
  const auto ca = chain(a), cb = chain(b);
  std::size_t shared = 0;
  while (shared < ca.size() && shared < cb.size() && ca[shared] == cb[shared]) ++shared;
  return shared;
}

// The GPU-to-GPU links of hwloc's NVLinkBandwidth matrix (NVML), or else of XGMIBandwidth
// (ROCm SMI): unidirectional MB/s, several links of a pair summed, the diagonal a large
// placeholder. NVLinkBandwidth lists non-GPU objects after the GPUs: NVSwitches as PCI devices
// (DGX-2), whose links are summed per GPU into nvswitch_gbs, and POWER packages, whose links
// to their GPUs are left out (the GPU's host link; the model has PCIe for it).
void read_gpu_links(hwloc_topology_t topology, const std::vector<Device>& gpus, GpuNode& node) {
  for (const char* name : {"NVLinkBandwidth", "XGMIBandwidth"}) {
    unsigned count = 1;
    hwloc_distances_s* matrix = nullptr;
    if (hwloc_distances_get_by_name(topology, name, &count, &matrix, 0) != 0 || count == 0) continue;
    const unsigned n = matrix->nbobjs;
    std::vector<std::optional<std::uint32_t>> gpu(n);  // per matrix object: the GPU it is
    std::vector<bool> nvswitch(n);
    for (unsigned i = 0; i < n; ++i) {
      const hwloc_obj_t obj = matrix->objs[i];
      if (obj == nullptr) continue;
      const hwloc_obj_t pci = obj->type == HWLOC_OBJ_OS_DEVICE ? pci_device_of(obj) : obj;
      const hwloc_obj_t anchor = pci != nullptr ? pci : obj;
      for (std::uint32_t g = 0; g < gpus.size(); ++g) {
        if (gpus[g].anchor == anchor) gpu[i] = g;
      }
      nvswitch[i] = !gpu[i] && obj->type == HWLOC_OBJ_PCI_DEVICE;
    }
    const std::size_t count_gpus = gpus.size();
    node.nvlink_gbs.assign(count_gpus * count_gpus, 0);
    if (std::find(nvswitch.begin(), nvswitch.end(), true) != nvswitch.end()) node.nvswitch_gbs.assign(count_gpus, 0);
    for (unsigned i = 0; i < n; ++i) {
      if (!gpu[i]) continue;
      for (unsigned j = 0; j < n; ++j) {
        const double gbs = static_cast<double>(matrix->values[std::size_t{i} * n + j]) / 1000;
        if (gpu[j] && *gpu[j] != *gpu[i]) node.nvlink_gbs[*gpu[i] * count_gpus + *gpu[j]] = gbs;
        if (nvswitch[j]) node.nvswitch_gbs[*gpu[i]] += gbs;
      }
    }
    hwloc_distances_release(topology, matrix);
    return;
  }
}

NodeModel read_gpu_node(hwloc_topology_t topology, const std::string& path) {
  const auto gpus = find_gpus(topology, path);
  const auto nics = find_nics(topology, path);
  const hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topology);
  auto node = std::make_shared<GpuNode>();
  node->source = path;
  for (const auto& nic : nics) node->nics.push_back({nic.osdev->name, link_gbs(pci_device_of(nic.osdev))});

  NodeModel model;
  model.source = path;
  model.unit = SlotUnit::Gpu;
  std::vector<Slot> slots;
  int deepest = 0;
  Bitmap near;
  std::map<hwloc_obj_t, std::uint32_t> sharing;  // per locality: the GPUs given a core so far
  for (std::uint32_t g = 0; g < gpus.size(); ++g) {
    const hwloc_obj_t locality = hwloc_get_non_io_ancestor_obj(topology, gpus[g].osdev);
    hwloc_bitmap_and(near.get(), locality->cpuset, allowed);
    if (hwloc_bitmap_iszero(near.get())) {
      fail("{}: GPU '{}' has no CPU locality", path, io::printable(gpus[g].osdev->name));
    }
    const auto cpus = members(near.get());
    // Open MPI's rankfile slot and srun's map_cpu: a core near the GPU, the j-th of them for the
    // j-th GPU with the same CPUs (GPUs of one socket would otherwise stack their ranks on one).
    std::vector<hwloc_obj_t> cores;  // the cores (PUs where none) of `cpus`, in logical order
    for (std::uint32_t cpu : cpus) {
      const hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topology, cpu);
      if (pu == nullptr) {
        fail("{}: GPU '{}' is near CPU {}, but the file gives no PU for it", path, io::printable(gpus[g].osdev->name), cpu);
      }
      const hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_CORE, pu);
      const hwloc_obj_t unit = core != nullptr ? core : pu;
      if (std::find(cores.begin(), cores.end(), unit) == cores.end()) cores.push_back(unit);
    }
    std::stable_sort(cores.begin(), cores.end(), [](hwloc_obj_t a, hwloc_obj_t b) {
      return a->type != b->type ? a->type < b->type : a->logical_index < b->logical_index;
    });
    const hwloc_obj_t core = cores[sharing[locality]++ % cores.size()];
    model.logical_index.push_back(core->logical_index);
    const auto first_pu = std::find_if(cpus.begin(), cpus.end(), [&](std::uint32_t cpu) {
      return hwloc_bitmap_isset(core->cpuset, cpu);
    });
    if (first_pu == cpus.end()) {  // a PU whose core's cpuset leaves it out
      fail("{}: GPU '{}' is near a core whose cpuset holds none of the GPU's CPUs", path, io::printable(gpus[g].osdev->name));
    }
    model.os_cpu.push_back(*first_pu);
    model.os_cpus.push_back(cpus);
    // The GPU's levels are those of the object it hangs from: the first core as before.
    slots.push_back({locality, hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_CORE,
                                                              hwloc_get_pu_obj_by_os_index(topology, cpus.front())),
                     cpus});
    deepest = std::max(deepest, locality->depth);

    GpuNode::Gpu gpu{gpus[g].osdev->name, g, {}, cpus, link_gbs(pci_device_of(gpus[g].osdev))};
    std::size_t nearest = 0;
    for (std::uint32_t k = 0; k < nics.size(); ++k) {
      const std::size_t shared = shared_ancestors(gpus[g].anchor, nics[k].anchor);
      if (shared > nearest) gpu.nics.clear();
      if (shared >= nearest) {
        nearest = shared;
        gpu.nics.push_back(k);
      }
    }
    node->gpus.push_back(std::move(gpu));
  }
  read_gpu_links(topology, gpus, *node);

  // The levels of the objects the GPUs hang from, then the GPUs themselves.
  auto candidates = candidate_levels(topology, slots, SlotUnit::Gpu, deepest);
  Level own{"gpu", {}};
  for (std::uint32_t g = 0; g < gpus.size(); ++g) own.index.push_back(g);
  candidates.push_back(std::move(own));
  const auto levels = informative_levels(std::move(candidates));
  model.path.assign(slots.size(), std::vector<std::uint32_t>(levels.size()));
  for (std::size_t l = 0; l < levels.size(); ++l) {
    model.levels.push_back(levels[l].name);
    for (std::size_t s = 0; s < slots.size(); ++s) model.path[s][l] = levels[l].index[s];
  }
  model.units_in_node = node->num_gpus();
  model.gpu = std::move(node);
  return model;
}

}  // namespace

NodeModel read_hwloc_node(const std::string& path, SlotUnit unit) {
  const std::string text = io::read_text_file(path);
  refuse_unless_xml(path, text);
  refuse_what_hwloc_crashes_on(path, text);
  HwlocTopology topology;
  load(topology, path, text, unit == SlotUnit::Gpu);
  if (unit == SlotUnit::Gpu) return read_gpu_node(topology.get(), path);
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
