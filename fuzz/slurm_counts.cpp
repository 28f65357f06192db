// Slurm's task counts per node, "2(x3),1" ($SLURM_TASKS_PER_NODE; io::expand_slurm_counts).
#include "fuzz_support.h"
#include "taskmap/core/hostlist.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = taskmap::fuzz::as_text(data, size);
  taskmap::fuzz::parse_text([&] { taskmap::io::expand_slurm_counts(text, "$SLURM_TASKS_PER_NODE"); });
  return 0;
}
