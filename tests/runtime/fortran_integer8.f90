! Compiled, not run (runtime.fortran.integer8): a program built with -fdefault-integer-8, written as docs/fortran.md
! says (sidecore's integer arguments declared integer(c_int), literals written with _c_int), compiles, default
! logicals (8 bytes there too) included: sidecore_op_create's `commutative`.
program fortran_integer8
  use, intrinsic :: iso_c_binding
  use sidecore
  implicit none
  procedure(sidecore_user_function), bind(C) :: noop
  integer(c_int) :: code, rank, nranks, op, idx, flag, comm, dead(2), nfailed
  integer(sidecore_request_kind) :: reqs(2)
  type(sidecore_status) :: sts(2)
  real(c_double), asynchronous :: a(4), b(4)
  logical :: commute
  integer :: world   ! a default integer: 8 bytes here, as MPI_COMM_WORLD of an MPI built for 8-byte integers
  world = 0
  a = 1
  code = sidecore_init(int(world, c_int))
  code = sidecore_rank(rank)
  code = sidecore_size(nranks)
  code = sidecore_irecv(b, 32_sidecore_count_kind, modulo(rank - 1_c_int, nranks), 0_c_int, SIDECORE_COMM_WORLD, &
      reqs(1))
  code = sidecore_isend(a, 8_sidecore_count_kind * size(a), modulo(rank + 1_c_int, nranks), 0_c_int, &
      SIDECORE_COMM_WORLD, reqs(2))
  code = sidecore_waitall(2_c_int, reqs, sts)
  code = sidecore_waitany(2_c_int, reqs, idx)
  code = sidecore_testall(2_c_int, reqs, flag)
  code = sidecore_op_create(noop, .true., op)
  commute = .false.
  code = sidecore_op_create(noop, commute, op)
  code = sidecore_allreduce(a, b, size(a, kind=sidecore_count_kind), SIDECORE_DOUBLE, op, SIDECORE_COMM_WORLD)
  code = sidecore_op_free(op)
  code = sidecore_failed_ranks(dead, 2_c_int, nfailed)
  code = sidecore_comm_split(SIDECORE_COMM_WORLD, 0_c_int, rank, comm)
  code = sidecore_region_begin("x")
  code = sidecore_finalize()
  print *, sidecore_error_name(code), sidecore_last_error()
end program

subroutine noop(in, inout, count, ctx) bind(C)
  use, intrinsic :: iso_c_binding
  implicit none
  type(c_ptr), value :: in, inout
  integer(c_size_t), value :: count
  type(c_ptr), value :: ctx
  if (c_associated(in) .and. c_associated(inout) .and. count > 0 .and. c_associated(ctx)) continue
end subroutine
