#include "taskmap/core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <streambuf>
#include <vector>

#include "taskmap/core/error.h"
#include "taskmap/core/temp_files.h"

namespace taskmap::io {
namespace {

namespace fs = std::filesystem;

std::string parent_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// The nearest ancestor of `path` that exists (`path` itself when it does), or "" when stat
// fails for another reason than a missing component (its errno is left in `error`).
std::string nearest_existing(const std::string& path, struct stat& st, int& error) {
  fs::path p = path;
  for (;;) {
    const std::string s = p.empty() ? std::string(".") : p.string();
    if (::stat(s.c_str(), &st) == 0) return s;
    if (errno != ENOENT && errno != ENOTDIR) {
      error = errno;
      return "";
    }
    if (p.empty() || p == p.root_path()) {
      error = errno;
      return "";
    }
    p = p.parent_path();
  }
}

}  // namespace

std::string resolve_output_path(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::vector<char> target(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : PATH_MAX) + 1);
    const ssize_t n = ::readlink(p.c_str(), target.data(), target.size());
    if (n < 0 || static_cast<std::size_t>(n) >= target.size()) return p;
    const fs::path link(std::string(target.data(), static_cast<std::size_t>(n)));
    p = link.is_absolute() ? link.string() : (fs::path(p).parent_path() / link).string();
  }
  return p;  // a loop: opening it reports ELOOP
}

void check_output_path(const std::string& path, OutputKind kind, std::string_view option) {
  if (path.empty()) fail("{}: empty path", option);
  if (is_stdout_path(path)) {
    if (kind == OutputKind::Directory) {
      fail("{} -: a directory is needed here, not standard output", option);
    }
    return;
  }
  const std::string target = resolve_output_path(path);
  struct stat st {};
  int error = 0;
  if (kind == OutputKind::File) {
    if (::stat(target.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) fail("{} {}: is a directory", option, path);
      if (::access(target.c_str(), W_OK) != 0) fail("{} {}: cannot write ({})", option, path, std::strerror(errno));
      if (S_ISREG(st.st_mode)) {
        // Replaced by a rename: its directory must take a new file.
        const std::string dir = parent_of(target);
        if (::access(dir.c_str(), W_OK | X_OK) != 0) {
          fail("{} {}: cannot write in {} ({})", option, path, dir, std::strerror(errno));
        }
      }
      return;
    }
    const std::string dir = parent_of(target);
    const std::string existing = nearest_existing(dir, st, error);
    if (existing.empty()) fail("{} {}: cannot write in {} ({})", option, path, dir, std::strerror(error));
    if (!S_ISDIR(st.st_mode)) fail("{} {}: {} is not a directory", option, path, existing);
    if (existing != dir) fail("{} {}: the directory {} does not exist", option, path, dir);
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
      fail("{} {}: cannot write in {} ({})", option, path, dir, std::strerror(errno));
    }
    return;
  }
  const std::string existing = nearest_existing(target, st, error);
  if (existing.empty()) fail("{} {}: cannot create ({})", option, path, std::strerror(error));
  if (!S_ISDIR(st.st_mode)) {
    if (existing == target) fail("{} {}: exists and is not a directory", option, path);
    fail("{} {}: {} is not a directory", option, path, existing);
  }
  if (::access(existing.c_str(), W_OK | X_OK) != 0) {
    fail("{} {}: cannot write in {} ({})", option, path, existing, std::strerror(errno));
  }
}

// A stream buffer over a file descriptor that keeps the first write error.
class AtomicFile::FdBuffer final : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd_(fd), buffer_(1 << 16) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  int error() const { return error_; }
  bool drain() {
    const char* p = pbase();
    std::size_t left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0 && error_ == 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno != EINTR) error_ = errno;
        continue;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return error_ == 0;
  }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
};

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (is_stdout_path(path_)) {
    // What the program printed before comes first.
    std::cout.flush();
    std::fflush(stdout);
    fd_ = STDOUT_FILENO;
  } else {
    target_ = resolve_output_path(path_);
    struct stat st {};
    if (::stat(target_.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
      // A device or a FIFO: renaming over it would replace the node, so it is opened.
      fd_ = ::open(target_.c_str(), O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
    } else {
      temp_path_ = fmt::format("{}.tmp-{}", target_, ::getpid());
      register_temp_path(temp_path_);
      fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0666);
      if (fd_ >= 0 && ::stat(target_.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        ::fchmod(fd_, st.st_mode & 07777);  // a replaced file keeps its permissions
      }
    }
    if (fd_ < 0) {
      const int error = errno;
      cleanup();
      fail("{}: cannot write ({})", path_, std::strerror(error));
    }
  }
  buffer_ = std::make_unique<FdBuffer>(fd_);
  out_ = std::make_unique<std::ostream>(buffer_.get());
}

void AtomicFile::cleanup() {
  if (fd_ >= 0 && fd_ != STDOUT_FILENO) ::close(fd_);
  fd_ = -1;
  if (!temp_path_.empty()) {
    ::unlink(temp_path_.c_str());
    unregister_temp_path(temp_path_);
  }
}

AtomicFile::~AtomicFile() {
  if (!committed_) cleanup();
}

std::ostream& AtomicFile::stream() { return *out_; }

void AtomicFile::commit() {
  committed_ = true;
  const std::string& name = is_stdout_path(path_) ? std::string("standard output") : path_;
  int error = buffer_->drain() ? 0 : buffer_->error();
  if (fd_ != STDOUT_FILENO && ::close(fd_) != 0 && error == 0) error = errno;
  fd_ = -1;
  if (error == 0 && !temp_path_.empty() && std::rename(temp_path_.c_str(), target_.c_str()) != 0) error = errno;
  if (error != 0) {
    cleanup();
    fail("{}: cannot write ({})", name, std::strerror(error));
  }
  if (!temp_path_.empty()) unregister_temp_path(temp_path_);
}

void write_file_atomically(const std::string& path, const std::string& content) {
  AtomicFile file(path);
  file.stream() << content;
  file.commit();
}

}  // namespace taskmap::io
