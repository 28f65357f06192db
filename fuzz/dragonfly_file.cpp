// taskmap's plain Dragonfly format (read_dragonfly_file). The fabric a file gives is then built into a
// machine, as --machine does: an accepted file builds, or fails with an Error.
#include "fuzz_support.h"
#include "taskmap/core/memory.h"
#include "taskmap/topology/fabric.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // One short line may ask for a router of any number of nodes ("nodes a0 599293" takes 10 s
  // under the sanitizers, linear but a time-out); 4 MiB caps a file at some 40,000 nodes.
  taskmap::set_memory_limit(std::uint64_t{4} << 20);
  const std::string& path = taskmap::fuzz::write_input(data, size, "fabric.dragonfly");
  taskmap::fuzz::read_file(path, [&] {
    const taskmap::Fabric fabric = taskmap::read_dragonfly_file(path, taskmap::fuzz::warnings_of(path));
    taskmap::build_fabric_machine(fabric, taskmap::FabricOptions{});
  });
  return 0;
}
