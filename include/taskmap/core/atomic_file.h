#pragma once
// Output files appear whole or not at all: content goes to "PATH.tmp-XXXX" and is renamed
// over PATH only by commit(); a writer destroyed without commit() removes its temporary.
#include <fstream>
#include <string>

namespace taskmap::io {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return out_; }
  void commit();

 private:
  std::string path_;
  std::string temp_path_;
  std::ofstream out_;
  bool committed_ = false;
};

// Convenience: writes `content` to `path` atomically.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace taskmap::io
