#pragma once
// What a Slurm topology file declares, before it becomes a Fabric: topology.conf lines and
// topology.yaml entries both parse into Declarations, with host lists already expanded.
#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <vector>

#include "taskmap/topology/fabric.h"
#include "taskmap/topology/guid_map.h"

namespace taskmap::slurm {

// Names (switches and nodes) one file may expand to, all host lists together.
inline constexpr std::size_t kMaxNames = std::size_t{1} << 24;

struct SwitchDecl {
  std::string name;
  std::vector<std::string> switches;  // listed under Switches=: children, or neighbours
  std::vector<std::string> nodes;
  double gbps = 0;  // LinkSpeed; 0 when absent
  std::size_t line = 0;
};

struct BlockDecl {
  std::string name;
  std::vector<std::string> nodes;
  std::size_t line = 0;
};

struct Declarations {
  std::string source;
  bool is_block = false;  // topology/block (BlockName=/BlockSizes= or a yaml block topology)
  std::vector<SwitchDecl> switches;
  std::vector<BlockDecl> blocks;
};

// Counts the names expanded so far and refuses a file that would exceed kMaxNames.
class NameBudget final {
 public:
  std::vector<std::string> expand(std::string_view hostlist, const std::string& where);

 private:
  std::size_t used_ = 0;
};

// "1 node", "3 nodes": the count and the noun that fits it, for warnings.
inline std::string counted(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

Declarations parse_slurm_conf(const std::string& source, std::string text, const WarningSink& warn);
Declarations parse_slurm_yaml(const std::string& source, const std::string& text, const WarningSink& warn);

// `map` may be null (GUID-like node names are then kept as they are).
Fabric tree_fabric(const Declarations& decls, const GuidMap* map, const WarningSink& warn);
Fabric block_fabric(const Declarations& decls, const GuidMap* map, const WarningSink& warn);

}  // namespace taskmap::slurm
