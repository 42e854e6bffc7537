! One-sided communication from Fortran (use mpi, 2 processes): memory from
! MPI_Alloc_mem and MPI_Win_allocate(_shared) as TYPE(C_PTR) (module mpi's generic
! forms) and as INTEGER(KIND=MPI_ADDRESS_KIND); puts and gets between fences; the
! window's predefined attributes as values (MPI_WIN_SIZE, MPI_WIN_DISP_UNIT,
! MPI_WIN_CREATE_FLAVOR, MPI_WIN_BASE the address itself); a window keyval with Fortran
! callbacks (its extra_state reaches them).
module rmacb
  use mpi
  implicit none
  integer :: copies = 0, deletes = 0, last = -1
contains
  subroutine wcopy(oldwin, keyval, extra, val_in, val_out, flag, ierr)
    integer :: oldwin, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
    logical :: flag
    copies = copies + 1
    val_out = val_in * 10 + extra
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine
  subroutine wdelete(win, keyval, val, extra, ierr)
    integer :: win, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deletes = deletes + 1
    last = int(val + extra - 2)
    ierr = MPI_SUCCESS
  end subroutine
end module

program rma
  use, intrinsic :: iso_c_binding
  use rmacb
  implicit none
  integer, parameter :: N = 8
  integer :: ierr, rank, np, peer, win, win2, swin, key, i, disp_unit
  integer(kind=MPI_ADDRESS_KIND) :: v, addr, size, got(2)
  integer, pointer :: a(:), m(:), s(:)
  type(c_ptr) :: p, q, r
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  peer = 1 - rank

  ! MPI_Alloc_mem into a TYPE(C_PTR), and into an address.
  call MPI_Alloc_mem(int(4 * N, MPI_ADDRESS_KIND), MPI_INFO_NULL, p, ierr)
  call check(ierr == MPI_SUCCESS .and. c_associated(p), 'alloc_mem (c_ptr)')
  call c_f_pointer(p, m, [N])
  m = 7
  call MPI_Alloc_mem(64_MPI_ADDRESS_KIND, MPI_INFO_NULL, addr, ierr)
  call check(ierr == MPI_SUCCESS .and. addr /= 0, 'alloc_mem (address)')
  call c_f_pointer(transfer(addr, q), s, [16])
  s = 3
  call MPI_Free_mem(s, ierr)
  call check(ierr == MPI_SUCCESS, 'free_mem of the address form')

  ! A window from MPI_Win_allocate: each rank puts into its peer, fences, gets back.
  size = 4 * N
  call MPI_Win_allocate(size, 4, MPI_INFO_NULL, MPI_COMM_WORLD, q, win, ierr)
  call check(ierr == MPI_SUCCESS .and. c_associated(q), 'win_allocate')
  call c_f_pointer(q, a, [N])
  ! Window memory changes behind the compiler's back: MPI_F_sync_reg around the
  ! synchronizations keeps it from caching a in registers (MPI-4.1 §19.1.17).
  a = -1
  call MPI_F_sync_reg(a)
  call MPI_Win_fence(0, win, ierr)
  m = [(100 * rank + i, i = 1, N)]
  call MPI_Put(m, N, MPI_INTEGER, peer, 0_MPI_ADDRESS_KIND, N, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_F_sync_reg(a)
  call check(all(a == [(100 * peer + i, i = 1, N)]), 'put between fences')
  m = 0
  call MPI_Get(m, 2, MPI_INTEGER, peer, 3_MPI_ADDRESS_KIND, 2, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call check(m(1) == 100 * rank + 4 .and. m(2) == 100 * rank + 5, 'get at a displacement')

  call MPI_Win_get_attr(win, MPI_WIN_SIZE, v, flag, ierr)
  call check(flag .and. v == size, 'MPI_WIN_SIZE')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, v, flag, ierr)
  call check(flag .and. v == 4, 'MPI_WIN_DISP_UNIT')
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, v, flag, ierr)
  call check(flag .and. v == MPI_WIN_FLAVOR_ALLOCATE, 'MPI_WIN_CREATE_FLAVOR')
  call MPI_Win_get_attr(win, MPI_WIN_BASE, v, flag, ierr)
  call MPI_Get_address(a, addr, ierr)
  call check(flag .and. v == addr, 'MPI_WIN_BASE')

  ! A window keyval with Fortran callbacks: a duplicate (MPIX_Win_dup_with_info)
  ! starts without attributes (docs/extensions.md), so no copy; MPI_Win_delete_attr
  ! and MPI_Win_free call the delete callback with the value.
  call MPI_Win_create_keyval(wcopy, wdelete, key, 2_MPI_ADDRESS_KIND, ierr)
  call MPI_Win_set_attr(win, key, 4_MPI_ADDRESS_KIND, ierr)
  call MPI_Win_get_attr(win, key, v, flag, ierr)
  call check(flag .and. v == 4, 'window attribute')
  call MPIX_Win_dup_with_info(win, MPI_INFO_NULL, win2, ierr)
  call check(ierr == MPI_SUCCESS, 'win dup')
  call MPI_Win_get_attr(win2, key, v, flag, ierr)
  call check(copies == 0 .and. .not. flag, 'a duplicate window has attributes')
  call MPI_Win_set_attr(win2, key, 5_MPI_ADDRESS_KIND, ierr)
  call MPI_Win_delete_attr(win2, key, ierr)
  call check(deletes == 1 .and. last == 5, 'window delete callback on delete_attr')
  call MPI_Win_free(win2, ierr)
  call check(win2 == MPI_WIN_NULL, 'win2 freed')
  call MPI_Win_free(win, ierr)
  call check(deletes == 2 .and. last == 4, 'window delete callback on free')
  call MPI_Win_free_keyval(key, ierr)

  ! A shared window: each rank reads its peer's segment through MPI_Win_shared_query.
  call MPI_Win_allocate_shared(size, 4, MPI_INFO_NULL, MPI_COMM_WORLD, r, swin, ierr)
  call check(ierr == MPI_SUCCESS, 'win_allocate_shared')
  call c_f_pointer(r, a, [N])
  call MPI_Win_fence(0, swin, ierr)
  a = 1000 + rank
  call MPI_F_sync_reg(a)
  call MPI_Win_fence(0, swin, ierr)
  call MPI_Win_shared_query(swin, peer, got(1), disp_unit, q, ierr)
  call check(ierr == MPI_SUCCESS .and. got(1) == size .and. disp_unit == 4, 'shared_query')
  call c_f_pointer(q, s, [N])
  call MPI_F_sync_reg(s)
  call check(all(s == 1000 + peer), 'the peer''s shared segment')
  call MPI_Win_fence(0, swin, ierr)
  call MPI_Win_free(swin, ierr)
  call MPI_Free_mem(m, ierr)

  call MPI_Finalize(ierr)
  if (rank == 0) print *, 'f90_rma: ok'
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
