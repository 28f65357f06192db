#pragma once
// Temporary files and directories that must not outlive an interrupted run. While registered,
// a path is removed if SIGINT or SIGTERM arrives; the signal then takes its default action
// (the process ends as if nothing had caught it). The handler only calls async-signal-safe
// functions; a signal the process ignores stays ignored.
#include <string>

namespace taskmap::io {

// Registers `path` (a file, or with `directory` a directory removed with its contents) for
// removal on SIGINT/SIGTERM and installs the handlers on first use. Returns false when the
// table is full or the path too long (the path then is not cleaned up on a signal).
bool register_temp_path(const std::string& path, bool directory = false);

// Forgets `path` (after it was renamed into place or removed).
void unregister_temp_path(const std::string& path);

// Registers a path for the lifetime of the object.
class TempPathGuard {
 public:
  explicit TempPathGuard(std::string path, bool directory = false) : path_(std::move(path)) {
    register_temp_path(path_, directory);
  }
  ~TempPathGuard() { unregister_temp_path(path_); }
  TempPathGuard(const TempPathGuard&) = delete;
  TempPathGuard& operator=(const TempPathGuard&) = delete;

 private:
  std::string path_;
};

}  // namespace taskmap::io
