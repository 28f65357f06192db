! dist_graph.c from Fortran, for the reorder library's tests: built with -DTASKMAP_F08 (use
! mpi_f08), -DTASKMAP_USE_MPI (use mpi) or -DTASKMAP_MPIF_H (mpif.h). Four ranks, heavy pairs
! {0,1} and {2,3}, light pairs {0,2} and {1,3}. With the argument "weighted":
! MPI_Dist_graph_create_adjacent with weights 100 and 1; with "unweighted": MPI_Dist_graph_create
! with MPI_UNWEIGHTED, each process giving only the edge to its heavy partner. Each process
! checks that MPI_Dist_graph_neighbors gives the lists of the vertex it now is and that
! MPI_Neighbor_alltoall delivers from them, then prints "dist graph ok: WORLD NEW".
program dist_graph
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
  type(MPI_Comm) :: graph
#else
  integer :: graph
#endif
  integer :: ierr, world, nprocs, rank, indeg, outdeg, i
  integer :: list(2), weights(2), sources(2), source_weights(2), dests(2), dest_weights(2)
  integer :: expected(2), expected_weights(2), send(2), recv(2), one(1), degree(1), partner(1)
  logical :: weighted, with_weights
  character(len=16) :: mode

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, world, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (nprocs /= 4) call fail('run with 4 processes')
  call get_command_argument(1, mode)
  with_weights = mode == 'weighted'
  if (.not. with_weights .and. mode /= 'unweighted') call fail('argument: weighted or unweighted')
  if (with_weights) then
    call neighbours(world, list, weights)
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, list, weights, 2, list, weights, MPI_INFO_NULL, &
                                        .true., graph, ierr)
  else
    one(1) = world
    degree(1) = 1
    partner(1) = ieor(world, 1)
    call MPI_Dist_graph_create(MPI_COMM_WORLD, 1, one, degree, partner, MPI_UNWEIGHTED, MPI_INFO_NULL, &
                               .true., graph, ierr)
  end if
  call MPI_Comm_rank(graph, rank, ierr)
  call MPI_Dist_graph_neighbors_count(graph, indeg, outdeg, weighted, ierr)
  if (with_weights) then
    if (indeg /= 2 .or. outdeg /= 2 .or. .not. weighted) call fail('wrong neighbour counts')
    call MPI_Dist_graph_neighbors(graph, 2, sources, source_weights, 2, dests, dest_weights, ierr)
    call neighbours(rank, expected, expected_weights)
    do i = 1, 2
      if (sources(i) /= expected(i) .or. dests(i) /= expected(i)) call fail('neighbours are not those of the new rank')
      if (source_weights(i) /= expected_weights(i) .or. dest_weights(i) /= expected_weights(i)) call fail('wrong weights')
    end do
    send = rank
    recv = -1
    call MPI_Neighbor_alltoall(send, 1, MPI_INTEGER, recv, 1, MPI_INTEGER, graph, ierr)
    if (recv(1) /= expected(1) .or. recv(2) /= expected(2)) call fail('MPI_Neighbor_alltoall delivered from other ranks')
  else
    if (indeg /= 1 .or. outdeg /= 1 .or. weighted) call fail('wrong neighbour counts')
    call MPI_Dist_graph_neighbors(graph, 1, sources, source_weights, 1, dests, dest_weights, ierr)
    if (sources(1) /= ieor(rank, 1) .or. dests(1) /= ieor(rank, 1)) call fail('neighbours are not those of the new rank')
    send(1) = rank
    recv(1) = -1
    call MPI_Neighbor_alltoall(send, 1, MPI_INTEGER, recv, 1, MPI_INTEGER, graph, ierr)
    if (recv(1) /= ieor(rank, 1)) call fail('MPI_Neighbor_alltoall delivered from other ranks')
  end if
  print '(a, i0, a, i0)', 'dist graph ok: ', world, ' ', rank
  call MPI_Comm_free(graph, ierr)
  call MPI_Finalize(ierr)

contains

  ! Vertex v's neighbours: its heavy partner, then its light partner.
  subroutine neighbours(v, out, w)
    integer, intent(in) :: v
    integer, intent(out) :: out(2), w(2)
    out(1) = ieor(v, 1)
    w(1) = 100
    out(2) = ieor(v, 2)
    w(2) = 1
  end subroutine neighbours

  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: e
    print '(2a)', 'dist_graph: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine fail
end program dist_graph
