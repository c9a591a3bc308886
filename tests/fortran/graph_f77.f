! Fixed form, mpif.h: distributed graph topologies and the special
! weight addresses.  A ring (each rank's source rank-1, destination
! rank+1): created with MPI_UNWEIGHTED it must be unweighted (LOGICAL
! weighted .FALSE.), and MPI_DIST_GRAPH_NEIGHBORS with MPI_UNWEIGHTED must
! leave the constant's storage alone; created with weights (10 + rank)
! it must be weighted and give the weights back; a rank with no edges at
! all passes MPI_WEIGHTS_EMPTY.  Before the bindings translated these
! addresses, the COMMON block's one INTEGER reached C as a weight array
! (ctest: 3 and 4 ranks).
      PROGRAM GRAPHF
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROC, G, H, E, INDEG, OUTDEG
      INTEGER SRC(1), DST(1), SW(1), DW(1), WSAVE
      LOGICAL WTD
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROC, IERR)
      WSAVE = MPI_UNWEIGHTED
      SRC(1) = MOD(RANK + NPROC - 1, NPROC)
      DST(1) = MOD(RANK + 1, NPROC)
      CALL MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 1, SRC,
     &     MPI_UNWEIGHTED, 1, DST, MPI_UNWEIGHTED, MPI_INFO_NULL,
     &     .FALSE., G, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 1)
      CALL MPI_DIST_GRAPH_NEIGHBORS_COUNT(G, INDEG, OUTDEG, WTD, IERR)
      CALL CHECK(INDEG .EQ. 1 .AND. OUTDEG .EQ. 1, 2)
      CALL CHECK(.NOT. WTD, 3)
      SRC(1) = -1
      DST(1) = -1
      CALL MPI_DIST_GRAPH_NEIGHBORS(G, 1, SRC, MPI_UNWEIGHTED, 1, DST,
     &     MPI_UNWEIGHTED, IERR)
      CALL CHECK(SRC(1) .EQ. MOD(RANK + NPROC - 1, NPROC), 4)
      CALL CHECK(DST(1) .EQ. MOD(RANK + 1, NPROC), 5)
      CALL CHECK(MPI_UNWEIGHTED .EQ. WSAVE, 6)
      CALL MPI_COMM_FREE(G, IERR)
!     weighted: the weight of edge (r-1 -> r) is 10 + r at both ends
      SW(1) = 10 + RANK
      DW(1) = 10 + MOD(RANK + 1, NPROC)
      CALL MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 1, SRC, SW,
     &     1, DST, DW, MPI_INFO_NULL, .FALSE., H, IERR)
      CALL MPI_DIST_GRAPH_NEIGHBORS_COUNT(H, INDEG, OUTDEG, WTD, IERR)
      CALL CHECK(WTD, 7)
      SW(1) = -1
      DW(1) = -1
      CALL MPI_DIST_GRAPH_NEIGHBORS(H, 1, SRC, SW, 1, DST, DW, IERR)
      CALL CHECK(SW(1) .EQ. 10 + RANK, 8)
      CALL CHECK(DW(1) .EQ. 10 + MOD(RANK + 1, NPROC), 9)
      CALL MPI_COMM_FREE(H, IERR)
!     no edges anywhere, weighted: MPI_WEIGHTS_EMPTY for the arrays
      CALL MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 0, SRC,
     &     MPI_WEIGHTS_EMPTY, 0, DST, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL,
     &     .FALSE., E, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 10)
      CALL MPI_DIST_GRAPH_NEIGHBORS_COUNT(E, INDEG, OUTDEG, WTD, IERR)
      CALL CHECK(INDEG .EQ. 0 .AND. OUTDEG .EQ. 0, 11)
      CALL CHECK(WTD, 12)
      CALL MPI_COMM_FREE(E, IERR)
      CALL MPI_FINALIZE(IERR)
      IF (RANK .EQ. 0) PRINT *, 'graph_f77: ok'
      END

      SUBROUTINE CHECK(OK, WHAT)
      LOGICAL OK
      INTEGER WHAT
      IF (.NOT. OK) THEN
        PRINT *, 'FAIL: check', WHAT
        STOP 1
      END IF
      END
