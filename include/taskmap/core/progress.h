#pragma once
// A progress bar on stderr for long runs: "label [#####.....] 45% 12/27 3.2 s status", or
// with no total just "label: status 3.2 s". It appears
// only when stderr is a terminal and the run has lasted half a second, redraws at most ten
// times a second, and erases itself when done, so logs and pipes never see it.
// TASKMAP_PROGRESS=never turns it off; =always draws it at once even to a pipe (for tests).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace taskmap::io {

class Progress {
 public:
  // total 0: no bar, only the status text. wanted = false: never draws.
  Progress(std::string label, std::uint64_t total, bool wanted = true);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Thread-safe; cheap when the bar is off or was drawn less than 0.1 s ago.
  void advance(std::uint64_t steps = 1);
  void set(std::uint64_t done);
  void status(const std::string& text);
  // Erases the bar so that a message can be printed on a clean line; the next update redraws.
  void erase();

 private:
  void maybe_draw();

  std::string label_;
  std::string status_;  // guarded by draw_
  std::uint64_t total_;
  std::atomic<std::uint64_t> done_{0};
  bool enabled_ = false;
  bool immediate_ = false;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::atomic<std::int64_t> next_draw_ns_{0};
  std::mutex draw_;
};

}  // namespace taskmap::io
