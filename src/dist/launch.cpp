#include "taskmap/dist/launch.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "plugin_abi.h"
#include "taskmap/core/error.h"

namespace taskmap::dist {

const char* process_getenv(const char* name) { return std::getenv(name); }

namespace {

// A variable's value as a count: nullopt when unset; Error when it is not a number.
std::optional<int> number(const Getenv& getenv, const char* name, int minimum) {
  const char* text = getenv(name);
  if (text == nullptr) return std::nullopt;
  const std::string_view s(text);
  int value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || value < minimum) {
    fail("{}='{}': the launcher's environment should hold a number of at least {} here", name, s, minimum);
  }
  return value;
}

}  // namespace

std::optional<LaunchEnvironment> detect_launch(const Getenv& getenv) {
  LaunchEnvironment launch;
  if (auto size = number(getenv, "OMPI_COMM_WORLD_SIZE", 1)) {
    launch.launcher = fmt::format("Open MPI (OMPI_COMM_WORLD_SIZE={})", *size);
    launch.mpi = "openmpi";
    launch.size = *size;
    launch.rank = number(getenv, "OMPI_COMM_WORLD_RANK", 0).value_or(0);
    launch.local_size = number(getenv, "OMPI_COMM_WORLD_LOCAL_SIZE", 1).value_or(0);
  } else if (auto pmi_size = number(getenv, "PMI_SIZE", 1)) {
    launch.launcher = fmt::format("a PMI launcher such as MPICH's mpiexec (PMI_SIZE={})", *pmi_size);
    launch.mpi = "mpich";
    launch.size = *pmi_size;
    launch.rank = number(getenv, "PMI_RANK", 0).value_or(0);
    launch.local_size = number(getenv, "MPI_LOCALNRANKS", 1).value_or(0);
  } else if (auto pmix_rank = number(getenv, "PMIX_RANK", 0)) {
    launch.launcher = "a PMIx launcher (PMIX_RANK)";
    launch.mpi = "openmpi";
    launch.rank = *pmix_rank;
  } else {
    return std::nullopt;
  }
  if (launch.size > 0 && launch.rank >= launch.size) {
    fail("the launcher's environment gives rank {} of {} processes", launch.rank, launch.size);
  }
  return launch;
}

std::vector<std::string> plugin_candidates(const LaunchEnvironment& launch, const std::string& executable_dir,
                                           const Getenv& getenv) {
  if (const char* path = getenv("TASKMAP_DIST_PLUGIN"); path != nullptr && *path != '\0') return {path};
  const std::string file = "libtaskmap-dist-" + launch.mpi + ".so";
  const std::filesystem::path dir(executable_dir);
  // TASKMAP_LIBDIR_FROM_BINDIR: the install's library folder relative to its binary folder.
  return {(dir / file).string(), (dir / TASKMAP_LIBDIR_FROM_BINDIR / file).lexically_normal().string()};
}

