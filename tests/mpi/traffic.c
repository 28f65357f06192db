/* Every kind of traffic the profiler records, with sizes tests/launch/profiler.cpp knows by
 * hand; traffic.F90 runs the same schedule from Fortran. Run with 4 ranks; next, across and
 * previous are the world ranks r + 1, r + 2 and r + 3 (mod 4). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 4) {
    if (rank == 0) fprintf(stderr, "traffic: run with 4 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int next = (rank + 1) % 4, across = (rank + 2) % 4, prev = (rank + 3) % 4;
  double d10[10] = {0}, r10[10], d5[5] = {0}, r5[5];
  int i3[3] = {0}, r3[3];
  char b7[7] = {0}, rb7[7], big[1000] = {0}, rbig[1000];
  MPI_Request req[2];
  MPI_Status statuses[2]; /* not MPI_STATUSES_IGNORE: GCC 12 takes MPICH's sentinel for an empty array */

  /* A ring: 80 bytes to next. Halos: 12 bytes to prev, 40 bytes to across. */
  MPI_Send(d10, 10, MPI_DOUBLE, next, 1, MPI_COMM_WORLD);
  MPI_Recv(r10, 10, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Irecv(r3, 3, MPI_INT, next, 2, MPI_COMM_WORLD, &req[0]);
  MPI_Isend(i3, 3, MPI_INT, prev, 2, MPI_COMM_WORLD, &req[1]);
  MPI_Waitall(2, req, statuses);
  MPI_Sendrecv(d5, 5, MPI_DOUBLE, across, 3, r5, 5, MPI_DOUBLE, across, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

  /* A persistent send of 7 bytes to next, started twice: 14 bytes in 2 messages. */
  MPI_Send_init(b7, 7, MPI_CHAR, next, 4, MPI_COMM_WORLD, &req[0]);
  MPI_Recv_init(rb7, 7, MPI_CHAR, prev, 4, MPI_COMM_WORLD, &req[1]);
  MPI_Start(&req[0]);
  MPI_Start(&req[1]);
  MPI_Waitall(2, req, statuses);
  MPI_Startall(2, req);
  MPI_Waitall(2, req, statuses);
  MPI_Request_free(&req[0]);
  MPI_Request_free(&req[1]);

  /* Not recorded: 1000 bytes to next while MPI_Pcontrol(0) pauses the profile. */
  MPI_Pcontrol(0);
  MPI_Sendrecv(big, 1000, MPI_CHAR, next, 5, rbig, 1000, MPI_CHAR, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Pcontrol(1);

  /* A periodic ring of 4 as a Cartesian communicator: 8 + 8 bytes to each neighbour. */
  MPI_Comm cart;
  int dims[1] = {4}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
  int n4[4] = {0}, rn4[4];
  double one[1] = {0}, rtwo[2];
  MPI_Neighbor_alltoall(n4, 2, MPI_INT, rn4, 2, MPI_INT, cart);
  MPI_Ineighbor_allgather(one, 1, MPI_DOUBLE, rtwo, 1, MPI_DOUBLE, cart, &req[0]);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  MPI_Comm_free(&cart);

  /* One-sided: 32 bytes put to next, 48 bytes read from across, 16 bytes accumulated at prev;
   * get-accumulate at next: 8 bytes there and 8 bytes back. */
  double window[16] = {0}, d4[4] = {0}, d6[6], d2[2] = {0}, res[1];
  MPI_Win win;
  MPI_Win_create(window, (MPI_Aint)sizeof window, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  MPI_Put(d4, 4, MPI_DOUBLE, next, 0, 4, MPI_DOUBLE, win);
  MPI_Get(d6, 6, MPI_DOUBLE, across, 4, 6, MPI_DOUBLE, win);
  MPI_Accumulate(d2, 2, MPI_DOUBLE, prev, 10, 2, MPI_DOUBLE, MPI_SUM, win);
  MPI_Win_fence(0, win);
  MPI_Get_accumulate(one, 1, MPI_DOUBLE, res, 1, MPI_DOUBLE, next, 12, 1, MPI_DOUBLE, MPI_SUM, win);
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);

  /* Collectives in place (the send count, 999, is ignored): a ring allgather of 16-byte blocks
   * sends 3 blocks to next; alltoall sends 4 bytes, then 8 bytes, to each other rank. */
  double gathered[8] = {0};
  int a2a[4] = {0}, s8[8] = {0}, r8[8];
  MPI_Iallgather(MPI_IN_PLACE, 999, MPI_INT, gathered, 2, MPI_DOUBLE, MPI_COMM_WORLD, &req[0]);
  MPI_Ialltoall(MPI_IN_PLACE, 999, MPI_INT, a2a, 1, MPI_INT, MPI_COMM_WORLD, &req[1]);
  MPI_Waitall(2, req, statuses);
  MPI_Alltoall(s8, 2, MPI_INT, r8, 2, MPI_INT, MPI_COMM_WORLD);

  MPI_Finalize();
  return 0;
}
