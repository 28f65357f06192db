/* Collectives with sizes the profiler test (tests/launch/profiler.cpp) knows by hand; no
 * point-to-point calls. Run with 4 ranks. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int ints[100] = {0}, more[100];
  double d[10] = {0}, e[10];
  float f[6] = {0}, g[6];
  char c[3] = {0}, cs[12];
  short s[16] = {0}, t[4];
  MPI_Bcast(ints, 100, MPI_INT, 1, MPI_COMM_WORLD);                       /* 400 bytes, root 1 */
  MPI_Allreduce(d, e, 10, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);           /* 80 bytes */
  MPI_Alltoall(ints, 5, MPI_INT, more, 5, MPI_INT, MPI_COMM_WORLD);       /* 20 bytes per pair */
  MPI_Reduce(f, g, 6, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);             /* 24 bytes, root 0 */
  MPI_Allgather(ints, 2, MPI_INT, more, 2, MPI_INT, MPI_COMM_WORLD);      /* 8-byte blocks */
  MPI_Gather(c, 3, MPI_CHAR, cs, 3, MPI_CHAR, 2, MPI_COMM_WORLD);         /* 3 bytes to root 2 */
  MPI_Scatter(s, 4, MPI_SHORT, t, 4, MPI_SHORT, 3, MPI_COMM_WORLD);       /* 8 bytes from root 3 */
  /* On the even and odd halves: world ranks {0, 2} and {1, 3}. */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int one = 1, sum;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, half);                   /* 4 bytes */
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
