! Fortran callbacks and LOGICAL arrays through the bindings (ctest: 2-4
! ranks): a user reduction (MPI_OP_CREATE with a Fortran subroutine, not
! commutative: the operand order MPI defines is checked), a Fortran error
! handler (MPI_COMM_CREATE_ERRHANDLER) that sees the communicator and the
! error code, and a Cartesian grid with LOGICAL periods (MPI_CART_CREATE,
! MPI_CART_GET, MPI_CART_SHIFT, MPI_CART_SUB with LOGICAL remain_dims).
module callbacks
  implicit none
  integer :: handler_calls = 0, handler_code = 0
contains
  ! Pairs (value, digits): (a, m) op (b, n) = (a * 10**n + b, m + n),
  ! associative but not commutative; with (rank + 1, 1) from each rank the
  ! result in MPI's order is (12...n, n)
  subroutine digits(invec, inoutvec, len, datatype)
    integer, intent(in) :: len, datatype
    integer, intent(in) :: invec(len)
    integer, intent(inout) :: inoutvec(len)
    integer :: i
    do i = 1, len - 1, 2
      inoutvec(i) = invec(i) * 10**inoutvec(i + 1) + inoutvec(i)
      inoutvec(i + 1) = invec(i + 1) + inoutvec(i + 1)
    end do
  end subroutine digits

  subroutine on_error(comm, code)
    integer :: comm, code
    handler_calls = handler_calls + 1
    handler_code = code
  end subroutine on_error
end module callbacks

program callback_f90
  use mpi
  use callbacks
  implicit none
  integer :: ierr, rank, nproc, op, eh, v(2), res(2), want, i, cart, sub, cls
  integer :: dims(2), coords(2), src, dst, subsize
  logical :: periods(2), gperiods(2), remain(2)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)

  call MPI_OP_CREATE(digits, .false., op, ierr)
  v = (/ rank + 1, 1 /)
  call MPI_ALLREDUCE(v, res, 2, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  want = 0
  do i = 1, nproc
    want = want * 10 + i
  end do
  call check(ierr == MPI_SUCCESS .and. res(1) == want .and. res(2) == nproc, 1)
  call MPI_OP_FREE(op, ierr)
  call check(op == MPI_OP_NULL, 2)

  call MPI_COMM_CREATE_ERRHANDLER(on_error, eh, ierr)
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, eh, ierr)
  call MPI_SEND(v, 1, MPI_INTEGER, -7, 0, MPI_COMM_WORLD, ierr)
  call MPI_ERROR_CLASS(handler_code, cls, i)
  call check(handler_calls == 1 .and. cls == MPI_ERR_RANK, 3)
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  call MPI_ERRHANDLER_FREE(eh, ierr)

  dims = 0
  call MPI_DIMS_CREATE(nproc, 2, dims, ierr)
  periods = (/ .true., .false. /)
  call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call MPI_CART_GET(cart, 2, dims, gperiods, coords, ierr)
  call check(gperiods(1) .and. .not. gperiods(2), 4)
  call MPI_CART_SHIFT(cart, 0, 1, src, dst, ierr)
  call check(dst == mod(rank + dims(2), nproc) .or. dims(1) == 1, 5)
  remain = (/ .false., .true. /)
  call MPI_CART_SUB(cart, remain, sub, ierr)
  call MPI_COMM_SIZE(sub, subsize, ierr)
  call check(subsize == dims(2), 6)
  call MPI_COMM_FREE(sub, ierr)
  call MPI_COMM_FREE(cart, ierr)
  call MPI_FINALIZE(ierr)
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    integer, intent(in) :: what
    if (.not. ok) then
      print *, 'FAIL: check', what, 'rank', rank
      error stop 1
    end if
  end subroutine check
end program callback_f90
