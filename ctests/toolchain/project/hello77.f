! The project's Fortran 77 program (include 'mpif.h'): a token goes round the ranks.
      PROGRAM HELLO77
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, TOKEN, FROM
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      TOKEN = RANK
      FROM = MOD(RANK + NP - 1, NP)
      CALL MPI_SENDRECV_REPLACE(TOKEN, 1, MPI_INTEGER, MOD(RANK+1, NP),
     &     0, FROM, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
      IF (TOKEN .NE. FROM) CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      PRINT '(A,I0,A,I0)', 'toolchain-ok F77 rank ', RANK, ' of ', NP
      CALL MPI_FINALIZE(IERR)
      END
