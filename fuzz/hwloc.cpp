// hwloc XML node topologies (read_hwloc_node, through the hwloc library), slots as cores and as
// hardware threads.
#include "fuzz_support.h"
#include "taskmap/topology/node_model.h"

// hwloc 2.9 (Debian 12) leaks when an XML import fails: objects of the topology (fixed upstream
// by open-mpi/hwloc commit 5dbc7b752) and, in its libxml2 plugin, the parsed document. The leaks
// show with hwloc alone (init, set_xmlbuffer, load, destroy), so they are suppressed. The plugin
// is unloaded before LeakSanitizer reports, so only full stacks (the slow unwinder) reach the
// libhwloc.so frame the suppression matches.
extern "C" const char* __asan_default_options() { return "fast_unwind_on_malloc=0"; }
extern "C" const char* __lsan_default_suppressions() { return "leak:libhwloc.so\n"; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = taskmap::fuzz::write_input(data, size, "node.xml");
  for (const taskmap::SlotUnit unit : {taskmap::SlotUnit::Core, taskmap::SlotUnit::Pu}) {
    taskmap::fuzz::read_file(path, [&] { taskmap::read_hwloc_node(path, unit); });
  }
  return 0;
}
