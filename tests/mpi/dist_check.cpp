// A program of the dist module's tests (tests/dist/mpi_launch.cpp), started by an MPI launcher:
// it opens the MPI plugin as taskmap does (no MPI linked) and checks the processes' operations
// against values every process derives from its rank and the process count. Prints one line
// per process: "ok" when every check passed, else what failed.
//   dist_check operations   sums, extremes, broadcasts, the process alone, on_leader
//   dist_check one-fails F  the last process fails alone: all_failed says so, it ends the launch;
//                           each verdict is also appended to the file F: a launcher need not
//                           forward what a process printed just before it aborted the run
//   dist_check all-fail     every process fails: all_failed says so, each exits 0
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "taskmap/core/error.h"
#include "taskmap/dist/launch.h"

using taskmap::dist::Int128;
using taskmap::dist::Processes;

namespace {

std::string failures;

void check(bool ok, const std::string& what) {
  if (!ok) failures += (failures.empty() ? "" : "; ") + what;
}

void operations(const Processes& world) {
  const int k = world.size(), r = world.rank();
  const auto uk = static_cast<std::uint64_t>(k);
  // Integers: 1 + 2 + ... + k, and 2^40 k.
  std::vector<std::uint64_t> u{static_cast<std::uint64_t>(r) + 1, std::uint64_t{1} << 40};
  world.sum(u);
  check(u[0] == uk * (uk + 1) / 2 && u[1] == uk << 40, "sum of 64-bit integers");
  // 128-bit: (2^64 - 1) from each process carries into the high word; -(r + 1) 2^70 is negative.
  const Int128 low_max = Int128{UINT64_MAX};
  std::vector<Int128> w{low_max, -(Int128{r} + 1) * (Int128{1} << 70)};
  world.sum(w);
  check(w[0] == low_max * k && w[1] == -Int128(uk * (uk + 1) / 2) * (Int128{1} << 70), "sum of 128-bit integers");
  // Extremes of r / 2 - 1.
  std::vector<double> hi{r * 0.5 - 1}, lo{r * 0.5 - 1};
  world.max(hi);
  world.min(lo);
  check(hi[0] == (k - 1) * 0.5 - 1 && lo[0] == -1, "max and min");
  // The last process's text and a vector of 2^20 words to everyone.
  std::string text = r == k - 1 ? "from the last process" : "";
  world.broadcast(text, k - 1);
  check(text == "from the last process", "broadcast of text");
  std::vector<std::uint32_t> words;
  if (r == 0) {
    for (std::uint32_t i = 0; i < (1u << 20); ++i) words.push_back(i * 2654435761u);
  }
  world.broadcast(words, 0);
  bool same = words.size() == (1u << 20);
  for (std::uint32_t i = 0; same && i < words.size(); ++i) same = words[i] == i * 2654435761u;
  check(same, "broadcast of 2^20 words");
  // The process alone: its own value back.
  const Processes& alone = world.alone();
  std::vector<std::uint64_t> own{static_cast<std::uint64_t>(r) + 7};
  alone.sum(own);
  check(alone.size() == 1 && alone.rank() == 0 && own[0] == static_cast<std::uint64_t>(r) + 7, "the process alone");
  // An error on the leader stops every process with its message.
  std::string message;
  try {
    taskmap::dist::on_leader(world, [] { taskmap::fail("leader's error"); });
  } catch (const taskmap::Error& e) {
    message = e.what();
  }
  check(message == "leader's error", "on_leader's error");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const auto launch = taskmap::dist::detect_launch();
  if (!launch) {
    std::fprintf(stderr, "dist_check: not started by an MPI launcher\n");
    return 2;
  }
  const auto mpi = taskmap::dist::MpiLaunch::start(*launch);
  const Processes& world = mpi->world();
  if (mode == "operations") {
    operations(world);
    std::printf("%s\n", failures.empty() ? "ok" : failures.c_str());
    return failures.empty() ? 0 : 1;
  }
  if (mode == "one-fails") {
    const std::string record = argc > 2 ? argv[2] : "";
    const auto say = [&](const char* verdict) {
      std::printf("%s\n", verdict);
      std::fflush(stdout);
      if (record.empty()) return;
      if (std::FILE* f = std::fopen(record.c_str(), "a")) {
        std::fprintf(f, "%s\n", verdict);
        std::fclose(f);
      }
    };
    if (world.rank() == world.size() - 1) {
      say(mpi->all_failed(1.0) ? "all failed" : "failed alone");
      mpi->abort_all(3);
    }
    std::string never;
    world.broadcast(never, world.size() - 1);  // the last process never sends: abort_all ends this
    say("not ended");
    return 0;
  }
  if (mode == "all-fail") {
    std::printf("%s\n", mpi->all_failed(30.0) ? "all failed" : "failed alone");
    return 0;
  }
  std::fprintf(stderr, "dist_check: unknown mode '%s'\n", mode.c_str());
  return 2;
}
