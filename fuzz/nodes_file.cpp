// Host files: `--nodes @FILE` (parse_nodes_argument: "host", "host slots=4", "host:4", PBS node
// files) and `--hosts FILE` of the launcher formats (HostNames::from_file).
#include "fuzz_support.h"
#include "taskmap/launch/placement.h"
#include "taskmap/topology/allocation.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = taskmap::fuzz::write_input(data, size, "hosts.txt");
  taskmap::fuzz::read_file(path, [&] { taskmap::parse_nodes_argument("@" + path); });
  taskmap::fuzz::read_file(path, [&] {
    const auto names = taskmap::HostNames::from_file(path);
    names.host_of_node(0);
  });
  return 0;
}
