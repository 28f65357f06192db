#pragma once
// taskmap under an MPI launcher. The taskmap binary links no MPI: at start-up it reads the
// launcher's environment, and only when a launcher started it does it open the MPI plugin of
// that MPI (libtaskmap-dist-<mpi>.so: MPI, and PT-Scotch in Open MPI's) and start MPI. Without
// those variables it is the serial program and needs no MPI runtime.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "taskmap/dist/processes.h"

struct taskmap_dist_plugin_t;

namespace taskmap::dist {

// Reads an environment variable: null when unset.
using Getenv = std::function<const char*(const char*)>;
// The process's own environment.
const char* process_getenv(const char* name);

// What the launcher's environment says about this process, before MPI starts.
struct LaunchEnvironment {
  std::string launcher;  // for messages, e.g. "Open MPI (OMPI_COMM_WORLD_SIZE=4)"
  std::string mpi;       // the plugin's MPI: "openmpi" or "mpich"
  int rank = 0;          // this process's rank
  int size = 0;          // the processes of the launch; 0 when the environment does not say
  int local_size = 0;    // processes on this node; 0 when the environment does not say
};

// Open MPI's mpirun sets OMPI_COMM_WORLD_RANK and _SIZE (and _LOCAL_SIZE); MPICH's Hydra and
// Slurm's PMI-2 set PMI_RANK and PMI_SIZE (Hydra also MPI_LOCALNRANKS); a PMIx launcher (srun
// --mpi=pmix) sets PMIX_RANK, and Debian's PMIx MPI is Open MPI. nullopt: none of them, the
// serial program. Throws Error on a variable that is not a process number.
std::optional<LaunchEnvironment> detect_launch(const Getenv& getenv = process_getenv);

// Where the plugin is looked for, in order: $TASKMAP_DIST_PLUGIN (a file) if set, else
// libtaskmap-dist-<mpi>.so beside the running binary, then in the install's library folder
// relative to it.
std::vector<std::string> plugin_candidates(const LaunchEnvironment& launch, const std::string& executable_dir,
                                           const Getenv& getenv = process_getenv);

// MPI started through the plugin; ended (MPI_Finalize) when destroyed.
class MpiLaunch {
 public:
  // Opens the first plugin candidate that exists and starts MPI. Throws Error naming the
  // launcher and the paths tried when no plugin is found or it cannot be loaded.
  static std::unique_ptr<MpiLaunch> start(const LaunchEnvironment& launch);
  ~MpiLaunch();
  MpiLaunch(const MpiLaunch&) = delete;
  MpiLaunch& operator=(const MpiLaunch&) = delete;

  const Processes& world() const { return *world_; }
  // "Open MPI" or "MPICH".
  std::string mpi_name() const;
  // After an error on this process: true when every process met an error within `seconds`
  // (the same input error, seen by all: each then exits cleanly, the leader printing it once);
  // false when the others went on (the caller prints its error and calls abort_all).
  bool all_failed(double seconds) const;
  [[noreturn]] void abort_all(int code) const;

 private:
  MpiLaunch() = default;
  void* library_ = nullptr;
  const taskmap_dist_plugin_t* plugin_ = nullptr;
  std::unique_ptr<Processes> world_, self_;
};

}  // namespace taskmap::dist
