! Fortran 77 (include 'mpif.h', fixed form): point-to-point with
! statuses and MPI_STATUS(ES)_IGNORE, nonblocking with MPI_Waitall,
! collectives with MPI_IN_PLACE, MPI_BOTTOM with a struct type built
! from MPI_Get_address, LOGICAL arguments, MPI_Wtime. Run on 2
! processes; every check that fails aborts with code 1.
      PROGRAM F77P2P
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, PEER, I, N, ST(MPI_STATUS_SIZE)
      INTEGER STS(MPI_STATUS_SIZE, 4), REQS(4), BUF(10), OUT(10)
      INTEGER IA, TYPES(2), BLENS(2), STYPE, ISUM(3), IDX, OUTCNT
      INTEGER INDICES(4)
      INTEGER(KIND=MPI_ADDRESS_KIND) DISPS(2)
      DOUBLE PRECISION DA, T0, T1
      LOGICAL FLAG
      CALL MPI_INITIALIZED(FLAG, IERR)
      CALL CHECK(.NOT. FLAG .AND. IERR .EQ. MPI_SUCCESS,
     &           'initialized before MPI_Init')
      CALL MPI_INIT(IERR)
      CALL MPI_INITIALIZED(FLAG, IERR)
      CALL CHECK(FLAG, 'not initialized after MPI_Init')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL CHECK(NP .EQ. 2, 'run me on 2 processes')
      PEER = 1 - RANK
      T0 = MPI_WTIME()
! Blocking send and receive; the status's source, tag and count.
      IF (RANK .EQ. 0) THEN
         DO I = 1, 10
            OUT(I) = 100 + I
         END DO
         CALL MPI_SEND(OUT, 10, MPI_INTEGER, 1, 42, MPI_COMM_WORLD,
     &                 IERR)
         CALL MPI_SEND(OUT, 3, MPI_INTEGER, 1, 43, MPI_COMM_WORLD,
     &                 IERR)
      ELSE
         CALL MPI_RECV(BUF, 10, MPI_INTEGER, MPI_ANY_SOURCE,
     &                 MPI_ANY_TAG, MPI_COMM_WORLD, ST, IERR)
         CALL CHECK(IERR .EQ. MPI_SUCCESS, 'recv failed')
         CALL CHECK(ST(MPI_SOURCE) .EQ. 0, 'status source')
         CALL CHECK(ST(MPI_TAG) .EQ. 42, 'status tag')
         CALL MPI_GET_COUNT(ST, MPI_INTEGER, N, IERR)
         CALL CHECK(N .EQ. 10, 'count of 10')
         CALL CHECK(BUF(1) .EQ. 101 .AND. BUF(10) .EQ. 110, 'data')
         BUF(4) = -1
         CALL MPI_RECV(BUF, 10, MPI_INTEGER, 0, 43, MPI_COMM_WORLD,
     &                 MPI_STATUS_IGNORE, IERR)
         CALL CHECK(IERR .EQ. MPI_SUCCESS, 'recv STATUS_IGNORE')
         CALL CHECK(BUF(3) .EQ. 103 .AND. BUF(4) .EQ. -1,
     &              'data with STATUS_IGNORE')
         CALL CHECK(MPI_STATUS_IGNORE(1) .EQ. 0, 'ignore written')
      END IF