namespace {

std::string executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

// Error buffer of the plugin's calls.
struct PluginError {
  char text[512] = {};
};

class MpiProcesses final : public Processes {
 public:
  MpiProcesses(const taskmap_dist_plugin_t* plugin, int comm, const Processes* alone)
      : plugin_(plugin), comm_(comm), alone_(alone ? alone : this) {}
  int rank() const override { return plugin_->rank(comm_); }
  int size() const override { return plugin_->size(comm_); }
  const Processes& alone() const override { return *alone_; }
  void sum(std::span<std::uint64_t> values) const override {
    reduce(values.data(), values.size(), TASKMAP_DIST_U64, TASKMAP_DIST_SUM);
  }
  void sum(std::span<Int128> values) const override {
    static_assert(sizeof(Int128) == 16, "two 64-bit words");
    reduce(values.data(), values.size(), TASKMAP_DIST_I128, TASKMAP_DIST_SUM);
  }
  void max(std::span<double> values) const override {
    reduce(values.data(), values.size(), TASKMAP_DIST_F64, TASKMAP_DIST_MAX);
  }
  void min(std::span<double> values) const override {
    reduce(values.data(), values.size(), TASKMAP_DIST_F64, TASKMAP_DIST_MIN);
  }
  void broadcast(void* data, std::uint64_t bytes, int root) const override {
    PluginError e;
    if (plugin_->broadcast(comm_, data, bytes, root, e.text, sizeof e.text) != 0) fail("MPI: {}", e.text);
  }
  using Processes::broadcast;
  bool distributed_partition() const override { return plugin_->partition != nullptr; }
  std::vector<std::int32_t> partition(const GraphSlice& slice, std::span<const std::int32_t> part_weights,
                                      double imbalance) const override {
    if (plugin_->partition == nullptr) return Processes::partition(slice, part_weights, imbalance);
    const auto local = static_cast<std::uint32_t>(slice.offsets.size() - 1);
    std::vector<std::int32_t> part_of(std::max<std::size_t>(local, 1));
    // An empty slice's arrays still point somewhere: PT-Scotch takes a null array for absent.
    static const std::int32_t none = 0;
    auto data = [](const std::vector<std::int32_t>& v) { return v.empty() ? &none : v.data(); };
    PluginError e;
    if (plugin_->partition(comm_, slice.first, local, slice.offsets.data(), data(slice.targets), data(slice.weights),
                           static_cast<std::uint32_t>(part_weights.size()), part_weights.data(), imbalance,
                           part_of.data(), e.text, sizeof e.text) != 0) {
      fail("{}", e.text);
    }
    part_of.resize(local);
    return part_of;
  }

 private:
  void reduce(void* data, std::size_t count, int type, int op) const {
    PluginError e;
    if (plugin_->all_reduce(comm_, data, count, type, op, e.text, sizeof e.text) != 0) fail("MPI: {}", e.text);
  }
  const taskmap_dist_plugin_t* plugin_;
  int comm_;
  const Processes* alone_;
};

}  // namespace

std::unique_ptr<MpiLaunch> MpiLaunch::start(const LaunchEnvironment& launch) {
  const std::vector<std::string> candidates = plugin_candidates(launch, executable_dir());
  std::unique_ptr<MpiLaunch> mpi(new MpiLaunch);
  std::string tried;
  for (const std::string& path : candidates) {
    if (!std::filesystem::exists(path)) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    // RTLD_LOCAL: MPI's and PT-Scotch's symbols stay out of taskmap's own lookups.
    mpi->library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (mpi->library_ == nullptr) fail("started by {}, but {} cannot be loaded: {}", launch.launcher, path, dlerror());
    using Entry = const taskmap_dist_plugin_t* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(mpi->library_, "taskmap_dist_plugin"));
    if (entry == nullptr || entry()->abi != TASKMAP_DIST_ABI) {
      fail("started by {}, but {} is not a taskmap MPI plugin of this version", launch.launcher, path);
    }
    mpi->plugin_ = entry();
    break;
  }
  if (mpi->plugin_ == nullptr) {
    fail("started by {}, but its MPI plugin is missing: no {} (the build puts it beside the taskmap binary; "
         "TASKMAP_DIST_PLUGIN names another)",
         launch.launcher, tried);
  }
  PluginError e;
  if (mpi->plugin_->init(e.text, sizeof e.text) != 0) fail("started by {}, but MPI did not start: {}", launch.launcher, e.text);
  mpi->self_ = std::make_unique<MpiProcesses>(mpi->plugin_, TASKMAP_DIST_SELF, nullptr);
  mpi->world_ = std::make_unique<MpiProcesses>(mpi->plugin_, TASKMAP_DIST_WORLD, mpi->self_.get());
  return mpi;
}

MpiLaunch::~MpiLaunch() {
  if (plugin_ != nullptr) plugin_->finalize();
  // The library stays loaded: MPI's own threads and handlers may outlive MPI_Finalize.
}

std::string MpiLaunch::mpi_name() const { return plugin_->mpi; }

bool MpiLaunch::all_failed(double seconds) const { return plugin_->all_failed(seconds) != 0; }

void MpiLaunch::abort_all(int code) const {
  plugin_->abort_all(code);
  std::_Exit(code);  // MPI_Abort does not return; should it, end this process at least
}

}  // namespace taskmap::dist
