! MPI_Abort from Fortran ends the whole job cleanly: rank 1 aborts with code 7 while
! rank 0 waits in a receive that nothing will match; mpixexec exits with 7 and names
! the rank (ctest checks the exit status, the message and the time).
program abort
  use mpi
  implicit none
  integer :: ierr, rank, x
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 1) then
    call MPI_Abort(MPI_COMM_WORLD, 7, ierr)
    print *, 'MPI_Abort returned'
  else
    call MPI_Recv(x, 1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    print *, 'the receive completed'
  end if
  call MPI_Finalize(ierr)
end program
