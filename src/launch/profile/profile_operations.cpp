#include "profile_operations.h"

#include <cstdint>
#include <vector>

#include "profile_recorder.h"

namespace taskmap::profile {

void on_send(int count, MPI_Datatype type, int dest, MPI_Comm comm) { send(comm, dest, bytes_of(count, type)); }

void on_send_init(int count, MPI_Datatype type, int dest, MPI_Comm comm, MPI_Request request) {
  persistent_send(request, comm, dest, bytes_of(count, type));
}

void on_start(MPI_Request request) { started(request); }
void on_request_free(MPI_Request request) { request_freed(request); }
void on_comm_free(MPI_Comm comm) { comm_freed(comm); }
void on_win_free(MPI_Win win) { win_freed(win); }

void on_bcast(int count, MPI_Datatype type, int root, MPI_Comm comm) {
  collective(Collective::Bcast, comm,
             [&](Algorithm a, int rank, int size) { return bcast_sends(a, rank, size, root, bytes_of(count, type)); });
}

void on_reduce(int count, MPI_Datatype type, int root, MPI_Comm comm) {
  collective(Collective::Reduce, comm,
             [&](Algorithm a, int rank, int size) { return reduce_sends(a, rank, size, root, bytes_of(count, type)); });
}

void on_allreduce(int count, MPI_Datatype type, MPI_Comm comm) {
  collective(Collective::Allreduce, comm, [&](Algorithm a, int rank, int size) {
    return allreduce_sends(a, rank, size, count > 0 ? std::uint64_t(count) : 0, bytes_of(1, type));
  });
}

void on_allgather(bool in_place, int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm) {
  const std::uint64_t block = in_place ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  collective(Collective::Allgather, comm,
             [&](Algorithm a, int rank, int size) { return allgather_sends(a, rank, size, block); });
}

void on_alltoall(bool in_place, int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype,
                 MPI_Comm comm) {
  const std::uint64_t block = in_place ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  collective(Collective::Alltoall, comm, [&](Algorithm, int rank, int size) {
    return alltoall_sends(rank, std::vector<std::uint64_t>(static_cast<std::size_t>(size), block));
  });
}

void on_alltoallv(bool in_place, const int sendcounts[], MPI_Datatype sendtype, const int recvcounts[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  collective(Collective::Alltoall, comm, [&](Algorithm, int rank, int size) {
    std::vector<std::uint64_t> bytes(static_cast<std::size_t>(size));
    for (std::size_t d = 0; d < bytes.size(); ++d) {
      bytes[d] = in_place ? bytes_of(recvcounts[d], recvtype) : bytes_of(sendcounts[d], sendtype);
    }
    return alltoall_sends(rank, bytes);
  });
}

void on_gather(int sendcount, MPI_Datatype sendtype, int root, MPI_Comm comm) {
  collective(Collective::Gather, comm,
             [&](Algorithm, int rank, int) { return gather_sends(rank, root, bytes_of(sendcount, sendtype)); });
}

void on_scatter(int sendcount, MPI_Datatype sendtype, int root, MPI_Comm comm) {
  collective(Collective::Scatter, comm, [&](Algorithm, int rank, int size) {
    return scatter_sends(rank, size, root, bytes_of(sendcount, sendtype));
  });
}

void on_neighbor_allgather(int sendcount, MPI_Datatype sendtype, MPI_Comm comm) {
  const std::uint64_t block = bytes_of(sendcount, sendtype);
  neighbour_sends(comm, [&](int) { return block; });
}

void on_neighbor_alltoall(int sendcount, MPI_Datatype sendtype, MPI_Comm comm) {
  on_neighbor_allgather(sendcount, sendtype, comm);  // the same volume to each, different data
}

void on_neighbor_alltoallv(const int sendcounts[], MPI_Datatype sendtype, MPI_Comm comm) {
  neighbour_sends(comm, [&](int i) { return bytes_of(sendcounts[i], sendtype); });
}

void on_neighbor_alltoallw(const int sendcounts[], const std::function<MPI_Datatype(int block)>& sendtype,
                           MPI_Comm comm) {
  neighbour_sends(comm, [&](int i) { return bytes_of(sendcounts[i], sendtype(i)); });
}

void on_put(int count, MPI_Datatype type, int target, MPI_Win win) { put(win, target, bytes_of(count, type)); }

void on_get(int count, MPI_Datatype type, int target, MPI_Win win) { fetch(win, target, bytes_of(count, type)); }

void on_get_accumulate(int origin_count, MPI_Datatype origin_type, int result_count, MPI_Datatype result_type,
                       int target, MPI_Op op, MPI_Win win) {
  if (op != MPI_NO_OP) put(win, target, bytes_of(origin_count, origin_type));
  fetch(win, target, bytes_of(result_count, result_type));
}

void on_fetch_and_op(MPI_Datatype type, int target, MPI_Op op, MPI_Win win) {
  on_get_accumulate(1, type, 1, type, target, op, win);
}

void on_compare_and_swap(MPI_Datatype type, int target, MPI_Win win) {
  put(win, target, bytes_of(2, type));  // the compare value and the new value
  fetch(win, target, bytes_of(1, type));
}

}  // namespace taskmap::profile
