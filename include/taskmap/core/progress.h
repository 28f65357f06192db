#pragma once
// A progress bar on stderr for long runs: "label [#####.....] 45% 12/27 status 3.2 s", or with
// no total "label: status 3.2 s". It appears only when stderr is a terminal and the run has
// lasted half a second, redraws at most ten times a second, and erases itself when done, so
// logs and pipes never see it.
// Bars nest: one made while another is alive (refine-hb's inside auto's, auto's inside
// compare's) draws as a part of the same line, after its parent's ("compare [###...] 1/3 auto
// > auto [##..] 3/12 scotch > refine-hb rounds [#...] 2/8 4.1 s"), cut to the terminal's width;
// the outermost bar erases the line when it ends.
// TASKMAP_PROGRESS=never turns it off; =always draws it at once even to a pipe (for tests).
#include <atomic>
#include <cstdint>
#include <string>

namespace taskmap::io {

class Progress {
 public:
  // total 0: no bar, only the status text. wanted = false: never draws (and costs nothing,
  // for the small runs of a loop that is long only sometimes).
  Progress(std::string label, std::uint64_t total, bool wanted = true);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Thread-safe; cheap when the bar is off or the line was drawn less than 0.1 s ago.
  void advance(std::uint64_t steps = 1);
  void set(std::uint64_t done);
  void status(const std::string& text);
  // When the work turns out larger or smaller than first counted.
  void set_total(std::uint64_t total);
  // Erases the line so that a message can be printed on a clean one; the next update redraws.
  void erase();

 private:
  friend struct ProgressLine;
  void maybe_draw();
  std::string segment(bool outermost) const;  // this bar's part of the line

  std::string label_;
  std::string status_;  // guarded by the line's mutex
  std::atomic<std::uint64_t> total_;
  std::atomic<std::uint64_t> done_{0};
  bool enabled_ = false;
};

// Turns off every bar the process makes from now on: the MPI reorder library maps inside the
// application (on past its time limit, sometimes), which must not get a bar on its terminal.
void disable_progress();

}  // namespace taskmap::io
