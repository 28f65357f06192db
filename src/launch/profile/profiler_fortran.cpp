// The profiler's Fortran bindings. Open MPI's Fortran bindings (mpif.h, `use mpi`,
// `use mpi_f08`) and MPICH's `use mpi_f08` reach MPI below the C functions that profiler.cpp
// interposes, so a Fortran program would record nothing; their entry points are interposed
// here. Each records the call (profile_operations.h, with handles converted to C) and then
// calls the MPI library's own entry point of the same name (dlsym RTLD_NEXT). MPICH's mpif.h
// and `use mpi` do call the C functions: OuterCall makes sure a call records once.
//
// Symbol names: gfortran calls MPI_SEND from mpif.h or `use mpi` as mpi_send_ (other
// compilers: mpi_send, mpi_send__, MPI_SEND); from `use mpi_f08`, Open MPI's entry points are
// mpi_send_f08_, MPICH's mpi_send_f08ts_ for routines with a choice buffer (which MPICH passes
// as an array descriptor) and mpi_start_f08_ for the others. Arguments come by reference; a
// TYPE(MPI_Comm) holds the Fortran handle, so both styles look alike to C; an absent optional
// ierror is a null pointer. MPI-4's large-count entry points (MPICH's *_large_) are not
// interposed.
#include <mpi.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "fortran_constants.h"
#include "profile_operations.h"
#include "profile_recorder.h"

namespace {

namespace profile = taskmap::profile;
using profile::OuterCall;
using F = MPI_Fint*;  // every non-buffer argument
using B = void*;      // a choice buffer (MPICH's mpi_f08: its array descriptor)

static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER count arrays are read as C int arrays");

// Calls the next definition of `symbol` (the MPI library's), found once.
template <typename... A>
void call_real(void*& real, const char* symbol, A... args) {
  if (!real) real = dlsym(RTLD_NEXT, symbol);
  if (!real) {
    std::fprintf(stderr, "taskmap-profile: the program calls %s, which no MPI library loaded after the profiler defines\n",
                 symbol);
    std::abort();
  }
  reinterpret_cast<void (*)(A...)>(real)(args...);
}

// A choice buffer that is Fortran's MPI_IN_PLACE (an array descriptor starts with the address).
bool is_in_place(const void* buffer, bool descriptor) {
  const void* address = descriptor ? *static_cast<const void* const*>(buffer) : buffer;
  return taskmap::mpi_fortran::is_constant(address, taskmap::mpi_fortran::Constant::InPlace);
}

MPI_Comm comm(F c) { return MPI_Comm_f2c(*c); }
MPI_Datatype type(F t) { return MPI_Type_f2c(*t); }
MPI_Win win(F w) { return MPI_Win_f2c(*w); }
MPI_Op op(F o) { return MPI_Op_f2c(*o); }
MPI_Request request(F r) { return MPI_Request_f2c(*r); }
const int* counts(F c) { return reinterpret_cast<const int*>(c); }

void start_when_initialized() {
  int initialized = 0;
  PMPI_Initialized(&initialized);
  if (initialized) profile::start();
}

void exit_if_not_written() {
  if (profile::failed()) std::exit(1);
}

void startall(F count, F requests) {
  for (int i = 0; i < *count; ++i) profile::on_start(MPI_Request_f2c(requests[i]));
}

void neighbor_alltoallw(F sendcounts, F sendtypes, F c) {
  profile::on_neighbor_alltoallw(counts(sendcounts), [&](int i) { return MPI_Type_f2c(sendtypes[i]); }, comm(c));
}

}  // namespace

#define TASKMAP_EXPAND(...) __VA_ARGS__

