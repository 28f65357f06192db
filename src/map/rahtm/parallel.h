#pragma once
// A minimal work pool: calls f(i, worker) for i in [0, count) on up to `threads` threads,
// worker in [0, threads) naming the thread (for per-thread scratch space). The calling thread
// is worker 0 and calls tick() after each of its items, e.g. to report progress.
// The first exception thrown by f is rethrown after all have stopped.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace taskmap::rahtm {

template <typename F, typename Tick>
void run_parallel(std::size_t count, unsigned threads, F&& f, Tick&& tick) {
  threads = static_cast<unsigned>(std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(count, 1)));
  if (threads == 1) {
    for (std::size_t i = 0; i < count; ++i) f(i, 0u), tick();
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&](unsigned worker) {
    for (std::size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        f(i, worker);
        if (worker == 0) tick();
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        next = count;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0u);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

template <typename F>
void run_parallel(std::size_t count, unsigned threads, F&& f) {
  run_parallel(count, threads, std::forward<F>(f), [] {});
}

}  // namespace taskmap::rahtm
