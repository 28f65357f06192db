// Edge lists "src dst volume [messages]" (read_edge_list; a profile header switches to read_profile).
#include "fuzz_support.h"
#include "taskmap/workload/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = taskmap::fuzz::write_input(data, size, "input.txt");
  taskmap::fuzz::read_file(path, [&] { taskmap::read_edge_list(path); });
  return 0;
}
