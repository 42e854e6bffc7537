! Fortran procedures that mpix calls back (use mpi, 2 processes): a user reduction
! (MPI_Op_create), an error handler under which a bad call returns its error class,
! keyvals with copy and delete callbacks followed through MPI_Comm_dup, MPI_Type_dup
! and frees (attribute values are integers, MPI-4.1 §19.3.7; extra_state reaches the
! callbacks), the predefined MPI_COMM_NULL_COPY_FN / MPI_COMM_DUP_FN, the MPI-1
! MPI_Keyval_create / MPI_Attr_put / MPI_Attr_get with INTEGER values, a predefined
! attribute (MPI_TAG_UB), a generalized request with Fortran callbacks, and a
! procedure the C library does not implement yet, which reports
! MPI_ERR_UNSUPPORTED_OPERATION to Fortran as it does to C.
module cb
  use mpi
  implicit none
  integer :: handled = 0, handled_code = 0, copies = 0, deletes = 0, last_deleted = -1
  integer :: old_copies = 0, old_deletes = 0, queries = 0, frees = 0
  integer(kind=MPI_ADDRESS_KIND) :: seen_extra = 0
contains
  subroutine plus1(invec, inoutvec, n, dtype)
    integer :: n, dtype, i
    integer :: invec(n), inoutvec(n)
    if (dtype /= MPI_INTEGER) stop 'plus1: not MPI_INTEGER'
    do i = 1, n
      inoutvec(i) = invec(i) + inoutvec(i) + 1
    end do
  end subroutine

  subroutine on_error(comm, code)
    integer :: comm, code
    handled = handled + 1
    handled_code = code
  end subroutine

  subroutine copy_fn(oldcomm, keyval, extra, val_in, val_out, flag, ierr)
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
    logical :: flag
    copies = copies + 1
    seen_extra = extra
    val_out = val_in + 1
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine

  subroutine delete_fn(comm, keyval, val, extra, ierr)
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deletes = deletes + 1
    last_deleted = int(val)
    ierr = MPI_SUCCESS
  end subroutine

  subroutine old_copy(oldcomm, keyval, extra, val_in, val_out, flag, ierr)
    integer :: oldcomm, keyval, extra, val_in, val_out, ierr
    logical :: flag
    old_copies = old_copies + 1
    val_out = val_in * 2 + extra
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine

  subroutine old_delete(comm, keyval, val, extra, ierr)
    integer :: comm, keyval, val, extra, ierr
    old_deletes = old_deletes + 1
    ierr = MPI_SUCCESS
  end subroutine

  subroutine query_fn(extra, status, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: status(MPI_STATUS_SIZE), ierr
    queries = queries + 1
    call MPI_Status_set_elements(status, MPI_INTEGER, 3, ierr)
    status(MPI_SOURCE) = int(extra)
    status(MPI_TAG) = 99
    ierr = MPI_SUCCESS
  end subroutine

  subroutine free_fn(extra, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierr
    frees = frees + 1
    if (extra /= 5) frees = -100
    ierr = MPI_SUCCESS
  end subroutine

  subroutine cancel_fn(extra, complete, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierr
    ierr = MPI_SUCCESS
  end subroutine

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
end module

program f90_callbacks
  use cb
  implicit none
  integer :: ierr, rank, np, op, eh, comm, dup, key, key2, key3, oldkey, cls, n, t1, t2, tkey, req
  integer :: x(3), y(3), ival, st(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: v
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)

  ! A user reduction written in Fortran: a + b + 1 over 2 processes.
  call MPI_Op_create(plus1, .true., op, ierr)
  call check(ierr == MPI_SUCCESS .and. op /= MPI_OP_NULL, 'op create')
  x = [1, 2, 3] * (rank + 1)
  call MPI_Allreduce(x, y, 3, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check(all(y == [4, 7, 10]), 'allreduce with a Fortran op')
  x = [1, 1, 1]
  y = [2, 2, 2]
  call MPI_Reduce_local(x, y, 3, MPI_INTEGER, op, ierr)
  call check(all(y == 4), 'reduce_local with a Fortran op')
  call MPI_Op_free(op, ierr)
  call check(op == MPI_OP_NULL, 'op free')

  ! A Fortran error handler: a send to a rank that does not exist calls it, and the
  ! call returns the code, whose class is MPI_ERR_RANK.
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
  call MPI_Comm_create_errhandler(on_error, eh, ierr)
  call MPI_Comm_set_errhandler(comm, eh, ierr)
  call MPI_Send(x, 1, MPI_INTEGER, np + 3, 0, comm, ierr)
  call check(ierr /= MPI_SUCCESS, 'a send to rank np+3 succeeded')
  call MPI_Error_class(ierr, cls, n)
  call check(cls == MPI_ERR_RANK, 'error class of a bad rank')
  call check(handled == 1 .and. handled_code == ierr, 'the Fortran error handler was not called with the code')
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Comm_free(comm, ierr)

  ! Not implemented in C: the same error class from Fortran.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Close_port('no such port', ierr)
  call MPI_Error_class(ierr, cls, n)
  call check(cls == MPI_ERR_UNSUPPORTED_OPERATION, 'MPI_Close_port is not MPI_ERR_UNSUPPORTED_OPERATION')

  ! Keyvals with Fortran callbacks; the attribute is the integer 42, not an address.
  call MPI_Comm_create_keyval(copy_fn, delete_fn, key, 1000_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
  call MPI_Comm_set_attr(comm, key, 42_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_get_attr(comm, key, v, flag, ierr)
  call check(flag .and. v == 42, 'get the attribute set')
  call MPI_Comm_dup(comm, dup, ierr)
  call check(copies == 1 .and. seen_extra == 1000, 'copy callback with extra_state')
  call MPI_Comm_get_attr(dup, key, v, flag, ierr)
  call check(flag .and. v == 43, 'the copy callback''s value in the duplicate')
  call MPI_Comm_free(dup, ierr)
  call check(deletes == 1 .and. last_deleted == 43, 'delete callback on free')
  call MPI_Comm_delete_attr(comm, key, ierr)
  call check(deletes == 2 .and. last_deleted == 42, 'delete callback on delete_attr')
  call MPI_Comm_get_attr(comm, key, v, flag, ierr)
  call check(.not. flag, 'attribute still there after delete')
  call MPI_Comm_free_keyval(key, ierr)
  call check(key == MPI_KEYVAL_INVALID, 'keyval not freed')

  ! The predefined callbacks: null copy drops the attribute, dup copies it.
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key2, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key3, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(comm, key2, 7_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(comm, key3, 8_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(comm, dup, ierr)
  call MPI_Comm_get_attr(dup, key2, v, flag, ierr)
  call check(.not. flag, 'MPI_COMM_NULL_COPY_FN copied')
  call MPI_Comm_get_attr(dup, key3, v, flag, ierr)
  call check(flag .and. v == 8, 'MPI_COMM_DUP_FN did not copy')
  call MPI_Comm_free(dup, ierr)

  ! MPI-1: INTEGER values and extra_state.
  call MPI_Keyval_create(old_copy, old_delete, oldkey, 5, ierr)
  call MPI_Attr_put(comm, oldkey, 7, ierr)
  call MPI_Attr_get(comm, oldkey, ival, flag, ierr)
  call check(flag .and. ival == 7, 'attr_get')
  call MPI_Comm_dup(comm, dup, ierr)
  call MPI_Attr_get(dup, oldkey, ival, flag, ierr)
  call check(old_copies == 1 .and. flag .and. ival == 19, 'MPI-1 copy callback')
  call MPI_Comm_free(dup, ierr)
  call check(old_deletes == 1, 'MPI-1 delete callback')
  call MPI_Keyval_free(oldkey, ierr)
  call MPI_Comm_free(comm, ierr)

  ! Predefined attributes are values in Fortran.
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, v, flag, ierr)
  call check(flag .and. v >= 32767, 'MPI_TAG_UB')
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag, ierr)
  call check(flag .and. ival == v, 'MPI_TAG_UB through MPI_Attr_get')

  ! Datatype keyvals: MPI_Type_dup calls the copy callback.
  copies = 0
  call MPI_Type_create_keyval(copy_fn, delete_fn, tkey, 3_MPI_ADDRESS_KIND, ierr)
  call MPI_Type_contiguous(2, MPI_INTEGER, t1, ierr)
  call MPI_Type_set_attr(t1, tkey, 100_MPI_ADDRESS_KIND, ierr)
  call MPI_Type_dup(t1, t2, ierr)
  call MPI_Type_get_attr(t2, tkey, v, flag, ierr)
  call check(copies == 1 .and. seen_extra == 3 .and. flag .and. v == 101, 'type keyval copy')
  call MPI_Type_free(t2, ierr)
  call MPI_Type_free(t1, ierr)
  call MPI_Type_free_keyval(tkey, ierr)

  ! A generalized request: the query callback fills the status.
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, 5_MPI_ADDRESS_KIND, req, ierr)
  call check(ierr == MPI_SUCCESS, 'grequest start')
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, st, ierr)
  call check(ierr == MPI_SUCCESS .and. queries == 1 .and. frees == 1, 'grequest callbacks')
  call check(st(MPI_TAG) == 99 .and. st(MPI_SOURCE) == 5, 'grequest status')
  call MPI_Get_count(st, MPI_INTEGER, n, ierr)
  call check(n == 3, 'grequest count')

  call MPI_Finalize(ierr)
  if (rank == 0) print *, 'f90_callbacks: ok'
end program
