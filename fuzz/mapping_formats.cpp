// Mapping files of other tools given as --mapping without --mapping-format: the format guessed
// from the content, then read (Scotch mapping files, METIS partition files, Open MPI rankfiles,
// taskmap's plain files), on a 2x2 torus of 2-slot nodes for a job of 4 tasks, 2 per slot at most.
#include "fuzz_support.h"
#include "taskmap/launch/placement.h"
#include "taskmap/topology/builders.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const taskmap::Machine machine =
      taskmap::build_torus({.sizes = {2, 2}, .wrap = {true, true}, .nodes_per_router = 1, .slots_per_node = 2});
  const std::string& path = taskmap::fuzz::write_input(data, size, "mapping.txt");
  taskmap::fuzz::read_file(path, [&] {
    std::string note;
    taskmap::read_placement(path, std::nullopt, machine, 4, 2, taskmap::HostNames::with_prefix("node"), &note);
    if (!note.empty()) taskmap::fuzz::check_file_message(note, path);
  });
  return 0;
}
