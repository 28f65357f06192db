#pragma once
#include <string>

namespace taskmap::cli {

// "taskmap 0.1.0 (git 33f414c)": the project version, and `git describe --always --dirty` of
// the sources when they were configured from a git checkout.
std::string version_line();
// "0.1.0": the project version alone (the man page's).
std::string version_number();

}  // namespace taskmap::cli
