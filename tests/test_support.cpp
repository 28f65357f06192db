#include "test_support.h"

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace taskmap::test {

CommandResult run_taskmap(const std::string& args) { return run_command(std::string(TASKMAP_BINARY) + " " + args); }

CommandResult run_command(const std::string& command) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string out = (dir / ("taskmap_test_out_" + std::to_string(::getpid()))).string();
  const std::string err = out + ".err";
  const std::string cmd = command + " >" + out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

}  // namespace taskmap::test
