// Slurm topology.conf, tree and block (read_slurm_topology). The fabric a file gives is then built into a
// machine, as --machine does: an accepted file builds, or fails with an Error.
#include "fuzz_support.h"
#include "taskmap/core/memory.h"
#include "taskmap/topology/fabric.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // One short line names any number of nodes ("Nodes=c[0-50006]" builds 50,007 nodes in 1.3 s
  // under the sanitizers, 145 inputs/s on average); 1 MiB caps a file at some 6,000 nodes,
  // enough for every reader path, and keeps the rate near a thousand inputs a second.
  taskmap::set_memory_limit(std::uint64_t{1} << 20);
  const std::string& path = taskmap::fuzz::write_input(data, size, "topology.conf");
  taskmap::fuzz::read_file(path, [&] {
    const taskmap::Fabric fabric = taskmap::read_slurm_topology(path, "", taskmap::fuzz::warnings_of(path));
    taskmap::build_fabric_machine(fabric, taskmap::FabricOptions{});
  });
  return 0;
}
