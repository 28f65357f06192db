// --pattern spec strings (parse_pattern_spec), quoted paths included: file:'a,b.graph',format=metis.
#include "fuzz_support.h"
#include "taskmap/workload/pattern_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = taskmap::fuzz::as_text(data, size);
  taskmap::fuzz::parse_text([&] { taskmap::parse_pattern_spec(text); });
  return 0;
}
