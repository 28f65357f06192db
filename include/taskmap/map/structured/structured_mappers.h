#pragma once
// The structured mappers: placements computed from the machine's and the task grid's shapes
// (no task graph search). The catalog (map/catalog) builds them by name.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "taskmap/map/mapper.h"

namespace taskmap {

enum class PercsBlockLevel { Node, Drawer, Supernode };
enum class TransposeLayout { Row, Column, Hybrid };
enum class RttFunction { Identity, DiagonalShift };

// One concentration function of [RTT-map]: h (horizontal union), v (vertical), t (twisted),
// each with its factor.
struct Concentration {
  char kind = 'v';
  std::uint32_t factor = 2;
};

struct PercsBlockOptions {
  PercsBlockLevel level = PercsBlockLevel::Supernode;
  bool random_order = false;  // blocks to processor blocks at random (else in order)
  std::uint64_t seed = 1;
};
struct RttMapOptions {
  RttFunction function = RttFunction::Identity;
  std::vector<Concentration> concentration;  // applied left to right, before `function`
};

std::unique_ptr<Mapper> make_default_mapper();
std::unique_ptr<Mapper> make_hostname_order_mapper();  // the launchers' block default over host names
std::unique_ptr<Mapper> make_order_mapper(MapperLabel label, std::string letters);
std::unique_ptr<Mapper> make_random_mapper(std::uint64_t seed);
std::unique_ptr<Mapper> make_cyclic_mapper(MapperLabel label, std::uint32_t stride);  // 0: slots per node
std::unique_ptr<Mapper> make_file_mapper(std::string path);
std::unique_ptr<Mapper> make_percs_block_mapper(MapperLabel label, PercsBlockOptions options);
std::unique_ptr<Mapper> make_percs_modcolor_mapper(MapperLabel label);
std::unique_ptr<Mapper> make_percs_transpose_mapper(MapperLabel label, TransposeLayout layout);
std::unique_ptr<Mapper> make_rtt_mapper(MapperLabel label, RttMapOptions options);
std::unique_ptr<Mapper> make_dragonfly_bsm_mapper(MapperLabel label);
std::unique_ptr<Mapper> make_dragonfly_bbac_mapper(MapperLabel label, bool double_colors);
std::unique_ptr<Mapper> make_hilbert_mapper(MapperLabel label);
std::unique_ptr<Mapper> make_rubik_tiling_mapper(MapperLabel label);
// The task grid in blocks of one router's slots, the blocks onto the routers (snakes where a
// task dimension spans several torus dimensions); the layout with the fewest hop-bytes.
std::unique_ptr<Mapper> make_grid_blocks_mapper(MapperLabel label);

// The slots of a torus machine enumerated in a letter order (e.g. "ABCDET", "TEDCBA").
std::vector<SlotId> torus_slot_order(const Machine& machine, const std::string& letters);

}  // namespace taskmap
