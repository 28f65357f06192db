#pragma once
// Mappers: algorithms that place a CommGraph's tasks on a Machine's slots. Names follow the
// spec syntax: "default", "order:TEDCBA", "random[:seed=N]", "file:PATH".
#include <memory>
#include <string>
#include <string_view>

#include "taskmap/map/mapping.h"
#include "taskmap/pattern/comm_graph.h"

namespace taskmap {

class Mapper {
 public:
  virtual ~Mapper() = default;
  virtual Mapping run(const Machine& machine, const CommGraph& graph) const = 0;
};

enum class MapperKind { Default, Order, Random, File };

struct MapperSpec {
  std::string text;
  MapperKind kind = MapperKind::Default;
  std::string order;         // Order: letters, first slowest, T = slot within the router
  std::uint64_t seed = 1;    // Random
  std::string path;          // File
};

MapperSpec parse_mapper_spec(std::string_view text);
std::unique_ptr<Mapper> make_mapper(const MapperSpec& spec);

// The slots of a torus machine enumerated in a letter order (e.g. "ABCDET", "TEDCBA").
std::vector<SlotId> torus_slot_order(const Machine& machine, const std::string& letters);

}  // namespace taskmap
