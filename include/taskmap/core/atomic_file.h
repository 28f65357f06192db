#pragma once
// Output files. A regular file appears whole or not at all: content goes to a temporary beside
// it ("NAME.tmp-PID"), renamed over it only by commit(); a writer destroyed without commit(),
// or a run ended by SIGINT/SIGTERM, removes the temporary. A symbolic link is followed: its
// target is replaced that way and the link stays. A path that exists and is not a regular
// file (a character device such as /dev/null, a FIFO) is written in place, and "-" is
// standard output. Errors name the path and the reason.
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace taskmap::io {

// "-": standard output.
inline bool is_stdout_path(std::string_view path) { return path == "-"; }

enum class OutputKind {
  File,       // a file written by AtomicFile ("-" is standard output)
  Directory,  // a directory created (with its parents) or filled
};

// Checks, before any work, that `path` can take an output of `kind`; fails with one line
// "OPTION PATH: reason". A file needs an existing, writable directory (or to be an existing
// writable non-directory); a directory needs to be one or to be creatable under the nearest
// existing ancestor; "-" is accepted for a file only.
void check_output_path(const std::string& path, OutputKind kind, std::string_view option);

// The path a write to `path` lands on: symbolic links followed to the last one's target.
std::string resolve_output_path(const std::string& path);

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream();
  // Flushes and puts the content in place; fails with "PATH: cannot write (reason)".
  void commit();

 private:
  class FdBuffer;
  void cleanup();

  std::string path_;       // as given
  std::string target_;     // symbolic links resolved
  std::string temp_path_;  // empty when writing in place or to standard output
  int fd_ = -1;
  std::unique_ptr<FdBuffer> buffer_;
  std::unique_ptr<std::ostream> out_;
  bool committed_ = false;
};

// Convenience: writes `content` to `path` as above.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace taskmap::io
