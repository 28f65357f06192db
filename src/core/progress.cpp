#include "taskmap/core/progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

namespace taskmap::io {
namespace {

constexpr std::int64_t kFirstDrawNs = 500'000'000;  // quick runs never show a bar
constexpr std::int64_t kRedrawNs = 100'000'000;

std::int64_t elapsed_ns(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

Progress::Progress(std::string label, std::uint64_t total, bool wanted)
    : label_(std::move(label)), total_(total), start_(std::chrono::steady_clock::now()) {
  if (!wanted) return;
  const char* mode = std::getenv("TASKMAP_PROGRESS");
  const std::string m = mode ? mode : "auto";
  immediate_ = m == "always";
  enabled_ = immediate_ || (m != "never" && ::isatty(STDERR_FILENO) == 1);
  next_draw_ns_ = immediate_ ? 0 : kFirstDrawNs;
}

Progress::~Progress() { erase(); }

void Progress::erase() {
  if (!enabled_) return;
  std::lock_guard lock(draw_);
  if (drawn_) std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

void Progress::advance(std::uint64_t steps) {
  done_ += steps;
  maybe_draw();
}

void Progress::set(std::uint64_t done) {
  done_ = done;
  maybe_draw();
}

void Progress::status(const std::string& text) {
  if (!enabled_) return;
  {
    std::lock_guard lock(draw_);
    status_ = text;
  }
  maybe_draw();
}

void Progress::maybe_draw() {
  if (!enabled_) return;
  const std::int64_t now = elapsed_ns(start_);
  if (now < next_draw_ns_.load(std::memory_order_relaxed)) return;
  std::unique_lock lock(draw_, std::try_to_lock);
  if (!lock.owns_lock()) return;
  next_draw_ns_ = now + (immediate_ ? 0 : kRedrawNs);
  std::string line;
  if (total_ > 0) {
    const std::uint64_t done = std::min(done_.load(), total_);
    constexpr int kWidth = 30;
    const double fraction = double(done) / double(total_);
    const int filled = static_cast<int>(fraction * kWidth);
    line = fmt::format("\r{} [{}{}] {:3.0f}% {}/{} {:.1f} s", label_, std::string(filled, '#'),
                       std::string(kWidth - filled, '.'), fraction * 100, done, total_, static_cast<double>(now) / 1e9);
    if (!status_.empty()) line += " " + status_;
  } else {
    line = fmt::format("\r{}: {} {:.1f} s", label_, status_, static_cast<double>(now) / 1e9);
  }
  std::fputs((line + "\033[K").c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace taskmap::io
