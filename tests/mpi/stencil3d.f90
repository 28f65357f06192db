! tests/mpi/stencil3d.c in Fortran with the mpi_f08 bindings: a periodic 3D Jacobi stencil on a
! Cartesian communicator created with reorder = .true., halos exchanged with MPI_Cart_shift +
! MPI_Sendrecv and, separately, with MPI_Neighbor_alltoall, both compared cell by cell with a
! single-process computation of the whole grid. Prints "stencil ok: WORLD CART" per process;
! a mismatch aborts with status 1.
program stencil3d
  use mpi_f08
  implicit none
  integer, parameter :: L = 4, STEPS = 5
  integer :: world, nprocs, rank, back, d, s, x, y, z, variant, low, high
  integer :: dims(3), coords(3), n(3)
  logical :: periods(3)
  type(MPI_Comm) :: cart
  double precision, allocatable :: whole(:,:,:), nxt(:,:,:), u(:,:,:), v(:,:,:)
  double precision :: send(L*L*6), recv(L*L*6)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, world)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  dims = 0
  periods = .true.
  call MPI_Dims_create(nprocs, 3, dims)
  call MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, .true., cart)
  call MPI_Comm_rank(cart, rank)
  call MPI_Cart_coords(cart, rank, 3, coords)
  call MPI_Cart_rank(cart, coords, back)
  if (back /= rank) call fail('MPI_Cart_rank does not invert MPI_Cart_coords')
  n = dims * L

  allocate(whole(0:n(1)-1, 0:n(2)-1, 0:n(3)-1), nxt(0:n(1)-1, 0:n(2)-1, 0:n(3)-1))
  do z = 0, n(3) - 1
    do y = 0, n(2) - 1
      do x = 0, n(1) - 1
        whole(x, y, z) = initial(x, y, z)
      end do
    end do
  end do
  do s = 1, STEPS
    do z = 0, n(3) - 1
      do y = 0, n(2) - 1
        do x = 0, n(1) - 1
          nxt(x, y, z) = (whole(x, y, z) + whole(modulo(x - 1, n(1)), y, z) + whole(modulo(x + 1, n(1)), y, z) &
                          + whole(x, modulo(y - 1, n(2)), z) + whole(x, modulo(y + 1, n(2)), z) &
                          + whole(x, y, modulo(z - 1, n(3))) + whole(x, y, modulo(z + 1, n(3)))) / 7.0d0
        end do
      end do
    end do
    whole = nxt
  end do

  allocate(u(0:L+1, 0:L+1, 0:L+1), v(0:L+1, 0:L+1, 0:L+1))
  do variant = 0, 1
    u = 0
    do z = 1, L
      do y = 1, L
        do x = 1, L
          u(x, y, z) = initial(coords(1) * L + x - 1, coords(2) * L + y - 1, coords(3) * L + z - 1)
        end do
      end do
    end do
    do s = 1, STEPS
      if (variant == 0) then
        do d = 1, 3
          call MPI_Cart_shift(cart, d - 1, 1, low, high)
          call pack(d, L, send(1:L*L))
          call MPI_Sendrecv(send, L * L, MPI_DOUBLE_PRECISION, high, d, recv, L * L, MPI_DOUBLE_PRECISION, low, d, &
                            cart, MPI_STATUS_IGNORE)
          call unpack(d, 0, recv(1:L*L))
          call pack(d, 1, send(1:L*L))
          call MPI_Sendrecv(send, L * L, MPI_DOUBLE_PRECISION, low, 3 + d, recv, L * L, MPI_DOUBLE_PRECISION, high, &
                            3 + d, cart, MPI_STATUS_IGNORE)
          call unpack(d, L + 1, recv(1:L*L))
        end do
      else
        ! Neighbours in the order (d, -1), (d, +1) for d = 1, 2, 3.
        do d = 1, 3
          call pack(d, 1, send((2 * d - 2) * L * L + 1:(2 * d - 1) * L * L))
          call pack(d, L, send((2 * d - 1) * L * L + 1:2 * d * L * L))
        end do
        call MPI_Neighbor_alltoall(send, L * L, MPI_DOUBLE_PRECISION, recv, L * L, MPI_DOUBLE_PRECISION, cart)
        do d = 1, 3
          call unpack(d, 0, recv((2 * d - 2) * L * L + 1:(2 * d - 1) * L * L))
          call unpack(d, L + 1, recv((2 * d - 1) * L * L + 1:2 * d * L * L))
        end do
      end if
      do z = 1, L
        do y = 1, L
          do x = 1, L
            v(x, y, z) = (u(x, y, z) + u(x - 1, y, z) + u(x + 1, y, z) + u(x, y - 1, z) + u(x, y + 1, z) &
                          + u(x, y, z - 1) + u(x, y, z + 1)) / 7.0d0
          end do
        end do
      end do
      u = v
    end do
    do z = 1, L
      do y = 1, L
        do x = 1, L
          if (u(x, y, z) /= whole(coords(1) * L + x - 1, coords(2) * L + y - 1, coords(3) * L + z - 1)) then
            call fail('the halos give a different grid')
          end if
        end do
      end do
    end do
  end do
  print '(a, i0, a, i0)', 'stencil ok: ', world, ' ', rank
  call MPI_Comm_free(cart)
  call MPI_Finalize()

contains

  double precision function initial(gx, gy, gz)
    integer, intent(in) :: gx, gy, gz
    initial = dble(modulo(gx * 7 + gy * 13 + gz * 17, 11))
  end function

  ! The layer `layer` of dimension d, interior cells only, to a buffer and back.
  subroutine pack(dd, layer, buffer)
    integer, intent(in) :: dd, layer
    double precision, intent(out) :: buffer(:)
    select case (dd)
    case (1)
      buffer = reshape(u(layer, 1:L, 1:L), [L * L])
    case (2)
      buffer = reshape(u(1:L, layer, 1:L), [L * L])
    case default
      buffer = reshape(u(1:L, 1:L, layer), [L * L])
    end select
  end subroutine

  subroutine unpack(dd, layer, buffer)
    integer, intent(in) :: dd, layer
    double precision, intent(in) :: buffer(:)
    select case (dd)
    case (1)
      u(layer, 1:L, 1:L) = reshape(buffer, [L, L])
    case (2)
      u(1:L, layer, 1:L) = reshape(buffer, [L, L])
    case default
      u(1:L, 1:L, layer) = reshape(buffer, [L, L])
    end select
  end subroutine

  subroutine fail(what)
    character(*), intent(in) :: what
    write (0, '(2a)') 'stencil: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine
end program
