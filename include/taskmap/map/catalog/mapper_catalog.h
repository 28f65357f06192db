#pragma once
// Every mapper by name: parses a mapper spec string and builds the mapper it names.
#include <memory>
#include <string_view>

#include "taskmap/map/mapper.h"

namespace taskmap {

MapperSpec parse_mapper_spec(std::string_view text);
std::unique_ptr<Mapper> make_mapper(const MapperSpec& spec);

}  // namespace taskmap
