#pragma once
// Real MPI runs for the tests of the MPI libraries: the programs of tests/mpi/ built for each
// MPI Debian provides (Open MPI, MPICH), the libraries built for it, its launcher.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "test_support.h"

namespace taskmap::test {

struct Mpi {
  const char* name;
  const char* launcher;
  const char* reorder;   // libtaskmap-reorder-<mpi>.so (after the ASan runtime in a sanitized build)
  const char* profiler;  // libtaskmap-profile-<mpi>.so, likewise
  const char* stencil;
  const char* dist_graph;
  const char* traffic;
  // Built by the MPI's Fortran wrapper: "" when it has none.
  const char* fortran_stencil;                                  // use mpi_f08
  const char* fortran_traffic[3];                               // use mpi_f08, use mpi, mpif.h
  const char* fortran_dist_graph[3];
};
inline constexpr const char* kFortranBindings[3] = {"use mpi_f08", "use mpi", "mpif.h"};

// The Fortran programs each MPI's wrapper built ("" for an MPI without one).
#define TASKMAP_FORTRAN_PROGRAMS(mpi)                                                              \
  TASKMAP_STENCIL_F08_##mpi, {TASKMAP_TRAFFIC_F08_##mpi, TASKMAP_TRAFFIC_USE_MPI_##mpi, TASKMAP_TRAFFIC_MPIF_H_##mpi}, \
      {TASKMAP_DIST_GRAPH_F08_##mpi, TASKMAP_DIST_GRAPH_USE_MPI_##mpi, TASKMAP_DIST_GRAPH_MPIF_H_##mpi}
#ifndef TASKMAP_STENCIL_F08_openmpi
#define TASKMAP_STENCIL_F08_openmpi ""
#define TASKMAP_TRAFFIC_F08_openmpi ""
#define TASKMAP_TRAFFIC_USE_MPI_openmpi ""
#define TASKMAP_TRAFFIC_MPIF_H_openmpi ""
#define TASKMAP_DIST_GRAPH_F08_openmpi ""
#define TASKMAP_DIST_GRAPH_USE_MPI_openmpi ""
#define TASKMAP_DIST_GRAPH_MPIF_H_openmpi ""
#endif
#ifndef TASKMAP_STENCIL_F08_mpich
#define TASKMAP_STENCIL_F08_mpich ""
#define TASKMAP_TRAFFIC_F08_mpich ""
#define TASKMAP_TRAFFIC_USE_MPI_mpich ""
#define TASKMAP_TRAFFIC_MPIF_H_mpich ""
#define TASKMAP_DIST_GRAPH_F08_mpich ""
#define TASKMAP_DIST_GRAPH_USE_MPI_mpich ""
#define TASKMAP_DIST_GRAPH_MPIF_H_mpich ""
#endif

inline std::vector<Mpi> mpis() {
  std::vector<Mpi> list;
#ifdef TASKMAP_REORDER_openmpi
  list.push_back({"openmpi", TASKMAP_MPIEXEC_openmpi, TASKMAP_REORDER_openmpi, TASKMAP_PROFILER_openmpi,
                  TASKMAP_STENCIL_openmpi, TASKMAP_DIST_GRAPH_openmpi, TASKMAP_TRAFFIC_openmpi, TASKMAP_FORTRAN_PROGRAMS(openmpi)});
#endif
#ifdef TASKMAP_REORDER_mpich
  list.push_back({"mpich", TASKMAP_MPIEXEC_mpich, TASKMAP_REORDER_mpich, TASKMAP_PROFILER_mpich, TASKMAP_STENCIL_mpich,
                  TASKMAP_DIST_GRAPH_mpich, TASKMAP_TRAFFIC_mpich, TASKMAP_FORTRAN_PROGRAMS(mpich)});
#endif
  return list;
}

// `program` on `np` processes under `mpi`'s launcher, with the environment `env` (NAME, VALUE).
inline CommandResult launch(const Mpi& mpi, int np, const std::string& program,
                            const std::vector<std::pair<std::string, std::string>>& env) {
  std::string command = std::string(mpi.launcher) + " -np " + std::to_string(np) + " ";
  const bool openmpi = std::string(mpi.name) == "openmpi";
  if (openmpi) command += "--allow-run-as-root --oversubscribe ";
  for (const auto& [name, value] : env) {
    command += openmpi ? "-x " + name + "='" + value + "' " : "-env " + name + " '" + value + "' ";
  }
  return run_command(command + program);
}

// Why the launcher cannot start processes at all ("" when it can): only that is a reason to
// skip a run; a program that fails is a failure of the test.
inline std::string launcher_unavailable(const Mpi& mpi) {
  const CommandResult r = launch(mpi, 2, "sleep 0.2", {});
  if (r.exit_code == 0) return "";
  return std::string(mpi.name) + " cannot start 2 processes here (exit " + std::to_string(r.exit_code) +
         "): " + r.err.substr(0, 200) + r.out.substr(0, 200);
}

// The MPI as users name it.
inline std::string display_name(const Mpi& mpi) { return std::string(mpi.name) == "openmpi" ? "Open MPI" : "MPICH"; }

// A library path as the tests preload it, without the ASan runtime a sanitized build puts first.
inline std::string library_file(const std::string& preload) { return preload.substr(preload.rfind(':') + 1); }

// `program` of `mpi` on 2 processes with `wrong` preloaded, a taskmap library built for the
// other MPI: the job stops before the program's main (nothing on stdout, none of the program's
// lines), exit 1 from the processes and no crash, and stderr holds exactly one line of
// taskmap's, `prefix`: ... naming `right`, this MPI's build of the library, as the file to
// preload. The launcher's own lines about a failed process may surround it.
inline void expect_other_mpi_refused(const Mpi& mpi, const std::string& program, const std::string& wrong,
                                     const std::string& right, const std::string& prefix) {
  SCOPED_TRACE(program + " with " + wrong);
  const CommandResult r = launch(mpi, 2, program, {{"LD_PRELOAD", wrong}});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string name = std::filesystem::path(library_file(wrong)).filename().string();
  const std::string other = std::string(mpi.name) == "openmpi" ? "MPICH" : "Open MPI";
  const std::string expected = prefix + ": this program runs under " + display_name(mpi) + " but " + name +
                               " is built for " + other + ": preload " + library_file(right);
  std::vector<std::string> ours;
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("taskmap") != std::string::npos) ours.push_back(line);
  }
  EXPECT_EQ(ours, std::vector<std::string>{expected}) << r.err;
  for (const char* crash : {"signal 11", "Segmentation fault", "core dumped", "Invalid communicator", "stencil:", "traffic:"}) {
    EXPECT_EQ(r.err.find(crash), std::string::npos) << crash << " in\n" << r.err;
  }
}

}  // namespace taskmap::test

// In a loop over mpis(): skips this MPI (fails under CI=true) when its launcher cannot start
// processes.
#define TASKMAP_REQUIRE_LAUNCHER(mpi)                                           \
  if (const std::string why = ::taskmap::test::launcher_unavailable(mpi); !why.empty()) { \
    if (::taskmap::test::in_ci()) ADD_FAILURE() << why;                         \
    continue;                                                                   \
  }
