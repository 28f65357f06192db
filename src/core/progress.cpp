#include "taskmap/core/progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include <sys/ioctl.h>
#include <unistd.h>

namespace taskmap::io {
namespace {

constexpr std::int64_t kFirstDrawNs = 500'000'000;  // quick runs never show a bar
constexpr std::int64_t kRedrawNs = 100'000'000;

std::atomic<bool> progress_disabled{false};

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

// The one line on stderr the live bars share, outermost first.
struct ProgressLine {
  std::mutex mutex;
  std::vector<Progress*> bars;
  bool drawn = false;
  bool immediate = false;  // TASKMAP_PROGRESS=always
  std::atomic<std::int64_t> start_ns{0};  // the outermost bar's start (steady clock)
  std::atomic<std::int64_t> next_draw_ns{0};  // since start_ns

  static ProgressLine& get() {
    static ProgressLine line;
    return line;
  }

  // Holding the mutex.
  void erase_locked() {
    if (drawn) std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    drawn = false;
  }

  void draw_locked(std::int64_t now) {
    next_draw_ns = now + (immediate ? 0 : kRedrawNs);
    std::string text;
    for (std::size_t i = 0; i < bars.size(); ++i) text += (i ? " > " : "") + bars[i]->segment(i == 0);
    text += fmt::format(" {:.1f} s", static_cast<double>(now) / 1e9);
    // One terminal line: a wrapped one could not be redrawn in place.
    winsize size{};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 1 && text.size() >= size.ws_col) {
      text.resize(size.ws_col - 1);
    }
    std::fputs(("\r" + text + "\033[K").c_str(), stderr);
    std::fflush(stderr);
    drawn = true;
  }
};

void disable_progress() { progress_disabled = true; }

Progress::Progress(std::string label, std::uint64_t total, bool wanted) : label_(std::move(label)), total_(total) {
  if (!wanted || progress_disabled) return;
  const char* mode = std::getenv("TASKMAP_PROGRESS");
  const std::string m = mode ? mode : "auto";
  enabled_ = m == "always" || (m != "never" && ::isatty(STDERR_FILENO) == 1);
  if (!enabled_) return;
  ProgressLine& line = ProgressLine::get();
  std::lock_guard lock(line.mutex);
  if (line.bars.empty()) {
    line.immediate = m == "always";
    line.start_ns = now_ns();
    line.next_draw_ns = line.immediate ? 0 : kFirstDrawNs;
  }
  line.bars.push_back(this);
}

Progress::~Progress() {
  if (!enabled_) return;
  ProgressLine& line = ProgressLine::get();
  std::lock_guard lock(line.mutex);
  line.bars.erase(std::remove(line.bars.begin(), line.bars.end(), this), line.bars.end());
  // The outermost bar's end erases the line; an inner one's part goes at the next redraw.
  if (line.bars.empty()) line.erase_locked();
}

void Progress::erase() {
  if (!enabled_) return;
  ProgressLine& line = ProgressLine::get();
  std::lock_guard lock(line.mutex);
  line.erase_locked();
}

void Progress::advance(std::uint64_t steps) {
  done_ += steps;
  maybe_draw();
}

void Progress::set(std::uint64_t done) {
  done_ = done;
  maybe_draw();
}

void Progress::set_total(std::uint64_t total) {
  total_ = total;
  maybe_draw();
}

void Progress::status(const std::string& text) {
  if (!enabled_) return;
  {
    std::lock_guard lock(ProgressLine::get().mutex);
    status_ = text;
  }
  maybe_draw();
}

std::string Progress::segment(bool outermost) const {
  std::string s;
  if (const std::uint64_t total = total_; total > 0) {
    const std::uint64_t done = std::min(done_.load(), total);
    const int width = outermost ? 30 : 10;
    const double fraction = double(done) / double(total);
    const int filled = static_cast<int>(fraction * width);
    s = fmt::format("{} [{}{}] {:3.0f}% {}/{}", label_, std::string(filled, '#'), std::string(width - filled, '.'),
                    fraction * 100, done, total);
    if (!status_.empty()) s += " " + status_;
  } else {
    s = status_.empty() ? label_ : label_ + ": " + status_;
  }
  return s;
}

void Progress::maybe_draw() {
  if (!enabled_) return;
  ProgressLine& line = ProgressLine::get();
  if (now_ns() - line.start_ns < line.next_draw_ns.load(std::memory_order_relaxed)) return;
  std::unique_lock lock(line.mutex, std::try_to_lock);
  if (!lock.owns_lock()) return;
  line.draw_locked(now_ns() - line.start_ns);
}

}  // namespace taskmap::io
