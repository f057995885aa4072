! Compiled, not run (runtime.fortran.integer8): a program built with -fdefault-integer-8, written as docs/fortran.md
! says (sidecore's integer arguments declared integer(c_int), literals written with _c_int), compiles, default
! logicals (8 bytes there too) included: sc_op_create's `commutative`.
program fortran_integer8
  use, intrinsic :: iso_c_binding
  use sidecore
  implicit none
  procedure(sc_user_function), bind(C) :: noop
  integer(c_int) :: code, rank, nranks, op, idx, flag, comm, dead(2), nfailed
  integer(sc_request_kind) :: reqs(2)
  type(sc_status) :: sts(2)
  real(c_double), asynchronous :: a(4), b(4)
  logical :: commute
  integer :: world   ! a default integer: 8 bytes here, as MPI_COMM_WORLD of an MPI built for 8-byte integers
  world = 0
  a = 1
  code = sc_init(int(world, c_int))
  code = sc_rank(rank)
  code = sc_size(nranks)
  code = sc_irecv(b, 32_sc_count_kind, modulo(rank - 1_c_int, nranks), 0_c_int, SC_COMM_WORLD, reqs(1))
  code = sc_isend(a, 8_sc_count_kind * size(a), modulo(rank + 1_c_int, nranks), 0_c_int, SC_COMM_WORLD, reqs(2))
  code = sc_waitall(2_c_int, reqs, sts)
  code = sc_waitany(2_c_int, reqs, idx)
  code = sc_testall(2_c_int, reqs, flag)
  code = sc_op_create(noop, .true., op)
  commute = .false.
  code = sc_op_create(noop, commute, op)
  code = sc_allreduce(a, b, size(a, kind=sc_count_kind), SC_DOUBLE, op, SC_COMM_WORLD)
  code = sc_op_free(op)
  code = sc_failed_ranks(dead, 2_c_int, nfailed)
  code = sc_comm_split(SC_COMM_WORLD, 0_c_int, rank, comm)
  code = sc_region_begin("x")
  code = sc_finalize()
  print *, sc_error_name(code), sc_last_error()
end program

subroutine noop(in, inout, count, ctx) bind(C)
  use, intrinsic :: iso_c_binding
  implicit none
  type(c_ptr), value :: in, inout
  integer(c_size_t), value :: count
  type(c_ptr), value :: ctx
  if (c_associated(in) .and. c_associated(inout) .and. count > 0 .and. c_associated(ctx)) continue
end subroutine
