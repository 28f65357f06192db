/* A small MPI program for the profiler's end-to-end test (tests/launch/profiler.cpp): every
 * kind of point-to-point send the profiler counts, with sizes the test knows by hand.
 * Run with 4 ranks. With the argument --where, each rank also prints where it runs:
 * "rank R host H cpus C1 C2 ..." (its host name and the CPUs it is bound to). */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void print_where(int rank) {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  sched_getaffinity(0, sizeof cpus, &cpus);
  char line[4096];
  int n = snprintf(line, sizeof line, "rank %d host %s cpus", rank, host);
  for (size_t c = 0; c < CPU_SETSIZE && n < (int)sizeof line - 8; ++c) {
    if (CPU_ISSET(c, &cpus)) n += snprintf(line + n, sizeof line - (size_t)n, " %zu", c);
  }
  printf("%s\n", line);
  fflush(stdout);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "--where") == 0) print_where(rank);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size, across = (rank + 2) % size;
  /* 3 halo exchanges: 100 doubles to the right, 50 to the left (non-blocking). So 100 come
   * from the left and 50 from the right: each receive buffer holds what it receives. */
  double out_r[100] = {0}, out_l[50] = {0}, in_l[100], in_r[50];
  for (int iter = 0; iter < 3; ++iter) {
    MPI_Request req[4];
    MPI_Irecv(in_l, 100, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(in_r, 50, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(out_r, 100, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(out_l, 50, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
  }
  /* One sendrecv of 10 ints to the right. */
  int a[10] = {0}, b[10];
  MPI_Sendrecv(a, 10, MPI_INT, right, 3, b, 10, MPI_INT, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  /* A persistent send of 7 chars two ranks on, started twice. */
  char c[7] = {0}, d[7];
  MPI_Request p;
  MPI_Send_init(c, 7, MPI_CHAR, across, 4, MPI_COMM_WORLD, &p);
  for (int i = 0; i < 2; ++i) {
    MPI_Start(&p);
    MPI_Recv(d, 7, MPI_CHAR, (rank + size - 2) % size, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&p, MPI_STATUS_IGNORE);
  }
  MPI_Request_free(&p);
  /* A split communicator in reverse order: its rank 0 (the higher world rank) sends 3 floats
   * to its rank 1. With 4 ranks: world 2 -> 0 and 3 -> 1. */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  int half_rank;
  MPI_Comm_rank(half, &half_rank);
  float f[3] = {0};
  if (half_rank == 0) MPI_Send(f, 3, MPI_FLOAT, 1, 5, half);
  if (half_rank == 1) MPI_Recv(f, 3, MPI_FLOAT, 0, 5, half, MPI_STATUS_IGNORE);
  MPI_Comm_free(&half);
  /* Sends to MPI_PROC_NULL are not traffic. */
  MPI_Send(a, 10, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
