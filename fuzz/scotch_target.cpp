// Scotch target architecture files given as --machine tgt:FILE (read_scotch_target).
#include "fuzz_support.h"
#include "taskmap/core/memory.h"
#include "taskmap/topology/scotch_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A short line names millions of terminals ("hcub 22", "cmplt 4000000"): a 1 MiB limit refuses
  // a deco table or weights beyond a few thousand terminals before they are allocated.
  taskmap::fuzz::limit_memory_for_fabric_files();
  const std::string& path = taskmap::fuzz::write_input(data, size, "input.tgt");
  taskmap::fuzz::read_file(path, [&] { taskmap::read_scotch_target(path, 1); });
  return 0;
}
