// taskmap's topology graph files, docs/topology-file.md (read_graph_machine).
#include "fuzz_support.h"
#include "taskmap/topology/builders.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = taskmap::fuzz::write_input(data, size, "input.topo");
  taskmap::fuzz::read_file(path, [&] { taskmap::read_graph_machine(path, 1, 1); });
  return 0;
}
