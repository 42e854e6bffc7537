! Fortran 2008 (use mpi_f08) on 2 processes: TYPE(MPI_Comm) and friends with ==/=,
! TYPE(MPI_Status) and MPI_STATUS(ES)_IGNORE, nonblocking calls and MPI_Waitall,
! collectives with MPI_IN_PLACE, a non-contiguous array section (a(1:n:2)) in blocking
! calls (checked element by element) and refused in a nonblocking one, the optional
! ierror absent and present (a bad rank under MPI_ERRORS_RETURN gives its class),
! strings both ways, LOGICAL flags, large-count (_c) forms through the same generic
! names, MPI_Status_f2f08/f082f, a user op, an error handler and a keyval with
! Fortran 2008 callbacks (copy and delete with INTEGER(KIND=MPI_ADDRESS_KIND) values).
module f08_basic_cb
  use mpi_f08
  implicit none
  integer :: handler_calls = 0, delete_calls = 0
contains
  subroutine absmax(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    if (datatype /= MPI_INTEGER) return
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = max(abs(a), abs(b))
  end subroutine
  subroutine on_error(comm, code)
    type(MPI_Comm) :: comm
    integer :: code
    if (comm == MPI_COMM_WORLD .and. code /= MPI_SUCCESS) handler_calls = handler_calls + 1
  end subroutine
  subroutine copy_fn(oldcomm, keyval, extra, attr_in, attr_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra, attr_in, attr_out
    logical :: flag
    attr_out = attr_in + extra
    flag = .true.
    ierror = MPI_SUCCESS
    if (.false.) print *, oldcomm%MPI_VAL, keyval
  end subroutine
  subroutine del_fn(comm, keyval, attr, extra, ierror)
    type(MPI_Comm) :: comm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attr, extra
    if (attr == 4242_MPI_ADDRESS_KIND .and. extra == 7_MPI_ADDRESS_KIND) delete_calls = delete_calls + 1
    ierror = MPI_SUCCESS
    if (.false.) print *, comm%MPI_VAL, keyval
  end subroutine
end module

program f08_basic
  use mpi_f08
  use f08_basic_cb
  use, intrinsic :: iso_c_binding, only : c_associated, c_loc
  implicit none
  integer, parameter :: n = 10
  integer :: rank, np, peer, ierr, i, cnt, errclass, fst(MPI_STATUS_SIZE), keyval
  integer :: a(n), b(n), c(n), iv(4), m2(4, 3)
  real(8) :: x(3, 4), y(3, 4)
  type(MPI_Status) :: st, sts(2), st2
  type(MPI_Request) :: reqs(2)
  type(MPI_Comm) :: dup
  type(MPI_Op) :: op
  type(MPI_Errhandler) :: eh
  type(MPI_Datatype) :: dt
  logical :: flag
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_ERROR_STRING) :: msg
  integer(kind=MPI_COUNT_KIND) :: big, tsize
  integer(kind=MPI_ADDRESS_KIND) :: attr

  call MPI_Init()
  call MPI_Initialized(flag, ierr)
  call check(flag .and. ierr == MPI_SUCCESS, 'MPI_Initialized (LOGICAL, ierror present)')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  call check(np == 2, 'run me on 2 processes')
  peer = 1 - rank
  call check(MPI_COMM_WORLD /= MPI_COMM_SELF .and. MPI_COMM_WORLD == MPI_COMM_WORLD, 'handle operators')
  call check(storage_size(st) == 5 * storage_size(i), 'TYPE(MPI_Status) is 20 bytes')
  ! the special objects are C's (include/mpi.h): C's pointers point at them
  call check(c_associated(MPI_F08_STATUS_IGNORE, c_loc(MPI_STATUS_IGNORE)), 'MPI_F08_STATUS_IGNORE')
  call check(c_associated(MPI_F08_STATUSES_IGNORE, c_loc(MPI_STATUSES_IGNORE)), 'MPI_F08_STATUSES_IGNORE')

  ! p2p with a status, then with MPI_STATUS_IGNORE
  a = [(i + 100 * rank, i = 1, n)]
  b = -1
  if (rank == 0) then
    call MPI_Send(a, n, MPI_INTEGER, peer, 7, MPI_COMM_WORLD)
    call MPI_Recv(b, n, MPI_INTEGER, peer, 8, MPI_COMM_WORLD, st)
  else
    call MPI_Recv(b, n, MPI_INTEGER, peer, 7, MPI_COMM_WORLD, st)
    call MPI_Send(a, n, MPI_INTEGER, peer, 8, MPI_COMM_WORLD)
  end if
  ! (MPI_ERROR is not set by a single completion: MPI-4.1 §3.2.5)
  call check(st%MPI_SOURCE == peer .and. st%MPI_TAG == 8 - rank, 'recv status')
  call MPI_Get_count(st, MPI_INTEGER, cnt)
  call check(cnt == n, 'MPI_Get_count')
  call check(all(b == [(i + 100 * peer, i = 1, n)]), 'recv data')
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, peer, 4, cnt, 1, MPI_INTEGER, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(cnt == peer, 'sendrecv with MPI_STATUS_IGNORE')

  ! nonblocking and MPI_Waitall, with statuses and with MPI_STATUSES_IGNORE
  x = reshape([(dble(i + 100 * rank), i = 1, 12)], [3, 4])
  y = 0
  call MPI_Irecv(y, 12, MPI_DOUBLE_PRECISION, peer, 9, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(x, 12, MPI_DOUBLE_PRECISION, peer, 9, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, sts, ierr)
  call check(ierr == MPI_SUCCESS .and. sts(1)%MPI_SOURCE == peer .and. sts(1)%MPI_TAG == 9, 'waitall statuses')
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'requests freed')
  call check(y(1, 1) == 1 + 100 * peer .and. y(3, 4) == 12 + 100 * peer, 'real(8) 2-D data')
  call MPI_Irecv(cnt, 1, MPI_INTEGER, peer, 10, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(rank, 1, MPI_INTEGER, peer, 10, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call check(cnt == peer, 'waitall with MPI_STATUSES_IGNORE')
  call MPI_Irecv(cnt, 1, MPI_INTEGER, peer, 11, MPI_COMM_WORLD, reqs(1))
  call MPI_Send(rank, 1, MPI_INTEGER, peer, 11, MPI_COMM_WORLD)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(reqs(1), flag, st)
  end do
  call check(cnt == peer .and. st%MPI_TAG == 11, 'MPI_Test LOGICAL flag')

  ! collectives with MPI_IN_PLACE
  iv = [1, 2, 3, 4] * (rank + 1)
  call MPI_Allreduce(MPI_IN_PLACE, iv, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(all(iv == [3, 6, 9, 12]), 'allreduce in place')
  iv = -1
  iv(rank + 1) = 10 * rank
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, iv, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call check(iv(1) == 0 .and. iv(2) == 10, 'allgather in place')
  iv = rank + 1
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, iv, 4, MPI_INTEGER, MPI_PROD, 0, MPI_COMM_WORLD)
    call check(all(iv == 2), 'reduce in place at the root')
  else
    call MPI_Reduce(iv, iv, 4, MPI_INTEGER, MPI_PROD, 0, MPI_COMM_WORLD)
  end if
  call MPI_Bcast(iv, 4, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(all(iv == 2), 'bcast')
  call MPI_Barrier(MPI_COMM_WORLD)

  ! non-contiguous sections in blocking calls, element by element
  a = [(i + 1000 * rank, i = 1, n)]
  c = -7
  if (rank == 0) then
    call MPI_Send(a(1:n:2), n / 2, MPI_INTEGER, peer, 20, MPI_COMM_WORLD)
    call MPI_Recv(c(2:n:2), n / 2, MPI_INTEGER, peer, 21, MPI_COMM_WORLD, st)
  else
    call MPI_Recv(c(2:n:2), n / 2, MPI_INTEGER, peer, 20, MPI_COMM_WORLD, st)
    call MPI_Send(a(1:n:2), n / 2, MPI_INTEGER, peer, 21, MPI_COMM_WORLD)
  end if
  call MPI_Get_count(st, MPI_INTEGER, cnt)
  call check(cnt == n / 2, 'count of a section')
  do i = 1, n
    if (mod(i, 2) == 0) then
      call check(c(i) == i - 1 + 1000 * peer, 'section element received')
    else
      call check(c(i) == -7, 'element between the section untouched')
    end if
  end do
  ! a reversed section: array element order is the section's
  call MPI_Sendrecv(a(n:1:-1), n, MPI_INTEGER, peer, 23, c, n, MPI_INTEGER, peer, 23, MPI_COMM_WORLD, st)
  call check(all(c == [(n + 1 - i + 1000 * peer, i = 1, n)]), 'reversed section')
  ! a 2-D section (a row of a matrix) with a reduction that writes in place
  m2 = reshape([(i + rank, i = 1, 12)], [4, 3])
  call MPI_Allreduce(MPI_IN_PLACE, m2(2, :), 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  do i = 1, 3
    call check(m2(2, i) == 2 * (2 + 4 * (i - 1)) + 1, '2-D row allreduce')
    call check(m2(1, i) == 1 + 4 * (i - 1) + rank, 'other rows untouched')
  end do
  ! ... and refused in a nonblocking call, with the class of MPI_ERR_BUFFER
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Isend(a(1:n:2), n / 2, MPI_INTEGER, peer, 22, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Error_class(ierr, errclass)
  call check(errclass == MPI_ERR_BUFFER, 'non-contiguous nonblocking buffer refused')

  ! ierror: a bad rank under MPI_ERRORS_RETURN gives the class; omitted it is fine
  call MPI_Send(a, 1, MPI_INTEGER, 5, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, errclass)
  call check(errclass == MPI_ERR_RANK, 'bad rank gives MPI_ERR_RANK')
  call MPI_Send(a, 1, MPI_INTEGER, 5, 0, MPI_COMM_WORLD)
  call MPI_Error_string(ierr, msg, cnt)
  call check(cnt > 0 .and. cnt <= len(msg) .and. len_trim(msg) == cnt, 'error string')

  ! strings
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call check(dup /= MPI_COMM_WORLD, 'dup is a new handle')
  call MPI_Comm_set_name(dup, 'f08 dup   ')
  call MPI_Comm_get_name(dup, name, cnt)
  call check(name == 'f08 dup' .and. cnt == 7, 'comm name')
  call MPI_Comm_test_inter(dup, flag)
  call check(.not. flag, 'MPI_Comm_test_inter')

  ! large counts: the _c forms under the same generic names
  big = 3
  iv = rank
  call MPI_Sendrecv_replace(iv, big, MPI_INTEGER, peer, 30, peer, 30, dup, st)
  call MPI_Get_count(st, MPI_INTEGER, big)
  call check(all(iv(1:3) == peer) .and. iv(4) == rank .and. big == 3, 'large-count sendrecv_replace, get_count')
  call MPI_Type_size(MPI_DOUBLE_PRECISION, tsize)
  call check(tsize == 8_MPI_COUNT_KIND, 'MPI_Type_size_c')
  call MPI_Type_contiguous(2_MPI_COUNT_KIND, MPI_INTEGER, dt)
  call MPI_Type_commit(dt)
  call MPI_Type_size(dt, cnt)
  call check(cnt == 8, 'type from MPI_Type_contiguous_c')
  call MPI_Type_free(dt)
  call check(dt == MPI_DATATYPE_NULL, 'type freed')

  ! MPI_Status_f2f08 / f082f
  st%MPI_SOURCE = 3
  st%MPI_TAG = 44
  st%MPI_ERROR = MPI_ERR_TAG
  call MPI_Status_f082f(st, fst)
  call check(fst(MPI_SOURCE) == 3 .and. fst(MPI_TAG) == 44 .and. fst(MPI_ERROR) == MPI_ERR_TAG, 'f082f')
  call MPI_Status_f2f08(fst, st2, ierr)
  call check(ierr == MPI_SUCCESS .and. st2%MPI_SOURCE == 3 .and. st2%MPI_TAG == 44 .and. &
      & st2%count_lo == st%count_lo .and. st2%count_hi_and_cancelled == st%count_hi_and_cancelled, 'f2f08')

  ! callbacks: a user op, an error handler, a keyval's delete function
  call MPI_Op_create(absmax, .true., op)
  iv = [-5, 1, 2, -3] * (rank + 1)
  call MPI_Allreduce(MPI_IN_PLACE, iv, 4, MPI_INTEGER, op, dup)
  call check(all(iv == [10, 2, 4, 6]), 'user op with TYPE(C_PTR) arguments')
  call MPI_Op_free(op)
  call MPI_Comm_create_errhandler(on_error, eh)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh)
  call MPI_Send(a, 1, MPI_INTEGER, 5, 0, MPI_COMM_WORLD, ierr)
  call check(handler_calls == 1 .and. ierr /= MPI_SUCCESS, 'f08 error handler called')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
  call MPI_Errhandler_free(eh)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_fn, keyval, 7_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(dup, keyval, 4242_MPI_ADDRESS_KIND)
  call MPI_Comm_get_attr(dup, keyval, attr, flag)
  call check(flag .and. attr == 4242_MPI_ADDRESS_KIND, 'attribute value')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, attr, flag, ierr)
  call check(flag .and. attr >= 32767, 'MPI_TAG_UB')
  call MPI_Comm_free(dup)
  call check(delete_calls == 1 .and. dup == MPI_COMM_NULL, 'delete callback with address-kind values')
  call MPI_Comm_free_keyval(keyval)
  call MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, keyval, 5_MPI_ADDRESS_KIND, ierr)
  call check(ierr == MPI_SUCCESS, 'keyval with an f08 copy callback')
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, 100_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_get_attr(dup, keyval, attr, flag)
  call check(flag .and. attr == 105_MPI_ADDRESS_KIND, 'copy callback ran on MPI_Comm_dup')
  call MPI_Comm_free(dup)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval)
  call MPI_Comm_free_keyval(keyval)

  call MPI_Finalize(ierr)
  call check(ierr == MPI_SUCCESS, 'finalize')
  if (rank == 0) print *, 'f08_basic: ok'
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print *, 'FAIL: ', what, ' (rank ', rank, ')'
      flush(6)
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine
end program
