// Blue Gene/Q hop-byte traces "src dst bytes hops" (read_hopbyte_trace).
#include "fuzz_support.h"
#include "taskmap/workload/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = taskmap::fuzz::write_input(data, size, "input.hopbyte.txt");
  taskmap::fuzz::read_file(path, [&] { taskmap::read_hopbyte_trace(path); });
  return 0;
}
