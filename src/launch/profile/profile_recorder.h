#pragma once
// What the profiler records, whichever language binding the program calls: the bytes and
// messages this process sends to each world rank (and, for one-sided reads, receives from
// it), written by rank 0 at MPI_Finalize. The C bindings (profiler.cpp) and the Fortran
// bindings (profiler_fortran.cpp) only translate their arguments into these calls.
#include <mpi.h>

#include <cstdint>
#include <functional>

#include "collective_algorithms.h"

namespace taskmap::profile {

// True for the outermost profiled call on this thread. A Fortran binding may implement a call
// through the C function of the same name, which the profiler interposes as well: only the
// outermost of the two records.
class OuterCall {
 public:
  OuterCall();
  ~OuterCall();
  OuterCall(const OuterCall&) = delete;
  OuterCall& operator=(const OuterCall&) = delete;
  explicit operator bool() const { return outer_; }

 private:
  bool outer_;
};

// After MPI_Init: sizes the counters, reads TASKMAP_PROFILE_COLLECTIVES and checks that the
// output can be written (rank 0 stops the job with one line when it cannot).
void start();
// Before MPI_Finalize: gathers every process's counts on rank 0, which writes the profile.
void finish();
// True when rank 0 could not write the profile; the process then exits with status 1 after
// MPI_Finalize.
bool failed();

// MPI_Pcontrol: level 0 stops recording, any other level resumes it.
void set_recording(int level);

std::uint64_t bytes_of(std::int64_t count, MPI_Datatype type);

// A message of `bytes` from this process to rank `dest` of `comm` (its remote group for an
// inter-communicator); MPI_PROC_NULL records nothing.
void send(MPI_Comm comm, int dest, std::uint64_t bytes);
// One-sided: `bytes` move from this process to rank `target` of the window's group (put,
// accumulate) or from it to this process (get, fetched results).
void put(MPI_Win win, int target, std::uint64_t bytes);
void fetch(MPI_Win win, int target, std::uint64_t bytes);

// Persistent sends count when started, not when created.
void persistent_send(MPI_Request request, MPI_Comm comm, int dest, std::uint64_t bytes);
void started(MPI_Request request);
void request_freed(MPI_Request request);

// Handles that MPI may reuse for another object once freed.
void comm_freed(MPI_Comm comm);
void win_freed(MPI_Win win);

// A neighbourhood collective: block i of the send buffer goes to the i-th destination of
// comm's virtual topology (Cartesian: for each dimension the negative, then the positive
// neighbour; graph: MPI_Graph_neighbors; distributed graph: the destinations).
void neighbour_sends(MPI_Comm comm, const std::function<std::uint64_t(int block)>& bytes);

// A collective the user asked to record (TASKMAP_PROFILE_COLLECTIVES), as the messages this
// rank sends under the chosen algorithm; intercommunicators are not expanded.
void collective(Collective kind, MPI_Comm comm,
                const std::function<std::vector<Send>(Algorithm, int rank, int size)>& sends);

}  // namespace taskmap::profile
