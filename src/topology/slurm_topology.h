#pragma once
// What a Slurm topology file declares, before it becomes a Fabric: topology.conf lines and
// topology.yaml entries both parse into Declarations, with host lists already expanded.
#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common_checks.h"
#include "taskmap/topology/fabric.h"
#include "taskmap/topology/guid_map.h"

namespace taskmap::slurm {

// Names (switches and nodes) one file may expand to, all host lists together: no machine holds
// more hosts and switches.
inline constexpr std::size_t kMaxNames = detail::kMaxRouters;

// Where a declaration was read: the topology file (file 0) or one it includes, and the line.
struct Place {
  std::size_t file = 0;
  std::size_t line = 0;
};

struct SwitchDecl {
  std::string name;
  std::vector<std::string> switches;  // listed under Switches=: children, or neighbours
  std::vector<std::string> nodes;
  double gbps = 0;  // LinkSpeed; 0 when absent
  Place place;
};

struct BlockDecl {
  std::string name;
  std::vector<std::string> nodes;
  Place place;
};

struct Declarations {
  std::string source;
  std::vector<std::string> included;  // files read through Include lines: file 1, 2, ...
  bool is_block = false;  // topology/block (BlockName=/BlockSizes= or a yaml block topology)
  bool yaml = false;      // read from a topology.yaml: messages name its keys, not topology.conf's
  std::vector<SwitchDecl> switches;
  std::vector<BlockDecl> blocks;

  // The key that lists a switch's child switches, and the one that lists its nodes.
  const char* switches_key() const { return yaml ? "children:" : "Switches="; }
  const char* nodes_key() const { return yaml ? "nodes:" : "Nodes="; }
  const std::string& file(std::size_t index) const { return index == 0 ? source : included.at(index - 1); }
  // "FILE:LINE".
  std::string where(Place p) const { return fmt::format("{}:{}", file(p.file), p.line); }
  // An earlier place, said from `here`: "line N" in the same file, else "FILE:LINE".
  std::string earlier(Place p, Place here) const {
    return p.file == here.file ? fmt::format("line {}", p.line) : where(p);
  }
};

// Counts the names expanded so far and refuses a file that would exceed kMaxNames.
class NameBudget final {
 public:
  std::vector<std::string> expand(std::string_view hostlist, const std::string& where);

 private:
  std::size_t used_ = 0;
  std::uint64_t held_ = 0;  // the expanded names' memory, as expand_hostlist counts it
};

// "1 node", "3 nodes": the count and the noun that fits it, for warnings.
inline std::string counted(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

Declarations parse_slurm_conf(const std::string& source, std::string text, const WarningSink& warn);
// `topology`: the name of the topology to read; empty: the cluster default, else the first.
Declarations parse_slurm_yaml(const std::string& source, const std::string& text, const std::string& topology,
                              const WarningSink& warn);

// `map` may be null (GUID-like node names are then kept as they are).
Fabric tree_fabric(const Declarations& decls, const GuidMap* map, const WarningSink& warn);
Fabric block_fabric(const Declarations& decls, const GuidMap* map, const WarningSink& warn);

}  // namespace taskmap::slurm
