// --mapper spec strings and pipelines A+B (parse_mapper_spec), and the mappers they name
// (make_mapper: construction only, nothing runs).
#include "fuzz_support.h"
#include "taskmap/map/catalog/mapper_catalog.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = taskmap::fuzz::as_text(data, size);
  taskmap::fuzz::parse_text([&] { taskmap::make_mapper(taskmap::parse_mapper_spec(text)); });
  return 0;
}
