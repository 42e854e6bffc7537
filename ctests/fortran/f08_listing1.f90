! [TC] Listing 1 in Fortran 2008 (use mpi_f08): the threads of an OpenMP region become
! the ranks of a thread communicator (MPI_Threadcomm_init/start/finish/free with
! TYPE(MPI_Comm) handles, ierror left out as f08 allows). Beyond the listing's print,
! each rank checks its rank and size, and the "MPI operations over threadcomm" are an
! allreduce of the ranks, a ring of messages between neighbouring ranks with a
! TYPE(MPI_Status), a non-contiguous section sent to the next rank, and a barrier.
program f08_listing1
  use mpi_f08
  use omp_lib
  implicit none
  integer, parameter :: NT = 4
  type(MPI_Comm) :: threadcomm
  integer :: ierr, nprocs, wrank
  integer :: errors

  call MPI_Init()
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call MPI_Comm_rank(MPI_COMM_WORLD, wrank)
  call MPI_Threadcomm_init(MPI_COMM_WORLD, NT, threadcomm, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_Threadcomm_init')
  errors = 0

  !$omp parallel num_threads(NT) reduction(+:errors)
  block
    integer :: rank, size, e, total, got, next, prev, i, v(6), w(3)
    type(MPI_Status) :: st
    logical :: flag
    if (omp_get_num_threads() /= NT) errors = errors + 1
    call MPI_Threadcomm_start(threadcomm, e)
    if (e /= MPI_SUCCESS) errors = errors + 1
    call MPI_Comm_size(threadcomm, size)
    call MPI_Comm_rank(threadcomm, rank)
    print '(a,i0,a,i0)', ' Rank ', rank, ' / ', size
    if (size /= NT * nprocs) errors = errors + 1
    ! ranks are grouped by parent rank, numbered by arrival within a process
    if (rank / NT /= wrank) errors = errors + 1
    call MPIX_Comm_test_threadcomm(threadcomm, flag)
    if (.not. flag) errors = errors + 1
    call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, threadcomm)
    if (total /= size * (size - 1) / 2) errors = errors + 1
    next = mod(rank + 1, size)
    prev = mod(rank + size - 1, size)
    call MPI_Sendrecv(rank * 10, 1, MPI_INTEGER, next, 1, got, 1, MPI_INTEGER, prev, 1, threadcomm, st, e)
    if (e /= MPI_SUCCESS .or. got /= prev * 10 .or. st%MPI_SOURCE /= prev .or. st%MPI_TAG /= 1) errors = errors + 1
    v = [(rank * 100 + i, i = 1, 6)]
    w = -1
    call MPI_Sendrecv(v(2:6:2), 3, MPI_INTEGER, next, 2, w, 3, MPI_INTEGER, prev, 2, threadcomm, MPI_STATUS_IGNORE)
    if (any(w /= [prev * 100 + 2, prev * 100 + 4, prev * 100 + 6])) errors = errors + 1
    call MPI_Barrier(threadcomm)
    call MPI_Threadcomm_finish(threadcomm, e)
    if (e /= MPI_SUCCESS) errors = errors + 1
  end block
  !$omp end parallel

  call MPIX_Threadcomm_free(threadcomm, ierr)
  if (ierr /= MPI_SUCCESS .or. threadcomm /= MPI_COMM_NULL) call fail('MPIX_Threadcomm_free')
  if (errors /= 0) call fail('checks in the parallel region')
  call MPI_Finalize()
  if (wrank == 0) print *, 'f08_listing1: ok'
contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    print *, 'FAIL: ', what
    flush(6)
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine
end program