// One entry point: `before` runs ahead of the MPI library's call, `after` behind it, both
// only for the outermost call; `descriptor` says whether choice buffers come as descriptors.
#define TASKMAP_FORTRAN_ENTRY(symbol, is_descriptor, params, args, before, after) \
  extern "C" void symbol params {                                               \
    static void* real = nullptr;                                                \
    [[maybe_unused]] constexpr bool descriptor = is_descriptor;                 \
    OuterCall call;                                                             \
    if (call) { before; }                                                       \
    call_real(real, #symbol, TASKMAP_EXPAND args);                              \
    if (call) { after; }                                                        \
  }
// Every name of one MPI routine (see the top of this file).
#define TASKMAP_FORTRAN(lower, upper, params, args, before, after)                 \
  TASKMAP_FORTRAN_ENTRY(lower##_, false, params, args, before, after)              \
  TASKMAP_FORTRAN_ENTRY(lower##__, false, params, args, before, after)             \
  TASKMAP_FORTRAN_ENTRY(lower, false, params, args, before, after)                 \
  TASKMAP_FORTRAN_ENTRY(upper, false, params, args, before, after)                 \
  TASKMAP_FORTRAN_ENTRY(lower##_f08_, false, params, args, before, after)          \
  TASKMAP_FORTRAN_ENTRY(lower##_f08ts_, true, params, args, before, after)

// Start and end of the run.
TASKMAP_FORTRAN(mpi_init, MPI_INIT, (F e), (e), , start_when_initialized())
TASKMAP_FORTRAN(mpi_init_thread, MPI_INIT_THREAD, (F required, F provided, F e), (required, provided, e), ,
                start_when_initialized())
TASKMAP_FORTRAN(mpi_finalize, MPI_FINALIZE, (F e), (e), profile::finish(), exit_if_not_written())
// mpif.h's MPI_PCONTROL(LEVEL) has no ierror, MPICH's mpi_f08 an optional one (null when
// absent): the second argument is passed on as it came.
TASKMAP_FORTRAN(mpi_pcontrol, MPI_PCONTROL, (F level, F e), (level, e), profile::set_recording(*level), )
TASKMAP_FORTRAN(mpi_comm_free, MPI_COMM_FREE, (F c, F e), (c, e), profile::on_comm_free(comm(c)), )
TASKMAP_FORTRAN(mpi_win_free, MPI_WIN_FREE, (F w, F e), (w, e), profile::on_win_free(win(w)), )

// Point to point.
#define TASKMAP_FORTRAN_SEND(lower, upper)                                                                  \
  TASKMAP_FORTRAN(lower, upper, (B buf, F count, F t, F dest, F tag, F c, F e), (buf, count, t, dest, tag, c, e), \
                  profile::on_send(*count, type(t), *dest, comm(c)), )
#define TASKMAP_FORTRAN_ISEND(lower, upper)                                                                \
  TASKMAP_FORTRAN(lower, upper, (B buf, F count, F t, F dest, F tag, F c, F r, F e),                       \
                  (buf, count, t, dest, tag, c, r, e), profile::on_send(*count, type(t), *dest, comm(c)), )
#define TASKMAP_FORTRAN_SEND_INIT(lower, upper)                                                            \
  TASKMAP_FORTRAN(lower, upper, (B buf, F count, F t, F dest, F tag, F c, F r, F e),                       \
                  (buf, count, t, dest, tag, c, r, e), ,                                                   \
                  profile::on_send_init(*count, type(t), *dest, comm(c), request(r)))
TASKMAP_FORTRAN_SEND(mpi_send, MPI_SEND)
TASKMAP_FORTRAN_SEND(mpi_bsend, MPI_BSEND)
TASKMAP_FORTRAN_SEND(mpi_ssend, MPI_SSEND)
TASKMAP_FORTRAN_SEND(mpi_rsend, MPI_RSEND)
TASKMAP_FORTRAN_ISEND(mpi_isend, MPI_ISEND)
TASKMAP_FORTRAN_ISEND(mpi_ibsend, MPI_IBSEND)
TASKMAP_FORTRAN_ISEND(mpi_issend, MPI_ISSEND)
TASKMAP_FORTRAN_ISEND(mpi_irsend, MPI_IRSEND)
TASKMAP_FORTRAN_SEND_INIT(mpi_send_init, MPI_SEND_INIT)
TASKMAP_FORTRAN_SEND_INIT(mpi_bsend_init, MPI_BSEND_INIT)
TASKMAP_FORTRAN_SEND_INIT(mpi_ssend_init, MPI_SSEND_INIT)
TASKMAP_FORTRAN_SEND_INIT(mpi_rsend_init, MPI_RSEND_INIT)
TASKMAP_FORTRAN(mpi_sendrecv, MPI_SENDRECV,
                (B sb, F sc, F st, F dest, F stag, B rb, F rc, F rt, F source, F rtag, F c, F status, F e),
                (sb, sc, st, dest, stag, rb, rc, rt, source, rtag, c, status, e),
                profile::on_send(*sc, type(st), *dest, comm(c)), )
TASKMAP_FORTRAN(mpi_sendrecv_replace, MPI_SENDRECV_REPLACE,
                (B buf, F count, F t, F dest, F stag, F source, F rtag, F c, F status, F e),
                (buf, count, t, dest, stag, source, rtag, c, status, e),
                profile::on_send(*count, type(t), *dest, comm(c)), )
TASKMAP_FORTRAN(mpi_start, MPI_START, (F r, F e), (r, e), profile::on_start(request(r)), )
TASKMAP_FORTRAN(mpi_startall, MPI_STARTALL, (F n, F rs, F e), (n, rs, e), startall(n, rs), )
TASKMAP_FORTRAN(mpi_request_free, MPI_REQUEST_FREE, (F r, F e), (r, e), profile::on_request_free(request(r)), )

// Collectives, blocking and non-blocking (the I forms take the request before ierror).
TASKMAP_FORTRAN(mpi_bcast, MPI_BCAST, (B buf, F count, F t, F root, F c, F e), (buf, count, t, root, c, e),
                profile::on_bcast(*count, type(t), *root, comm(c)), )
TASKMAP_FORTRAN(mpi_ibcast, MPI_IBCAST, (B buf, F count, F t, F root, F c, F r, F e),
                (buf, count, t, root, c, r, e), profile::on_bcast(*count, type(t), *root, comm(c)), )
TASKMAP_FORTRAN(mpi_reduce, MPI_REDUCE, (B sb, B rb, F count, F t, F o, F root, F c, F e),
                (sb, rb, count, t, o, root, c, e), profile::on_reduce(*count, type(t), *root, comm(c)), )
TASKMAP_FORTRAN(mpi_ireduce, MPI_IREDUCE, (B sb, B rb, F count, F t, F o, F root, F c, F r, F e),
                (sb, rb, count, t, o, root, c, r, e), profile::on_reduce(*count, type(t), *root, comm(c)), )
TASKMAP_FORTRAN(mpi_allreduce, MPI_ALLREDUCE, (B sb, B rb, F count, F t, F o, F c, F e),
                (sb, rb, count, t, o, c, e), profile::on_allreduce(*count, type(t), comm(c)), )
TASKMAP_FORTRAN(mpi_iallreduce, MPI_IALLREDUCE, (B sb, B rb, F count, F t, F o, F c, F r, F e),
                (sb, rb, count, t, o, c, r, e), profile::on_allreduce(*count, type(t), comm(c)), )
TASKMAP_FORTRAN(mpi_allgather, MPI_ALLGATHER, (B sb, F sc, F st, B rb, F rc, F rt, F c, F e),
                (sb, sc, st, rb, rc, rt, c, e),
                profile::on_allgather(is_in_place(sb, descriptor), *sc, type(st), *rc, type(rt), comm(c)), )
TASKMAP_FORTRAN(mpi_iallgather, MPI_IALLGATHER, (B sb, F sc, F st, B rb, F rc, F rt, F c, F r, F e),
                (sb, sc, st, rb, rc, rt, c, r, e),
                profile::on_allgather(is_in_place(sb, descriptor), *sc, type(st), *rc, type(rt), comm(c)), )
TASKMAP_FORTRAN(mpi_alltoall, MPI_ALLTOALL, (B sb, F sc, F st, B rb, F rc, F rt, F c, F e),
                (sb, sc, st, rb, rc, rt, c, e),
                profile::on_alltoall(is_in_place(sb, descriptor), *sc, type(st), *rc, type(rt), comm(c)), )
TASKMAP_FORTRAN(mpi_ialltoall, MPI_IALLTOALL, (B sb, F sc, F st, B rb, F rc, F rt, F c, F r, F e),
                (sb, sc, st, rb, rc, rt, c, r, e),
                profile::on_alltoall(is_in_place(sb, descriptor), *sc, type(st), *rc, type(rt), comm(c)), )
TASKMAP_FORTRAN(mpi_alltoallv, MPI_ALLTOALLV, (B sb, F sc, F sd, F st, B rb, F rc, F rd, F rt, F c, F e),
                (sb, sc, sd, st, rb, rc, rd, rt, c, e),
                profile::on_alltoallv(is_in_place(sb, descriptor), counts(sc), type(st), counts(rc), type(rt),
                                      comm(c)), )
TASKMAP_FORTRAN(mpi_ialltoallv, MPI_IALLTOALLV, (B sb, F sc, F sd, F st, B rb, F rc, F rd, F rt, F c, F r, F e),
                (sb, sc, sd, st, rb, rc, rd, rt, c, r, e),
                profile::on_alltoallv(is_in_place(sb, descriptor), counts(sc), type(st), counts(rc), type(rt),
                                      comm(c)), )
TASKMAP_FORTRAN(mpi_gather, MPI_GATHER, (B sb, F sc, F st, B rb, F rc, F rt, F root, F c, F e),
                (sb, sc, st, rb, rc, rt, root, c, e), profile::on_gather(*sc, type(st), *root, comm(c)), )
TASKMAP_FORTRAN(mpi_igather, MPI_IGATHER, (B sb, F sc, F st, B rb, F rc, F rt, F root, F c, F r, F e),
                (sb, sc, st, rb, rc, rt, root, c, r, e), profile::on_gather(*sc, type(st), *root, comm(c)), )
TASKMAP_FORTRAN(mpi_scatter, MPI_SCATTER, (B sb, F sc, F st, B rb, F rc, F rt, F root, F c, F e),
                (sb, sc, st, rb, rc, rt, root, c, e), profile::on_scatter(*sc, type(st), *root, comm(c)), )
TASKMAP_FORTRAN(mpi_iscatter, MPI_ISCATTER, (B sb, F sc, F st, B rb, F rc, F rt, F root, F c, F r, F e),
                (sb, sc, st, rb, rc, rt, root, c, r, e), profile::on_scatter(*sc, type(st), *root, comm(c)), )

// Neighbourhood collectives, blocking and non-blocking.
TASKMAP_FORTRAN(mpi_neighbor_allgather, MPI_NEIGHBOR_ALLGATHER, (B sb, F sc, F st, B rb, F rc, F rt, F c, F e),
                (sb, sc, st, rb, rc, rt, c, e), profile::on_neighbor_allgather(*sc, type(st), comm(c)), )
TASKMAP_FORTRAN(mpi_ineighbor_allgather, MPI_INEIGHBOR_ALLGATHER,
                (B sb, F sc, F st, B rb, F rc, F rt, F c, F r, F e), (sb, sc, st, rb, rc, rt, c, r, e),
                profile::on_neighbor_allgather(*sc, type(st), comm(c)), )
TASKMAP_FORTRAN(mpi_neighbor_allgatherv, MPI_NEIGHBOR_ALLGATHERV,
                (B sb, F sc, F st, B rb, F rcs, F displs, F rt, F c, F e), (sb, sc, st, rb, rcs, displs, rt, c, e),
                profile::on_neighbor_allgather(*sc, type(st), comm(c)), )
TASKMAP_FORTRAN(mpi_ineighbor_allgatherv, MPI_INEIGHBOR_ALLGATHERV,
                (B sb, F sc, F st, B rb, F rcs, F displs, F rt, F c, F r, F e),
                (sb, sc, st, rb, rcs, displs, rt, c, r, e), profile::on_neighbor_allgather(*sc, type(st), comm(c)), )
TASKMAP_FORTRAN(mpi_neighbor_alltoall, MPI_NEIGHBOR_ALLTOALL, (B sb, F sc, F st, B rb, F rc, F rt, F c, F e),
                (sb, sc, st, rb, rc, rt, c, e), profile::on_neighbor_alltoall(*sc, type(st), comm(c)), )
TASKMAP_FORTRAN(mpi_ineighbor_alltoall, MPI_INEIGHBOR_ALLTOALL, (B sb, F sc, F st, B rb, F rc, F rt, F c, F r, F e),
                (sb, sc, st, rb, rc, rt, c, r, e), profile::on_neighbor_alltoall(*sc, type(st), comm(c)), )
TASKMAP_FORTRAN(mpi_neighbor_alltoallv, MPI_NEIGHBOR_ALLTOALLV,
                (B sb, F sc, F sd, F st, B rb, F rc, F rd, F rt, F c, F e), (sb, sc, sd, st, rb, rc, rd, rt, c, e),
                profile::on_neighbor_alltoallv(counts(sc), type(st), comm(c)), )
TASKMAP_FORTRAN(mpi_ineighbor_alltoallv, MPI_INEIGHBOR_ALLTOALLV,
                (B sb, F sc, F sd, F st, B rb, F rc, F rd, F rt, F c, F r, F e),
                (sb, sc, sd, st, rb, rc, rd, rt, c, r, e),
                profile::on_neighbor_alltoallv(counts(sc), type(st), comm(c)), )
TASKMAP_FORTRAN(mpi_neighbor_alltoallw, MPI_NEIGHBOR_ALLTOALLW,
                (B sb, F sc, F sd, F sts, B rb, F rc, F rd, F rts, F c, F e),
                (sb, sc, sd, sts, rb, rc, rd, rts, c, e), neighbor_alltoallw(sc, sts, c), )
TASKMAP_FORTRAN(mpi_ineighbor_alltoallw, MPI_INEIGHBOR_ALLTOALLW,
                (B sb, F sc, F sd, F sts, B rb, F rc, F rd, F rts, F c, F r, F e),
                (sb, sc, sd, sts, rb, rc, rd, rts, c, r, e), neighbor_alltoallw(sc, sts, c), )

// One-sided communication (target_disp is an INTEGER(KIND=MPI_ADDRESS_KIND), by reference).
TASKMAP_FORTRAN(mpi_put, MPI_PUT, (B ob, F oc, F ot, F target, F disp, F tc, F tt, F w, F e),
                (ob, oc, ot, target, disp, tc, tt, w, e), profile::on_put(*oc, type(ot), *target, win(w)), )
TASKMAP_FORTRAN(mpi_rput, MPI_RPUT, (B ob, F oc, F ot, F target, F disp, F tc, F tt, F w, F r, F e),
                (ob, oc, ot, target, disp, tc, tt, w, r, e), profile::on_put(*oc, type(ot), *target, win(w)), )
TASKMAP_FORTRAN(mpi_get, MPI_GET, (B ob, F oc, F ot, F target, F disp, F tc, F tt, F w, F e),
                (ob, oc, ot, target, disp, tc, tt, w, e), profile::on_get(*oc, type(ot), *target, win(w)), )
TASKMAP_FORTRAN(mpi_rget, MPI_RGET, (B ob, F oc, F ot, F target, F disp, F tc, F tt, F w, F r, F e),
                (ob, oc, ot, target, disp, tc, tt, w, r, e), profile::on_get(*oc, type(ot), *target, win(w)), )
TASKMAP_FORTRAN(mpi_accumulate, MPI_ACCUMULATE, (B ob, F oc, F ot, F target, F disp, F tc, F tt, F o, F w, F e),
                (ob, oc, ot, target, disp, tc, tt, o, w, e), profile::on_put(*oc, type(ot), *target, win(w)), )
TASKMAP_FORTRAN(mpi_raccumulate, MPI_RACCUMULATE,
                (B ob, F oc, F ot, F target, F disp, F tc, F tt, F o, F w, F r, F e),
                (ob, oc, ot, target, disp, tc, tt, o, w, r, e), profile::on_put(*oc, type(ot), *target, win(w)), )
TASKMAP_FORTRAN(mpi_get_accumulate, MPI_GET_ACCUMULATE,
                (B ob, F oc, F ot, B rb, F rc, F rt, F target, F disp, F tc, F tt, F o, F w, F e),
                (ob, oc, ot, rb, rc, rt, target, disp, tc, tt, o, w, e),
                profile::on_get_accumulate(*oc, type(ot), *rc, type(rt), *target, op(o), win(w)), )
TASKMAP_FORTRAN(mpi_rget_accumulate, MPI_RGET_ACCUMULATE,
                (B ob, F oc, F ot, B rb, F rc, F rt, F target, F disp, F tc, F tt, F o, F w, F r, F e),
                (ob, oc, ot, rb, rc, rt, target, disp, tc, tt, o, w, r, e),
                profile::on_get_accumulate(*oc, type(ot), *rc, type(rt), *target, op(o), win(w)), )
TASKMAP_FORTRAN(mpi_fetch_and_op, MPI_FETCH_AND_OP, (B ob, B rb, F t, F target, F disp, F o, F w, F e),
                (ob, rb, t, target, disp, o, w, e), profile::on_fetch_and_op(type(t), *target, op(o), win(w)), )
TASKMAP_FORTRAN(mpi_compare_and_swap, MPI_COMPARE_AND_SWAP, (B ob, B cb, B rb, F t, F target, F disp, F w, F e),
                (ob, cb, rb, t, target, disp, w, e), profile::on_compare_and_swap(type(t), *target, win(w)), )
