#include "taskmap/core/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "taskmap/core/error.h"

namespace taskmap::io {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  temp_path_ = fmt::format("{}.tmp-{}", path_, ::getpid());
  out_.open(temp_path_, std::ios::binary | std::ios::trunc);
  if (!out_) fail("{}: cannot write ({})", path_, std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    out_.close();
    std::remove(temp_path_.c_str());
  }
}

void AtomicFile::commit() {
  out_.flush();
  bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok || std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    std::remove(temp_path_.c_str());
    committed_ = true;
    fail("{}: cannot write ({})", path_, std::strerror(errno));
  }
  committed_ = true;
}

void write_file_atomically(const std::string& path, const std::string& content) {
  AtomicFile file(path);
  file.stream() << content;
  file.commit();
}

}  // namespace taskmap::io
