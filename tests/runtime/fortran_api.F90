! The Fortran module (use sidecore) at any rank count: point-to-point around a ring with OpenMP computing in between,
! persistent requests, waitany/testany's 1-based indices, every collective kind against values computed here, a
! Fortran user operator and maxloc pairs, communicators, and the refusals only the module can make (a count beyond
! the variable, a strided section, a polymorphic buffer, a short v-variant array). Prints "fortran_api: rank R of
! P: ok"; any failure stops the program with the line that failed and sidecore_last_error.
module fortran_api_checks
  use, intrinsic :: iso_c_binding
  use sidecore
  implicit none
  integer :: failures = 0

  type, bind(C) :: value_index
    real(c_double) :: value
    integer(c_int) :: index
  end type

  ! Arrays side by side, as in a program's state: a count beyond the first would reach the next.
  type :: req_frame
    integer(sidecore_request_kind) :: first(2) = SIDECORE_REQUEST_NULL
    integer(sidecore_request_kind) :: second(1) = SIDECORE_REQUEST_NULL
  end type
  type :: status_frame
    type(sidecore_status) :: one(1)
    integer(c_int64_t) :: canary(4) = 777
  end type

  ! A derived type whose storage holds a descriptor, not the array: its bytes are what a buffer of it is.
  type :: with_alloc
    real(c_double), allocatable :: v(:)
  end type

contains

  subroutine expect(cond, line)
    logical, intent(in) :: cond
    integer, intent(in) :: line
    if (.not. cond) then
      write (*, '(a, i0, 2a)') 'fortran_api.F90:', line, ': check failed; sidecore_last_error: ', sidecore_last_error()
      failures = failures + 1
    end if
  end subroutine

  subroutine ok(code, line)
    integer(c_int), intent(in) :: code
    integer, intent(in) :: line
    call expect(code == SIDECORE_SUCCESS, line)
  end subroutine

  ! A refusal: SIDECORE_ERR_INVALID_ARGUMENT whose message holds `words`.
  subroutine refused(code, words, line)
    integer(c_int), intent(in) :: code
    character(len=*), intent(in) :: words
    integer, intent(in) :: line
    call expect(code == SIDECORE_ERR_INVALID_ARGUMENT .and. index(sidecore_last_error(), words) > 0, line)
  end subroutine

  ! A refusal of a count one byte beyond buf: the message gives buf's size, which must be `bytes`.
  subroutine holds(code, bytes, line)
    integer(c_int), intent(in) :: code
    integer, intent(in) :: bytes, line
    character(len=64) :: words
    write (words, '(a, i0, a)') 'reaches beyond buf, which holds ', bytes, ' bytes'
    call refused(code, trim(words), line)
  end subroutine

  ! Generic "send anything" helpers, as a library over sidecore might write them: gfortran hands a polymorphic
  ! variable over with a descriptor that holds neither the value's address nor its size.
  integer(c_int) function isend_any(x, bytes, dest, tag, req) result(code)
    class(*), intent(in), asynchronous :: x
    integer(sidecore_count_kind), intent(in) :: bytes
    integer(c_int), intent(in) :: dest, tag
    integer(sidecore_request_kind), intent(inout) :: req
    code = sidecore_isend(x, bytes, dest, tag, SIDECORE_COMM_WORLD, req)
  end function
  integer(c_int) function irecv_any(x, bytes, source, tag, req) result(code)
    class(*), intent(inout), asynchronous :: x
    integer(sidecore_count_kind), intent(in) :: bytes
    integer(c_int), intent(in) :: source, tag
    integer(sidecore_request_kind), intent(inout) :: req
    code = sidecore_irecv(x, bytes, source, tag, SIDECORE_COMM_WORLD, req)
  end function
  integer(c_int) function isend_any_array(x, bytes, dest, tag, req) result(code)
    class(*), intent(in), asynchronous :: x(:)
    integer(sidecore_count_kind), intent(in) :: bytes
    integer(c_int), intent(in) :: dest, tag
    integer(sidecore_request_kind), intent(inout) :: req
    code = sidecore_isend(x, bytes, dest, tag, SIDECORE_COMM_WORLD, req)
  end function
  ! The way that works: select type gives the value its declared type.
  integer(c_int) function isend_selected(x, bytes, dest, tag, req) result(code)
    class(*), intent(in), asynchronous :: x(:)
    integer(sidecore_count_kind), intent(in) :: bytes
    integer(c_int), intent(in) :: dest, tag
    integer(sidecore_request_kind), intent(inout) :: req
    code = SIDECORE_ERR_INVALID_ARGUMENT
    select type (x)
    type is (real(c_double))
      code = sidecore_isend(x, bytes, dest, tag, SIDECORE_COMM_WORLD, req)
    end select
  end function

  ! inout(i) = max(|in(i)|, |inout(i)|) on doubles.
  subroutine max_abs(in, inout, count, ctx) bind(C)
    type(c_ptr), value :: in, inout
    integer(c_size_t), value :: count
    type(c_ptr), value :: ctx
    real(c_double), pointer :: a(:), b(:)
    call c_f_pointer(in, a, [count])
    call c_f_pointer(inout, b, [count])
    b = max(abs(a), abs(b))
    if (c_associated(ctx)) continue
  end subroutine
