! A refused call leaves its outputs as they were (docs/fortran.md), compiled with -O2 (CMakeLists.txt): there a dummy
! that is intent(out) lets the compiler drop the caller's earlier value, and a type(sidecore_status) one is reset to its
! default on entry, before sidecore sees the call. Every kind of output is checked: ranks and sizes, communicator ids,
! flags, requests, statuses, an operator id, sidecore_failed_ranks' ranks and count. Prints "fortran_outputs: rank R:
! ok"; any failure stops the program with the line that failed.
program fortran_outputs
  use, intrinsic :: iso_c_binding
  use mpi
  use sidecore
  implicit none
  integer :: provided, ierr, failures
  integer(c_int) :: rank, flag, out, idx, dead(2), nfailed, me
  integer(sidecore_request_kind) :: req, reqs(2)
  type(sidecore_status) :: st
  real(c_double), asynchronous :: a(2), b(2)
  integer(sidecore_count_kind) :: counts(1), displs(1)
  integer(c_int), parameter :: no_comm = 12345
  integer(sidecore_request_kind), parameter :: kept = 4242

  failures = 0
  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierr)
  a = 1
  b = 0
  counts = 1
  displs = 0

  ! Before sidecore_init: every call is refused (SIDECORE_ERR_NOT_INITIALIZED).
  rank = 99
  call check(sidecore_rank(rank) /= SIDECORE_SUCCESS .and. rank == 99, __LINE__)
  rank = 99
  call check(sidecore_size(rank) /= SIDECORE_SUCCESS .and. rank == 99, __LINE__)
  out = 99
  call check(sidecore_comm_dup(SIDECORE_COMM_WORLD, out) /= SIDECORE_SUCCESS .and. out == 99, __LINE__)
  out = 99
  call check(sidecore_comm_split(SIDECORE_COMM_WORLD, 0, 0, out) /= SIDECORE_SUCCESS .and. out == 99, __LINE__)

  call check(sidecore_init(MPI_COMM_WORLD) == SIDECORE_SUCCESS, __LINE__)
  call check(sidecore_rank(me) == SIDECORE_SUCCESS, __LINE__)

  ! A communicator that is not live.
  rank = 99
  call check(sidecore_comm_rank(no_comm, rank) /= SIDECORE_SUCCESS .and. rank == 99, __LINE__)
  rank = 99
  call check(sidecore_comm_size(no_comm, rank) /= SIDECORE_SUCCESS .and. rank == 99, __LINE__)
  out = 99
  call check(sidecore_comm_dup(no_comm, out) /= SIDECORE_SUCCESS .and. out == 99, __LINE__)
  out = 99
  call check(sidecore_comm_split(no_comm, 0, 0, out) /= SIDECORE_SUCCESS .and. out == 99, __LINE__)
  req = kept
  call check(sidecore_ibarrier(no_comm, req) /= SIDECORE_SUCCESS .and. req == kept, __LINE__)
  req = kept
  call check(sidecore_barrier_init(no_comm, req) /= SIDECORE_SUCCESS .and. req == kept, __LINE__)

  ! A count beyond the buffer: the request is not made.
  req = kept
  call check(sidecore_isend(a, 800_sidecore_count_kind, me, 0, SIDECORE_COMM_WORLD, &
      req) /= SIDECORE_SUCCESS .and. req == kept, __LINE__)
  req = kept
  call check(sidecore_irecv(b, 800_sidecore_count_kind, me, 0, SIDECORE_COMM_WORLD, &
      req) /= SIDECORE_SUCCESS .and. req == kept, __LINE__)
  req = kept
  call check(sidecore_send_init(a, 800_sidecore_count_kind, me, 0, SIDECORE_COMM_WORLD, &
      req) /= SIDECORE_SUCCESS .and. req == kept, &
             __LINE__)
  req = kept
  call check(sidecore_recv_init(b, 800_sidecore_count_kind, me, 0, SIDECORE_COMM_WORLD, &
      req) /= SIDECORE_SUCCESS .and. req == kept, &
             __LINE__)
  req = kept
  call check(sidecore_ibcast(b, 100_sidecore_count_kind, SIDECORE_DOUBLE, 0, SIDECORE_COMM_WORLD, &
      req) /= SIDECORE_SUCCESS .and. req == kept, &
             __LINE__)
  req = kept
  call check(sidecore_iallreduce(a, b, 100_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_SUM, SIDECORE_COMM_WORLD, &
      req) /= SIDECORE_SUCCESS &
             .and. req == kept, __LINE__)
  req = kept
  call check(sidecore_reduce_init(a, b, 100_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_SUM, 0, &
      SIDECORE_COMM_WORLD, req) /= SIDECORE_SUCCESS &
             .and. req == kept, __LINE__)
  req = kept
  call check(sidecore_iallgatherv(a, 100_sidecore_count_kind, b, counts, displs, SIDECORE_DOUBLE, SIDECORE_COMM_WORLD, &
      req) &
             /= SIDECORE_SUCCESS .and. req == kept, __LINE__)
  st = sidecore_status(source=5, tag=6, bytes=7, error=8)
  call check(sidecore_recv(b, 800_sidecore_count_kind, me, 0, SIDECORE_COMM_WORLD, &
      st) /= SIDECORE_SUCCESS .and. kept_status(st), __LINE__)

  ! SIDECORE_REQUEST_NULL to sidecore_wait and sidecore_test; a negative count to the array calls.
  req = SIDECORE_REQUEST_NULL
  st = sidecore_status(source=5, tag=6, bytes=7, error=8)
  call check(sidecore_wait(req, st) /= SIDECORE_SUCCESS .and. kept_status(st), __LINE__)
  flag = 7
  st = sidecore_status(source=5, tag=6, bytes=7, error=8)
  call check(sidecore_test(req, flag, st) /= SIDECORE_SUCCESS .and. flag == 7 .and. kept_status(st), __LINE__)
  reqs = SIDECORE_REQUEST_NULL
  flag = 7
  call check(sidecore_testall(-1, reqs, flag) /= SIDECORE_SUCCESS .and. flag == 7, __LINE__)
  idx = 7
  st = sidecore_status(source=5, tag=6, bytes=7, error=8)
  call check(sidecore_waitany(-1, reqs, idx, st) /= SIDECORE_SUCCESS .and. idx == 7 .and. kept_status(st), __LINE__)
  flag = 7
  st = sidecore_status(source=5, tag=6, bytes=7, error=8)
  call check(sidecore_testany(-1, reqs, idx, flag, st) /= SIDECORE_SUCCESS .and. idx == 7 .and. flag == 7 &
             .and. kept_status(st), __LINE__)

  ! sidecore_failed_ranks with a negative capacity.
  dead = 99
  nfailed = 99
  call check(sidecore_failed_ranks(dead, -1, nfailed) /= SIDECORE_SUCCESS .and. nfailed == 99 .and. all(dead == 99), &
             __LINE__)

  call check(sidecore_finalize() == SIDECORE_SUCCESS, __LINE__)
  if (failures > 0) then
    write (*, '(a, i0, a, i0)') 'fortran_outputs: rank ', me, ': failures: ', failures
    error stop 1
  end if
  write (*, '(a, i0, a)') 'fortran_outputs: rank ', me, ': ok'
  call MPI_Finalize(ierr)

contains

  subroutine check(cond, line)
    logical, intent(in) :: cond
    integer, intent(in) :: line
    if (.not. cond) then
      write (*, '(a, i0, 2a)') 'fortran_outputs.F90:', line, ': check failed; sidecore_last_error: ', &
          sidecore_last_error()
      failures = failures + 1
    end if
  end subroutine

  logical function kept_status(s)
    type(sidecore_status), intent(in) :: s
    kept_status = s%source == 5 .and. s%tag == 6 .and. s%bytes == 7 .and. s%error == 8
  end function
end program
