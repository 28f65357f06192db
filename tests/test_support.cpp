#include "test_support.h"

#include "taskmap/topology/fabric.h"

#include <gtest/gtest-spi.h>

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace taskmap::test {

Machine four_named_nodes(std::uint32_t ppn) {
  Fabric f;
  f.source = "four";
  f.switches = {"l0", "l1", "spine"};
  f.hosts = {"cn10", "cn2", "cn01", "gpu1"};
  f.host_ports = {{0, 0, 0}, {1, 0, 0}, {2, 1, 0}, {3, 1, 0}};
  f.cables = {{0, 2, 0}, {1, 2, 0}};
  return build_fabric_machine(f, {.slots_per_node = ppn, .description = "four"});
}


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

// The suite's own rule: missing shared data fails the test under CI=true.

namespace taskmap::test {
namespace {

TEST(TestSupport, MissingSharedDataFailsUnderCi) {
  const char* before = std::getenv("CI");
  const std::string saved = before ? before : "";
  ::setenv("CI", "true", 1);
  EXPECT_FATAL_FAILURE(TASKMAP_REQUIRE_SHARED_DATA("/nonexistent/shared/data/x.mtx"),
                       "shared data not found: /nonexistent/shared/data/x.mtx (CI=true");
  ::setenv("CI", "false", 1);
  EXPECT_FALSE(in_ci());
  if (before) ::setenv("CI", saved.c_str(), 1); else ::unsetenv("CI");
}

}  // namespace
}  // namespace taskmap::test
