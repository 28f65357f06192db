// libtaskmap-profile-<mpi>.so: a PMPI interposition library. Loaded with LD_PRELOAD into an
// unmodified MPI program (C, C++ or Fortran), it counts bytes and messages per (sender,
// receiver), with ranks in MPI_COMM_WORLD, of
// - every point-to-point send: blocking, non-blocking, persistent (when started), sendrecv;
// - neighbourhood collectives, blocking and non-blocking, as a message to each neighbour;
// - one-sided communication: put, accumulate (origin to target), get (target to origin),
//   get-accumulate, fetch-and-op and compare-and-swap (both ways);
// - collectives, blocking and non-blocking, on request (TASKMAP_PROFILE_COLLECTIVES, see
//   collective_algorithms.h), as the point-to-point messages of a named algorithm: MPI
//   libraries run collectives below the MPI_Send layer, so without this their traffic is
//   invisible.
// MPI_Pcontrol(0) pauses the recording and MPI_Pcontrol(1) resumes it. At MPI_Finalize rank 0
// writes $TASKMAP_PROFILE_OUT (default taskmap-profile.txt) as "src dst bytes messages" lines,
// which `taskmap --pattern file:PATH` reads (profile_recorder.h). This file holds the C
// bindings; profiler_fortran.cpp the Fortran ones.
#include <mpi.h>

#include <cstdlib>

#include "other_mpi.h"
#include "profile_operations.h"
#include "profile_recorder.h"

namespace profile = taskmap::profile;
using profile::OuterCall;

namespace {
// At load, before the program's main: a program of the other MPI is stopped with one line
// (other_mpi.h) instead of crashing in MPI_Init. profile::start checks again, for an MPI
// loaded later (dlopen).
const char anchor = 0;
[[gnu::constructor]] void refuse_the_other_mpi() {
  taskmap::other_mpi::stop_under_other_mpi("taskmap-profile", "libtaskmap-profile", &anchor);
}
}  // namespace

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  OuterCall call;
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) profile::start();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  OuterCall call;
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) profile::start();
  return rc;
}

int MPI_Finalize() {
  OuterCall call;
  if (call) profile::finish();
  const int rc = PMPI_Finalize();
  if (call && profile::failed()) std::exit(1);
  return rc;
}

// MPI_Pcontrol(0) pauses the recording, MPI_Pcontrol(1) (or any other level) resumes it.
int MPI_Pcontrol(const int level, ...) {
  if (OuterCall call; call) profile::set_recording(level);
  return PMPI_Pcontrol(level);
}

// Freed handles may be reused for other objects: their cached ranks are dropped.
int MPI_Comm_free(MPI_Comm* comm) {
  if (OuterCall call; call) profile::on_comm_free(*comm);
  return PMPI_Comm_free(comm);
}
int MPI_Win_free(MPI_Win* win) {
  if (OuterCall call; call) profile::on_win_free(*win);
  return PMPI_Win_free(win);
}

// Point to point.
#define TASKMAP_PROFILE_SEND(name)                                                             \
  int MPI_##name(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) { \
    OuterCall call;                                                                            \
    if (call) profile::on_send(count, type, dest, comm);                                       \
    return PMPI_##name(buf, count, type, dest, tag, comm);                                     \
  }
#define TASKMAP_PROFILE_ISEND(name)                                                            \
  int MPI_##name(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                 MPI_Request* request) {                                                       \
    OuterCall call;                                                                            \
    if (call) profile::on_send(count, type, dest, comm);                                       \
    return PMPI_##name(buf, count, type, dest, tag, comm, request);                            \
  }
// Persistent sends count when started, not when created.
#define TASKMAP_PROFILE_SEND_INIT(name)                                                        \
  int MPI_##name(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                 MPI_Request* request) {                                                       \
    OuterCall call;                                                                            \
    const int rc = PMPI_##name(buf, count, type, dest, tag, comm, request);                    \
    if (call && rc == MPI_SUCCESS) profile::on_send_init(count, type, dest, comm, *request);   \
    return rc;                                                                                 \
  }
