// Placement files given as --mapping (read_mapping_file), on a 2x2 torus with 2 slots per node
// (8 slots) for a job of 4 tasks, one task per slot.
#include "fuzz_support.h"
#include "taskmap/problem/mapping.h"
#include "taskmap/topology/builders.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const taskmap::Machine machine =
      taskmap::build_torus({.sizes = {2, 2}, .wrap = {true, true}, .nodes_per_router = 1, .slots_per_node = 2});
  const std::string& path = taskmap::fuzz::write_input(data, size, "placement.txt");
  taskmap::fuzz::read_file(path, [&] { taskmap::read_mapping_file(path, machine, 4); });
  return 0;
}
