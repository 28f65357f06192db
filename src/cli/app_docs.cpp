// What the man page and the completion script share: the commands and options --help shows,
// and `taskmap generate`.
#include "app_docs.h"

#include <CLI/CLI.hpp>

#include "taskmap/core/atomic_file.h"
#include "taskmap/core/error.h"

namespace taskmap::cli {

std::vector<ShownCommand> shown_commands(const CLI::App& app) {
  std::vector<ShownCommand> out;
  auto visit = [&](auto&& self, const CLI::App& parent, const std::string& path) -> void {
    for (const CLI::App* sub : parent.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
      out.push_back({path + " " + sub->get_name(), sub});
      self(self, *sub, path + " " + sub->get_name());
    }
  };
  visit(visit, app, "taskmap");
  return out;
}

std::vector<const CLI::Option*> shown_options(const CLI::App& command) {
  return command.get_options([&](const CLI::Option* o) {
    return o != command.get_help_ptr() && o != command.get_help_all_ptr() && !o->get_group().empty();
  });
}

int run_generate(const CLI::App& app, const RunConfig& config) {
  std::string text;
  if (config.generate_what == "man") {
    text = render_man_page(app);
  } else if (config.generate_what == "bash-completion") {
    text = render_bash_completion(app);
  } else {
    usage_fail("generate '{}': unknown; use man or bash-completion", config.generate_what);
  }
  io::write_file_atomically(config.out.empty() ? "-" : config.out, text);
  return 0;
}

}  // namespace taskmap::cli
