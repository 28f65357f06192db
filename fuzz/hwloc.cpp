// hwloc XML node topologies (read_hwloc_node, through the hwloc library), slots as cores, as
// hardware threads and as GPUs (with their NICs, PCIe speeds and NVLink matrices).
#include <hwloc.h>

#include "fuzz_support.h"
#include "taskmap/topology/node_model.h"

// hwloc 2.9 (Debian 12) leaks when an XML import fails: objects of the topology (fixed upstream
// by open-mpi/hwloc commit 5dbc7b752) and, in its libxml2 plugin, the parsed document. The leaks
// show with hwloc alone (init, set_xmlbuffer, load, destroy), so they are suppressed by module.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libhwloc.so\nleak:hwloc_xml_libxml.so\nleak:libxml2.so\n";
}

// hwloc loads its plugins when the first topology is created and unloads them when the last one
// is destroyed. One topology held for the life of the process keeps the libxml2 plugin loaded:
// each input no longer pays for loading it, and LeakSanitizer still finds the plugin's frames
// by module name when it reports at exit.
namespace {
struct PluginsLoaded {
  hwloc_topology_t topology = nullptr;
  PluginsLoaded() { hwloc_topology_init(&topology); }
} const plugins_loaded;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = taskmap::fuzz::write_input(data, size, "node.xml");
  for (const taskmap::SlotUnit unit : {taskmap::SlotUnit::Core, taskmap::SlotUnit::Pu, taskmap::SlotUnit::Gpu}) {
    taskmap::fuzz::read_file(path, [&] { taskmap::read_hwloc_node(path, unit); });
  }
  return 0;
}
