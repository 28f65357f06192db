/* The C interface between taskmap and its MPI plugins, libtaskmap-dist-<mpi>.so
   (src/dist/mpi/dist_plugin.cpp). The taskmap binary links no MPI: under a launcher it opens the
   plugin of that MPI and reaches MPI only through this table, so the same binary runs without
   any MPI runtime when started on its own. One symbol is exported, taskmap_dist_plugin(), which
   returns the table; its abi field must equal TASKMAP_DIST_ABI.

   Every call is collective over the communicator it names unless said otherwise, and every
   process makes the same calls in the same order. MPI errors end the job (MPI's default error
   handler); a call returns 0 on success, else non-zero with a message in the error buffer. */
#ifndef TASKMAP_DIST_PLUGIN_ABI_H
#define TASKMAP_DIST_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TASKMAP_DIST_ABI 1

/* Communicators: every process of the launch, or this process alone. */
enum { TASKMAP_DIST_WORLD = 0, TASKMAP_DIST_SELF = 1 };

/* Element types of all_reduce: unsigned 64-bit integers; doubles; signed 128-bit integers stored
   as two 64-bit words, low word first, two's complement (taskmap's exact fixed-point sums). */
enum { TASKMAP_DIST_U64 = 0, TASKMAP_DIST_F64 = 1, TASKMAP_DIST_I128 = 2 };
/* Operations: SUM on U64 and I128 (exact: integer addition, modulo 2^64 or 2^128), MAX and MIN
   on F64 (exact whatever the order). */
enum { TASKMAP_DIST_SUM = 0, TASKMAP_DIST_MAX = 1, TASKMAP_DIST_MIN = 2 };

typedef struct taskmap_dist_plugin_t {
  int abi;
  /* "Open MPI" or "MPICH", and whether partition below is PT-Scotch's (1) or absent (0). */
  const char* mpi;
  int has_partition;

  /* MPI_Init_thread (MPI_THREAD_FUNNELED: only the main thread calls MPI). Not collective in
     the MPI sense; every process calls it first. */
  int (*init)(char* error, size_t error_size);
  /* MPI_Finalize. */
  void (*finalize)(void);
  /* MPI_Abort on the world communicator: ends every process with `code`. Not collective. */
  void (*abort_all)(int code);

  int (*rank)(int comm);
  int (*size)(int comm);

  /* In place: every process's `count` elements replaced by their reduction over the
     processes. Waits without spinning (nonblocking MPI and short sleeps), so a process that
     waits for another's long computation leaves the core to it. */
  int (*all_reduce)(int comm, void* data, uint64_t count, int type, int op, char* error, size_t error_size);
  /* root's `bytes` bytes at `data` copied to every process's `data`. Waits as all_reduce. */
  int (*broadcast)(int comm, void* data, uint64_t bytes, int root, char* error, size_t error_size);

  /* Called by a process that failed: 1 when every process of the world communicator calls it
     within `seconds` (they all met the same error, at the same point of the same work), else 0
     (the others are elsewhere: the caller then reports its error and calls abort_all). */
  int (*all_failed)(double seconds);

  /* PT-Scotch's distributed mapping onto a weighted complete graph of `parts` parts (part p
     weighing part_weights[p]; the parts' sizes follow the weights to within `imbalance`).
     This process holds the vertices first .. first + local_vertices - 1 of the graph, the
     processes' slices in rank order; offsets (local_vertices + 1 entries from 0), targets
     (global vertex numbers, every edge in both directions) and edge_weights (>= 1) describe
     their adjacency. part_of receives each local vertex's part. NULL in a plugin without
     PT-Scotch. */
  int (*partition)(int comm, uint64_t first, uint32_t local_vertices, const int32_t* offsets, const int32_t* targets,
                   const int32_t* edge_weights, uint32_t parts, const int32_t* part_weights, double imbalance,
                   int32_t* part_of, char* error, size_t error_size);
} taskmap_dist_plugin_t;

/* The one symbol a plugin exports. */
const taskmap_dist_plugin_t* taskmap_dist_plugin(void);

#ifdef __cplusplus
}
#endif

#endif
