// GUID-to-host maps, "host: 0xGUID" and "H-GUID host" lines (GuidMap::read).
#include "fuzz_support.h"
#include "taskmap/topology/guid_map.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = taskmap::fuzz::write_input(data, size, "guids.map");
  taskmap::fuzz::read_file(path, [&] { taskmap::GuidMap::read(path); });
  return 0;
}
