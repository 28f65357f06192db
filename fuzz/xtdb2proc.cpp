// Cray xtdb2proc node tables (the nodes= file of aries: machines; detail::read_xtdb2proc).
#include "cray_xc.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = taskmap::fuzz::write_input(data, size, "nodes.xtdb2proc");
  taskmap::fuzz::read_file(path, [&] { taskmap::detail::read_xtdb2proc(path); });
  return 0;
}
