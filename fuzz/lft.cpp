// Forwarding tables, as lft: reads them (read_forwarding_tables), on a fixed fabric of two
// leaves and two spines (tests/instances/lft/two_leaves.topo, embedded); an accepted dump is
// then followed from every switch to every LID (check_forwarding_tables).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "fuzz_support.h"
#include "taskmap/routing/forwarding_tables.h"
#include "taskmap/topology/fabric.h"

namespace {

constexpr const char* kFabric = R"(Switch	6 "S-0000000000000001"		# "spine1" enhanced port 0 lid 1 lmc 0
[1]	"S-0000000000000003"[3]		# "leaf1" lid 3 4xEDR
[2]	"S-0000000000000004"[3]		# "leaf2" lid 4 4xEDR

Switch	6 "S-0000000000000002"		# "spine2" enhanced port 0 lid 2 lmc 0
[1]	"S-0000000000000003"[4]		# "leaf1" lid 3 4xEDR
[2]	"S-0000000000000004"[4]		# "leaf2" lid 4 4xEDR

Switch	6 "S-0000000000000003"		# "leaf1" enhanced port 0 lid 3 lmc 0
[1]	"H-0000000000000010"[1](0000000000000011) 		# "h1 mlx5_0" lid 11 4xEDR
[2]	"H-0000000000000020"[1](0000000000000021) 		# "h2 mlx5_0" lid 12 4xEDR
[3]	"S-0000000000000001"[1]		# "spine1" lid 1 4xEDR
[4]	"S-0000000000000002"[1]		# "spine2" lid 2 4xEDR

Switch	6 "S-0000000000000004"		# "leaf2" enhanced port 0 lid 4 lmc 0
[1]	"H-0000000000000030"[1](0000000000000031) 		# "h3 mlx5_0" lid 13 4xEDR
[2]	"H-0000000000000040"[1](0000000000000041) 		# "h4 mlx5_0" lid 14 4xEDR
[3]	"S-0000000000000001"[2]		# "spine1" lid 1 4xEDR
[4]	"S-0000000000000002"[2]		# "spine2" lid 2 4xEDR

Ca	1 "H-0000000000000010"		# "h1 mlx5_0"
[1](0000000000000011) 	"S-0000000000000003"[1]		# lid 11 lmc 0 "leaf1" lid 3 4xEDR

Ca	1 "H-0000000000000020"		# "h2 mlx5_0"
[1](0000000000000021) 	"S-0000000000000003"[2]		# lid 12 lmc 0 "leaf1" lid 3 4xEDR

Ca	1 "H-0000000000000030"		# "h3 mlx5_0"
[1](0000000000000031) 	"S-0000000000000004"[1]		# lid 13 lmc 0 "leaf2" lid 4 4xEDR

Ca	1 "H-0000000000000040"		# "h4 mlx5_0"
[1](0000000000000041) 	"S-0000000000000004"[2]		# lid 14 lmc 0 "leaf2" lid 4 4xEDR
)";

// The fabric, read once from a file of its own beside the process's input file.
const taskmap::Fabric& fabric() {
  static const taskmap::Fabric f = [] {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("taskmap-fuzz-lft-fabric-" + std::to_string(::getpid()) + ".topo"))
                                 .string();
    std::ofstream(path) << kFabric;
    taskmap::Fabric read = taskmap::read_ibnetdiscover(path, "", {});
    std::filesystem::remove(path);
    return read;
  }();
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const taskmap::ib::Subnet& subnet = *fabric().subnet;
  const std::string& path = taskmap::fuzz::write_input(data, size, "tables.lft");
  taskmap::fuzz::read_file(path, [&] {
    const taskmap::ForwardingTables tables =
        taskmap::read_forwarding_tables(path, subnet, taskmap::fuzz::warnings_of(path));
    taskmap::check_forwarding_tables(subnet, tables);
  });
  return 0;
}