! Nonblocking exchange, completed by MPI_Waitall with statuses, then
! again with MPI_STATUSES_IGNORE; MPI_Test's LOGICAL flag.
      DO I = 1, 10
         OUT(I) = RANK * 1000 + I
         BUF(I) = 0
      END DO
      CALL MPI_IRECV(BUF, 5, MPI_INTEGER, PEER, 1, MPI_COMM_WORLD,
     &               REQS(1), IERR)
      CALL MPI_IRECV(BUF(6), 5, MPI_INTEGER, PEER, 2, MPI_COMM_WORLD,
     &               REQS(2), IERR)
      CALL MPI_ISEND(OUT, 5, MPI_INTEGER, PEER, 1, MPI_COMM_WORLD,
     &               REQS(3), IERR)
      CALL MPI_ISEND(OUT(6), 5, MPI_INTEGER, PEER, 2, MPI_COMM_WORLD,
     &               REQS(4), IERR)
      CALL MPI_WAITALL(4, REQS, STS, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'waitall')
      CALL CHECK(STS(MPI_TAG, 2) .EQ. 2 .AND.
     &           STS(MPI_SOURCE, 1) .EQ. PEER, 'waitall statuses')
      CALL CHECK(REQS(1) .EQ. MPI_REQUEST_NULL, 'request not freed')
      CALL CHECK(BUF(1) .EQ. PEER*1000+1 .AND.
     &           BUF(10) .EQ. PEER*1000+10, 'nonblocking data')
      CALL MPI_IRECV(BUF, 1, MPI_INTEGER, PEER, 3, MPI_COMM_WORLD,
     &               REQS(1), IERR)
      CALL MPI_ISEND(OUT, 1, MPI_INTEGER, PEER, 3, MPI_COMM_WORLD,
     &               REQS(2), IERR)
      FLAG = .FALSE.
      DO WHILE (.NOT. FLAG)
         CALL MPI_TEST(REQS(2), FLAG, MPI_STATUS_IGNORE, IERR)
      END DO
      CALL CHECK(REQS(2) .EQ. MPI_REQUEST_NULL, 'test did not free')
      CALL MPI_WAITALL(1, REQS, MPI_STATUSES_IGNORE, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'waitall STATUSES_IGNORE')
! MPI_WAITANY and MPI_WAITSOME count their indices from 1 in Fortran;
! with no active request, MPI_WAITANY's index is MPI_UNDEFINED.
      CALL MPI_IRECV(BUF, 1, MPI_INTEGER, PEER, 11, MPI_COMM_WORLD,
     &               REQS(1), IERR)
      CALL MPI_IRECV(BUF(2), 1, MPI_INTEGER, PEER, 12, MPI_COMM_WORLD,
     &               REQS(2), IERR)
      CALL MPI_SEND(OUT, 1, MPI_INTEGER, PEER, 11, MPI_COMM_WORLD, IERR)
      CALL MPI_SEND(OUT, 1, MPI_INTEGER, PEER, 12, MPI_COMM_WORLD, IERR)
      CALL MPI_WAITANY(2, REQS, IDX, ST, IERR)
      CALL CHECK(IDX .EQ. 1 .OR. IDX .EQ. 2, 'waitany index from 1')
      CALL CHECK(ST(MPI_TAG) .EQ. 10 + IDX, 'waitany status')
      CALL CHECK(REQS(IDX) .EQ. MPI_REQUEST_NULL, 'waitany request')
      INDICES(1) = -5
      CALL MPI_WAITSOME(2, REQS, OUTCNT, INDICES, STS, IERR)
      CALL CHECK(OUTCNT .EQ. 1 .AND. INDICES(1) .EQ. 3 - IDX,
     &           'waitsome indices from 1')
      CALL CHECK(STS(MPI_TAG, 1) .EQ. 13 - IDX, 'waitsome status')
      CALL MPI_WAITANY(2, REQS, IDX, ST, IERR)
      CALL CHECK(IDX .EQ. MPI_UNDEFINED, 'waitany of null requests')
      CALL MPI_WAITSOME(2, REQS, OUTCNT, INDICES, STS, IERR)
      CALL CHECK(OUTCNT .EQ. MPI_UNDEFINED, 'waitsome of nulls')
