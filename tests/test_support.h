#pragma once
// Shared helpers for the test suite: paths to inputs and a way to run the taskmap binary.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>

#include <unistd.h>

#include <fmt/format.h>
#include <map>
#include <string>

#include "taskmap/core/error.h"
#include "taskmap/eval/evaluator.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/workload/pattern_spec.h"
#include "taskmap/routing/routing.h"
#include "taskmap/topology/machine_spec.h"

namespace taskmap::test {

inline std::string instance(const std::string& name) { return std::string(TASKMAP_TEST_INSTANCES) + "/" + name; }
inline std::string shared_data(const std::string& name) { return std::string(TASKMAP_SHARED_DATA) + "/" + name; }

// True when the environment variable CI is "true" (.ci/run sets it): tests must not skip.
inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string_view(ci) == "true";
}

// When ../shared/data is not beside the checkout, the current test skips with the reason, or
// fails with it under CI=true.
#define TASKMAP_REQUIRE_SHARED_DATA(path)                                                                  \
  do {                                                                                                     \
    if (!std::filesystem::exists(path)) {                                                                  \
      if (::taskmap::test::in_ci())                                                                        \
        GTEST_FAIL() << "shared data not found: " << (path)                                                \
                     << " (CI=true: the real-data tests must run; put ../shared/data beside the checkout)"; \
      GTEST_SKIP() << "shared data not found: " << (path) << " (the real-data tests need ../shared/data)";  \
    }                                                                                                      \
  } while (0)

// Channels per link class name.
inline std::map<std::string, int> class_counts(const Machine& m) {
  std::map<std::string, int> c;
  for (const auto& ch : m.channels) ++c[m.classes[ch.link_class].name];
  return c;
}
// When a program the test needs is missing (the shell command `probe` fails), the current test
// skips with the reason, or fails with it under CI=true (scripts/setup.sh installs it there).
#define TASKMAP_REQUIRE_TOOL(probe, what)                                                                 \
  do {                                                                                                    \
    if (::taskmap::test::run_command(probe).exit_code != 0) {                                             \
      if (::taskmap::test::in_ci())                                                                       \
        GTEST_FAIL() << (what) << " not found (CI=true: scripts/setup.sh installs it; probe: " << (probe) \
                     << ")";                                                                              \
      GTEST_SKIP() << (what) << " not found (scripts/setup.sh installs it)";                              \
    }                                                                                                     \
  } while (0)

// Channel loads of one flow of unit volume, summed per channel id.
inline std::map<ChannelId, double> route_loads(const Routing& routing, RouterId src, RouterId dst) {
  std::vector<ChannelShare> shares;
  routing.route(src, dst, shares);
  std::map<ChannelId, double> loads;
  for (const auto& s : shares) loads[s.channel] += s.fraction;
  return loads;
}

// Runs the mapper named by `spec` on the machine under its default routing, with the balance
// `imbalance` when tasks outnumber slots.
inline Mapping run_mapper_on(const MappingProblem& problem, const std::string& spec) {
  return make_mapper(parse_mapper_spec(spec))->run(problem);
}

inline Mapping run_mapper(const std::string& spec, const Machine& machine, const CommGraph& graph,
                          double imbalance = MappingProblem::kDefaultImbalance) {
  return run_mapper_on(MappingProblem(machine, graph, "", imbalance), spec);
}

struct Evaluated {
  Machine machine;
  CommGraph graph;
  Metrics metrics;
  std::vector<double> loads;
};

inline Evaluated evaluate(const std::string& machine, const std::string& pattern, const std::string& mapper,
                          const std::string& routing = "") {
  Evaluated e;
  e.machine = make_machine(machine);
  e.graph = build_pattern(parse_pattern_spec(pattern));
  const MappingProblem problem(e.machine, e.graph, routing);
  Mapping m = make_mapper(parse_mapper_spec(mapper))->run(problem);
  e.metrics = Evaluator(problem).evaluate(e.graph, m, &e.loads);
  return e;
}

// The message of the taskmap::Error that `f()` throws, or "no error".
template <class F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// A small fabric with named nodes: leaves l0 (cn10, cn2) and l1 (cn01, gpu1) under one spine.
Machine four_named_nodes(std::uint32_t ppn);
// Leaves A and B under S, each with 4 parallel uplinks (as much as its two hosts inject); hosts
// n1 and n3 on A, n2 and n4 on B, `ppn` slots each: the launchers' order alternates leaves.
Machine two_leaves_alternating(std::uint32_t ppn);

struct CommandResult {
  int exit_code = 0;
  std::string out;
  std::string err;
};
// A PNG image decoded to 8-bit RGB (the alpha channel dropped): what headless Chromium's
// screenshots hold (8-bit RGB or RGBA, not interlaced). Throws std::runtime_error on other PNGs.
struct Image {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // row-major, 3 bytes a pixel
  std::uint32_t pixel(std::uint32_t x, std::uint32_t y) const {
    const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 3;
    return (std::uint32_t{rgb[i]} << 16) | (std::uint32_t{rgb[i + 1]} << 8) | rgb[i + 2];
  }
};
Image read_png(const std::string& path);

// A path in the temporary directory for one test run's file: taskmap_PREFIX_PID_NAME.
inline std::string temp_path(const std::string& prefix, const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("taskmap_" + prefix + "_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// The whole text of a file ("" when it cannot be read).
std::string read_text(const std::string& path);
// How many times `part` occurs in `text`, overlaps included.
std::size_t count_of(const std::string& text, const std::string& part);

// Runs the taskmap binary with `args` (a shell-quoted string).
CommandResult run_taskmap(const std::string& args);
// Runs a shell command, capturing its output.
CommandResult run_command(const std::string& command);

}  // namespace taskmap::test
