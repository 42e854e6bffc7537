! More of module mpi_f08 on 2 processes: functions (MPI_Wtime, MPI_Aint_diff),
! MPI_Get_address of a section, MPI_Alloc_mem's TYPE(C_PTR), MPI_Sizeof, the large
! forms with their own names (MPI_Type_get_extent_c), info strings with a LOGICAL flag,
! MPI_Waitany's index from 1, LOGICAL arrays (MPI_Cart_create's periods), matched
! probes with TYPE(MPI_Message), a derived datatype over a section, MPI_Comm_split and
! groups, MPI_Ibarrier, MPI_Dist_graph_create_adjacent with MPI_UNWEIGHTED, a PMPI_ name.
program f08_more
  use mpi_f08
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer, c_associated
  implicit none
  integer :: rank, np, peer, i, idx, sz, cnt, ierr, ranks(1)
  integer :: a(12), r(6), src(1), dst(1)
  integer(kind=MPI_ADDRESS_KIND) :: a1, a2, lb, ext
  integer(kind=MPI_COUNT_KIND) :: lbc, extc
  double precision :: t0, t1
  type(c_ptr) :: mem
  integer, pointer :: p(:)
  type(MPI_Info) :: info
  character(len=20) :: val
  logical :: flag, periods(1)
  type(MPI_Request) :: reqs(2)
  type(MPI_Status) :: st
  type(MPI_Message) :: msg
  type(MPI_Datatype) :: vec
  type(MPI_Comm) :: split, cart, graph
  type(MPI_Group) :: wgroup, g1

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  peer = 1 - rank
  call PMPI_Comm_rank(MPI_COMM_WORLD, i)
  call check(i == rank, 'the profiling name PMPI_Comm_rank')
  t0 = MPI_Wtime()
  t1 = MPI_Wtime()
  call check(t1 >= t0 .and. MPI_Wtick() > 0, 'MPI_Wtime, MPI_Wtick')

  call MPI_Get_address(a(3:11:2), a1)
  call MPI_Get_address(a(3), a2)
  call check(a1 == a2, 'MPI_Get_address of a section is its first element''s')
  call MPI_Get_address(a(5), a2)
  call check(MPI_Aint_diff(a2, a1) == 8 .and. MPI_Aint_add(a1, 8_MPI_ADDRESS_KIND) == a2, 'MPI_Aint_diff/add')

  call MPI_Alloc_mem(40_MPI_ADDRESS_KIND, MPI_INFO_NULL, mem)
  call check(c_associated(mem), 'MPI_Alloc_mem TYPE(C_PTR)')
  call c_f_pointer(mem, p, [10])
  p = 7
  call MPI_Free_mem(p)

  call MPI_Sizeof(1.0d0, sz)
  call check(sz == 8, 'MPI_Sizeof')
  call MPI_Type_get_extent(MPI_INTEGER, lb, ext)
  call MPI_Type_get_extent_c(MPI_INTEGER, lbc, extc)
  call check(lb == 0 .and. ext == 4 .and. lbc == 0 .and. extc == 4, 'MPI_Type_get_extent(_c)')

  call MPI_Info_create(info)
  call MPI_Info_set(info, 'color  ', '  blue  ')
  call MPI_Info_get(info, 'color', 20, val, flag)
  call check(flag .and. val == 'blue', 'info with LOGICAL flag')
  call MPI_Info_get(info, 'size', 20, val, flag)
  call check(.not. flag .and. val == 'blue', 'absent key leaves the value')
  call MPI_Info_free(info)
  call check(info == MPI_INFO_NULL, 'info freed')

  ! Waitany counts from 1
  reqs(1) = MPI_REQUEST_NULL
  call MPI_Irecv(cnt, 1, MPI_INTEGER, peer, 3, MPI_COMM_WORLD, reqs(2))
  call MPI_Send(rank, 1, MPI_INTEGER, peer, 3, MPI_COMM_WORLD)
  call MPI_Waitany(2, reqs, idx, st)
  call check(idx == 2 .and. cnt == peer .and. st%MPI_SOURCE == peer, 'MPI_Waitany index from 1')

  ! matched probe
  call MPI_Send(rank + 40, 1, MPI_INTEGER, peer, 4, MPI_COMM_WORLD)
  call MPI_Mprobe(peer, 4, MPI_COMM_WORLD, msg, st)
  call MPI_Get_count(st, MPI_INTEGER, cnt)
  call check(cnt == 1, 'mprobe count')
  call MPI_Mrecv(cnt, 1, MPI_INTEGER, msg, st)
  call check(cnt == peer + 40 .and. msg == MPI_MESSAGE_NULL, 'mrecv')

  ! a derived datatype over a non-contiguous section: the section is packed, the
  ! vector applies to the packed elements (every other one of a(2:12:2))
  a = [(i + 100 * rank, i = 1, 12)]
  r = -1
  call MPI_Type_vector(3, 1, 2, MPI_INTEGER, vec)
  call MPI_Type_commit(vec)
  call MPI_Sendrecv(a(2:12:2), 1, vec, peer, 5, r(1:5:2), 3, MPI_INTEGER, peer, 5, MPI_COMM_WORLD, st)
  call check(all(r(1:5:2) == [2, 6, 10] + 100 * peer) .and. all(r(2:6:2) == -1), 'vector over a section')
  call MPI_Type_free(vec)

  ! LOGICAL array, split, groups
  periods = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, [np], periods, .false., cart)
  call MPI_Cart_shift(cart, 0, 1, src(1), dst(1))
  call check(src(1) == peer .and. dst(1) == peer, 'periodic cart shift')
  call MPI_Comm_free(cart)
  call MPI_Comm_split(MPI_COMM_WORLD, rank, 0, split)
  call MPI_Comm_size(split, cnt)
  call check(cnt == 1, 'split')
  call MPI_Comm_group(MPI_COMM_WORLD, wgroup)
  ranks = peer
  call MPI_Group_incl(wgroup, 1, ranks, g1)
  call MPI_Group_translate_ranks(g1, 1, [0], wgroup, ranks)
  call check(ranks(1) == peer, 'group translate')
  call MPI_Group_free(g1)
  call MPI_Group_free(wgroup)
  call MPI_Comm_free(split)

  ! graph with MPI_UNWEIGHTED; nonblocking barrier
  src = peer
  dst = peer
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED, &
      & MPI_INFO_NULL, .false., graph, ierr)
  call check(ierr == MPI_SUCCESS, 'dist graph with MPI_UNWEIGHTED')
  call MPI_Dist_graph_neighbors_count(graph, cnt, i, flag)
  call check(cnt == 1 .and. i == 1 .and. .not. flag, 'unweighted graph')
  call MPI_Comm_free(graph)
  call MPI_Ibarrier(MPI_COMM_WORLD, reqs(1))
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)

  call MPI_Finalize()
  if (rank == 0) print *, 'f08_more: ok'
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
