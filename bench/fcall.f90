! fcall: what calling MPI from Fortran costs, against the same calls from C in the
! same process (bench/fortran/fcall_c.c, linked in): MPI_Comm_rank per call and the
! one-way latency of an 8-byte MPI_Send/MPI_Recv pingpong, through module mpi_f08,
! module mpi and C. 2 processes. Rank 0 prints "fcall BINDING CALL NANOSECONDS", the
! best of three repetitions.
module fcall_c
  use, intrinsic :: iso_c_binding, only: c_int, c_double
  implicit none
  interface
    function c_comm_rank(n) bind(C, name="fcall_c_comm_rank") result(t)
      import :: c_int, c_double
      integer(c_int), value :: n
      real(c_double) :: t
    end function
    function c_pingpong(n) bind(C, name="fcall_c_pingpong") result(t)
      import :: c_int, c_double
      integer(c_int), value :: n
      real(c_double) :: t
    end function
  end interface
end module fcall_c

double precision function f08_comm_rank(n)
  use mpi_f08
  implicit none
  integer, intent(in) :: n
  integer :: i, r
  double precision :: t0
  t0 = MPI_Wtime()
  do i = 1, n
    call MPI_Comm_rank(MPI_COMM_WORLD, r)
  end do
  f08_comm_rank = MPI_Wtime() - t0
end function

double precision function f90_comm_rank(n)
  use mpi
  implicit none
  integer, intent(in) :: n
  integer :: i, r, ierr
  double precision :: t0
  t0 = MPI_Wtime()
  do i = 1, n
    call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
  end do
  f90_comm_rank = MPI_Wtime() - t0
end function

double precision function f08_pingpong(n)
  use mpi_f08
  implicit none
  integer, intent(in) :: n
  integer :: i, me
  double precision :: x(1), t0
  x = 1d0
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Barrier(MPI_COMM_WORLD)
  t0 = MPI_Wtime()
  do i = 1, n
    if (me == 0) then
      call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD)
      call MPI_Recv(x, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    else
      call MPI_Recv(x, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD)
    end if
  end do
  f08_pingpong = MPI_Wtime() - t0
end function

double precision function f90_pingpong(n)
  use mpi
  implicit none
  integer, intent(in) :: n
  integer :: i, me, ierr
  double precision :: x(1), t0
  x = 1d0
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t0 = MPI_Wtime()
  do i = 1, n
    if (me == 0) then
      call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, ierr)
      call MPI_Recv(x, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else
      call MPI_Recv(x, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, ierr)
    end if
  end do
  f90_pingpong = MPI_Wtime() - t0
end function

program fcall
  use mpi_f08
  use fcall_c
  implicit none
  integer, parameter :: nrank = 2000000, npp = 20000, reps = 3
  double precision, external :: f08_comm_rank, f90_comm_rank, f08_pingpong, f90_pingpong
  double precision :: best(6), t
  integer :: me, np, k
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  if (np /= 2) then
    if (me == 0) write (0, '(a)') 'fcall: run on 2 processes'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if
  best = huge(1d0)
  do k = 1, reps
    best(1) = min(best(1), f08_comm_rank(nrank) / nrank)
    best(2) = min(best(2), f90_comm_rank(nrank) / nrank)
    best(3) = min(best(3), c_comm_rank(nrank) / nrank)
    t = f08_pingpong(npp)
    best(4) = min(best(4), t / (2 * npp))
    t = f90_pingpong(npp)
    best(5) = min(best(5), t / (2 * npp))
    t = c_pingpong(npp)
    best(6) = min(best(6), t / (2 * npp))
  end do
  if (me == 0) then
    write (*, '(a,f12.3)') 'fcall f08 comm_rank ', best(1) * 1d9
    write (*, '(a,f12.3)') 'fcall mpi comm_rank ', best(2) * 1d9
    write (*, '(a,f12.3)') 'fcall C comm_rank ', best(3) * 1d9
    write (*, '(a,f12.3)') 'fcall f08 send/recv_8B ', best(4) * 1d9
    write (*, '(a,f12.3)') 'fcall mpi send/recv_8B ', best(5) * 1d9
    write (*, '(a,f12.3)') 'fcall C send/recv_8B ', best(6) * 1d9
  end if
  call MPI_Finalize()
end program fcall
