// Output files appear whole or not at all; devices, FIFOs, symbolic links and standard
// output are written without replacing what the path names; an interrupted run leaves no
// temporary behind.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>

#include "taskmap/core/atomic_file.h"
#include "taskmap/core/error.h"
#include "taskmap/core/temp_files.h"

namespace taskmap {
namespace {

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("taskmap_atomic_" + std::to_string(::getpid()) + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(AtomicFile, NothingAppearsUntilCommitAndNothingRemainsWithoutIt) {
  const auto dir = fresh_dir("commit");
  const std::string path = (dir / "out.txt").string();
  {
    io::AtomicFile file(path);
    file.stream() << "partial";
    EXPECT_FALSE(std::filesystem::exists(path));
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "an abandoned writer left a file";
  {
    io::AtomicFile file(path);
    file.stream() << "whole\n";
    file.commit();
  }
  std::stringstream content;
  content << std::ifstream(path).rdbuf();
  EXPECT_EQ(content.str(), "whole\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, ReplacesAnExistingFileWhole) {
  const auto dir = fresh_dir("replace");
  const std::string path = (dir / "out.txt").string();
  io::write_file_atomically(path, "old\n");
  io::write_file_atomically(path, "new\n");
  std::stringstream content;
  content << std::ifstream(path).rdbuf();
  EXPECT_EQ(content.str(), "new\n");
  std::filesystem::remove_all(dir);
}

std::string read_file(const std::filesystem::path& path) {
  std::stringstream content;
  content << std::ifstream(path).rdbuf();
  return content.str();
}

std::size_t entries(const std::filesystem::path& dir) {
  return static_cast<std::size_t>(
      std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(AtomicFile, DevNullStaysACharacterDevice) {
  io::write_file_atomically("/dev/null", "discarded\n");
  struct stat st {};
  ASSERT_EQ(::lstat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(AtomicFile, AFullDeviceIsAnErrorNamingThePath) {
  EXPECT_EQ(error_of([] { io::write_file_atomically("/dev/full", "x\n"); }),
            "/dev/full: cannot write (No space left on device)");
  struct stat st {};
  ASSERT_EQ(::lstat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

// Everything a FIFO delivers until its writer closes it, or until `seconds` have passed.
std::string drain_fifo(int fd, double seconds) {
  std::string got;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  char buffer[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) got.append(buffer, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EAGAIN) break;  // the writer closed it
  }
  return got;
}

TEST(AtomicFile, AFifoIsWrittenInPlace) {
  const auto dir = fresh_dir("fifo");
  const auto fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The read end opened first, without blocking, lets the writer open at once; the content
  // fits the pipe's buffer, so the write does not wait for the reader.
  const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(fd, 0);
  io::write_file_atomically(fifo.string(), "through the pipe\n");
  EXPECT_EQ(drain_fifo(fd, 5), "through the pipe\n");
  ::close(fd);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(entries(dir), 1u);
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, ASymlinkStaysAndItsTargetIsReplaced) {
  const auto dir = fresh_dir("link");
  std::filesystem::create_directories(dir / "real");
  io::write_file_atomically((dir / "real" / "target.txt").string(), "old\n");
  std::filesystem::create_symlink("real/target.txt", dir / "link.txt");  // relative to the link
  io::write_file_atomically((dir / "link.txt").string(), "new\n");
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.txt"));
  EXPECT_EQ(std::filesystem::read_symlink(dir / "link.txt"), "real/target.txt");
  EXPECT_EQ(read_file(dir / "real" / "target.txt"), "new\n");
  EXPECT_EQ(entries(dir), 2u);
  EXPECT_EQ(entries(dir / "real"), 1u) << "a temporary was left beside the target";
  // A dangling link gets its target created.
  std::filesystem::create_symlink("real/later.txt", dir / "dangling.txt");
  io::write_file_atomically((dir / "dangling.txt").string(), "later\n");
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "dangling.txt"));
  EXPECT_EQ(read_file(dir / "real" / "later.txt"), "later\n");
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, OutputLocationsAreCheckedBeforeWork) {
  const auto dir = fresh_dir("check");
  const std::string file = (dir / "file.txt").string();
  io::write_file_atomically(file, "x\n");
  using io::OutputKind;
  auto check = [](const std::string& path, OutputKind kind) {
    return error_of([&] { io::check_output_path(path, kind, "--out"); });
  };
  EXPECT_EQ(check((dir / "new.txt").string(), OutputKind::File), "no error");
  EXPECT_EQ(check(file, OutputKind::File), "no error");
  EXPECT_EQ(check("/dev/null", OutputKind::File), "no error");
  EXPECT_EQ(check("-", OutputKind::File), "no error");
  EXPECT_EQ(check((dir / "missing" / "x.txt").string(), OutputKind::File),
            "--out " + (dir / "missing" / "x.txt").string() + ": the directory " + (dir / "missing").string() +
                " does not exist");
  EXPECT_EQ(check(file + "/x.txt", OutputKind::File), "--out " + file + "/x.txt: " + file + " is not a directory");
  EXPECT_EQ(check(dir.string(), OutputKind::File), "--out " + dir.string() + ": is a directory");
  EXPECT_EQ(check((dir / "a" / "b").string(), OutputKind::Directory), "no error");
  EXPECT_EQ(check(dir.string(), OutputKind::Directory), "no error");
  EXPECT_EQ(check(file, OutputKind::Directory), "--out " + file + ": exists and is not a directory");
  EXPECT_EQ(check(file + "/a/b", OutputKind::Directory), "--out " + file + "/a/b: " + file + " is not a directory");
  EXPECT_EQ(check("-", OutputKind::Directory), "--out -: a directory is needed here, not standard output");
  EXPECT_EQ(entries(dir), 1u) << "a check created something";
  std::filesystem::remove_all(dir);
}

// A child process writes part of an output (or fills a registered directory), tells the
// parent, and waits; SIGTERM must end it by that signal with nothing left behind.
void expect_sigterm_leaves_nothing(const std::filesystem::path& dir, const std::function<void()>& start_writing) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    try {
      start_writing();
    } catch (...) {
      ::_exit(3);
    }
    if (::write(ready[1], "r", 1) != 1) ::_exit(4);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1) << "the child did not start writing";
  ::close(ready[0]);
  EXPECT_GT(entries(dir), 0u) << "the child wrote nothing to clean up";
  ASSERT_EQ(::kill(child, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
  EXPECT_EQ(entries(dir), 0u) << "a temporary survived SIGTERM";
}

TEST(AtomicFile, SigtermRemovesTheTemporary) {
  const auto dir = fresh_dir("sigterm");
  const std::string path = (dir / "out.txt").string();
  expect_sigterm_leaves_nothing(dir, [&] {
    auto* file = new io::AtomicFile(path);  // never committed nor destroyed: the signal ends the run
    file->stream() << std::string(1 << 20, 'x');
    file->stream().flush();
  });
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, SigtermRemovesARegisteredDirectoryWithItsContents) {
  const auto dir = fresh_dir("sigterm_dir");
  expect_sigterm_leaves_nothing(dir, [&] {
    const auto temp = dir / "export.tmp";
    std::filesystem::create_directories(temp / "trace");
    io::register_temp_path(temp.string(), true);
    for (int i = 0; i < 300; ++i) std::ofstream(temp / "trace" / ("rank-" + std::to_string(i) + ".txt")) << i;
    std::ofstream(temp / "platform.xml") << "<platform/>";
  });
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace taskmap
