// Scotch .grf graphs (read_scotch_grf).
#include "fuzz_support.h"
#include "taskmap/workload/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = taskmap::fuzz::write_input(data, size, "input.grf");
  taskmap::fuzz::read_file(path, [&] { taskmap::read_scotch_grf(path); });
  return 0;
}
