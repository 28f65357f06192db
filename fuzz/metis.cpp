// METIS graph files (read_metis).
#include "fuzz_support.h"
#include "taskmap/workload/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = taskmap::fuzz::write_input(data, size, "input.graph");
  taskmap::fuzz::read_file(path, [&] { taskmap::read_metis(path); });
  return 0;
}
