#pragma once
// The man page taskmap(1) and the bash completion script, written from the command's own
// CLI11 definitions (commands, options, placeholders, defaults, help lines) and the catalogs,
// so that neither can say something --help does not. `taskmap generate man|bash-completion`
// prints them; the build writes them for `cmake --install` (CMakeLists.txt).
#include <string>
#include <vector>

#include "commands.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace taskmap::cli {

// A command `taskmap --help` shows (hidden ones left out), nested ones after their parent:
// "taskmap info", ..., "taskmap export", "taskmap export simgrid", ...
struct ShownCommand {
  std::string path;
  const CLI::App* app = nullptr;
};
std::vector<ShownCommand> shown_commands(const CLI::App& app);

// A command's options and positionals as its --help lists them, without -h/--help and
// --help-all (the man page gives those once).
std::vector<const CLI::Option*> shown_options(const CLI::App& command);

std::string render_man_page(const CLI::App& app);
std::string render_bash_completion(const CLI::App& app);

// `taskmap generate man|bash-completion [--out FILE]`.
int run_generate(const CLI::App& app, const RunConfig& config);

}  // namespace taskmap::cli
