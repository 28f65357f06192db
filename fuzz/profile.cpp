// Files of libtaskmap-profile-<mpi>.so (read_profile, reached through read_edge_list by the
// "# taskmap-profile:" header). An input without the header gets it, so every run reaches the
// profile reader.
#include <vector>

#include "fuzz_support.h"
#include "taskmap/workload/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static constexpr std::string_view kHeader = "# taskmap-profile: ";
  std::vector<std::uint8_t> input;
  if (!taskmap::fuzz::as_text(data, size).starts_with(kHeader.substr(0, kHeader.size() - 1))) {
    input.assign(kHeader.begin(), kHeader.end());
  }
  input.insert(input.end(), data, data + size);
  const std::string& path = taskmap::fuzz::write_input(input.data(), input.size(), "profile.txt");
  taskmap::fuzz::read_file(path, [&] { taskmap::read_edge_list(path); });
  return 0;
}
