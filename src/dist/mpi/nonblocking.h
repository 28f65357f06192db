#pragma once
// What the MPI plugin (libtaskmap-dist-<mpi>.so) and the reorder library's planning processes
// (libtaskmap-reorder-<mpi>.so) share: the sum of 128-bit integers as an MPI operation, and a
// wait for a nonblocking operation that sleeps between tests.
#include <mpi.h>
#include <time.h>

#include <algorithm>
#include <cstdint>

namespace taskmap::mpi_nonblocking {

// Two's complement 128-bit integers as (low, high) words: addition with the carry (an
// MPI_User_function for MPI_Op_create).
inline void add_int128(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const std::uint64_t*>(in);
  auto* b = static_cast<std::uint64_t*>(inout);
  for (int i = 0; i < *len; ++i, a += 2, b += 2) {
    const std::uint64_t low = a[0] + b[0];
    b[1] = a[1] + b[1] + (low < a[0] ? 1 : 0);
    b[0] = low;
  }
}

// Completes `request`, sleeping between tests (first_ns, doubling up to most_ns): a process
// that waits for another's long computation does not take a core from it (processes may share
// cores), and a fast operation is barely delayed.
inline void wait_asleep(MPI_Request& request, long first_ns, long most_ns) {
  long pause_ns = first_ns;
  for (int done = 0;;) {
    PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    const timespec pause{0, pause_ns};
    nanosleep(&pause, nullptr);
    pause_ns = std::min(pause_ns * 2, most_ns);
  }
}

}  // namespace taskmap::mpi_nonblocking
