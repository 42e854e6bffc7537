! Fortran 90 (use mpi): the module's interfaces accept the calls of a usual program
! (choice buffers of any type and rank, MPI_IN_PLACE, MPI_BOTTOM, statuses and
! MPI_STATUS(ES)_IGNORE) and strings cross both ways: MPI_Comm_set_name/get_name,
! MPI_Get_processor_name, MPI_Error_string, MPI_Info_set/get with blank-padded
! Fortran strings, MPI_Get_library_version. LOGICALs: MPI_Initialized, MPI_Test,
! MPI_Comm_test_inter, MPI_Info_get's flag. Run on 2 processes.
program f90_basic
  use mpi
  implicit none
  integer :: ierr, rank, np, peer, n, info, i, reqs(2), st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2)
  real(8) :: a(3, 4), b(3, 4)
  integer :: iv(4), outcount
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=8) :: short
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  character(len=MPI_MAX_ERROR_STRING) :: msg
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
  character(len=40) :: val
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call check(np == 2, 'run me on 2 processes')
  peer = 1 - rank

  ! A two-dimensional REAL(8) array and an INTEGER array through one interface.
  a = reshape([(dble(i + 100 * rank), i = 1, 12)], [3, 4])
  b = 0
  call MPI_Irecv(b, 12, MPI_DOUBLE_PRECISION, peer, 9, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(a, 12, MPI_DOUBLE_PRECISION, peer, 9, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, sts, ierr)
  call check(ierr == MPI_SUCCESS .and. sts(MPI_SOURCE, 1) == peer .and. sts(MPI_TAG, 1) == 9, 'waitall status')
  call check(b(1, 1) == 1 + 100 * peer .and. b(3, 4) == 12 + 100 * peer, 'real(8) array data')
  call MPI_Get_count(sts(:, 1), MPI_DOUBLE_PRECISION, n, ierr)
  call check(n == 12, 'count of the 2-D array')
  iv = rank
  call MPI_Sendrecv_replace(iv(2), 2, MPI_INTEGER, peer, 3, peer, 3, MPI_COMM_WORLD, st, ierr)
  call check(iv(1) == rank .and. iv(2) == peer .and. iv(3) == peer .and. iv(4) == rank, 'sendrecv_replace on a section')
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, peer, 4, n, 1, MPI_INTEGER, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(n == peer, 'sendrecv of scalars with MPI_STATUS_IGNORE')
  iv = [1, 2, 3, 4] * (rank + 1)
  call MPI_Allreduce(MPI_IN_PLACE, iv, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(iv == [3, 6, 9, 12]), 'allreduce in place')
  iv = -1
  iv(rank + 1) = 10 * rank
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, iv, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(iv(1) == 0 .and. iv(2) == 10, 'allgather in place')
  call MPI_Irecv(n, 1, MPI_INTEGER, peer, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, peer, 5, MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(reqs(1), flag, st, ierr)
  end do
  call check(n == peer .and. st(MPI_TAG) == 5 .and. reqs(1) == MPI_REQUEST_NULL, 'MPI_Test')
  ! MPI_Testany's and MPI_Testsome's indices count from 1.
  reqs = MPI_REQUEST_NULL
  call MPI_Irecv(n, 1, MPI_INTEGER, peer, 6, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, peer, 6, MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Testany(2, reqs, i, flag, st, ierr)
  end do
  call check(i == 2 .and. n == peer .and. st(MPI_TAG) == 6, 'MPI_Testany index from 1')
  call MPI_Irecv(n, 1, MPI_INTEGER, peer, 7, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, peer, 7, MPI_COMM_WORLD, ierr)
  outcount = 0
  do while (outcount == 0)
    call MPI_Testsome(2, reqs, outcount, iv, sts, ierr)
  end do
  call check(outcount == 1 .and. iv(1) == 1 .and. sts(MPI_TAG, 1) == 7, 'MPI_Testsome indices from 1')
  call MPI_Comm_test_inter(MPI_COMM_WORLD, flag, ierr)
  call check(.not. flag, 'MPI_COMM_WORLD is an intercommunicator')

  ! MPI_Sizeof: the size of one element, of a scalar or an array of any rank.
  call MPI_Sizeof(a, n, ierr)
  call check(n == 8 .and. ierr == MPI_SUCCESS, 'MPI_Sizeof of a REAL(8) array')
  call MPI_Sizeof(iv(1), n, ierr)
  call check(n == 4, 'MPI_Sizeof of an INTEGER')
  call MPI_Sizeof((1.0, 2.0), n, ierr)
  call check(n == 8, 'MPI_Sizeof of a COMPLEX')
  call MPI_Sizeof(1_8, n, ierr)
  call check(n == 8, 'MPI_Sizeof of an INTEGER(8)')

  ! Names: set with trailing blanks, read back blank-padded; a short buffer truncates.
  call MPI_Comm_get_name(MPI_COMM_WORLD, name, n, ierr)
  call check(name == 'MPI_COMM_WORLD' .and. n == 14, 'name of MPI_COMM_WORLD')
  call MPI_Comm_set_name(MPI_COMM_SELF, 'my self comm    ', ierr)
  name = repeat('x', len(name))
  call MPI_Comm_get_name(MPI_COMM_SELF, name, n, ierr)
  call check(n == 12 .and. name(1:12) == 'my self comm' .and. name(13:) == ' ', 'set/get name: ['//trim(name)//']')
  call MPI_Comm_get_name(MPI_COMM_SELF, short, n, ierr)
  call check(short == 'my self ' .and. n == 12, 'name into a short string')
  call MPI_Get_processor_name(host, n, ierr)
  call check(n > 0 .and. n == len_trim(host), 'processor name')
  call MPI_Error_string(MPI_ERR_RANK, msg, n, ierr)
  call check(n > 0 .and. n == len_trim(msg) .and. ierr == MPI_SUCCESS, 'error string: '//trim(msg))
  call MPI_Get_library_version(version, n, ierr)
  call check(index(version, 'mpix') > 0 .and. n == len_trim(version), 'library version')

  ! Info: keys and values with blanks around them.
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, '  color  ', ' blue sky   ', ierr)
  call check(ierr == MPI_SUCCESS, 'info set')
  val = repeat('z', len(val))
  call MPI_Info_get(info, 'color', len(val), val, flag, ierr)
  call check(flag .and. val == 'blue sky', 'info get: ['//val//']')
  call MPI_Info_get_valuelen(info, 'color ', n, flag, ierr)
  call check(flag .and. n == 8, 'info valuelen')
  val = 'unchanged'
  call MPI_Info_get(info, 'nokey', len(val), val, flag, ierr)
  call check(.not. flag .and. val == 'unchanged', 'info get of a missing key')
  ! MPI_Info_get_string: Fortran's buflen counts characters only (no NUL); 0 asks.
  n = 4
  call MPI_Info_get_string(info, 'color', n, val, flag, ierr)
  call check(flag .and. val == 'blue' .and. n == 8, 'info get_string truncated: ['//trim(val)//']')
  n = 0
  val = 'unchanged'
  call MPI_Info_get_string(info, 'color', n, val, flag, ierr)
  call check(flag .and. val == 'unchanged' .and. n == 8, 'info get_string of length 0')
  n = len(val)
  call MPI_Info_get_string(info, 'color', n, val, flag, ierr)
  call check(flag .and. val == 'blue sky' .and. n == 8, 'info get_string')
  call MPI_Info_get_nkeys(info, n, ierr)
  call check(n == 1, 'one key')
  call MPI_Info_get_nthkey(info, 0, val, ierr)
  call check(val == 'color', 'nth key')
  call MPI_Info_free(info, ierr)
  call check(info == MPI_INFO_NULL, 'info freed')

  call MPI_Finalize(ierr)
  if (rank == 0) print *, 'f90_basic: ok'
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
