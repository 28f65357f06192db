// Slurm host lists (io::expand_hostlist, as --nodes and the Slurm readers use it). A list that
// expands is folded back with compress_hostlist, which must expand to the same names.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fuzz_support.h"
#include "taskmap/core/hostlist.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = taskmap::fuzz::as_text(data, size);
  std::vector<std::string> names;
  // Lists of up to 2^16 names (the readers allow 2^24): expanding millions of names is slow and
  // runs the same code.
  taskmap::fuzz::parse_text([&] { names = taskmap::io::expand_hostlist(text, "--nodes", std::size_t{1} << 16); });
  if (names.empty() || names.size() > 1000) return 0;  // the round trip only for short lists: it is slow
  const std::string folded = taskmap::io::compress_hostlist(names);
  std::vector<std::string> again = taskmap::io::expand_hostlist(folded);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::sort(again.begin(), again.end());
  if (again != names) {
    std::fprintf(stderr, "taskmap fuzz: compress_hostlist gave '%s', which expands to other names\n", folded.c_str());
    std::abort();
  }
  return 0;
}
