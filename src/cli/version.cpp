// The one file that includes the generated version header: a new description recompiles it
// alone.
#include "version.h"

#include "taskmap_version.h"

namespace taskmap::cli {

std::string version_line() { return std::string("taskmap ") + TASKMAP_VERSION_STRING; }
std::string version_number() { return TASKMAP_VERSION; }

}  // namespace taskmap::cli
