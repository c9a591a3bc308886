! Fortran 77 form (include 'mpif.h', fixed source): point-to-point through
! the Fortran bindings (ctest: 2-4 ranks).  A ring of blocking and
! immediate sends of INTEGER and DOUBLE PRECISION arrays with their
! statuses (source, tag, MPI_GET_COUNT), MPI_STATUS_IGNORE and
! MPI_STATUSES_IGNORE, MPI_SENDRECV, MPI_PROBE, a LOGICAL flag from
! MPI_TEST, MPI_GET_PROCESSOR_NAME (a blank-padded string) and
! MPI_WTIME.  Any wrong value stops the rank with status 1.
      PROGRAM P2PF77
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER N
      PARAMETER (N=1000)
      INTEGER IERR, RANK, SIZE, NEXT, PREV, I, CNT, NLEN
      INTEGER IBUF(N), JBUF(N), REQS(2), ST(MPI_STATUS_SIZE)
      INTEGER STS(MPI_STATUS_SIZE, 2)
      DOUBLE PRECISION DBUF(N), EBUF(N), T0
      CHARACTER*(MPI_MAX_PROCESSOR_NAME) PNAME
      LOGICAL FLAG
      CALL MPI_INIT(IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 1)
      T0 = MPI_WTIME()
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, SIZE, IERR)
      NEXT = MOD(RANK + 1, SIZE)
      PREV = MOD(RANK + SIZE - 1, SIZE)
      DO I = 1, N
         IBUF(I) = RANK * N + I
         DBUF(I) = RANK + I / 4.0D0
      END DO
! blocking ring: even ranks send first
      IF (MOD(RANK, 2) .EQ. 0) THEN
         CALL MPI_SEND(IBUF, N, MPI_INTEGER, NEXT, 7, MPI_COMM_WORLD,
     &                 IERR)
         CALL MPI_RECV(JBUF, N, MPI_INTEGER, PREV, 7, MPI_COMM_WORLD,
     &                 ST, IERR)
      ELSE
         CALL MPI_RECV(JBUF, N, MPI_INTEGER, PREV, 7, MPI_COMM_WORLD,
     &                 ST, IERR)
         CALL MPI_SEND(IBUF, N, MPI_INTEGER, NEXT, 7, MPI_COMM_WORLD,
     &                 IERR)
      END IF
      CALL CHECK(ST(MPI_SOURCE) .EQ. PREV .AND. ST(MPI_TAG) .EQ. 7, 2)
      CALL MPI_GET_COUNT(ST, MPI_INTEGER, CNT, IERR)
      CALL CHECK(CNT .EQ. N, 3)
      DO I = 1, N
         CALL CHECK(JBUF(I) .EQ. PREV * N + I, 4)
      END DO
! immediate, then MPI_WAITALL with statuses
      CALL MPI_IRECV(EBUF, N, MPI_DOUBLE_PRECISION, PREV, 8,
     &               MPI_COMM_WORLD, REQS(1), IERR)
      CALL MPI_ISEND(DBUF, N, MPI_DOUBLE_PRECISION, NEXT, 8,
     &               MPI_COMM_WORLD, REQS(2), IERR)
      CALL MPI_WAITALL(2, REQS, STS, IERR)
      CALL CHECK(STS(MPI_SOURCE, 1) .EQ. PREV, 5)
      CALL CHECK(REQS(1) .EQ. MPI_REQUEST_NULL, 6)
      DO I = 1, N
         CALL CHECK(EBUF(I) .EQ. PREV + I / 4.0D0, 7)
      END DO
! MPI_STATUSES_IGNORE, MPI_TEST's LOGICAL flag
      CALL MPI_IRECV(JBUF, N, MPI_INTEGER, PREV, 9, MPI_COMM_WORLD,
     &               REQS(1), IERR)
      CALL MPI_ISEND(IBUF, 1, MPI_INTEGER, NEXT, 9, MPI_COMM_WORLD,
     &               REQS(2), IERR)
      CALL MPI_WAITALL(2, REQS, MPI_STATUSES_IGNORE, IERR)
      CALL CHECK(JBUF(1) .EQ. PREV * N + 1, 8)
      CALL MPI_ISEND(IBUF, 3, MPI_INTEGER, NEXT, 10, MPI_COMM_WORLD,
     &               REQS(2), IERR)
      CALL MPI_PROBE(PREV, 10, MPI_COMM_WORLD, ST, IERR)
      CALL MPI_GET_COUNT(ST, MPI_INTEGER, CNT, IERR)
      CALL CHECK(CNT .EQ. 3, 9)
      CALL MPI_RECV(JBUF, CNT, MPI_INTEGER, PREV, 10, MPI_COMM_WORLD,
     &              MPI_STATUS_IGNORE, IERR)
      FLAG = .FALSE.
      DO WHILE (.NOT. FLAG)
         CALL MPI_TEST(REQS(2), FLAG, ST, IERR)
      END DO
      CALL CHECK(REQS(2) .EQ. MPI_REQUEST_NULL, 10)
! MPI_SENDRECV
      CALL MPI_SENDRECV(RANK, 1, MPI_INTEGER, NEXT, 11, CNT, 1,
     &                  MPI_INTEGER, PREV, 11, MPI_COMM_WORLD, ST, IERR)
      CALL CHECK(CNT .EQ. PREV .AND. ST(MPI_SOURCE) .EQ. PREV, 11)
! a string out of C, blank-padded
      PNAME = 'x'
      CALL MPI_GET_PROCESSOR_NAME(PNAME, NLEN, IERR)
      CALL CHECK(NLEN .GT. 0 .AND. LEN_TRIM(PNAME) .EQ. NLEN, 12)
      CALL CHECK(MPI_WTIME() .GE. T0 .AND. MPI_WTICK() .GT. 0, 13)
      CALL MPI_FINALIZE(IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 14)
      END

      SUBROUTINE CHECK(OK, WHAT)
      LOGICAL OK
      INTEGER WHAT
      IF (.NOT. OK) THEN
         PRINT *, 'FAIL: check', WHAT
         STOP 1
      END IF
      END
