#pragma once
// The placement-format catalog: every launcher file `--out-format` writes, with what it is for
// and where it applies. The table is src/launch/placement_catalog.cpp.
#include "taskmap/core/catalog.h"

namespace taskmap {

// Entries are tagged with their PlacementFormat (placement.h); checks take a Machine.
const Catalog& placement_format_catalog();

}  // namespace taskmap
