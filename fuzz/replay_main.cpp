// Replays saved inputs through one fuzz target, each input once, in a fixed order: the fuzz
// step of CI (scripts/fuzz.sh --replay), in the sanitizer build, without libFuzzer. The same
// commit gives the same verdict: no random mutation, no time-dependent corpus.
//   fuzz_replay_NAME [--timeout SECONDS] PATH...   (a PATH is a file or a folder of files)
// A crash or sanitizer report ends the process with the input named on stderr; an input that
// runs past the time-out (default 60 s) is a finding too. Prints "N inputs, slowest S s (FILE)".
#include <sanitizer/common_interface_defs.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

namespace fs = std::filesystem;

// The input being run, for the messages of a crash or a time-out (async-signal-safe writes).
char current_input[4096];

void name_current_input() {
  const char prefix[] = "fuzz_replay: while running ";
  if (::write(2, prefix, sizeof prefix - 1) < 0) return;
  if (::write(2, current_input, std::strlen(current_input)) < 0) return;
  if (::write(2, "\n", 1) < 0) return;
}

void on_alarm(int) {
  const char text[] = "fuzz_replay: time-out\n";
  if (::write(2, text, sizeof text - 1) < 0) _exit(1);
  name_current_input();
  _exit(1);
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "fuzz_replay: %s\nusage: fuzz_replay [--timeout SECONDS] PATH...\n", why);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  unsigned timeout = 60;
  std::vector<fs::path> inputs;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--timeout") {
      if (++a == argc) usage("--timeout needs a value");
      timeout = static_cast<unsigned>(std::strtoul(argv[a], nullptr, 10));
      continue;
    }
    std::error_code error;
    if (fs::is_directory(arg, error)) {
      for (const auto& entry : fs::directory_iterator(arg)) {
        if (entry.is_regular_file()) inputs.push_back(entry.path());
      }
    } else if (fs::is_regular_file(arg, error)) {
      inputs.emplace_back(arg);
    } else {
      usage(("no file or folder " + arg).c_str());
    }
  }
  // The order of the inputs is the order of their names, whatever the file system lists.
  std::sort(inputs.begin(), inputs.end());

  LLVMFuzzerInitialize(&argc, &argv);
  __sanitizer_set_death_callback(name_current_input);
  struct sigaction alarm_action {};
  alarm_action.sa_handler = on_alarm;
  ::sigaction(SIGALRM, &alarm_action, nullptr);

  double slowest = 0;
  std::string slowest_input;
  for (const fs::path& input : inputs) {
    std::snprintf(current_input, sizeof current_input, "%s", input.c_str());
    std::ifstream in(input, std::ios::binary);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    ::alarm(timeout);
    const auto start = std::chrono::steady_clock::now();
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ::alarm(0);
    if (seconds > slowest) {
      slowest = seconds;
      slowest_input = input.string();
    }
  }
  std::printf("%zu inputs, slowest %.2f s (%s)\n", inputs.size(), slowest, slowest_input.c_str());
  return 0;
}
