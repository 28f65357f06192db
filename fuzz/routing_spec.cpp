// --routing spec strings (parse_routing_spec).
#include "fuzz_support.h"
#include "taskmap/routing/routing.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = taskmap::fuzz::as_text(data, size);
  taskmap::fuzz::parse_text([&] { taskmap::parse_routing_spec(text); });
  return 0;
}
