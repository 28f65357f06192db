#pragma once
// The pattern catalog: every communication pattern `--pattern` accepts, with its parameters,
// defaults, ranges and references. The table is src/workload/pattern_catalog.cpp.
#include "taskmap/core/catalog.h"

namespace taskmap {

// Entries are tagged with their PatternKind (pattern_spec.h).
const Catalog& pattern_catalog();

}  // namespace taskmap