TASKMAP_PROFILE_SEND(Send)
TASKMAP_PROFILE_SEND(Bsend)
TASKMAP_PROFILE_SEND(Ssend)
TASKMAP_PROFILE_SEND(Rsend)
TASKMAP_PROFILE_ISEND(Isend)
TASKMAP_PROFILE_ISEND(Ibsend)
TASKMAP_PROFILE_ISEND(Issend)
TASKMAP_PROFILE_ISEND(Irsend)
TASKMAP_PROFILE_SEND_INIT(Send_init)
TASKMAP_PROFILE_SEND_INIT(Bsend_init)
TASKMAP_PROFILE_SEND_INIT(Ssend_init)
TASKMAP_PROFILE_SEND_INIT(Rsend_init)

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  if (OuterCall call; call) profile::on_send(sendcount, sendtype, dest, comm);
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                       comm, status);
}
int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                         MPI_Comm comm, MPI_Status* status) {
  if (OuterCall call; call) profile::on_send(count, type, dest, comm);
  return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
}
int MPI_Start(MPI_Request* request) {
  if (OuterCall call; call) profile::on_start(*request);
  return PMPI_Start(request);
}
int MPI_Startall(int count, MPI_Request requests[]) {
  if (OuterCall call; call) {
    for (int i = 0; i < count; ++i) profile::on_start(requests[i]);
  }
  return PMPI_Startall(count, requests);
}
int MPI_Request_free(MPI_Request* request) {
  if (OuterCall call; call) profile::on_request_free(*request);
  return PMPI_Request_free(request);
}

// Collectives, blocking and non-blocking (the I forms take the request last).
int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (OuterCall call; call) profile::on_bcast(count, type, root, comm);
  return PMPI_Bcast(buf, count, type, root, comm);
}
int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request) {
  if (OuterCall call; call) profile::on_bcast(count, type, root, comm);
  return PMPI_Ibcast(buf, count, type, root, comm, request);
}
int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  if (OuterCall call; call) profile::on_reduce(count, type, root, comm);
  return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}
int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request* request) {
  if (OuterCall call; call) profile::on_reduce(count, type, root, comm);
  return PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
}
int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (OuterCall call; call) profile::on_allreduce(count, type, comm);
  return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}
int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  if (OuterCall call; call) profile::on_allreduce(count, type, comm);
  return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
}
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  OuterCall call;
  if (call) profile::on_allgather(sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype, comm);
  return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  OuterCall call;
  if (call) profile::on_allgather(sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype, comm);
  return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  OuterCall call;
  if (call) profile::on_alltoall(sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype, comm);
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  OuterCall call;
  if (call) profile::on_alltoall(sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype, comm);
  return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  OuterCall call;
  if (call) profile::on_alltoallv(sendbuf == MPI_IN_PLACE, sendcounts, sendtype, recvcounts, recvtype, comm);
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}
int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request* request) {
  OuterCall call;
  if (call) profile::on_alltoallv(sendbuf == MPI_IN_PLACE, sendcounts, sendtype, recvcounts, recvtype, comm);
  return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                         request);
}
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (OuterCall call; call) profile::on_gather(sendcount, sendtype, root, comm);
  return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  if (OuterCall call; call) profile::on_gather(sendcount, sendtype, root, comm);
  return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (OuterCall call; call) profile::on_scatter(sendcount, sendtype, root, comm);
  return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  if (OuterCall call; call) profile::on_scatter(sendcount, sendtype, root, comm);
  return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

// Neighbourhood collectives, blocking and non-blocking.
int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) {
  if (OuterCall call; call) profile::on_neighbor_allgather(sendcount, sendtype, comm);
  return PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (OuterCall call; call) profile::on_neighbor_allgather(sendcount, sendtype, comm);
  return PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  if (OuterCall call; call) profile::on_neighbor_allgather(sendcount, sendtype, comm);
  return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}
int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request* request) {
  if (OuterCall call; call) profile::on_neighbor_allgather(sendcount, sendtype, comm);
  return PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                   request);
}
int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm) {
  if (OuterCall call; call) profile::on_neighbor_alltoall(sendcount, sendtype, comm);
  return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (OuterCall call; call) profile::on_neighbor_alltoall(sendcount, sendtype, comm);
  return PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                           void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm) {
  if (OuterCall call; call) profile::on_neighbor_alltoallv(sendcounts, sendtype, comm);
  return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                 comm);
}
int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request* request) {
  if (OuterCall call; call) profile::on_neighbor_alltoallv(sendcounts, sendtype, comm);
  return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                  comm, request);
}
int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  if (OuterCall call; call) profile::on_neighbor_alltoallw(sendcounts, [&](int i) { return sendtypes[i]; }, comm);
  return PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                 comm);
}
int MPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request* request) {
  if (OuterCall call; call) profile::on_neighbor_alltoallw(sendcounts, [&](int i) { return sendtypes[i]; }, comm);
  return PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                  comm, request);
}

