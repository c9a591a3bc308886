! The mpi module of Sluice (src/fortran/README.md): mpif.h's constants and
! COMMON blocks, and an explicit interface for every routine it binds
! (mpi_interfaces.inc, generated from mpi.h; choice buffers accept any
! type and rank through gfortran's NO_ARG_CHECK), so that calls are
! checked at compile time and keyword arguments work.
module mpi
  implicit none
  include 'mpif_consts.h'
  interface
    include 'mpi_interfaces.inc'

    subroutine MPI_INIT(ierror)
      integer :: ierror
    end subroutine MPI_INIT

    subroutine MPI_INIT_THREAD(required, provided, ierror)
      integer :: required, provided, ierror
    end subroutine MPI_INIT_THREAD

    double precision function MPI_WTIME()
    end function MPI_WTIME

    double precision function MPI_WTICK()
    end function MPI_WTICK

    subroutine MPI_PCONTROL(level)
      integer :: level
    end subroutine MPI_PCONTROL

    subroutine MPI_COMM_GET_ATTR(comm, comm_keyval, attribute_val, flag, ierror)
      integer :: comm, comm_keyval, ierror
      integer(kind=8) :: attribute_val
      logical :: flag
    end subroutine MPI_COMM_GET_ATTR

    subroutine MPI_COMM_SET_ATTR(comm, comm_keyval, attribute_val, ierror)
      integer :: comm, comm_keyval, ierror
      integer(kind=8) :: attribute_val
    end subroutine MPI_COMM_SET_ATTR

    subroutine MPI_ATTR_GET(comm, keyval, attribute_val, flag, ierror)
      integer :: comm, keyval, attribute_val, ierror
      logical :: flag
    end subroutine MPI_ATTR_GET

    subroutine MPI_ATTR_PUT(comm, keyval, attribute_val, ierror)
      integer :: comm, keyval, attribute_val, ierror
    end subroutine MPI_ATTR_PUT
  end interface
end module mpi
