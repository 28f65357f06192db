#pragma once
// refine-mcl, refine-hb, refine-inject and timer as mappers. In a pipeline A+B they improve the stage before
// (Mapper::improve); alone (run) they improve the mapping of their `start` mapper.
#include <memory>

#include "taskmap/map/mapper.h"
#include "taskmap/map/refine/refine_hop_bytes.h"
#include "taskmap/map/refine/refine_inject.h"
#include "taskmap/map/refine/refine_mcl.h"
#include "taskmap/map/refine/timer.h"

namespace taskmap {

// options.per_slot is taken from the problem's balance.
std::unique_ptr<Mapper> make_refine_mcl_mapper(MapperLabel label, RefineOptions options, std::unique_ptr<Mapper> start);
std::unique_ptr<Mapper> make_refine_hb_mapper(MapperLabel label, HopBytesRefineOptions options,
                                              std::unique_ptr<Mapper> start);
std::unique_ptr<Mapper> make_refine_inject_mapper(MapperLabel label, InjectRefineOptions options,
                                                  std::unique_ptr<Mapper> start);
std::unique_ptr<Mapper> make_timer_mapper(MapperLabel label, TimerOptions options, std::unique_ptr<Mapper> start);

}  // namespace taskmap
