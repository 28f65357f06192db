// libtaskmap-dist-<mpi>.so: MPI (and, in Open MPI's plugin, PT-Scotch) behind the C table of
// plugin_abi.h, for a taskmap started by an MPI launcher. Built once per MPI Debian provides;
// PT-Scotch (Debian libptscotch-dev) is built against Open MPI only, so MPICH's plugin has no
// partition entry (TASKMAP_DIST_PTSCOTCH undefined).
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#ifdef TASKMAP_DIST_PTSCOTCH
extern "C" {
#include <scotch/ptscotch.h>
}
#endif

#include "nonblocking.h"
#include "plugin_abi.h"

namespace {

// The communicators taskmap uses: duplicates of MPI's, so that nothing else on them (a
// library's own messages) can match taskmap's; `failure` only for all_failed.
MPI_Comm world = MPI_COMM_NULL, self = MPI_COMM_NULL, failure = MPI_COMM_NULL;
MPI_Datatype i128 = MPI_DATATYPE_NULL;
MPI_Op i128_sum = MPI_OP_NULL;
bool initialized_here = false;

MPI_Comm comm_of(int comm) { return comm == TASKMAP_DIST_SELF ? self : world; }

void set_error(char* error, std::size_t size, const std::string& message) {
  if (size == 0) return;
  std::snprintf(error, size, "%s", message.c_str());
}

// Waits asleep: 1 us, doubling up to 1 ms.
void wait(MPI_Request& request) { taskmap::mpi_nonblocking::wait_asleep(request, 1000, 1000000); }

// MPI counts are ints: larger buffers go in pieces.
constexpr std::uint64_t kMaxPiece = std::uint64_t{1} << 30;

int init(char* error, std::size_t error_size) {
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      set_error(error, error_size, "MPI_Init_thread failed");
      return 1;
    }
    initialized_here = true;
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &world);
  MPI_Comm_dup(MPI_COMM_SELF, &self);
  MPI_Comm_dup(MPI_COMM_WORLD, &failure);
  MPI_Type_contiguous(2, MPI_UINT64_T, &i128);
  MPI_Type_commit(&i128);
  MPI_Op_create(taskmap::mpi_nonblocking::add_int128, 1, &i128_sum);
  return 0;
}

void finalize() {
  if (i128_sum != MPI_OP_NULL) MPI_Op_free(&i128_sum);
  if (i128 != MPI_DATATYPE_NULL) MPI_Type_free(&i128);
  for (MPI_Comm* c : {&world, &self, &failure}) {
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
  }
  if (initialized_here) MPI_Finalize();
}

void abort_all(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

int rank(int comm) {
  int r = 0;
  MPI_Comm_rank(comm_of(comm), &r);
  return r;
}

int size(int comm) {
  int s = 0;
  MPI_Comm_size(comm_of(comm), &s);
  return s;
}

int all_reduce(int comm, void* data, std::uint64_t count, int type, int op, char* error, std::size_t error_size) {
  MPI_Datatype datatype;
  std::size_t element = 8;
  MPI_Op operation;
  if (type == TASKMAP_DIST_U64 && op == TASKMAP_DIST_SUM) {
    datatype = MPI_UINT64_T, operation = MPI_SUM;
  } else if (type == TASKMAP_DIST_I128 && op == TASKMAP_DIST_SUM) {
    datatype = i128, operation = i128_sum, element = 16;
  } else if (type == TASKMAP_DIST_F64 && (op == TASKMAP_DIST_MAX || op == TASKMAP_DIST_MIN)) {
    datatype = MPI_DOUBLE, operation = op == TASKMAP_DIST_MAX ? MPI_MAX : MPI_MIN;
  } else {
    // A floating-point sum would depend on the order MPI adds in: taskmap sums exactly.
    set_error(error, error_size, "all_reduce: unsupported type and operation");
    return 1;
  }
  auto* bytes = static_cast<char*>(data);
  const std::uint64_t piece = kMaxPiece / element;
  for (std::uint64_t done = 0; done < count; done += piece) {
    MPI_Request request;
    MPI_Iallreduce(MPI_IN_PLACE, bytes + done * element, static_cast<int>(std::min(piece, count - done)), datatype,
                   operation, comm_of(comm), &request);
    wait(request);
  }
  return 0;
}

int broadcast(int comm, void* data, std::uint64_t bytes, int root, char*, std::size_t) {
  auto* p = static_cast<char*>(data);
  for (std::uint64_t done = 0; done < bytes; done += kMaxPiece) {
    MPI_Request request;
    MPI_Ibcast(p + done, static_cast<int>(std::min(kMaxPiece, bytes - done)), MPI_BYTE, root, comm_of(comm), &request);
    wait(request);
  }
  return 0;
}

int all_failed(double seconds) {
  MPI_Request request;
  MPI_Ibarrier(failure, &request);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int done = 0;
  while (true) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return 1;
    if (std::chrono::steady_clock::now() > deadline) return 0;  // the request stays: abort_all follows
    const timespec pause{0, 1000000};
    nanosleep(&pause, nullptr);
  }
}

