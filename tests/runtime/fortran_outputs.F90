! A refused call leaves its outputs as they were (docs/fortran.md), compiled with -O2 (CMakeLists.txt): there a
! dummy that is intent(out) lets the compiler drop the caller's earlier value, and a type(sc_status) one is reset to
! its default on entry, before sidecore sees the call. Every kind of output is checked: ranks and sizes,
! communicator ids, flags, requests, statuses, an operator id, sc_failed_ranks' ranks and count. Prints
! "fortran_outputs: rank R: ok"; any failure stops the program with the line that failed.
program fortran_outputs
  use, intrinsic :: iso_c_binding
  use mpi
  use sidecore
  implicit none
  integer :: provided, ierr, failures
  integer(c_int) :: rank, flag, out, idx, dead(2), nfailed, me
  integer(sc_request_kind) :: req, reqs(2)
  type(sc_status) :: st
  real(c_double), asynchronous :: a(2), b(2)
  integer(sc_count_kind) :: counts(1), displs(1)
  integer(c_int), parameter :: no_comm = 12345
  integer(sc_request_kind), parameter :: kept = 4242

  failures = 0
  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierr)
  a = 1
  b = 0
  counts = 1
  displs = 0

  ! Before sc_init: every call is refused (SC_ERR_NOT_INITIALIZED).
  rank = 99
  call check(sc_rank(rank) /= SC_SUCCESS .and. rank == 99, __LINE__)
  rank = 99
  call check(sc_size(rank) /= SC_SUCCESS .and. rank == 99, __LINE__)
  out = 99
  call check(sc_comm_dup(SC_COMM_WORLD, out) /= SC_SUCCESS .and. out == 99, __LINE__)
  out = 99
  call check(sc_comm_split(SC_COMM_WORLD, 0, 0, out) /= SC_SUCCESS .and. out == 99, __LINE__)

  call check(sc_init(MPI_COMM_WORLD) == SC_SUCCESS, __LINE__)
  call check(sc_rank(me) == SC_SUCCESS, __LINE__)

  ! A communicator that is not live.
  rank = 99
  call check(sc_comm_rank(no_comm, rank) /= SC_SUCCESS .and. rank == 99, __LINE__)
  rank = 99
  call check(sc_comm_size(no_comm, rank) /= SC_SUCCESS .and. rank == 99, __LINE__)
  out = 99
  call check(sc_comm_dup(no_comm, out) /= SC_SUCCESS .and. out == 99, __LINE__)
  out = 99
  call check(sc_comm_split(no_comm, 0, 0, out) /= SC_SUCCESS .and. out == 99, __LINE__)
  req = kept
  call check(sc_ibarrier(no_comm, req) /= SC_SUCCESS .and. req == kept, __LINE__)
  req = kept
  call check(sc_barrier_init(no_comm, req) /= SC_SUCCESS .and. req == kept, __LINE__)

  ! A count beyond the buffer: the request is not made.
  req = kept
  call check(sc_isend(a, 800_sc_count_kind, me, 0, SC_COMM_WORLD, req) /= SC_SUCCESS .and. req == kept, __LINE__)
  req = kept
  call check(sc_irecv(b, 800_sc_count_kind, me, 0, SC_COMM_WORLD, req) /= SC_SUCCESS .and. req == kept, __LINE__)
  req = kept
  call check(sc_send_init(a, 800_sc_count_kind, me, 0, SC_COMM_WORLD, req) /= SC_SUCCESS .and. req == kept, &
             __LINE__)
  req = kept
  call check(sc_recv_init(b, 800_sc_count_kind, me, 0, SC_COMM_WORLD, req) /= SC_SUCCESS .and. req == kept, &
             __LINE__)
  req = kept
  call check(sc_ibcast(b, 100_sc_count_kind, SC_DOUBLE, 0, SC_COMM_WORLD, req) /= SC_SUCCESS .and. req == kept, &
             __LINE__)
  req = kept
  call check(sc_iallreduce(a, b, 100_sc_count_kind, SC_DOUBLE, SC_SUM, SC_COMM_WORLD, req) /= SC_SUCCESS &
             .and. req == kept, __LINE__)
  req = kept
  call check(sc_reduce_init(a, b, 100_sc_count_kind, SC_DOUBLE, SC_SUM, 0, SC_COMM_WORLD, req) /= SC_SUCCESS &
             .and. req == kept, __LINE__)
  req = kept
  call check(sc_iallgatherv(a, 100_sc_count_kind, b, counts, displs, SC_DOUBLE, SC_COMM_WORLD, req) &
             /= SC_SUCCESS .and. req == kept, __LINE__)
  st = sc_status(source=5, tag=6, bytes=7, error=8)
  call check(sc_recv(b, 800_sc_count_kind, me, 0, SC_COMM_WORLD, st) /= SC_SUCCESS .and. kept_status(st), __LINE__)

  ! SC_REQUEST_NULL to sc_wait and sc_test; a negative count to the array calls.
  req = SC_REQUEST_NULL
  st = sc_status(source=5, tag=6, bytes=7, error=8)
  call check(sc_wait(req, st) /= SC_SUCCESS .and. kept_status(st), __LINE__)
  flag = 7
  st = sc_status(source=5, tag=6, bytes=7, error=8)
  call check(sc_test(req, flag, st) /= SC_SUCCESS .and. flag == 7 .and. kept_status(st), __LINE__)
  reqs = SC_REQUEST_NULL
  flag = 7
  call check(sc_testall(-1, reqs, flag) /= SC_SUCCESS .and. flag == 7, __LINE__)
  idx = 7
  st = sc_status(source=5, tag=6, bytes=7, error=8)
  call check(sc_waitany(-1, reqs, idx, st) /= SC_SUCCESS .and. idx == 7 .and. kept_status(st), __LINE__)
  flag = 7
  st = sc_status(source=5, tag=6, bytes=7, error=8)
  call check(sc_testany(-1, reqs, idx, flag, st) /= SC_SUCCESS .and. idx == 7 .and. flag == 7 &
             .and. kept_status(st), __LINE__)

  ! sc_failed_ranks with a negative capacity.
  dead = 99
  nfailed = 99
  call check(sc_failed_ranks(dead, -1, nfailed) /= SC_SUCCESS .and. nfailed == 99 .and. all(dead == 99), &
             __LINE__)

  call check(sc_finalize() == SC_SUCCESS, __LINE__)
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
      write (*, '(a, i0, 2a)') 'fortran_outputs.F90:', line, ': check failed; sc_last_error: ', sc_last_error()
      failures = failures + 1
    end if
  end subroutine

  logical function kept_status(s)
    type(sc_status), intent(in) :: s
    kept_status = s%source == 5 .and. s%tag == 6 .and. s%bytes == 7 .and. s%error == 8
  end function
end program
