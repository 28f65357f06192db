#pragma once
// The machine catalog: every machine family `--machine` accepts, with its parameters, defaults,
// ranges and references. The table is src/topology/machine_catalog.cpp; parse_machine_spec()
// parses with it and `taskmap list machines` and docs/machines.md show it.
#include "taskmap/core/catalog.h"

namespace taskmap {

// Entries are tagged with their MachineKind (machine_spec.h).
const Catalog& machine_catalog();

}  // namespace taskmap
