#include "test_support.h"

#include "taskmap/topology/fabric.h"

#include <gtest/gtest-spi.h>

#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace taskmap::test {
namespace {

// Open MPI's mpirun keeps its session directory under one per host and user
// (<tmp>/ompi.HOST.UID/pid.N) and removes that one when its run ends: with two tests launching
// at once (ctest -j2), one run's clean-up can remove it while the other creates its own inside
// ("A call to mkdir was unable to create the desired directory"). Each test process therefore
// gives the runs it starts a temporary base of its own (unless the caller set one).
class OpenMpiSessionBase {
 public:
  OpenMpiSessionBase() {
    if (std::getenv("OMPI_MCA_orte_tmpdir_base") != nullptr) return;
    std::error_code error;
    const std::filesystem::path base =
        std::filesystem::temp_directory_path(error) / ("taskmap-tests-ompi-" + std::to_string(::getpid()));
    if (error || !std::filesystem::create_directories(base, error) || error) return;
    path_ = base;
    ::setenv("OMPI_MCA_orte_tmpdir_base", base.c_str(), 1);
  }
  ~OpenMpiSessionBase() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  OpenMpiSessionBase(const OpenMpiSessionBase&) = delete;
  OpenMpiSessionBase& operator=(const OpenMpiSessionBase&) = delete;

 private:
  std::filesystem::path path_;
};
const OpenMpiSessionBase open_mpi_session_base;

}  // namespace

Machine four_named_nodes(std::uint32_t ppn) {
  Fabric f;
  f.source = "four";
  f.switches = {"l0", "l1", "spine"};
  f.hosts = {"cn10", "cn2", "cn01", "gpu1"};
  f.host_ports = {{0, 0, 0}, {1, 0, 0}, {2, 1, 0}, {3, 1, 0}};
  f.cables = {{0, 2, 0}, {1, 2, 0}};
  return build_fabric_machine(f, {.slots_per_node = ppn, .description = "four"});
}

Machine two_leaves_alternating(std::uint32_t ppn) {
  Fabric f;
  f.source = "two leaves";
  f.switches = {"S", "A", "B"};
  f.hosts = {"n1", "n2", "n3", "n4"};
  f.host_ports = {{0, 1, 0}, {1, 2, 0}, {2, 1, 0}, {3, 2, 0}};
  for (int i = 0; i < 4; ++i) f.cables.insert(f.cables.end(), {{0, 1, 0}, {0, 2, 0}});
  f.top_switches = {0};
  return build_fabric_machine(f, {.slots_per_node = ppn, .description = "two leaves"});
}


Image read_png(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto fail = [&](const std::string& why) { throw std::runtime_error(path + ": " + why); };
  if (data.size() < 8 || data.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) fail("not a PNG file");
  auto u32 = [&](std::size_t at) {
    return (std::uint32_t(std::uint8_t(data[at])) << 24) | (std::uint32_t(std::uint8_t(data[at + 1])) << 16) |
           (std::uint32_t(std::uint8_t(data[at + 2])) << 8) | std::uint32_t(std::uint8_t(data[at + 3]));
  };
  Image image;
  std::uint32_t channels = 0;
  std::string compressed;
  // Chunks: length, type, data, CRC.
  for (std::size_t at = 8; at + 12 <= data.size();) {
    const std::uint32_t length = u32(at);
    const std::string type = data.substr(at + 4, 4);
    if (at + 12 + length > data.size()) fail("truncated chunk " + type);
    if (type == "IHDR") {
      image.width = u32(at + 8), image.height = u32(at + 12);
      const int depth = std::uint8_t(data[at + 16]), colour = std::uint8_t(data[at + 17]);
      const int interlace = std::uint8_t(data[at + 20]);
      if (depth != 8 || (colour != 2 && colour != 6) || interlace != 0) fail("not an 8-bit RGB(A) PNG without interlace");
      channels = colour == 6 ? 4 : 3;
    } else if (type == "IDAT") {
      compressed += data.substr(at + 8, length);
    }
    at += 12 + length;
  }
  if (channels == 0) fail("no IHDR chunk");
  const std::size_t stride = std::size_t{image.width} * channels;
  std::vector<std::uint8_t> raw(image.height * (stride + 1));
  uLongf size = static_cast<uLongf>(raw.size());
  if (uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(compressed.data()), static_cast<uLong>(compressed.size())) !=
          Z_OK ||
      size != raw.size()) {
    fail("bad image data");
  }
  // Undo each row's filter (PNG specification, section 9), then keep R, G, B.
  std::vector<std::uint8_t> previous(stride, 0), row(stride);
  image.rgb.reserve(std::size_t{image.width} * image.height * 3);
  for (std::uint32_t y = 0; y < image.height; ++y) {
    const std::uint8_t* line = &raw[y * (stride + 1)];
    const int filter = line[0];
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= channels ? row[i - channels] : 0, b = previous[i], c = i >= channels ? previous[i - channels] : 0;
      int predictor = 0;
      switch (filter) {
        case 0: break;
        case 1: predictor = a; break;
        case 2: predictor = b; break;
        case 3: predictor = (a + b) / 2; break;
        case 4: {
          const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: fail("unknown row filter");
      }
      row[i] = static_cast<std::uint8_t>(line[1 + i] + predictor);
    }
    for (std::size_t x = 0; x < image.width; ++x) {
      for (std::uint32_t k = 0; k < 3; ++k) image.rgb.push_back(row[x * channels + k]);
    }
    previous.swap(row);
  }
  return image;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

CommandResult run_taskmap(const std::string& args) { return run_command(std::string(TASKMAP_BINARY) + " " + args); }

CommandResult run_command(const std::string& command) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string out = (dir / ("taskmap_test_out_" + std::to_string(::getpid()))).string();
  const std::string err = out + ".err";
  // Nothing on stdin unless the command redirects its own: MPICH's mpiexec forwards its stdin to
  // rank 0 and dies of SIGPIPE when that process has already ended (`yes | mpiexec.mpich -np 3
  // true` fails every time). The braces give every command of a pipeline or `&&` list the same.
  const std::string cmd = "{ " + command + "\n} </dev/null >" + out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

}  // namespace taskmap::test

// The suite's own rule: missing shared data fails the test under CI=true.

namespace taskmap::test {
namespace {

TEST(TestSupport, MissingSharedDataFailsUnderCi) {
  const char* before = std::getenv("CI");
  const std::string saved = before ? before : "";
  ::setenv("CI", "true", 1);
  EXPECT_FATAL_FAILURE(TASKMAP_REQUIRE_SHARED_DATA("/nonexistent/shared/data/x.mtx"),
                       "shared data not found: /nonexistent/shared/data/x.mtx (CI=true");
  ::setenv("CI", "false", 1);
  EXPECT_FALSE(in_ci());
  if (before) ::setenv("CI", saved.c_str(), 1); else ::unsetenv("CI");
}

}  // namespace
}  // namespace taskmap::test
