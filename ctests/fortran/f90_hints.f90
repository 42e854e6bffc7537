! Communicator info hints from an OpenMP parallel region (MPI_THREAD_MULTIPLE, 2
! processes): each thread duplicates its own communicator with mpix.h's VCI hints,
! passed as Fortran strings (MPIX_INFO_ASSERT_SINGLE_THREAD is a CHARACTER constant of
! module mpi), checks that MPI_Comm_get_info reports them (the single-thread one as
! applied or not: with MPIX_NUM_VCIS=16 most are), records another with
! MPI_Comm_set_info, then exchanges messages with the other process on it.
program hints
  use mpi
  use omp_lib
  implicit none
  integer, parameter :: NT = 4, NMSG = 50
  integer :: ierr, provided, rank, np, base(NT), t, errors

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (provided /= MPI_THREAD_MULTIPLE .or. np /= 2) call fail('MPI_THREAD_MULTIPLE on 2 processes')
  do t = 1, NT
    call MPI_Comm_dup(MPI_COMM_WORLD, base(t), ierr)
  end do
  errors = 0

  !$omp parallel num_threads(NT) reduction(+:errors)
  block
    integer :: me, info, comm, e, i, got(NMSG), req(NMSG), sent(NMSG)
    character(len=MPI_MAX_INFO_VAL) :: val
    logical :: flag
    me = omp_get_thread_num() + 1
    call MPI_Info_create(info, e)
    call MPI_Info_set(info, MPIX_INFO_ASSERT_SINGLE_THREAD, 'true', e)
    call MPI_Info_set(info, 'mpi_assert_no_any_source', 'true   ', e)
    call MPI_Comm_dup_with_info(base(me), info, comm, e)
    if (e /= MPI_SUCCESS) errors = errors + 1
    call MPI_Info_free(info, e)
    call MPI_Comm_get_info(comm, info, e)
    ! reported as applied or not: a thread owns a VCI only if both processes agree on
    ! a free one while the other threads claim theirs
    call MPI_Info_get(info, 'mpix_assert_single_thread', len(val), val, flag, e)
    if (.not. flag .or. (val /= 'true' .and. val /= 'false')) errors = errors + 1
    call MPI_Info_get(info, 'mpi_assert_no_any_source', len(val), val, flag, e)
    if (.not. flag .or. val /= 'true') errors = errors + 1
    call MPI_Info_free(info, e)
    call MPI_Info_create(info, e)
    call MPI_Info_set(info, 'mpi_assert_no_any_tag', 'true', e)
    call MPI_Comm_set_info(comm, info, e)
    call MPI_Info_free(info, e)
    call MPI_Comm_get_info(comm, info, e)
    call MPI_Info_get(info, 'mpi_assert_no_any_tag', len(val), val, flag, e)
    if (.not. flag .or. val /= 'true') errors = errors + 1
    call MPI_Info_free(info, e)
    do i = 1, NMSG
      sent(i) = rank * 100000 + me * 1000 + i
      call MPI_Irecv(got(i), 1, MPI_INTEGER, 1 - rank, i, comm, req(i), e)
    end do
    do i = 1, NMSG
      call MPI_Send(sent(i), 1, MPI_INTEGER, 1 - rank, i, comm, e)
    end do
    call MPI_Waitall(NMSG, req, MPI_STATUSES_IGNORE, e)
    do i = 1, NMSG
      if (got(i) /= (1 - rank) * 100000 + me * 1000 + i) errors = errors + 1
    end do
    call MPI_Comm_free(comm, e)
  end block
  !$omp end parallel

  if (errors /= 0) then
    print *, 'errors:', errors
    flush(6)
    call fail('checks in the parallel region')
  end if
  do t = 1, NT
    call MPI_Comm_free(base(t), ierr)
  end do
  call MPI_Finalize(ierr)
  if (rank == 0) print *, 'f90_hints: ok'
contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: e
    print *, 'FAIL: ', what
    flush(6)
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine
end program