// One-sided communication.
int MPI_Put(const void* origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint target_disp,
            int target_count, MPI_Datatype target_type, MPI_Win win) {
  if (OuterCall call; call) profile::on_put(origin_count, origin_type, target, win);
  return PMPI_Put(origin, origin_count, origin_type, target, target_disp, target_count, target_type, win);
}
int MPI_Rput(const void* origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint target_disp,
             int target_count, MPI_Datatype target_type, MPI_Win win, MPI_Request* request) {
  if (OuterCall call; call) profile::on_put(origin_count, origin_type, target, win);
  return PMPI_Rput(origin, origin_count, origin_type, target, target_disp, target_count, target_type, win, request);
}
int MPI_Get(void* origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint target_disp,
            int target_count, MPI_Datatype target_type, MPI_Win win) {
  if (OuterCall call; call) profile::on_get(origin_count, origin_type, target, win);
  return PMPI_Get(origin, origin_count, origin_type, target, target_disp, target_count, target_type, win);
}
int MPI_Rget(void* origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint target_disp,
             int target_count, MPI_Datatype target_type, MPI_Win win, MPI_Request* request) {
  if (OuterCall call; call) profile::on_get(origin_count, origin_type, target, win);
  return PMPI_Rget(origin, origin_count, origin_type, target, target_disp, target_count, target_type, win, request);
}
int MPI_Accumulate(const void* origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint target_disp,
                   int target_count, MPI_Datatype target_type, MPI_Op op, MPI_Win win) {
  if (OuterCall call; call) profile::on_put(origin_count, origin_type, target, win);
  return PMPI_Accumulate(origin, origin_count, origin_type, target, target_disp, target_count, target_type, op, win);
}
int MPI_Raccumulate(const void* origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint target_disp,
                    int target_count, MPI_Datatype target_type, MPI_Op op, MPI_Win win, MPI_Request* request) {
  if (OuterCall call; call) profile::on_put(origin_count, origin_type, target, win);
  return PMPI_Raccumulate(origin, origin_count, origin_type, target, target_disp, target_count, target_type, op, win,
                          request);
}
int MPI_Get_accumulate(const void* origin, int origin_count, MPI_Datatype origin_type, void* result,
                       int result_count, MPI_Datatype result_type, int target, MPI_Aint target_disp,
                       int target_count, MPI_Datatype target_type, MPI_Op op, MPI_Win win) {
  OuterCall call;
  if (call) profile::on_get_accumulate(origin_count, origin_type, result_count, result_type, target, op, win);
  return PMPI_Get_accumulate(origin, origin_count, origin_type, result, result_count, result_type, target,
                             target_disp, target_count, target_type, op, win);
}
int MPI_Rget_accumulate(const void* origin, int origin_count, MPI_Datatype origin_type, void* result,
                        int result_count, MPI_Datatype result_type, int target, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_type, MPI_Op op, MPI_Win win, MPI_Request* request) {
  OuterCall call;
  if (call) profile::on_get_accumulate(origin_count, origin_type, result_count, result_type, target, op, win);
  return PMPI_Rget_accumulate(origin, origin_count, origin_type, result, result_count, result_type, target,
                              target_disp, target_count, target_type, op, win, request);
}
int MPI_Fetch_and_op(const void* origin, void* result, MPI_Datatype type, int target, MPI_Aint target_disp,
                     MPI_Op op, MPI_Win win) {
  if (OuterCall call; call) profile::on_fetch_and_op(type, target, op, win);
  return PMPI_Fetch_and_op(origin, result, type, target, target_disp, op, win);
}
int MPI_Compare_and_swap(const void* origin, const void* compare, void* result, MPI_Datatype type, int target,
                         MPI_Aint target_disp, MPI_Win win) {
  if (OuterCall call; call) profile::on_compare_and_swap(type, target, win);
  return PMPI_Compare_and_swap(origin, compare, result, type, target, target_disp, win);
}

}  // extern "C"
