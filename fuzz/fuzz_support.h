#pragma once
// What every fuzz target shares: the input as a file for readers that take a path, and the
// one outcome besides success that bad input may have (a taskmap::Error). Anything else -- a
// crash, a sanitizer report, another exception, a leak -- is a finding. Every target starts
// with memory_limit() at 8 MiB, so a huge claimed size is refused, not allocated: a higher
// limit lets one short line ask for hundreds of thousands of nodes (a Slurm host list, a
// Dragonfly router), which build in linear time but take more than the 10 s time-out under
// the sanitizers.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "taskmap/core/error.h"

namespace taskmap::fuzz {

std::string_view as_text(const std::uint8_t* data, std::size_t size);

// For the fabric files (Slurm topology.conf and .yaml, taskmap's Dragonfly format): one short
// line names any number of nodes ("Nodes=c[0-50006]"), which build in linear time but take a
// second or more each under the sanitizers, and time out when the machine is loaded. A 1 MiB
// memory limit caps a file at some 6,000 nodes: every reader path stays reachable, at about a
// thousand inputs a second.
void limit_memory_for_fabric_files();

// Writes the input to file `name` in this process's own directory (made under $TMPDIR on first
// use, removed at exit; one file per process, rewritten for every input) and returns its path.
const std::string& write_input(const std::uint8_t* data, std::size_t size, std::string_view name);

// Aborts when a reader's error or warning breaks the rule of its messages: one line naming
// the file it read ("FILE:LINE: problem", "FILE: problem").
void check_file_message(std::string_view message, const std::string& path);

// A WarningSink (topology/fabric.h) that checks each warning with check_file_message.
inline auto warnings_of(const std::string& path) {
  return [&path](const std::string& warning) { check_file_message(warning, path); };
}

// Runs a reader of `path`: returns normally when it succeeds or throws taskmap::Error with a
// message that names the file on one line.
template <typename Read>
void read_file(const std::string& path, Read&& read) {
  try {
    read();
  } catch (const Error& e) {
    check_file_message(e.what(), path);
  }
}

// Runs a parser of a spec string or host list: success or taskmap::Error.
template <typename Parse>
void parse_text(Parse&& parse) {
  try {
    parse();
  } catch (const Error&) {
  }
}

}  // namespace taskmap::fuzz