#ifdef TASKMAP_DIST_PTSCOTCH
static_assert(sizeof(SCOTCH_Num) == sizeof(std::int32_t), "Debian's PT-Scotch has 32-bit SCOTCH_Num");

int partition(int comm, std::uint64_t first, std::uint32_t local_vertices, const std::int32_t* offsets,
              const std::int32_t* targets, const std::int32_t* edge_weights, std::uint32_t parts,
              const std::int32_t* part_weights, double imbalance, std::int32_t* part_of, char* error,
              std::size_t error_size) {
  const MPI_Comm c = comm_of(comm);
  // The slices must follow each other in rank order: PT-Scotch numbers vertices so.
  std::uint64_t mine = local_vertices, expected_first = 0;
  MPI_Exscan(&mine, &expected_first, 1, MPI_UINT64_T, MPI_SUM, c);
  if (rank(comm) == 0) expected_first = 0;  // MPI_Exscan leaves rank 0's value undefined
  int mismatch = expected_first != first ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &mismatch, 1, MPI_INT, MPI_MAX, c);
  if (mismatch) {
    set_error(error, error_size, "the processes' vertex slices do not follow each other in rank order");
    return 1;
  }
  SCOTCH_Dgraph graph;
  SCOTCH_Arch arch;
  SCOTCH_Strat strategy;
  if (SCOTCH_dgraphInit(&graph, c) != 0) {
    set_error(error, error_size, "SCOTCH_dgraphInit failed");
    return 1;
  }
  SCOTCH_archInit(&arch);
  SCOTCH_stratInit(&strategy);
  // A context that makes PT-Scotch deterministic: messages taken in a fixed order rather than
  // as they arrive (MPI_Wait, not MPI_Waitany), one thread, and every process's random state
  // from the same seed: the same partition for the same graph and process count, whatever the
  // timing (without it two runs on 2 processes differed).
  SCOTCH_Context context;
  SCOTCH_Dgraph bound;
  SCOTCH_randomReset();  // the context's random state is cloned from the global one
  SCOTCH_contextInit(&context);
  const auto vertices = static_cast<SCOTCH_Num>(local_vertices);
  const SCOTCH_Num arcs = offsets[local_vertices];
  // PT-Scotch does not write to the arrays it is given.
  auto* vertex_table = const_cast<SCOTCH_Num*>(offsets);
  bool bound_built = false;
  auto run = [&]() -> const char* {
    if (SCOTCH_dgraphBuild(&graph, 0, vertices, vertices, vertex_table, vertex_table + 1, nullptr, nullptr, arcs, arcs,
                           const_cast<SCOTCH_Num*>(targets), nullptr, const_cast<SCOTCH_Num*>(edge_weights)) != 0) {
      return "SCOTCH_dgraphBuild";
    }
    if (SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMDETERMINISTIC, 1) != 0 ||
        SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1) != 0 ||
        SCOTCH_contextRandomClone(&context) != 0 || SCOTCH_contextThreadSpawn(&context, 1, nullptr) != 0 ||
        SCOTCH_contextBindDgraph(&context, &graph, &bound) != 0) {
      return "context";
    }
    bound_built = true;
    if (SCOTCH_archCmpltw(&arch, static_cast<SCOTCH_Num>(parts), const_cast<SCOTCH_Num*>(part_weights)) != 0) {
      return "SCOTCH_archCmpltw";
    }
    if (SCOTCH_stratDgraphMapBuild(&strategy, SCOTCH_STRATDEFAULT, size(comm), static_cast<SCOTCH_Num>(parts),
                                   imbalance) != 0) {
      return "SCOTCH_stratDgraphMapBuild";
    }
    if (SCOTCH_dgraphMap(&bound, &arch, &strategy, part_of) != 0) return "SCOTCH_dgraphMap";
    return nullptr;
  };
  const char* failed_call = run();
  const std::string failed = failed_call ? failed_call : "";
  if (bound_built) SCOTCH_dgraphExit(&bound);
  SCOTCH_contextExit(&context);
  SCOTCH_stratExit(&strategy);
  SCOTCH_archExit(&arch);
  SCOTCH_dgraphExit(&graph);
  if (!failed.empty()) {
    set_error(error, error_size, "PT-Scotch's " + failed + " failed");
    return 1;
  }
  return 0;
}
#endif

const taskmap_dist_plugin_t plugin = {
    TASKMAP_DIST_ABI,
#ifdef OPEN_MPI
    "Open MPI",
#else
    "MPICH",
#endif
#ifdef TASKMAP_DIST_PTSCOTCH
    1,
#else
    0,
#endif
    init,
    finalize,
    abort_all,
    rank,
    size,
    all_reduce,
    broadcast,
    all_failed,
#ifdef TASKMAP_DIST_PTSCOTCH
    partition,
#else
    nullptr,
#endif
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const taskmap_dist_plugin_t* taskmap_dist_plugin(void) {
  return &plugin;
}
