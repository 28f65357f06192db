#pragma once
// The mappers built on graph partitioners and graph embedding: the task graph is cut into
// per-router parts (Scotch's mapping, METIS k-way, recursive bisection) or grown onto the
// routers greedily; tasks then fill their routers' slots. They map many tasks per slot too.
#include <cstdint>
#include <memory>

#include "taskmap/map/mapper.h"

namespace taskmap {

std::unique_ptr<Mapper> make_scotch_mapper(MapperLabel label);
// PT-Scotch's distributed partition over the problem's processes, then Scotch places the parts
// on routers; scotch on the leader when the processes have no PT-Scotch.
std::unique_ptr<Mapper> make_ptscotch_mapper(MapperLabel label);
// greedy_assignment: METIS's parts onto routers greedily by traffic (else part i on router i).
std::unique_ptr<Mapper> make_metis_mapper(MapperLabel label, bool greedy_assignment);
std::unique_ptr<Mapper> make_greedy_mapper(MapperLabel label);
// tries: METIS bisections computed per split, the lowest cut kept.
std::unique_ptr<Mapper> make_rb_mapper(MapperLabel label, std::uint32_t tries);

}  // namespace taskmap
