! The project's Fortran program (use mpi): like hello.c, each rank checks that it runs
! on mpix with the world it expects (the first argument) and that a token goes round.
program hello
  use mpi
  implicit none
  integer :: ierr, rank, size, want, len, token, from
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib
  character(len=16) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Get_library_version(lib, len, ierr)
  want = size
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) want
  end if
  if (lib(1:5) /= 'mpix ' .or. size /= want) then
    print *, 'runs on ', trim(lib), ', not mpix, or size ', size, ' /= ', want
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  token = rank
  from = mod(rank + size - 1, size)
  call MPI_Sendrecv_replace(token, 1, MPI_INTEGER, mod(rank + 1, size), 0, from, 0, &
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (token /= from) then
    print *, 'rank ', rank, ' got ', token, ', want ', from
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  print '(a,i0,a,i0,a,a)', 'toolchain-ok Fortran rank ', rank, ' of ', size, ': ', trim(lib)
  call MPI_Finalize(ierr)
end program
