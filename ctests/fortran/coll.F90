! coll: every collective family with MPI_IN_PLACE, nonblocking collectives,
! communicator creation and a derived datatype, from Fortran. One source, built twice:
! with use mpi (f90_coll) and, with -DF08, with use mpi_f08 (f08_coll), whose ierror is
! optional and whose handles are TYPE(MPI_*). Every value is checked; the first wrong
! one prints FAIL and aborts.
#ifdef F08
#define NAME "f08_coll"
#define HANDLE(kind) type(kind)
#else
#define NAME "f90_coll"
#define HANDLE(kind) integer
#endif
module coll_check
  implicit none
contains
  subroutine check(ok, what)
#ifdef F08
    use mpi_f08
#else
    use mpi
#endif
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: ierr
    if (.not. ok) then
      print '(a,a,a)', NAME, ": FAIL ", what
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine
end module coll_check

program coll
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
  use coll_check
  implicit none
  integer :: me, np, ierr, r, j, n, res, sz
  integer, allocatable :: a(:), b(:), counts(:), displs(:), bdispls(:)
  integer :: v(6)
  HANDLE(MPI_Comm) :: half, dup, cart, evencomm
  HANDLE(MPI_Group) :: wgroup, evens
  HANDLE(MPI_Datatype) :: vec
  HANDLE(MPI_Datatype), allocatable :: types(:)
  HANDLE(MPI_Request) :: reqs(2)
  integer, allocatable :: ranks(:)
  integer :: dims(1), src, dst
  logical :: periods(1)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  allocate (a(4*np), b(4*np), counts(np), displs(np), bdispls(np), types(np), ranks(np))

  ! Bcast
  a = -1
  if (me == 0) a(1:4) = [1, 2, 3, 4]
  call MPI_Bcast(a, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call check(all(a(1:4) == [1, 2, 3, 4]), "bcast")

  ! Reduce, in place at the root
  a(1:3) = [me + 1, me + 2, me + 3]
  if (me == 0) then
    call MPI_Reduce(MPI_IN_PLACE, a, 3, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    call check(all(a(1:3) == [(np*(np - 1)/2 + np*j, j = 1, 3)]), "reduce in place")
  else
    call MPI_Reduce(a, b, 3, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  end if

  ! Allreduce in place
  a(1) = me + 1
  call MPI_Allreduce(MPI_IN_PLACE, a, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(a(1) == np, "allreduce max in place")

  ! Gather, in place at the root: blocks of 2
  b = -1
  b(2*me + 1:2*me + 2) = [10*me, 10*me + 1]
  if (me == 0) then
    call MPI_Gather(MPI_IN_PLACE, 2, MPI_INTEGER, b, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call check(all(b(1:2*np) == [((10*r + j, j = 0, 1), r = 0, np - 1)]), "gather in place")
  else
    call MPI_Gather(b(2*me + 1), 2, MPI_INTEGER, a, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end if

  ! Gatherv, in place at the root: rank r gives r+1 values r*100+j
  do r = 1, np
    counts(r) = r
  end do
  displs(1) = 0
  do r = 2, np
    displs(r) = displs(r - 1) + counts(r - 1)
  end do
  n = displs(np) + counts(np)
  b = -1
  do j = 1, me + 1
    b(displs(me + 1) + j) = 100*me + j
  end do
  if (me == 0) then
    call MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INTEGER, b, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    do r = 0, np - 1
      do j = 1, r + 1
        call check(b(displs(r + 1) + j) == 100*r + j, "gatherv in place")
      end do
    end do
  else
    call MPI_Gatherv(b(displs(me + 1) + 1), me + 1, MPI_INTEGER, a, counts, displs, MPI_INTEGER, 0, &
                     MPI_COMM_WORLD, ierr)
  end if

  ! Scatter, in place at the root
  if (me == 0) then
    b(1:2*np) = [((10*r + j, j = 0, 1), r = 0, np - 1)]
    call MPI_Scatter(b, 2, MPI_INTEGER, MPI_IN_PLACE, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call check(all(b(1:2) == [0, 1]), "scatter in place: root's block")
  else
    a = -1
    call MPI_Scatter(b, 2, MPI_INTEGER, a, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call check(all(a(1:2) == [10*me, 10*me + 1]), "scatter")
  end if

  ! Scatterv, in place at the root
  if (me == 0) then
    do r = 0, np - 1
      do j = 1, r + 1
        b(displs(r + 1) + j) = 1000 + 100*r + j
      end do
    end do
    call MPI_Scatterv(b, counts, displs, MPI_INTEGER, MPI_IN_PLACE, 0, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  else
    a = -1
    call MPI_Scatterv(b, counts, displs, MPI_INTEGER, a, me + 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call check(all(a(1:me + 1) == [(1000 + 100*me + j, j = 1, me + 1)]) .and. a(me + 2) == -1, "scatterv")
  end if

  ! Allgather and Allgatherv in place
  b = -1
  b(2*me + 1:2*me + 2) = [10*me, 10*me + 1]
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_INTEGER, b, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(b(1:2*np) == [((10*r + j, j = 0, 1), r = 0, np - 1)]), "allgather in place")
  b = -1
  do j = 1, me + 1
    b(displs(me + 1) + j) = 100*me + j
  end do
  call MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INTEGER, b, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do r = 0, np - 1
    do j = 1, r + 1
      call check(b(displs(r + 1) + j) == 100*r + j, "allgatherv in place")
    end do
  end do
  call check(b(n + 1) == -1, "allgatherv wrote past its blocks")

  ! Alltoall, Alltoallv and Alltoallw in place: the block for rank r is 100*me + r
  b(1:np) = [(100*me + r, r = 0, np - 1)]
  call MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INTEGER, b, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(b(1:np) == [(100*r + me, r = 0, np - 1)]), "alltoall in place")
  counts = 1
  displs = [(r, r = 0, np - 1)]
  b(1:np) = [(200*me + r, r = 0, np - 1)]
  call MPI_Alltoallv(MPI_IN_PLACE, counts, displs, MPI_INTEGER, b, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(b(1:np) == [(200*r + me, r = 0, np - 1)]), "alltoallv in place")
  call MPI_Type_size(MPI_INTEGER, sz, ierr)
  bdispls = [(sz*r, r = 0, np - 1)]
  types = MPI_INTEGER
  b(1:np) = [(300*me + r, r = 0, np - 1)]
  call MPI_Alltoallw(MPI_IN_PLACE, counts, bdispls, types, b, counts, bdispls, types, MPI_COMM_WORLD, ierr)
  call check(all(b(1:np) == [(300*r + me, r = 0, np - 1)]), "alltoallw in place")

  ! Reduce_scatter_block and Reduce_scatter in place: element r of rank q is q + r
  b(1:np) = [(me + r, r = 0, np - 1)]
  call MPI_Reduce_scatter_block(MPI_IN_PLACE, b, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(b(1) == np*(np - 1)/2 + np*me, "reduce_scatter_block in place")
  b(1:np) = [(me + r, r = 0, np - 1)]
  call MPI_Reduce_scatter(MPI_IN_PLACE, b, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(b(1) == np*(np - 1)/2 + np*me, "reduce_scatter in place")

  ! Scan and Exscan in place
  a(1) = me + 1
  call MPI_Scan(MPI_IN_PLACE, a, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(a(1) == (me + 1)*(me + 2)/2, "scan in place")
  a(1) = me + 1
  call MPI_Exscan(MPI_IN_PLACE, a, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (me > 0) call check(a(1) == me*(me + 1)/2, "exscan in place")

  ! Nonblocking: Iallreduce in place and Ibcast, completed together
  a(1) = me
  b(1:2) = -1
  if (me == 0) b(1:2) = [7, 8]
  call MPI_Iallreduce(MPI_IN_PLACE, a, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Ibcast(b, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call check(a(1) == np*(np - 1)/2 .and. all(b(1:2) == [7, 8]), "iallreduce + ibcast")
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! Communicator creation
  call MPI_Comm_split(MPI_COMM_WORLD, mod(me, 2), me, half, ierr)
  call MPI_Comm_size(half, n, ierr)
  call check(n == (np + 1 - mod(me, 2))/2, "comm_split size")
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_compare(MPI_COMM_WORLD, dup, res, ierr)
  call check(res == MPI_CONGRUENT, "comm_dup is congruent")
  call MPI_Comm_group(MPI_COMM_WORLD, wgroup, ierr)
  n = (np + 1)/2
  ranks(1:n) = [(2*r, r = 0, n - 1)]
  call MPI_Group_incl(wgroup, n, ranks, evens, ierr)
  call MPI_Comm_create(MPI_COMM_WORLD, evens, evencomm, ierr)
  if (mod(me, 2) == 0) then
    call MPI_Comm_rank(evencomm, r, ierr)
    call check(r == me/2, "comm_create rank")
    call MPI_Comm_free(evencomm, ierr)
  else
    call check(evencomm == MPI_COMM_NULL, "comm_create gives MPI_COMM_NULL outside the group")
  end if
  dims(1) = np
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)
  call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
  call check(src == mod(me - 1 + np, np) .and. dst == mod(me + 1, np), "cart_shift")
  call MPI_Comm_free(cart, ierr)
  call MPI_Group_free(evens, ierr)
  call MPI_Group_free(wgroup, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free(half, ierr)

  ! A derived datatype: every other element of v, broadcast from rank 0
  call MPI_Type_vector(3, 1, 2, MPI_INTEGER, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  v = -1
  if (me == 0) v = [1, 2, 3, 4, 5, 6]
  call MPI_Bcast(v, 1, vec, 0, MPI_COMM_WORLD, ierr)
  if (me /= 0) call check(all(v == [1, -1, 3, -1, 5, -1]), "bcast of a vector type")
  call MPI_Type_free(vec, ierr)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (me == 0) print '(a,a)', NAME, ": ok"
  call MPI_Finalize(ierr)
end program coll
