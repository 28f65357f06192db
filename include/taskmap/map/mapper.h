#pragma once
// Mappers: algorithms that place a MappingProblem's tasks on its machine's slots. Every mapper
// by name, with its parameters, is in the mapper catalog (taskmap/map/catalog/mapper_catalog.h,
// docs/mappers.md); the families build their mappers from small options structs.
#include <cstdint>
#include <string>
#include <vector>

#include "taskmap/problem/problem.h"

namespace taskmap {

class Mapper {
 public:
  virtual ~Mapper() = default;
  virtual Mapping run(const MappingProblem& problem) const = 0;
  // Improves another mapper's result (a later stage of a pipeline A+B); only refiners
  // (timer, refine-hb, refine-mcl, refine-inject) override it, the catalog admits no other kind after a '+'.
  virtual Mapping improve(const MappingProblem& problem, Mapping start) const;
};

// How a configured mapper names itself in messages (its spec text, e.g. "rahtm:beam=8"), and
// the task grid it was given with grid=PxQ (empty: the pattern's own).
struct MapperLabel {
  std::string text;
  std::vector<std::uint32_t> grid;
};

}  // namespace taskmap
