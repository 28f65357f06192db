/* Where each rank runs, for tests/launch/rankfile_launch.cpp: one line per rank,
 * "rank R host H cpu C allowed A1 A2 ...": the host MPI names, the CPU the rank is on
 * (sched_getcpu) and the CPUs it may run on (its binding). */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, length;
  char host[MPI_MAX_PROCESSOR_NAME];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Get_processor_name(host, &length);
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  sched_getaffinity(0, sizeof allowed, &allowed);
  char line[4096];
  int n = snprintf(line, sizeof line, "rank %d host %s cpu %d allowed", rank, host, sched_getcpu());
  for (size_t c = 0; c < CPU_SETSIZE && n < (int)sizeof line - 8; ++c) {
    if (CPU_ISSET(c, &allowed)) n += snprintf(line + n, sizeof line - (size_t)n, " %zu", c);
  }
  printf("%s\n", line);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
