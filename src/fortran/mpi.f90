! The mpi module of Sluice (src/fortran/README.md): mpif.h's constants,
! COMMON blocks and MPI_WTIME/MPI_WTICK.  The routines themselves are
! external (no explicit interfaces yet): mpifort lets gfortran accept
! buffers of different types in calls to one routine.
module mpi
  implicit none
  include 'mpif.h'
end module mpi
