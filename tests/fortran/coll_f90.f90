! Fortran 90 form (use mpi, free source): collectives, communicators,
! datatypes and attributes through the Fortran bindings (ctest: 2-4
! ranks).  MPI_BCAST of a CHARACTER string, MPI_ALLREDUCE of INTEGER and
! DOUBLE PRECISION (also MPI_IN_PLACE), MPI_REDUCE with MPI_MAXLOC on
! MPI_2INTEGER, MPI_ALLGATHER, MPI_ALLTOALL, MPI_COMM_SPLIT and its ranks,
! a derived MPI_TYPE_VECTOR, MPI_COMM_GET_ATTR(MPI_TAG_UB) as an
! INTEGER(KIND=MPI_ADDRESS_KIND), MPI_ERROR_STRING, error classes under
! MPI_ERRORS_RETURN (a bad rank gives MPI_ERR_RANK), MPI_IALLREDUCE.
program coll_f90
  use mpi
  implicit none
  integer :: ierr, rank, nproc, i, sub, srank, ssize, vec, req, cls, slen
  integer :: ivals(2), imax(2), gath(64), a2a_in(64), a2a_out(64), mat(3, 4)
  double precision :: d, dsum
  character(len=16) :: msg
  character(len=MPI_MAX_ERROR_STRING) :: estr
  integer(kind=MPI_ADDRESS_KIND) :: tagub
  logical :: flag

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
  call check(nproc <= 64, 1)

  msg = ''
  if (rank == 0) msg = 'hello fortran'
  call MPI_BCAST(msg, len(msg), MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
  call check(msg == 'hello fortran', 2)

  call MPI_ALLREDUCE(rank + 1, i, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(i == nproc * (nproc + 1) / 2, 3)
  d = rank * 0.5d0
  call MPI_ALLREDUCE(MPI_IN_PLACE, d, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  dsum = 0
  do i = 0, nproc - 1
    dsum = dsum + i * 0.5d0
  end do
  call check(d == dsum, 4)

  ivals = (/ mod(rank * 7, nproc + 3), rank /)
  call MPI_REDUCE(ivals, imax, 1, MPI_2INTEGER, MPI_MAXLOC, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call check(imax(1) == maxval((/ (mod(i * 7, nproc + 3), i = 0, nproc - 1) /)), 5)

  call MPI_ALLGATHER(rank * 10, 1, MPI_INTEGER, gath, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 1, nproc
    call check(gath(i) == (i - 1) * 10, 6)
  end do
  do i = 1, nproc
    a2a_in(i) = rank * 100 + (i - 1)
  end do
  call MPI_ALLTOALL(a2a_in, 1, MPI_INTEGER, a2a_out, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 1, nproc
    call check(a2a_out(i) == (i - 1) * 100 + rank, 7)
  end do

  call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(rank, 2), -rank, sub, ierr)
  call MPI_COMM_RANK(sub, srank, ierr)
  call MPI_COMM_SIZE(sub, ssize, ierr)
  call check(ssize == (nproc + 1 - mod(rank, 2)) / 2, 8)
  call check(srank == ssize - 1 - rank / 2, 9)
  call MPI_COMM_FREE(sub, ierr)
  call check(sub == MPI_COMM_NULL, 10)

  ! row 2 of a 3x4 matrix (column major: stride 3)
  call MPI_TYPE_VECTOR(4, 1, 3, MPI_INTEGER, vec, ierr)
  call MPI_TYPE_COMMIT(vec, ierr)
  mat = -1
  if (rank == 0) mat(2, :) = (/ 1, 2, 3, 4 /)
  call MPI_BCAST(mat(2, 1), 1, vec, 0, MPI_COMM_WORLD, ierr)
  call check(all(mat(2, :) == (/ 1, 2, 3, 4 /)) .and. all(mat(1, :) == -1), 11)
  call MPI_TYPE_FREE(vec, ierr)

  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, tagub, flag, ierr)
  call check(flag .and. tagub >= 32767, 12)

  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_SEND(i, 1, MPI_INTEGER, nproc + 5, 0, MPI_COMM_WORLD, ierr)
  call MPI_ERROR_CLASS(ierr, cls, i)
  call check(cls == MPI_ERR_RANK, 13)
  call MPI_ERROR_STRING(ierr, estr, slen, i)
  call check(slen > 0 .and. len_trim(estr) == slen, 14)

  d = 1
  call MPI_IALLREDUCE(MPI_IN_PLACE, d, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
  call check(d == nproc, 15)

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
end program coll_f90
