! MPI_Comm_spawn and MPI_Comm_spawn_multiple from Fortran (1 process): the argument
! vectors (CHARACTER arrays ended by a blank entry, ARRAY_OF_ARGV(COUNT, *)),
! MPI_ARGV_NULL, MPI_ARGVS_NULL and MPI_ERRCODES_IGNORE reach C as C's argv and
! constants. spawn_capture.c stands in for the C calls and records what they got.
program spawn
  use mpi
  implicit none
  integer :: ierr, inter, codes(4), maxprocs(2), infos(2)
  character(len=6) :: args(3)
  character(len=4) :: cmds(2), argvs(2, 3)
  character(len=200) :: seen

  call MPI_Init(ierr)
  args = [character(len=6) :: '-x', 'y z', ' ']
  call MPI_Comm_spawn('worker  ', args, 3, MPI_INFO_NULL, 0, MPI_COMM_SELF, inter, MPI_ERRCODES_IGNORE, ierr)
  call spawn_seen(seen)
  call check(seen == 'worker|-x|y z/ignore/3' .and. ierr == MPI_ERR_SPAWN, 'spawn: '//seen)
  call MPI_Comm_spawn('w', MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_SELF, inter, codes, ierr)
  call spawn_seen(seen)
  call check(seen == 'w|NULL/errcodes/2', 'spawn with MPI_ARGV_NULL: '//seen)
  cmds = [character(len=4) :: 'a', 'bb']
  argvs = ' '
  argvs(1, 1) = '1'
  argvs(1, 2) = '22'
  argvs(2, 1) = 'z'
  maxprocs = [1, 2]
  infos = MPI_INFO_NULL
  call MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_SELF, inter, codes, ierr)
  call spawn_seen(seen)
  call check(seen == 'a|1|22;bb|z/errcodes/1/2', 'spawn_multiple: '//seen)
  call MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, maxprocs, infos, 0, MPI_COMM_SELF, inter, &
                               MPI_ERRCODES_IGNORE, ierr)
  call spawn_seen(seen)
  call check(seen == 'a|NULL;bb|NULL/ignore/1/2', 'spawn_multiple with MPI_ARGVS_NULL: '//seen)
  call MPI_Finalize(ierr)
  print *, 'f90_spawn: ok'
contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. cond) then
      print *, 'FAIL: ', what
      flush(6)
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine
end program
