// --machine spec strings (parse_machine_spec), quoted paths included: slurm:'/x/N=64,ppn=2/t.conf',map=g.txt.
#include "fuzz_support.h"
#include "taskmap/topology/machine_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = taskmap::fuzz::as_text(data, size);
  taskmap::fuzz::parse_text([&] { taskmap::parse_machine_spec(text); });
  return 0;
}
