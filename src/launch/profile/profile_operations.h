#pragma once
// The profiled MPI operations, with C handles: what each call sends, by the MPI standard's
// rules, handed to the recorder (profile_recorder.h). Both language bindings call these, the
// C ones directly, the Fortran ones after converting handles, so C and Fortran programs record
// the same volumes. Each binding calls them only for its outermost call (OuterCall).
#include <mpi.h>

#include <functional>

namespace taskmap::profile {

void on_send(int count, MPI_Datatype type, int dest, MPI_Comm comm);
void on_send_init(int count, MPI_Datatype type, int dest, MPI_Comm comm, MPI_Request request);
void on_start(MPI_Request request);
void on_request_free(MPI_Request request);
void on_comm_free(MPI_Comm comm);
void on_win_free(MPI_Win win);

// Collectives (recorded when TASKMAP_PROFILE_COLLECTIVES asks for them); the non-blocking
// forms record the same messages when they are started. `in_place`: the send buffer is
// MPI_IN_PLACE, so the receive arguments give the block size.
void on_bcast(int count, MPI_Datatype type, int root, MPI_Comm comm);
void on_reduce(int count, MPI_Datatype type, int root, MPI_Comm comm);
void on_allreduce(int count, MPI_Datatype type, MPI_Comm comm);
void on_allgather(bool in_place, int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm);
void on_alltoall(bool in_place, int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype,
                 MPI_Comm comm);
void on_alltoallv(bool in_place, const int sendcounts[], MPI_Datatype sendtype, const int recvcounts[],
                  MPI_Datatype recvtype, MPI_Comm comm);
void on_gather(int sendcount, MPI_Datatype sendtype, int root, MPI_Comm comm);
void on_scatter(int sendcount, MPI_Datatype sendtype, int root, MPI_Comm comm);

// Neighbourhood collectives: one message per destination of comm's virtual topology.
void on_neighbor_allgather(int sendcount, MPI_Datatype sendtype, MPI_Comm comm);  // and allgatherv
void on_neighbor_alltoall(int sendcount, MPI_Datatype sendtype, MPI_Comm comm);
void on_neighbor_alltoallv(const int sendcounts[], MPI_Datatype sendtype, MPI_Comm comm);
void on_neighbor_alltoallw(const int sendcounts[], const std::function<MPI_Datatype(int block)>& sendtype,
                           MPI_Comm comm);

// One-sided communication, target ranks in the window's group.
void on_put(int count, MPI_Datatype type, int target, MPI_Win win);  // and accumulate
void on_get(int count, MPI_Datatype type, int target, MPI_Win win);
// With MPI_NO_OP the origin's data is ignored: only the result comes back.
void on_get_accumulate(int origin_count, MPI_Datatype origin_type, int result_count, MPI_Datatype result_type,
                       int target, MPI_Op op, MPI_Win win);
void on_fetch_and_op(MPI_Datatype type, int target, MPI_Op op, MPI_Win win);
void on_compare_and_swap(MPI_Datatype type, int target, MPI_Win win);

}  // namespace taskmap::profile
