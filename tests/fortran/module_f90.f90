! The mpi module's explicit interfaces (ctest: 2 ranks): calls with
! keyword arguments in any order, MPI_WTIME as a declared function, and
! choice buffers of several types, ranks and MPI_IN_PLACE in one unit.
! (Keyword calls only of routines without choice buffers: MPICH's module,
! which the same source is checked against, has no interface for those.)
program module_f90
  use mpi
  implicit none
  integer :: ierr, r, n, v(3), m(2, 2)
  double precision :: d
  real :: x
  logical :: flag
  call MPI_INIT(ierror=ierr)
  call MPI_COMM_SIZE(ierror=ierr, comm=MPI_COMM_WORLD, size=n)
  call MPI_COMM_RANK(comm=MPI_COMM_WORLD, rank=r, ierror=ierr)
  v = r + 1
  call MPI_ALLREDUCE(MPI_IN_PLACE, v, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(v == n * (n + 1) / 2), 1)
  d = MPI_WTIME()
  x = real(r)
  m = r
  call MPI_BCAST(d, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  call MPI_TYPE_SIZE(size=v(1), datatype=MPI_DOUBLE_PRECISION, ierror=ierr)
  call check(v(1) == 8, 4)
  call MPI_BCAST(x, 1, MPI_REAL, n - 1, MPI_COMM_WORLD, ierr)
  call MPI_BCAST(m, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call check(x == real(n - 1) .and. all(m == 0) .and. ierr == MPI_SUCCESS, 2)
  call MPI_INITIALIZED(flag, ierr)
  call check(flag, 3)
  call MPI_FINALIZE(ierr)
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    integer, intent(in) :: what
    if (.not. ok) then
      print *, 'FAIL: check', what
      error stop 1
    end if
  end subroutine check
end program module_f90
