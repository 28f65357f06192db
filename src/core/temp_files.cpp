#include "taskmap/core/temp_files.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstring>
#include <mutex>

namespace taskmap::io {
namespace {

enum State : int { kFree = 0, kClaimed = 1, kFile = 2, kDirectory = 3 };

struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};

// Outputs are written one at a time, a directory export holds one registered directory: a
// few slots are plenty.
constexpr int kSlots = 32;
Slot slots[kSlots];

// The record getdents64 fills (the kernel's layout).
struct DirEntry64 {
  unsigned long long d_ino;
  long long d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

// Removes `name` under `parent` and, for a directory, what it holds, with system calls only.
void remove_tree_at(int parent, const char* name, int depth) {
  if (::unlinkat(parent, name, 0) == 0 || depth > 8) return;
  const int fd = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) char buffer[1024];
  // Entries removed while reading may shift the listing: read again until a pass removes nothing.
  for (int pass = 0; pass < 1000; ++pass) {
    bool removed = false;
    ::lseek(fd, 0, SEEK_SET);
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (long offset = 0; offset < n;) {
        const auto* entry = reinterpret_cast<const DirEntry64*>(buffer + offset);
        offset += entry->d_reclen;
        const char* child = entry->d_name;
        if (std::strcmp(child, ".") == 0 || std::strcmp(child, "..") == 0) continue;
        remove_tree_at(fd, child, depth + 1);
        removed = true;
      }
    }
    if (!removed) break;
  }
  ::close(fd);
  ::unlinkat(parent, name, AT_REMOVEDIR);
}

void remove_registered(int signal) {
  for (Slot& slot : slots) {
    const int state = slot.state.load(std::memory_order_acquire);
    if (state == kFile) ::unlink(slot.path);
    else if (state == kDirectory) remove_tree_at(AT_FDCWD, slot.path, 0);
  }
  // SA_RESETHAND restored the default action and SA_NODEFER left the signal unblocked.
  ::raise(signal);
}

void install_handlers() {
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(signal, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;  // ignored or taken
    struct sigaction action {};
    action.sa_handler = remove_registered;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_NODEFER;
    ::sigaction(signal, &action, nullptr);
  }
}

}  // namespace

bool register_temp_path(const std::string& path, bool directory) {
  static std::once_flag installed;
  std::call_once(installed, install_handlers);
  if (path.size() >= PATH_MAX) return false;
  for (Slot& slot : slots) {
    int expected = kFree;
    if (!slot.state.compare_exchange_strong(expected, kClaimed)) continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.state.store(directory ? kDirectory : kFile, std::memory_order_release);
    return true;
  }
  return false;
}

void unregister_temp_path(const std::string& path) {
  for (Slot& slot : slots) {
    const int state = slot.state.load(std::memory_order_acquire);
    if ((state == kFile || state == kDirectory) && path == slot.path) {
      slot.state.store(kFree, std::memory_order_release);
      return;
    }
  }
}

}  // namespace taskmap::io