end module

program fortran_api
  use, intrinsic :: iso_c_binding
  use mpi
  use sidecore
  use fortran_api_checks
  implicit none
  integer :: provided, ierr, i, j
  integer(c_int) :: rank, size, right, left, flag, idx, n, op, half, hrank, hsize, nfailed, dead(4)
  integer(sidecore_request_kind) :: reqs(2), preqs(2), r
  type(sidecore_status) :: st, sts(2)
  real(c_double), allocatable :: a(:), b(:), grid(:, :), vals(:), parts(:), mine(:)
  real(c_double) :: x, y, acc, pair(2), pairs(2)
  integer(sidecore_count_kind), allocatable :: counts(:), displs(:), short(:)
  integer(c_int64_t), allocatable :: ones(:), gathered(:)
  type(value_index) :: vi, best
  integer, parameter :: m = 1000
  integer, parameter :: qp = selected_real_kind(33)
  character(len=5) :: words(3)
  complex(c_double) :: z(2)
  logical(c_bool) :: bits(3)
  type(c_ptr) :: ptrs(2)
  real(qp) :: quad
  type(with_alloc) :: wa
  integer(c_int64_t) :: v8, scratch(16)
  integer(c_int) :: rc
  type(req_frame) :: rf
  type(status_frame) :: sf
  integer(sidecore_request_kind) :: r3(3)
  ! Buffers of nonblocking and persistent calls are ASYNCHRONOUS, as with MPI: without it the compiler may keep
  ! x in a register across sidecore_start, or y's old value across sidecore_wait, which do not name them.
  asynchronous :: a, b, grid, x, y, vals, parts, pair, pairs, v8, scratch

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierr)
  call ok(sidecore_init(MPI_COMM_WORLD), __LINE__)
  call ok(sidecore_rank(rank), __LINE__)
  call ok(sidecore_size(size), __LINE__)
  call ok(sidecore_comm_size(SIDECORE_COMM_WORLD, n), __LINE__)
  call expect(n == size, __LINE__)
  right = modulo(rank + 1, size)
  left = modulo(rank - 1, size)

  ! ---- a ring exchange overlapped with OpenMP computation --------------------------------------------------------
  allocate (a(m), b(m))
  a = [(real(rank * m + i, c_double), i = 1, m)]
  b = -1
  call ok(sidecore_irecv(b, 8_sidecore_count_kind * m, left, 7, SIDECORE_COMM_WORLD, reqs(1)), __LINE__)
  call ok(sidecore_isend(a, 8_sidecore_count_kind * m, right, 7, SIDECORE_COMM_WORLD, reqs(2)), __LINE__)
  acc = 0
  !$omp parallel do reduction(+:acc)
  do i = 1, 100000
    acc = acc + sqrt(real(i, c_double))
  end do
  !$omp end parallel do
  call ok(sidecore_waitall(2, reqs, sts), __LINE__)
  call expect(all(reqs == SIDECORE_REQUEST_NULL), __LINE__)
  call expect(sts(1)%source == left .and. sts(1)%tag == 7 .and. sts(1)%bytes == 8 * m, __LINE__)
  call expect(all(b == [(real(left * m + i, c_double), i = 1, m)]), __LINE__)
  call expect(acc > 0, __LINE__)

  ! A scalar, and a contiguous column of a 2-D array.
  allocate (grid(4, 3))
  grid = rank
  x = 10 + rank
  call ok(sidecore_isend(x, 8_sidecore_count_kind, right, 8, SIDECORE_COMM_WORLD, r), __LINE__)
  call ok(sidecore_recv(y, 8_sidecore_count_kind, left, 8, SIDECORE_COMM_WORLD, st), __LINE__)
  call ok(sidecore_wait(r), __LINE__)
  call expect(y == 10 + left .and. st%bytes == 8, __LINE__)
  ! A zero-size section is 0 bytes, whatever its strides.
  rc = sidecore_isend(grid(1:3:2, 1:0), 0_sidecore_count_kind, right, 20, SIDECORE_COMM_WORLD, r)
  call ok(rc, __LINE__)
  if (rc == SIDECORE_SUCCESS) then
    call ok(sidecore_recv(grid(1:0, 1), 0_sidecore_count_kind, left, 20, SIDECORE_COMM_WORLD), __LINE__)
    call ok(sidecore_wait(r), __LINE__)
  end if
  call ok(sidecore_isend(grid(:, 2), 32_sidecore_count_kind, right, 9, SIDECORE_COMM_WORLD, r), __LINE__)
  call ok(sidecore_recv(grid(:, 3), 32_sidecore_count_kind, left, 9, SIDECORE_COMM_WORLD), __LINE__)
  call ok(sidecore_wait(r), __LINE__)
  call expect(all(grid(:, 3) == left) .and. all(grid(:, 2) == rank), __LINE__)

  ! waitany and testany count from 1.
  call ok(sidecore_irecv(y, 8_sidecore_count_kind, left, 10, SIDECORE_COMM_WORLD, reqs(2)), __LINE__)
  reqs(1) = SIDECORE_REQUEST_NULL
  call ok(sidecore_isend(x, 8_sidecore_count_kind, right, 10, SIDECORE_COMM_WORLD, r), __LINE__)
  call ok(sidecore_waitany(2, reqs, idx, st), __LINE__)
  call expect(idx == 2 .and. reqs(2) == SIDECORE_REQUEST_NULL .and. st%source == left, __LINE__)
  call ok(sidecore_wait(r), __LINE__)
  call ok(sidecore_testany(2, reqs, idx, flag), __LINE__)
  call expect(flag == 1 .and. idx == SIDECORE_UNDEFINED, __LINE__)
  ! A refused call leaves the index as it was.
  idx = 5
  call refused(sidecore_waitany(-1, reqs, idx), "count=-1", __LINE__)
  call expect(idx == 5, __LINE__)
  idx = 5
  call refused(sidecore_testany(-1, reqs, idx, flag), "count=-1", __LINE__)
  call expect(idx == 5, __LINE__)

  ! A request's failure names it as the program does: reqs(2), not C's reqs[1].
  call ok(sidecore_irecv(y, 8_sidecore_count_kind, left, 13, SIDECORE_COMM_WORLD, reqs(2)), __LINE__)
  call ok(sidecore_irecv(pair, 16_sidecore_count_kind, left, 14, SIDECORE_COMM_WORLD, reqs(1)), __LINE__)
  pairs = rank
  call ok(sidecore_isend(pairs, 16_sidecore_count_kind, right, 13, SIDECORE_COMM_WORLD, r), __LINE__)
  call ok(sidecore_wait(r), __LINE__)
  call ok(sidecore_isend(pairs, 16_sidecore_count_kind, right, 14, SIDECORE_COMM_WORLD, r), __LINE__)
  call ok(sidecore_wait(r), __LINE__)
  call expect(sidecore_waitall(2, reqs, sts) == SIDECORE_ERR_TRUNCATED .and. sts(2)%error == SIDECORE_ERR_TRUNCATED, &
      __LINE__)
  call expect(index(sidecore_last_error(), "sidecore_waitall: reqs(2): the receive matched") > 0, __LINE__)
  reqs(1) = SIDECORE_REQUEST_NULL
  call ok(sidecore_irecv(y, 8_sidecore_count_kind, left, 15, SIDECORE_COMM_WORLD, reqs(2)), __LINE__)
  call ok(sidecore_isend(pairs, 16_sidecore_count_kind, right, 15, SIDECORE_COMM_WORLD, r), __LINE__)
  call ok(sidecore_wait(r), __LINE__)
  call expect(sidecore_waitany(2, reqs, idx) == SIDECORE_ERR_TRUNCATED .and. idx == 2, __LINE__)
  call expect(index(sidecore_last_error(), "sidecore_waitany: reqs(2): the receive matched") > 0, __LINE__)

  ! A strided section of requests works: the module's array calls take the handles back as they were changed.
  call ok(sidecore_irecv(y, 8_sidecore_count_kind, left, 21, SIDECORE_COMM_WORLD, r3(1)), __LINE__)
  r3(2) = 99
  call ok(sidecore_isend(x, 8_sidecore_count_kind, right, 21, SIDECORE_COMM_WORLD, r3(3)), __LINE__)
  call ok(sidecore_waitall(2, r3(1:3:2), sts), __LINE__)
  call expect(r3(1) == SIDECORE_REQUEST_NULL .and. r3(2) == 99 .and. r3(3) == SIDECORE_REQUEST_NULL, __LINE__)
  call expect(sts(1)%source == left .and. sts(1)%tag == 21, __LINE__)
  ! A count beyond the request or status array is refused, as a buffer's count is: it would reach the next array.
  call refused(sidecore_waitall(3, rf%first), "sidecore_waitall: count=3 reaches beyond reqs, which holds 2 requests", &
      __LINE__)
  call refused(sidecore_testall(3, rf%first, flag), "sidecore_testall: count=3 reaches beyond reqs", __LINE__)
  idx = 5
  call refused(sidecore_waitany(3, rf%first, idx), "sidecore_waitany: count=3 reaches beyond reqs", __LINE__)
  call refused(sidecore_testany(3, rf%first, idx, flag), "sidecore_testany: count=3 reaches beyond reqs", __LINE__)
  call expect(idx == 5, __LINE__)
  call refused(sidecore_startall(3, rf%first), "sidecore_startall: count=3 reaches beyond reqs", __LINE__)
  call refused(sidecore_waitall(2, rf%first, sf%one), &
               "sidecore_waitall: count=2 reaches beyond statuses, which holds 1 status", __LINE__)
  call refused(sidecore_testall(2, rf%first, flag, sf%one), "sidecore_testall: count=2 reaches beyond statuses", &
      __LINE__)
  call expect(all(sf%canary == 777), __LINE__)

  ! Persistent requests, started twice.
  call ok(sidecore_recv_init(b, 8_sidecore_count_kind * m, left, 11, SIDECORE_COMM_WORLD, preqs(1)), __LINE__)
  call ok(sidecore_send_init(a, 8_sidecore_count_kind * m, right, 11, SIDECORE_COMM_WORLD, preqs(2)), __LINE__)
  do j = 1, 2
    b = -1
    a(1) = j
    call ok(sidecore_startall(2, preqs), __LINE__)
    call ok(sidecore_waitall(2, preqs), __LINE__)
    call expect(b(1) == j .and. b(m) == left * m + m, __LINE__)
  end do
  call ok(sidecore_request_free(preqs(1)), __LINE__)
  call ok(sidecore_request_free(preqs(2)), __LINE__)

  ! ---- collectives ---------------------------------------------------------------------------------------------
  x = rank + 1
  call ok(sidecore_allreduce(x, y, 1_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_SUM, SIDECORE_COMM_WORLD), __LINE__)
  call expect(y == size * (size + 1) / 2, __LINE__)
  y = rank + 1
  call ok(sidecore_allreduce(SIDECORE_IN_PLACE, y, 1_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_MAX, &
      SIDECORE_COMM_WORLD), __LINE__)
  call expect(y == size, __LINE__)
  pair = [real(-rank, c_double), 1.0_c_double]
  call ok(sidecore_op_create(max_abs, .true., op), __LINE__)
  call ok(sidecore_iallreduce(pair, pairs, 2_sidecore_count_kind, SIDECORE_DOUBLE, op, SIDECORE_COMM_WORLD, r), &
      __LINE__)
  call ok(sidecore_wait(r), __LINE__)
  call expect(pairs(1) == size - 1 .and. pairs(2) == 1, __LINE__)
  call ok(sidecore_op_free(op), __LINE__)
  vi = value_index(real(modulo(rank * 7, size + 1), c_double), rank)
  call ok(sidecore_allreduce(vi, best, 1_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_MAXLOC, SIDECORE_COMM_WORLD), &
      __LINE__)
  call expect(best%value == maxval([(modulo(i * 7, size + 1), i = 0, size - 1)]), __LINE__)

  x = 0
  if (rank == size - 1) x = 42
  call ok(sidecore_bcast(x, 1_sidecore_count_kind, SIDECORE_DOUBLE, size - 1, SIDECORE_COMM_WORLD), __LINE__)
  call expect(x == 42, __LINE__)
  allocate (vals(size), parts(2 * size), mine(2))
  x = rank
  call ok(sidecore_gather(x, vals, 1_sidecore_count_kind, SIDECORE_DOUBLE, 0, SIDECORE_COMM_WORLD), __LINE__)
  if (rank == 0) call expect(all(vals == [(real(i, c_double), i = 0, size - 1)]), __LINE__)
  call ok(sidecore_allgather(x, vals, 1_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_COMM_WORLD), __LINE__)
  call expect(all(vals == [(real(i, c_double), i = 0, size - 1)]), __LINE__)
  parts = [(real(i, c_double), i = 1, 2 * size)]
  call ok(sidecore_scatter(parts, mine, 2_sidecore_count_kind, SIDECORE_DOUBLE, 0, SIDECORE_COMM_WORLD), __LINE__)
  call expect(mine(1) == 2 * rank + 1 .and. mine(2) == 2 * rank + 2, __LINE__)
  parts(1:size) = [(real(100 * rank + i, c_double), i = 1, size)]
  call ok(sidecore_ialltoall(parts(1:size), vals, 1_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_COMM_WORLD, r), &
      __LINE__)
  call ok(sidecore_wait(r), __LINE__)
  call expect(all(vals == [(real(100 * i + rank + 1, c_double), i = 0, size - 1)]), __LINE__)
  parts = 1
  call ok(sidecore_reduce_scatter_block(parts, mine, 2_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_SUM, &
      SIDECORE_COMM_WORLD), __LINE__)
  call expect(all(mine == size), __LINE__)
  x = rank
  call ok(sidecore_reduce(x, y, 1_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_SUM, 0, SIDECORE_COMM_WORLD), __LINE__)
  if (rank == 0) call expect(y == size * (size - 1) / 2, __LINE__)

  ! v-variants: rank i gives i+1 values.
  allocate (counts(size), displs(size), ones(rank + 1), gathered(size * (size + 1) / 2))
  counts = [(int(i + 1, sidecore_count_kind), i = 0, size - 1)]
  displs = [(int(i * (i + 1) / 2, sidecore_count_kind), i = 0, size - 1)]
  ones = rank
  call ok(sidecore_allgatherv(ones, int(rank + 1, sidecore_count_kind), gathered, counts, displs, SIDECORE_INT64, &
      SIDECORE_COMM_WORLD), &
          __LINE__)
  call expect(all(gathered == [((int(i, c_int64_t), j = 0, i), i = 0, size - 1)]), __LINE__)
  deallocate (ones)
  allocate (ones(size))
  ones = rank
  counts = 1
  displs = [(int(i, sidecore_count_kind), i = 0, size - 1)]
  call ok(sidecore_alltoallv(ones, counts, displs, gathered, counts, displs, SIDECORE_INT64, SIDECORE_COMM_WORLD), &
      __LINE__)
  call expect(all(gathered(1:size) == [(int(i, c_int64_t), i = 0, size - 1)]), __LINE__)

  ! A persistent allreduce, started twice; a nonblocking barrier.
  call ok(sidecore_allreduce_init(x, y, 1_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_SUM, SIDECORE_COMM_WORLD, r), &
      __LINE__)
  do j = 1, 2
    x = j
    call ok(sidecore_start(r), __LINE__)
    call ok(sidecore_wait(r), __LINE__)
    call expect(y == j * size, __LINE__)
  end do
  call ok(sidecore_request_free(r), __LINE__)
  call ok(sidecore_ibarrier(SIDECORE_COMM_WORLD, r), __LINE__)
  call ok(sidecore_wait(r), __LINE__)

  ! ---- communicators and regions -------------------------------------------------------------------------------
  call ok(sidecore_comm_split(SIDECORE_COMM_WORLD, modulo(rank, 2), rank, half), __LINE__)
  call ok(sidecore_comm_rank(half, hrank), __LINE__)
  call ok(sidecore_comm_size(half, hsize), __LINE__)
  call expect(hrank == rank / 2 .and. hsize == (size - modulo(rank, 2) + 1) / 2, __LINE__)
  x = 1
  call ok(sidecore_allreduce(x, y, 1_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_SUM, half), __LINE__)
  call expect(y == hsize, __LINE__)
  call ok(sidecore_comm_free(half), __LINE__)
  call expect(half == -1, __LINE__)
  call ok(sidecore_region_begin("halo"), __LINE__)
  call ok(sidecore_region_end(), __LINE__)

  ! ---- what the module refuses ---------------------------------------------------------------------------------
  call refused(sidecore_isend(a, 8_sidecore_count_kind * m + 1, right, 12, SIDECORE_COMM_WORLD, r), &
               "bytes=8001 reaches beyond buf, which holds 8000 bytes", __LINE__)
  call refused(sidecore_irecv(x, 16_sidecore_count_kind, left, 12, SIDECORE_COMM_WORLD, r), "holds 8 bytes", __LINE__)
  call refused(sidecore_isend(grid(2, :), 24_sidecore_count_kind, right, 12, SIDECORE_COMM_WORLD, r), &
               "sidecore_isend: buf is not contiguous", __LINE__)
  ! A collective's count is elements of its dtype: a count beyond a buffer is refused in those, naming the count,
  ! the buffer's size in bytes and in elements, and the counts accepted.
  call refused(sidecore_allreduce(x, y, 2_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_SUM, SIDECORE_COMM_WORLD), &
               "sidecore_allreduce: count is 2, which reaches beyond send: this rank's send must hold 16 bytes " &
               // "(2 elements of SIDECORE_DOUBLE) and holds 8 bytes (1 element of SIDECORE_DOUBLE); accepted: " &
               // "count 0 .. 1", __LINE__)
  call refused(sidecore_allreduce(a, y, 2_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_SUM, SIDECORE_COMM_WORLD), &
               "count is 2, which reaches beyond recv: this rank's recv must hold 16 bytes", __LINE__)
  call refused(sidecore_allreduce(a(1:100), b, 200_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_SUM, &
      SIDECORE_COMM_WORLD), &
               "count is 200, which reaches beyond send: this rank's send must hold 1600 bytes (200 elements of " &
               // "SIDECORE_DOUBLE) and holds 800 bytes (100 elements of SIDECORE_DOUBLE); accepted: count 0 .. 100", &
                   __LINE__)
  call refused(sidecore_allreduce(vi, best, 2_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_MAXLOC, &
      SIDECORE_COMM_WORLD), &
               "holds 16 bytes (1 {value; int32 index} pair of SIDECORE_DOUBLE); accepted: count 0 .. 1", __LINE__)
  call refused(sidecore_bcast(x, 2_sidecore_count_kind, SIDECORE_DOUBLE, 0, SIDECORE_COMM_WORLD), &
               "sidecore_bcast: count is 2, which reaches beyond buf: this rank's buf must hold 16 bytes", __LINE__)
  if (size > 1) then
    call refused(sidecore_allgather(x, mine(1:1), 1_sidecore_count_kind, SIDECORE_DOUBLE, SIDECORE_COMM_WORLD), &
                 "holds 8 bytes (1 element of SIDECORE_DOUBLE); accepted: count 0 .. 0 (recv holds a block of count " &
                 // "elements for each of the communicator's", __LINE__)
    call refused(sidecore_allgatherv(x, 1_sidecore_count_kind, gathered(1:1), counts, displs, SIDECORE_INT64, &
        SIDECORE_COMM_WORLD), &
                 "recv_counts and recv_displs reach beyond recv", __LINE__)
  end if
  allocate (short(size - 1))
  call refused(sidecore_allgatherv(x, 1_sidecore_count_kind, gathered, short, displs, SIDECORE_INT64, &
      SIDECORE_COMM_WORLD), &
               "sidecore_allgatherv: recv_counts has", __LINE__)
  call refused(sidecore_isend(a, 8_sidecore_count_kind, size + 5, 12, SIDECORE_COMM_WORLD, r), "", __LINE__)
  ! SIDECORE_IN_PLACE is no point-to-point buffer: sidecore would read or write at its marker address.
  call refused(sidecore_irecv(SIDECORE_IN_PLACE, 4_sidecore_count_kind, left, 12, SIDECORE_COMM_WORLD, r), &
               "sidecore_irecv: buf is SIDECORE_IN_PLACE; accepted: a variable", __LINE__)
  call refused(sidecore_send_init(SIDECORE_IN_PLACE, 4_sidecore_count_kind, right, 12, SIDECORE_COMM_WORLD, r), &
               "sidecore_send_init: buf is SIDECORE_IN_PLACE; accepted: a variable", __LINE__)
  call refused(sidecore_bcast(SIDECORE_IN_PLACE, 1_sidecore_count_kind, SIDECORE_INT32, 0, SIDECORE_COMM_WORLD), &
               "sidecore_bcast: buf is SIDECORE_IN_PLACE", __LINE__)
  ! A polymorphic buffer is refused: its descriptor's address and size are not the value's (a scalar's address is
  ! the class container's). Were one accepted, its transfer is drained so that the program still ends.
  v8 = 42
  r = SIDECORE_REQUEST_NULL
  rc = isend_any(v8, 8_sidecore_count_kind, right, 16, r)
  call refused(rc, "sidecore_isend: buf is polymorphic", __LINE__)
  if (rc == SIDECORE_SUCCESS) then
    call ok(sidecore_recv(scratch, 8_sidecore_count_kind, left, 16, SIDECORE_COMM_WORLD), __LINE__)
    call ok(sidecore_wait(r), __LINE__)
  end if
  rc = irecv_any(v8, 8_sidecore_count_kind, left, 17, r)
  call refused(rc, "sidecore_irecv: buf is polymorphic", __LINE__)
  if (rc == SIDECORE_SUCCESS) then
    call ok(sidecore_send(v8, 8_sidecore_count_kind, right, 17, SIDECORE_COMM_WORLD), __LINE__)
    call ok(sidecore_wait(r), __LINE__)
  end if
  rc = isend_any_array(a, 8_sidecore_count_kind, right, 18, r)
  call refused(rc, "sidecore_isend: buf is polymorphic", __LINE__)
  if (rc == SIDECORE_SUCCESS) then
    call ok(sidecore_recv(scratch, 8_sidecore_count_kind, left, 18, SIDECORE_COMM_WORLD), __LINE__)
    call ok(sidecore_wait(r), __LINE__)
  end if
  a(1:2) = [real(rank, c_double), 5.0_c_double]
  call ok(isend_selected(a(1:2), 16_sidecore_count_kind, right, 19, r), __LINE__)
  call ok(sidecore_recv(pair, 16_sidecore_count_kind, left, 19, SIDECORE_COMM_WORLD), __LINE__)
  call ok(sidecore_wait(r), __LINE__)
  call expect(pair(1) == left .and. pair(2) == 5, __LINE__)
  words = 'abcde'
  z = 0
  bits = .false.
  ptrs = c_null_ptr
  quad = 0
  ! Every non-polymorphic type is taken at its storage size: a count one byte beyond it is refused naming it.
  call holds(sidecore_isend(words, 16_sidecore_count_kind, right, 12, SIDECORE_COMM_WORLD, r), 15, __LINE__)
  call holds(sidecore_isend(z, 33_sidecore_count_kind, right, 12, SIDECORE_COMM_WORLD, r), 32, __LINE__)
  call holds(sidecore_isend(bits, 4_sidecore_count_kind, right, 12, SIDECORE_COMM_WORLD, r), 3, __LINE__)
  call holds(sidecore_isend(ptrs, 17_sidecore_count_kind, right, 12, SIDECORE_COMM_WORLD, r), 16, __LINE__)
  call holds(sidecore_isend(quad, int(storage_size(quad) / 8 + 1, sidecore_count_kind), right, 12, &
      SIDECORE_COMM_WORLD, r), &
             storage_size(quad) / 8, __LINE__)
  call holds(sidecore_isend(wa, int(storage_size(wa) / 8 + 1, sidecore_count_kind), right, 12, SIDECORE_COMM_WORLD, &
      r), &
             storage_size(wa) / 8, __LINE__)
  call holds(sidecore_isend(vi, 17_sidecore_count_kind, right, 12, SIDECORE_COMM_WORLD, r), 16, __LINE__)
  call expect(sidecore_error_name(SIDECORE_ERR_TRUNCATED) == "truncated", __LINE__)
  call ok(sidecore_failed_ranks(dead, 4, nfailed), __LINE__)
  call expect(nfailed == 0, __LINE__)
  call refused(sidecore_failed_ranks(dead, 5, nfailed), &
               "sidecore_failed_ranks: capacity=5 reaches beyond ranks, which holds 4 entries", __LINE__)

  call ok(sidecore_finalize(), __LINE__)
  if (failures > 0) then
    write (*, '(a, i0, a, i0)') 'fortran_api: rank ', rank, ': failures: ', failures
    error stop 1
  end if
  write (*, '(a, i0, a, i0, a)') 'fortran_api: rank ', rank, ' of ', size, ': ok'
  call MPI_Finalize(ierr)
end program
