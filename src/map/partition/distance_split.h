#pragma once
// Splits of a job's routers along the machine's hierarchy, read from hop distances alone: on a
// fabric, the nodes of one leaf switch are 2 hops apart, those of one pod 4, and so on. The
// routers of a set whose distance is below the set's largest fall into groups (single
// linkage); whole groups go to the two sides. Used by rb on machines whose routers differ
// (fabrics read from files, fat-trees), where a METIS cut of the router graph would cut
// through leaves.
#include <cstdint>
#include <utility>
#include <vector>

#include "taskmap/topology/machine.h"

namespace taskmap::detail {

class DistanceSplit {
 public:
  // Breadth-first searches from every router with slots; empty (usable() false) beyond
  // kMaxRouters of them.
  explicit DistanceSplit(const Machine& machine);
  bool usable() const { return n_ > 0; }

  // The two sides, each a union of whole groups, the side with more slots first; both empty
  // when the set is one group (no level of the hierarchy separates it).
  std::pair<std::vector<RouterId>, std::vector<RouterId>> split(const std::vector<RouterId>& routers) const;

  static constexpr std::size_t kMaxRouters = 8192;

 private:
  const Machine& machine_;
  std::vector<std::uint32_t> index_;  // router -> row, or UINT32_MAX
  std::vector<std::uint8_t> dist_;    // n_ x n_ hop counts, 255 and beyond as 255
  std::size_t n_ = 0;
};

}  // namespace taskmap::detail
