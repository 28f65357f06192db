// Matrix Market files (read_matrix_market).
#include "fuzz_support.h"
#include "taskmap/workload/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = taskmap::fuzz::write_input(data, size, "input.mtx");
  taskmap::fuzz::read_file(path, [&] { taskmap::read_matrix_market(path); });
  return 0;
}
