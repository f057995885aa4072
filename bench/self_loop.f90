! bench_self_loop_fortran: bench_self_loop's 8-byte self round trip (irecv, isend, wait the send, wait the receive)
! through the Fortran module (use sidecore), `--iterations=N` times (default 100000), for bench/run-instructions.sh
! (callgrind): what the module's calls cost over the C API's. One rank only.
program self_loop_fortran
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t
  use mpi
  use sidecore
  implicit none
  integer :: provided, ierr, nranks, i
  integer(c_int64_t) :: n
  integer(c_int) :: code
  character(len=64) :: arg
  integer(c_int64_t), asynchronous :: out, in
  integer(sidecore_request_kind) :: r, s
  n = 100000
  do i = 1, command_argument_count()
    call get_command_argument(i, arg)
    if (index(arg, '--iterations=') == 1) then
      read (arg(14:), *, iostat=ierr) n
      if (ierr /= 0 .or. n <= 0) &
        call die('--iterations=' // trim(arg(14:)) // ' is not accepted: give a positive count')
    else
      call die("unknown option '" // trim(arg) // "'; accepted: --iterations=N")
    end if
  end do
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  if (nranks /= 1) call die('bench_self_loop_fortran runs on 1 rank (mpiexec -n 1)')
  out = 1
  in = 0
  code = sidecore_init(MPI_COMM_WORLD)
  do i = 1, int(n)
    if (code == SIDECORE_SUCCESS) code = sidecore_irecv(in, 8_sidecore_count_kind, 0, 1, SIDECORE_COMM_WORLD, r)
    if (code == SIDECORE_SUCCESS) code = sidecore_isend(out, 8_sidecore_count_kind, 0, 1, SIDECORE_COMM_WORLD, s)
    if (code == SIDECORE_SUCCESS) code = sidecore_wait(s)
    if (code == SIDECORE_SUCCESS) code = sidecore_wait(r)
  end do
  if (code /= SIDECORE_SUCCESS) call die('self loop through the Fortran module: ' // sidecore_last_error())
  if (in /= out) call die('self loop: received a value other than the one sent')
  code = sidecore_finalize()
  write (*, '(a, i0, a)') '# bench_self_loop_fortran: ', n, ' iterations'
  call MPI_Finalize(ierr)
contains
  subroutine die(message)
    character(len=*), intent(in) :: message
    write (*, '(2a)') 'bench_self_loop_fortran: ', message
    error stop 2
  end subroutine
end program
