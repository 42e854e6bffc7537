! Profiling from Fortran (2 processes): the calls a tool intercepts by defining mpi_x_
! reach it and, through pmpi_x_, the library (pmpi_count.c counts them). The program
! is free-form source that includes mpif.h, which must read as free form too.
program pmpi
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, rank2, barriers, ranks
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call PMPI_Comm_rank(MPI_COMM_WORLD, rank2, ierr)
  call pmpi_counts(barriers, ranks)
  if (barriers /= 2 .or. ranks /= 1 .or. rank2 /= rank .or. ierr /= MPI_SUCCESS) then
    print *, 'FAIL: intercepted', barriers, ' barriers and', ranks, ' rank calls'
    flush(6)
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Finalize(ierr)
  if (rank == 0) print *, 'f90_pmpi: ok'
end program
