// Dense communication matrices, CSV or whitespace (read_dense_matrix).
#include "fuzz_support.h"
#include "taskmap/workload/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = taskmap::fuzz::write_input(data, size, "input.csv");
  taskmap::fuzz::read_file(path, [&] { taskmap::read_dense_matrix(path); });
  return 0;
}
