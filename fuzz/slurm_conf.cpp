// Slurm topology.conf, tree and block (read_slurm_topology). The fabric a file gives is then built into a
// machine, as --machine does: an accepted file builds, or fails with an Error.
#include "fuzz_support.h"
#include "taskmap/topology/fabric.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  taskmap::fuzz::limit_memory_for_fabric_files();
  const std::string& path = taskmap::fuzz::write_input(data, size, "topology.conf");
  taskmap::fuzz::read_file(path, [&] {
    const taskmap::Fabric fabric = taskmap::read_slurm_topology(path, "", taskmap::fuzz::warnings_of(path));
    taskmap::build_fabric_machine(fabric, taskmap::FabricOptions{});
  });
  return 0;
}