! Collectives in place: allreduce, reduce at the root.
      ISUM(1) = RANK + 1
      ISUM(2) = 10 * (RANK + 1)
      ISUM(3) = -RANK
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, ISUM, 3, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      CALL CHECK(ISUM(1) .EQ. 3 .AND. ISUM(2) .EQ. 30 .AND.
     &           ISUM(3) .EQ. -1, 'allreduce in place')
      ISUM(1) = RANK + 5
      IF (RANK .EQ. 0) THEN
         CALL MPI_REDUCE(MPI_IN_PLACE, ISUM, 1, MPI_INTEGER, MPI_MAX,
     &                   0, MPI_COMM_WORLD, IERR)
         CALL CHECK(ISUM(1) .EQ. 6, 'reduce in place')
      ELSE
         CALL MPI_REDUCE(ISUM, ISUM(2), 1, MPI_INTEGER, MPI_MAX,
     &                   0, MPI_COMM_WORLD, IERR)
      END IF
! MPI_BOTTOM: a struct of absolute addresses (an INTEGER and a DOUBLE
! PRECISION that are not adjacent) sent and received from MPI_BOTTOM.
! The compiler cannot see that MPI_SEND reads and MPI_RECV writes IA and
! DA: MPI_F_SYNC_REG stores them before and reloads them after (MPI-4.1
! 19.1.17), or an optimizer may keep them in registers.
      CALL MPI_GET_ADDRESS(IA, DISPS(1), IERR)
      CALL MPI_GET_ADDRESS(DA, DISPS(2), IERR)
      TYPES(1) = MPI_INTEGER
      TYPES(2) = MPI_DOUBLE_PRECISION
      BLENS(1) = 1
      BLENS(2) = 1
      CALL MPI_TYPE_CREATE_STRUCT(2, BLENS, DISPS, TYPES, STYPE, IERR)
      CALL MPI_TYPE_COMMIT(STYPE, IERR)
      IF (RANK .EQ. 0) THEN
         IA = 77
         DA = 2.5D0
         CALL MPI_F_SYNC_REG(IA)
         CALL MPI_F_SYNC_REG(DA)
         CALL MPI_SEND(MPI_BOTTOM, 1, STYPE, 1, 5, MPI_COMM_WORLD,
     &                 IERR)
      ELSE
         IA = 0
         DA = 0
         CALL MPI_F_SYNC_REG(IA)
         CALL MPI_F_SYNC_REG(DA)
         CALL MPI_RECV(MPI_BOTTOM, 1, STYPE, 0, 5, MPI_COMM_WORLD,
     &                 ST, IERR)
         CALL MPI_F_SYNC_REG(IA)
         CALL MPI_F_SYNC_REG(DA)
         CALL CHECK(IA .EQ. 77 .AND. DA .EQ. 2.5D0, 'MPI_BOTTOM data')
      END IF
      CALL MPI_TYPE_FREE(STYPE, IERR)
      CALL CHECK(STYPE .EQ. MPI_DATATYPE_NULL, 'type not freed')
      CALL CHECK(MPI_BOTTOM .EQ. 0, 'MPI_BOTTOM written')
! The handles are C's: MPI_COMM_WORLD compares identical to itself.
      CALL MPI_COMM_COMPARE(MPI_COMM_WORLD, 1140850688, N, IERR)
      CALL CHECK(N .EQ. MPI_IDENT, 'MPI_COMM_WORLD is not 0x44000000')
      T1 = MPI_WTIME()
      CALL CHECK(T1 .GE. T0 .AND. T1 - T0 .LT. 60, 'MPI_Wtime')
      CALL CHECK(MPI_WTICK() .GT. 0 .AND. MPI_WTICK() .LT. 1,
     &           'MPI_Wtick')
      CALL MPI_FINALIZE(IERR)
      CALL MPI_FINALIZED(FLAG, IERR)
      CALL CHECK(FLAG, 'not finalized')
      IF (RANK .EQ. 0) PRINT *, 'f77_p2p: ok'
      END

      SUBROUTINE CHECK(COND, MSG)
      LOGICAL COND
      CHARACTER*(*) MSG
      INCLUDE 'mpif.h'
      INTEGER IERR
      IF (.NOT. COND) THEN
         PRINT *, 'FAIL: ', MSG
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      END
