! The project's Fortran 2008 program (use mpi_f08): like hello.f90, with TYPE(MPI_Comm)
! handles and the optional ierror left out.
program hello_f08
  use mpi_f08
  implicit none
  integer :: rank, size, want, len, token, from
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib
  character(len=16) :: arg
  type(MPI_Comm) :: comm
  call MPI_Init()
  comm = MPI_COMM_WORLD
  call MPI_Comm_rank(comm, rank)
  call MPI_Comm_size(comm, size)
  call MPI_Get_library_version(lib, len)
  want = size
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) want
  end if
  if (lib(1:5) /= 'mpix ' .or. size /= want) then
    print *, 'runs on ', trim(lib), ', not mpix, or size ', size, ' /= ', want
    call MPI_Abort(comm, 1)
  end if
  token = rank
  from = mod(rank + size - 1, size)
  call MPI_Sendrecv_replace(token, 1, MPI_INTEGER, mod(rank + 1, size), 0, from, 0, &
                            comm, MPI_STATUS_IGNORE)
  if (token /= from) then
    print *, 'rank ', rank, ' got ', token, ', want ', from
    call MPI_Abort(comm, 1)
  end if
  print '(a,i0,a,i0,a,a)', 'toolchain-ok Fortran rank ', rank, ' of ', size, ': ', trim(lib)
  call MPI_Finalize()
end program
