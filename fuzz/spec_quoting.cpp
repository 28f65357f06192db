// Quoting of path values in spec strings: any value, quoted when it needs it (quote_spec_value)
// or always ('...' with a quote inside written twice), reads back as itself from every kind of
// path item: a bare path, a map= path after it, a path before ",ppn=2", a mapper's file: path.
#include <cstdio>
#include <cstdlib>

#include "fuzz_support.h"
#include "taskmap/core/spec.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/topology/machine_spec.h"
#include "taskmap/workload/pattern_spec.h"

namespace {

std::string always_quoted(std::string_view value) {
  std::string out = "'";
  for (char c : value) out += c == '\'' ? "''" : std::string(1, c);
  return out + "'";
}

void expect_same(const std::string& spec, const std::string& read, std::string_view value) {
  if (read == value) return;
  std::fprintf(stderr, "taskmap fuzz: spec \"%s\" reads the path as \"%s\"\n", spec.c_str(), read.c_str());
  std::abort();
}

// Parses `spec`, which must be valid unless the path is empty, and checks what `path_of` reads.
template <typename Parse, typename PathOf>
void check(const std::string& spec, std::string_view value, Parse parse, PathOf path_of) {
  try {
    expect_same(spec, path_of(parse(spec)), value);
  } catch (const taskmap::Error& e) {
    if (value.empty()) return;
    std::fprintf(stderr, "taskmap fuzz: spec \"%s\" is refused: %s\n", spec.c_str(), e.what());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace taskmap;
  const std::string_view value = fuzz::as_text(data, size);
  const auto machine = [](const std::string& s) { return parse_machine_spec(s); };
  const auto pattern = [](const std::string& s) { return parse_pattern_spec(s); };
  const auto mapper = [](const std::string& s) { return parse_mapper_spec(s); };
  for (const std::string& quoted : {io::quote_spec_value(value), always_quoted(value)}) {
    check("slurm:" + quoted, value, machine, [](const MachineSpec& s) { return s.fabric_path; });
    check("ibnet:x.topo,map=" + quoted, value, machine, [](const MachineSpec& s) { return s.fabric_map; });
    check("graph:" + quoted + ",ppn=2", value, machine, [](const MachineSpec& s) {
      return s.slots_per_node == 2 ? s.graph_path : std::string("(ppn=2 lost)");
    });
    check("file:" + quoted + ",tasks=3", value, pattern, [](const PatternSpec& s) {
      return s.min_tasks == 3 ? s.path : std::string("(tasks=3 lost)");
    });
  }
  // In a mapper pipeline '+' separates stages, so a path holding one is always quoted.
  check("file:" + always_quoted(value) + "+timer", value, mapper,
        [](const MapperSpec& s) { return s.stages.at(0).get_text("path"); });
  return 0;
}
