#include "fuzz_support.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "taskmap/core/memory.h"

namespace taskmap::fuzz {
namespace {

namespace fs = std::filesystem;

// The process's input file, in a directory of its own that is removed when the fuzzer exits
// normally (after a crash it stays in $TMPDIR, which scripts/fuzz.sh points into the build
// folder). The file stays open and is overwritten in place: ext4 flushes a file to disk when it
// is closed after a truncation to zero, which would make every run wait for the disk.
class InputFile final {
 public:
  explicit InputFile(std::string_view name) {
    std::string pattern = (fs::temp_directory_path() / "taskmap-fuzz-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) die("mkdtemp");
    directory_ = pattern;
    path_ = (directory_ / name).string();
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd_ < 0) die(path_.c_str());
  }
  ~InputFile() {
    ::close(fd_);
    std::error_code ignored;
    fs::remove_all(directory_, ignored);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& write(const std::uint8_t* data, std::size_t size) {
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
      if (n <= 0) die(path_.c_str());
      done += static_cast<std::size_t>(n);
    }
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) die(path_.c_str());
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] static void die(const char* what) {
    std::perror(what);
    std::abort();
  }
  fs::path directory_;
  std::string path_;
  int fd_ = -1;
};

}  // namespace

std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

const std::string& write_input(const std::uint8_t* data, std::size_t size, std::string_view name) {
  static InputFile file(name);
  if (fs::path(file.path()).filename() != name) {
    std::fprintf(stderr, "taskmap fuzz: one input file per process (%s, then %.*s)\n", file.path().c_str(),
                 static_cast<int>(name.size()), name.data());
    std::abort();
  }
  return file.write(data, size);
}

void limit_memory_for_fabric_files() { set_memory_limit(std::uint64_t{1} << 20); }

void check_file_message(std::string_view message, const std::string& path) {
  if (message.find('\n') == std::string_view::npos && message.find(path) != std::string_view::npos) return;
  std::fprintf(stderr, "taskmap fuzz: this message is not one line naming %s:\n%.*s\n", path.c_str(),
               static_cast<int>(message.size()), message.data());
  std::abort();
}

}  // namespace taskmap::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  taskmap::set_memory_limit(std::uint64_t{8} << 20);
  return 0;
}
