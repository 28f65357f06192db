#pragma once
// The PMPI libraries (the profiler, the reorder library) are built for one MPI: their handles
// and constants (MPI_COMM_WORLD, MPI_INT, MPI_Comm itself) are that MPI's, an int under MPICH, a
// pointer under Open MPI. Preloaded into a program of the other MPI, their calls go to the
// program's MPI with the wrong handles and every process dies (SIGSEGV under Open MPI, "Invalid
// communicator" under MPICH). So each library checks, before it makes any MPI call, that the
// other MPI is not loaded in the process, and otherwise stops the process with one line naming
// the library to preload instead.
//
// The check: each MPI exports a symbol its mpi.h names, which every library of its ABI must
// therefore define: Open MPI's MPI_COMM_WORLD is &ompi_mpi_comm_world, MPICH's MPI_DUP_FN is
// MPIR_Dup_fn (also MVAPICH, Intel MPI, Cray MPICH). The library's own MPI is always loaded (it
// is a dependency), so the other one's symbol is what tells that the program runs under it.
// Header-only and hidden: each library has its own copy.
#include <mpi.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace taskmap::other_mpi {

struct Family {
  const char* name;    // as the user knows it
  const char* tag;     // in the library's file name: libtaskmap-profile-<tag>.so
  const char* marker;  // a symbol only libraries of its ABI define
  const char* debian;  // its development package
};
inline constexpr Family kOpenMpi{"Open MPI", "openmpi", "ompi_mpi_comm_world", "libopenmpi-dev"};
inline constexpr Family kMpich{"MPICH", "mpich", "MPIR_Dup_fn", "libmpich-dev"};
#if defined(OMPI_MAJOR_VERSION)
inline constexpr Family kBuiltFor = kOpenMpi, kOther = kMpich;
#elif defined(MPICH_VERSION)
inline constexpr Family kBuiltFor = kMpich, kOther = kOpenMpi;
#else
#error "taskmap's MPI libraries are built for Open MPI or MPICH"
#endif

// Whether this process prints: the launchers' rank variables, read before MPI_Init (Open MPI's
// mpirun, PMIx launchers, MPICH's Hydra, Slurm); a process started without a launcher prints.
[[gnu::visibility("hidden")]] inline bool first_process() {
  for (const char* variable : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if (const char* rank = std::getenv(variable)) return std::strcmp(rank, "0") == 0;
  }
  return true;
}

// Stops the process when the program runs under the other MPI, with one line from the first
// process: "PREFIX: this program runs under X but STEM-<x>.so is built for Y: preload
// DIR/STEM-<y>.so", DIR the folder this library was loaded from (found by dladdr on `anchor`,
// an address inside it), where the build and `make install` put both.
[[gnu::visibility("hidden")]] inline void stop_under_other_mpi(const char* prefix, const char* stem, const void* anchor) {
  if (dlsym(RTLD_DEFAULT, kOther.marker) == nullptr) return;
  if (first_process()) {
    const std::string own = std::string(stem) + "-" + kBuiltFor.tag + ".so";
    std::string sibling = std::string(stem) + "-" + kOther.tag + ".so";
    Dl_info info{};
    if (dladdr(anchor, &info) != 0 && info.dli_fname && std::strchr(info.dli_fname, '/')) {
      std::error_code error;
      const std::filesystem::path loaded = std::filesystem::absolute(info.dli_fname, error).lexically_normal();
      sibling = (loaded.parent_path() / sibling).string();
    }
    std::string missing;
    if (::access(sibling.c_str(), R_OK) != 0) {
      missing = std::string(" (not there: build taskmap with ") + kOther.name + " installed, Debian " + kOther.debian + ")";
    }
    std::fprintf(stderr, "%s: this program runs under %s but %s is built for %s: preload %s%s\n", prefix, kOther.name,
                 own.c_str(), kBuiltFor.name, sibling.c_str(), missing.c_str());
  }
  // The other processes give the first one time to print: the launcher ends the job when a
  // process fails, possibly before a slower first process has written its line.
  if (!first_process()) ::sleep(3);
  std::_Exit(1);
}

}  // namespace taskmap::other_mpi
