! traffic.c's schedule from Fortran, for the profiler's tests: built with -DTASKMAP_F08 (use
! mpi_f08), -DTASKMAP_USE_MPI (use mpi) or neither (mpif.h). Run with 4 ranks.
program traffic
#if defined(TASKMAP_F08)
  use mpi_f08
#elif defined(TASKMAP_USE_MPI)
  use mpi
#endif
  implicit none
#if defined(TASKMAP_MPIF_H)
  include 'mpif.h'
#endif
#if defined(TASKMAP_F08)
  type(MPI_Comm) :: cart
  type(MPI_Win) :: win
  type(MPI_Request) :: req(2)
#else
  integer :: cart, win, req(2)
#endif
  integer :: ierr, rank, nprocs, next, across, prev
  double precision :: d10(10), r10(10), d5(5), r5(5), one(1), rtwo(2)
  double precision :: window(16), d4(4), d6(6), d2(2), res(1), gathered(8)
  integer :: i3(3), r3(3), n4(4), rn4(4), a2a(4), s8(8), r8(8), dims(1)
  character :: b7(7), rb7(7), big(1000), rbig(1000)
  logical :: periods(1)
  integer(kind=MPI_ADDRESS_KIND) :: window_bytes, disp

  d10 = 0; d5 = 0; one = 0; window = 0; d4 = 0; d2 = 0; gathered = 0
  i3 = 0; n4 = 0; a2a = 0; s8 = 0; b7 = ' '; big = ' '
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (nprocs /= 4) then
    if (rank == 0) print *, 'traffic: run with 4 ranks'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  next = mod(rank + 1, 4)
  across = mod(rank + 2, 4)
  prev = mod(rank + 3, 4)

  call MPI_Send(d10, 10, MPI_DOUBLE_PRECISION, next, 1, MPI_COMM_WORLD, ierr)
  call MPI_Recv(r10, 10, MPI_DOUBLE_PRECISION, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Irecv(r3, 3, MPI_INTEGER, next, 2, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(i3, 3, MPI_INTEGER, prev, 2, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  call MPI_Sendrecv(d5, 5, MPI_DOUBLE_PRECISION, across, 3, r5, 5, MPI_DOUBLE_PRECISION, across, 3, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)

  call MPI_Send_init(b7, 7, MPI_CHARACTER, next, 4, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Recv_init(rb7, 7, MPI_CHARACTER, prev, 4, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Start(req(1), ierr)
  call MPI_Start(req(2), ierr)
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  call MPI_Startall(2, req, ierr)
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  call MPI_Request_free(req(1), ierr)
  call MPI_Request_free(req(2), ierr)

  call MPI_Pcontrol(0)
  call MPI_Sendrecv(big, 1000, MPI_CHARACTER, next, 5, rbig, 1000, MPI_CHARACTER, prev, 5, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Pcontrol(1)

  dims(1) = 4
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)
  call MPI_Neighbor_alltoall(n4, 2, MPI_INTEGER, rn4, 2, MPI_INTEGER, cart, ierr)
  call MPI_Ineighbor_allgather(one, 1, MPI_DOUBLE_PRECISION, rtwo, 1, MPI_DOUBLE_PRECISION, cart, req(1), ierr)
  call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
  call MPI_Comm_free(cart, ierr)

  window_bytes = 16 * 8
  call MPI_Win_create(window, window_bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = 0
  call MPI_Put(d4, 4, MPI_DOUBLE_PRECISION, next, disp, 4, MPI_DOUBLE_PRECISION, win, ierr)
  disp = 4
  call MPI_Get(d6, 6, MPI_DOUBLE_PRECISION, across, disp, 6, MPI_DOUBLE_PRECISION, win, ierr)
  disp = 10
  call MPI_Accumulate(d2, 2, MPI_DOUBLE_PRECISION, prev, disp, 2, MPI_DOUBLE_PRECISION, MPI_SUM, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = 12
  call MPI_Get_accumulate(one, 1, MPI_DOUBLE_PRECISION, res, 1, MPI_DOUBLE_PRECISION, next, disp, 1, &
                          MPI_DOUBLE_PRECISION, MPI_SUM, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_free(win, ierr)

  call MPI_Iallgather(MPI_IN_PLACE, 999, MPI_INTEGER, gathered, 2, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, &
                      req(1), ierr)
  call MPI_Ialltoall(MPI_IN_PLACE, 999, MPI_INTEGER, a2a, 1, MPI_INTEGER, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  call MPI_Alltoall(s8, 2, MPI_INTEGER, r8, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)

  call MPI_Finalize(ierr)
end program traffic
