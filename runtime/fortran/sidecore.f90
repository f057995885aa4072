! sidecore — the Fortran module (`use sidecore`): the C API of sidecore.h for Fortran 2018 programs.
!
! Every function returns SC_SUCCESS or an error code, as in C, and sc_last_error() gives the calling thread's last
! message (naming the argument, its value and what is accepted). Buffers are any contiguous variable: a scalar, an
! array or a contiguous section, of any type and rank. Unlike C, sidecore knows the buffer's size here, so a count
! that would read or write beyond the variable is refused (SC_ERR_INVALID_ARGUMENT) instead of overrunning it; a
! non-contiguous section (a(1, :)) is refused too, as sidecore would not see the elements between its strides.
! Point-to-point counts are bytes, collective counts elements of `dtype`, both integer(sc_count_kind). Indices of
! sc_waitany and sc_testany count from 1, as MPI's Fortran ones; everything else is as in C (docs/fortran.md).
! Outputs (ranks, flags, requests, statuses, ids, indices) are intent(inout), not intent(out): a refused call leaves
! them as they were, which intent(out) would not keep (the compiler may drop the caller's earlier value, and a
! type(sc_status) is reset to its default on entry).
module sidecore
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_size_t, c_ptr, c_funptr, c_char, c_null_char, &
                                         c_null_ptr, c_funloc, c_associated, c_f_pointer
  implicit none
  private

  ! Kinds: a request handle, and a count (bytes of point-to-point calls, elements of collectives).
  integer, parameter, public :: sc_request_kind = c_int64_t
  integer, parameter, public :: sc_count_kind = c_int64_t

  ! Error codes (sidecore::errc).
  integer(c_int), parameter, public :: SC_SUCCESS = 0, SC_ERR_INVALID_ARGUMENT = 1, SC_ERR_NOT_INITIALIZED = 2, &
    SC_ERR_ALREADY_INITIALIZED = 3, SC_ERR_INVALID_REQUEST = 4, SC_ERR_TRUNCATED = 5, SC_ERR_CANCELED = 6, &
    SC_ERR_BAD_SETTING = 7, SC_ERR_TOPOLOGY = 8, SC_ERR_TRANSPORT = 9, SC_ERR_MPI = 10, SC_ERR_PEER_FAILED = 11, &
    SC_ERR_INTERNAL = 99

  integer(c_int), parameter, public :: SC_ANY_SOURCE = -1, SC_ANY_TAG = -1, SC_COMM_WORLD = 0, SC_UNDEFINED = -1
  integer(sc_request_kind), parameter, public :: SC_REQUEST_NULL = 0

  ! Element types and built-in operators of the collectives (minloc/maxloc: pairs {value; int32 index}).
  integer(c_int), parameter, public :: SC_BYTE = 0, SC_INT32 = 1, SC_INT64 = 2, SC_UINT64 = 3, SC_FLOAT = 4, &
    SC_DOUBLE = 5
  integer(c_int), parameter, public :: SC_SUM = 0, SC_PROD = 1, SC_MIN = 2, SC_MAX = 3, SC_LAND = 4, SC_LOR = 5, &
    SC_BAND = 6, SC_BOR = 7, SC_BXOR = 8, SC_MINLOC = 9, SC_MAXLOC = 10

  ! Pass SC_IN_PLACE where MPI takes MPI_IN_PLACE: sidecore recognises this variable by its address.
  integer(c_int), bind(C, name="sc_fortran_in_place"), public, target :: SC_IN_PLACE = 0

  ! A completed request's status: source and tag -1 for sends; bytes received; its error code.
  type, bind(C), public :: sc_status
    integer(c_int) :: source = -1
    integer(c_int) :: tag = -1
    integer(c_size_t) :: bytes = 0
    integer(c_int) :: error = SC_SUCCESS
  end type

  ! A user operator for sc_op_create: inout(i) = in(i) op inout(i) for i <= count, the arrays being `count` elements
  ! of the collective's dtype (c_f_pointer gives them their type). Called from sidecore's progress; it must not call
  ! sidecore. `ctx` is sc_op_create's.
  abstract interface
    subroutine sc_user_function(in, inout, count, ctx) bind(C)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: in, inout
      integer(c_size_t), value :: count
      type(c_ptr), value :: ctx
    end subroutine
  end interface
  public :: sc_user_function

  public :: sc_init, sc_finalize, sc_failed_ranks, sc_step, sc_rank, sc_size, sc_comm_rank, sc_comm_size
  public :: sc_comm_dup, sc_comm_split, sc_comm_free
  public :: sc_isend, sc_irecv, sc_send, sc_recv, sc_send_init, sc_recv_init
  public :: sc_wait, sc_test, sc_waitall, sc_waitany, sc_testall, sc_testany, sc_cancel
  public :: sc_start, sc_startall, sc_request_free
  public :: sc_op_create, sc_op_free
  interface sc_op_create
    module procedure op_create_l1, op_create_l4, op_create_l8
  end interface
  public :: sc_ibarrier, sc_barrier, sc_barrier_init, sc_ibcast, sc_bcast, sc_bcast_init
  public :: sc_ireduce, sc_reduce, sc_reduce_init, sc_iallreduce, sc_allreduce, sc_allreduce_init
  public :: sc_igather, sc_gather, sc_gather_init, sc_iscatter, sc_scatter, sc_scatter_init
  public :: sc_iallgather, sc_allgather, sc_allgather_init, sc_ialltoall, sc_alltoall, sc_alltoall_init
  public :: sc_ireduce_scatter_block, sc_reduce_scatter_block, sc_reduce_scatter_block_init
  public :: sc_iallgatherv, sc_allgatherv, sc_allgatherv_init, sc_ialltoallv, sc_alltoallv, sc_alltoallv_init
  public :: sc_region_begin, sc_region_end, sc_error_name, sc_last_error, sc_info_print

  ! ---- calls without buffers: the C functions themselves ------------------------------------------------------
  ! (the calls with arrays through buffers.c, below)
  interface
    ! Collective: as sidecore::finalize.
    integer(c_int) function sc_finalize() bind(C, name="sc_finalize")
      import :: c_int
    end function
    ! The end of one iteration, for SIDECORE_PROGRESS=auto.
    integer(c_int) function sc_step() bind(C, name="sc_step")
      import :: c_int
    end function
    integer(c_int) function sc_rank(rank) bind(C, name="sc_rank")
      import :: c_int
      integer(c_int), intent(inout) :: rank
    end function
    integer(c_int) function sc_size(size) bind(C, name="sc_size")
      import :: c_int
      integer(c_int), intent(inout) :: size
    end function
    integer(c_int) function sc_comm_rank(comm, rank) bind(C, name="sc_comm_rank")
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: rank
    end function
    integer(c_int) function sc_comm_size(comm, size) bind(C, name="sc_comm_size")
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: size
    end function
    integer(c_int) function sc_comm_dup(comm, out) bind(C, name="sc_comm_dup")
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: out
    end function
    ! A color of -1 gives out = -1.
    integer(c_int) function sc_comm_split(comm, color, key, out) bind(C, name="sc_comm_split")
      import :: c_int
      integer(c_int), value :: comm, color, key
      integer(c_int), intent(inout) :: out
    end function
    integer(c_int) function sc_comm_free(comm) bind(C, name="sc_comm_free")
      import :: c_int
      integer(c_int), intent(inout) :: comm
    end function
    integer(c_int) function sc_wait(req, status) bind(C, name="sc_wait")
      import :: c_int, sc_request_kind, sc_status
      integer(sc_request_kind), intent(inout) :: req
      type(sc_status), intent(inout), optional :: status
    end function
    integer(c_int) function sc_test(req, flag, status) bind(C, name="sc_test")
      import :: c_int, sc_request_kind, sc_status
      integer(sc_request_kind), intent(inout) :: req
      integer(c_int), intent(inout) :: flag
      type(sc_status), intent(inout), optional :: status
    end function
    integer(c_int) function sc_cancel(req) bind(C, name="sc_cancel")
      import :: c_int, sc_request_kind
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_start(req) bind(C, name="sc_start")
      import :: c_int, sc_request_kind
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_request_free(req) bind(C, name="sc_request_free")
      import :: c_int, sc_request_kind
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function c_op_create(fn, ctx, commutative, op) bind(C, name="sc_op_create")
      import :: c_int, c_funptr, c_ptr
      type(c_funptr), value :: fn
      type(c_ptr), value :: ctx
      integer(c_int), value :: commutative
      integer(c_int), intent(inout) :: op
    end function
    integer(c_int) function sc_op_free(op) bind(C, name="sc_op_free")
      import :: c_int
      integer(c_int), intent(inout) :: op
    end function
    integer(c_int) function sc_ibarrier(comm, req) bind(C, name="sc_ibarrier")
      import :: c_int, sc_request_kind
      integer(c_int), value :: comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_barrier(comm) bind(C, name="sc_barrier")
      import :: c_int
      integer(c_int), value :: comm
    end function
    integer(c_int) function sc_barrier_init(comm, req) bind(C, name="sc_barrier_init")
      import :: c_int, sc_request_kind
      integer(c_int), value :: comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_region_end() bind(C, name="sc_region_end")
      import :: c_int
    end function
    integer(c_int) function c_region_begin(name) bind(C, name="sc_region_begin")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
    end function
    type(c_ptr) function c_error_name(code) bind(C, name="sc_error_name")
      import :: c_ptr, c_int
      integer(c_int), value :: code
    end function
    type(c_ptr) function c_last_error() bind(C, name="sc_last_error")
      import :: c_ptr
    end function
    integer(c_size_t) function c_strlen(s) bind(C, name="strlen")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function
  end interface

  ! ---- calls with arrays of requests, statuses or ranks: the module's functions below hand each array's size to
  ! buffers.c, which refuses a count beyond it; indices count from 1, in messages too ---------------------------
  interface
    integer(c_int) function c_failed_ranks(ranks, nranks, capacity, count) bind(C, name="sc_fortran_failed_ranks")
      import :: c_int, c_int64_t
      integer(c_int), intent(inout) :: ranks(*)
      integer(c_int64_t), value :: nranks
      integer(c_int), value :: capacity
      integer(c_int), intent(inout) :: count
    end function
    integer(c_int) function c_waitall(count, reqs, nreqs, statuses, nstatuses) bind(C, name="sc_fortran_waitall")
      import :: c_int, c_int64_t, sc_request_kind, sc_status
      integer(c_int), value :: count
      integer(sc_request_kind), intent(inout) :: reqs(*)
      integer(c_int64_t), value :: nreqs
      type(sc_status), intent(inout), optional :: statuses(*)
      integer(c_int64_t), value :: nstatuses
    end function
    integer(c_int) function c_testall(count, reqs, nreqs, flag, statuses, nstatuses) &
        bind(C, name="sc_fortran_testall")
      import :: c_int, c_int64_t, sc_request_kind, sc_status
      integer(c_int), value :: count
      integer(sc_request_kind), intent(inout) :: reqs(*)
      integer(c_int64_t), value :: nreqs
      integer(c_int), intent(inout) :: flag
      type(sc_status), intent(inout), optional :: statuses(*)
      integer(c_int64_t), value :: nstatuses
    end function
    integer(c_int) function c_waitany(count, reqs, nreqs, index, status) bind(C, name="sc_fortran_waitany")
      import :: c_int, c_int64_t, sc_request_kind, sc_status
      integer(c_int), value :: count
      integer(sc_request_kind), intent(inout) :: reqs(*)
      integer(c_int64_t), value :: nreqs
      integer(c_int), intent(inout) :: index
      type(sc_status), intent(inout), optional :: status
    end function
    integer(c_int) function c_testany(count, reqs, nreqs, index, flag, status) bind(C, name="sc_fortran_testany")
      import :: c_int, c_int64_t, sc_request_kind, sc_status
      integer(c_int), value :: count
      integer(sc_request_kind), intent(inout) :: reqs(*)
      integer(c_int64_t), value :: nreqs
      integer(c_int), intent(inout) :: index
      integer(c_int), intent(inout) :: flag
      type(sc_status), intent(inout), optional :: status
    end function
    integer(c_int) function c_startall(count, reqs, nreqs) bind(C, name="sc_fortran_startall")
      import :: c_int, c_int64_t, sc_request_kind
      integer(c_int), value :: count
      integer(sc_request_kind), intent(inout) :: reqs(*)
      integer(c_int64_t), value :: nreqs
    end function
  end interface

  ! ---- calls with buffers: buffers.c reads each variable's descriptor (address, size, contiguity) ----------
  interface
    ! Collective: as sidecore::init, on the MPI communicator `comm` (a Fortran handle: MPI_COMM_WORLD of `use mpi`,
    ! or comm%MPI_VAL of `use mpi_f08`).
    integer(c_int) function sc_init(comm) bind(C, name="sc_fortran_init")
      import :: c_int
      integer(c_int), intent(in) :: comm
    end function
    integer(c_int) function sc_info_print_c() bind(C, name="sc_fortran_info_print")
      import :: c_int
    end function

    integer(c_int) function sc_isend(buf, bytes, dest, tag, comm, req) bind(C, name="sc_fortran_isend")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: buf
      integer(sc_count_kind), value :: bytes
      integer(c_int), value :: dest, tag, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_irecv(buf, bytes, source, tag, comm, req) bind(C, name="sc_fortran_irecv")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(inout), asynchronous :: buf
      integer(sc_count_kind), value :: bytes
      integer(c_int), value :: source, tag, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_send(buf, bytes, dest, tag, comm) bind(C, name="sc_fortran_send")
      import :: c_int, sc_count_kind
      type(*), dimension(..), intent(in) :: buf
      integer(sc_count_kind), value :: bytes
      integer(c_int), value :: dest, tag, comm
    end function
    integer(c_int) function sc_recv(buf, bytes, source, tag, comm, status) bind(C, name="sc_fortran_recv")
      import :: c_int, sc_count_kind, sc_status
      type(*), dimension(..), intent(inout) :: buf
      integer(sc_count_kind), value :: bytes
      integer(c_int), value :: source, tag, comm
      type(sc_status), intent(inout), optional :: status
    end function
    integer(c_int) function sc_send_init(buf, bytes, dest, tag, comm, req) bind(C, name="sc_fortran_send_init")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: buf
      integer(sc_count_kind), value :: bytes
      integer(c_int), value :: dest, tag, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_recv_init(buf, bytes, source, tag, comm, req) bind(C, name="sc_fortran_recv_init")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(inout), asynchronous :: buf
      integer(sc_count_kind), value :: bytes
      integer(c_int), value :: source, tag, comm
      integer(sc_request_kind), intent(inout) :: req
    end function

    integer(c_int) function sc_ibcast(buf, count, dtype, root, comm, req) bind(C, name="sc_fortran_ibcast")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(inout), asynchronous :: buf
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_bcast(buf, count, dtype, root, comm) bind(C, name="sc_fortran_bcast")
      import :: c_int, sc_count_kind
      type(*), dimension(..), intent(inout) :: buf
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
    end function
    integer(c_int) function sc_bcast_init(buf, count, dtype, root, comm, req) bind(C, name="sc_fortran_bcast_init")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(inout), asynchronous :: buf
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_ireduce(send, recv, count, dtype, op, root, comm, req) &
        bind(C, name="sc_fortran_ireduce")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, op, root, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_reduce(send, recv, count, dtype, op, root, comm) bind(C, name="sc_fortran_reduce")
      import :: c_int, sc_count_kind
      type(*), dimension(..), intent(in) :: send
      type(*), dimension(..), intent(inout) :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, op, root, comm
    end function
    integer(c_int) function sc_reduce_init(send, recv, count, dtype, op, root, comm, req) &
        bind(C, name="sc_fortran_reduce_init")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, op, root, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_iallreduce(send, recv, count, dtype, op, comm, req) &
        bind(C, name="sc_fortran_iallreduce")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, op, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_allreduce(send, recv, count, dtype, op, comm) bind(C, name="sc_fortran_allreduce")
      import :: c_int, sc_count_kind
      type(*), dimension(..), intent(in) :: send
      type(*), dimension(..), intent(inout) :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, op, comm
    end function
    integer(c_int) function sc_allreduce_init(send, recv, count, dtype, op, comm, req) &
        bind(C, name="sc_fortran_allreduce_init")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, op, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_igather(send, recv, count, dtype, root, comm, req) bind(C, name="sc_fortran_igather")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_gather(send, recv, count, dtype, root, comm) bind(C, name="sc_fortran_gather")
      import :: c_int, sc_count_kind
      type(*), dimension(..), intent(in) :: send
      type(*), dimension(..), intent(inout) :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
    end function
    integer(c_int) function sc_gather_init(send, recv, count, dtype, root, comm, req) &
        bind(C, name="sc_fortran_gather_init")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_iscatter(send, recv, count, dtype, root, comm, req) &
        bind(C, name="sc_fortran_iscatter")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_scatter(send, recv, count, dtype, root, comm) bind(C, name="sc_fortran_scatter")
      import :: c_int, sc_count_kind
      type(*), dimension(..), intent(in) :: send
      type(*), dimension(..), intent(inout) :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
    end function
    integer(c_int) function sc_scatter_init(send, recv, count, dtype, root, comm, req) &
        bind(C, name="sc_fortran_scatter_init")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_iallgather(send, recv, count, dtype, comm, req) bind(C, name="sc_fortran_iallgather")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_allgather(send, recv, count, dtype, comm) bind(C, name="sc_fortran_allgather")
      import :: c_int, sc_count_kind
      type(*), dimension(..), intent(in) :: send
      type(*), dimension(..), intent(inout) :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, comm
    end function
    integer(c_int) function sc_allgather_init(send, recv, count, dtype, comm, req) &
        bind(C, name="sc_fortran_allgather_init")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_ialltoall(send, recv, count, dtype, comm, req) bind(C, name="sc_fortran_ialltoall")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_alltoall(send, recv, count, dtype, comm) bind(C, name="sc_fortran_alltoall")
      import :: c_int, sc_count_kind
      type(*), dimension(..), intent(in) :: send
      type(*), dimension(..), intent(inout) :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, comm
    end function
    integer(c_int) function sc_alltoall_init(send, recv, count, dtype, comm, req) &
        bind(C, name="sc_fortran_alltoall_init")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_ireduce_scatter_block(send, recv, count, dtype, op, comm, req) &
        bind(C, name="sc_fortran_ireduce_scatter_block")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, op, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_reduce_scatter_block(send, recv, count, dtype, op, comm) &
        bind(C, name="sc_fortran_reduce_scatter_block")
      import :: c_int, sc_count_kind
      type(*), dimension(..), intent(in) :: send
      type(*), dimension(..), intent(inout) :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, op, comm
    end function
    integer(c_int) function sc_reduce_scatter_block_init(send, recv, count, dtype, op, comm, req) &
        bind(C, name="sc_fortran_reduce_scatter_block_init")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), value :: count
      integer(c_int), value :: dtype, op, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_iallgatherv(send, send_count, recv, recv_counts, recv_displs, dtype, comm, req) &
        bind(C, name="sc_fortran_iallgatherv")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      integer(sc_count_kind), value :: send_count
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), intent(in), asynchronous :: recv_counts(:)
      integer(sc_count_kind), intent(in), asynchronous :: recv_displs(:)
      integer(c_int), value :: dtype, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_allgatherv(send, send_count, recv, recv_counts, recv_displs, dtype, comm) &
        bind(C, name="sc_fortran_allgatherv")
      import :: c_int, sc_count_kind
      type(*), dimension(..), intent(in) :: send
      integer(sc_count_kind), value :: send_count
      type(*), dimension(..), intent(inout) :: recv
      integer(sc_count_kind), intent(in) :: recv_counts(:)
      integer(sc_count_kind), intent(in) :: recv_displs(:)
      integer(c_int), value :: dtype, comm
    end function
    integer(c_int) function sc_allgatherv_init(send, send_count, recv, recv_counts, recv_displs, dtype, comm, req) &
        bind(C, name="sc_fortran_allgatherv_init")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      integer(sc_count_kind), value :: send_count
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), intent(in), asynchronous :: recv_counts(:)
      integer(sc_count_kind), intent(in), asynchronous :: recv_displs(:)
      integer(c_int), value :: dtype, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_ialltoallv(send, send_counts, send_displs, recv, recv_counts, recv_displs, &
        dtype, comm, req) &
        bind(C, name="sc_fortran_ialltoallv")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      integer(sc_count_kind), intent(in), asynchronous :: send_counts(:)
      integer(sc_count_kind), intent(in), asynchronous :: send_displs(:)
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), intent(in), asynchronous :: recv_counts(:)
      integer(sc_count_kind), intent(in), asynchronous :: recv_displs(:)
      integer(c_int), value :: dtype, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sc_alltoallv(send, send_counts, send_displs, recv, recv_counts, recv_displs, &
        dtype, comm) &
        bind(C, name="sc_fortran_alltoallv")
      import :: c_int, sc_count_kind
      type(*), dimension(..), intent(in) :: send
      integer(sc_count_kind), intent(in) :: send_counts(:)
      integer(sc_count_kind), intent(in) :: send_displs(:)
      type(*), dimension(..), intent(inout) :: recv
      integer(sc_count_kind), intent(in) :: recv_counts(:)
      integer(sc_count_kind), intent(in) :: recv_displs(:)
      integer(c_int), value :: dtype, comm
    end function
    integer(c_int) function sc_alltoallv_init(send, send_counts, send_displs, recv, recv_counts, recv_displs, &
        dtype, comm, req) &
        bind(C, name="sc_fortran_alltoallv_init")
      import :: c_int, sc_count_kind, sc_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      integer(sc_count_kind), intent(in), asynchronous :: send_counts(:)
      integer(sc_count_kind), intent(in), asynchronous :: send_displs(:)
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sc_count_kind), intent(in), asynchronous :: recv_counts(:)
      integer(sc_count_kind), intent(in), asynchronous :: recv_displs(:)
      integer(c_int), value :: dtype, comm
      integer(sc_request_kind), intent(inout) :: req
    end function
  end interface

contains

  ! The calls with arrays take them assumed-shape, so that their sizes are known: a count beyond an array is refused
  ! (SC_ERR_INVALID_ARGUMENT) rather than read or written past it. A strided section reaches C as a contiguous copy,
  ! written back when the call returns.

  ! Writes up to `capacity` ranks of the world communicator found dead to `ranks`, their number to `count`.
  integer(c_int) function sc_failed_ranks(ranks, capacity, count) result(code)
    integer(c_int), intent(inout) :: ranks(:)
    integer(c_int), intent(in) :: capacity
    integer(c_int), intent(inout) :: count
    code = c_failed_ranks(ranks, size(ranks, kind=c_int64_t), capacity, count)
  end function

  integer(c_int) function sc_waitall(count, reqs, statuses) result(code)
    integer(c_int), intent(in) :: count
    integer(sc_request_kind), intent(inout) :: reqs(:)
    type(sc_status), intent(inout), optional :: statuses(:)
    code = c_waitall(count, reqs, size(reqs, kind=c_int64_t), statuses, entries(statuses))
  end function

  integer(c_int) function sc_testall(count, reqs, flag, statuses) result(code)
    integer(c_int), intent(in) :: count
    integer(sc_request_kind), intent(inout) :: reqs(:)
    integer(c_int), intent(inout) :: flag
    type(sc_status), intent(inout), optional :: statuses(:)
    code = c_testall(count, reqs, size(reqs, kind=c_int64_t), flag, statuses, entries(statuses))
  end function

  ! The index counts from 1, as MPI's Fortran ones: SC_UNDEFINED when no request of reqs(1:count) is active. A
  ! refusal leaves it as it was.
  integer(c_int) function sc_waitany(count, reqs, index, status) result(code)
    integer(c_int), intent(in) :: count
    integer(sc_request_kind), intent(inout) :: reqs(:)
    integer(c_int), intent(inout) :: index
    type(sc_status), intent(inout), optional :: status
    code = c_waitany(count, reqs, size(reqs, kind=c_int64_t), index, status)
  end function

  ! The index counts from 1: flag 1 and the request's index when one completed, flag 1 and SC_UNDEFINED when none
  ! is active, flag 0 and SC_UNDEFINED while none completed.
  integer(c_int) function sc_testany(count, reqs, index, flag, status) result(code)
    integer(c_int), intent(in) :: count
    integer(sc_request_kind), intent(inout) :: reqs(:)
    integer(c_int), intent(inout) :: index
    integer(c_int), intent(inout) :: flag
    type(sc_status), intent(inout), optional :: status
    code = c_testany(count, reqs, size(reqs, kind=c_int64_t), index, flag, status)
  end function

  integer(c_int) function sc_startall(count, reqs) result(code)
    integer(c_int), intent(in) :: count
    integer(sc_request_kind), intent(inout) :: reqs(:)
    code = c_startall(count, reqs, size(reqs, kind=c_int64_t))
  end function

  ! The number of statuses an optional array holds; -1 when it is absent.
  integer(c_int64_t) function entries(statuses)
    type(sc_status), intent(in), optional :: statuses(:)
    entries = -1
    if (present(statuses)) entries = size(statuses, kind=c_int64_t)
  end function

  ! Registers a user operator (MPI_Op_create): `op` receives its id, usable wherever an SC_SUM goes, until
  ! sc_op_free. `ctx` (optional) is given to fn at each call. commutative .false.: results are in rank order.
  ! One function per logical kind (sc_op_create is their generic name), so that the program's default logical is
  ! taken whatever its size: kind 4, or 8 under -fdefault-integer-8; kind 1 is logical(c_bool).
  integer(c_int) function op_create_l1(fn, commutative, op, ctx) result(code)
    procedure(sc_user_function) :: fn
    logical(1), intent(in) :: commutative
    integer(c_int), intent(inout) :: op
    type(c_ptr), intent(in), optional :: ctx
    code = op_create(fn, logical(commutative), op, ctx)
  end function
  integer(c_int) function op_create_l4(fn, commutative, op, ctx) result(code)
    procedure(sc_user_function) :: fn
    logical(4), intent(in) :: commutative
    integer(c_int), intent(inout) :: op
    type(c_ptr), intent(in), optional :: ctx
    code = op_create(fn, logical(commutative), op, ctx)
  end function
  integer(c_int) function op_create_l8(fn, commutative, op, ctx) result(code)
    procedure(sc_user_function) :: fn
    logical(8), intent(in) :: commutative
    integer(c_int), intent(inout) :: op
    type(c_ptr), intent(in), optional :: ctx
    code = op_create(fn, logical(commutative), op, ctx)
  end function
  integer(c_int) function op_create(fn, commutative, op, ctx) result(code)
    procedure(sc_user_function) :: fn
    logical, intent(in) :: commutative
    integer(c_int), intent(inout) :: op
    type(c_ptr), intent(in), optional :: ctx
    type(c_ptr) :: context
    integer(c_int) :: commute
    context = c_null_ptr
    if (present(ctx)) context = ctx
    commute = 0
    if (commutative) commute = 1
    code = c_op_create(c_funloc(fn), context, commute, op)
  end function

  ! Opens a region of the overlap profile (nestable; sc_region_end closes the innermost). Trailing blanks of
  ! `name` are part of it: pass trim(name) to drop them.
  integer(c_int) function sc_region_begin(name) result(code)
    character(len=*), intent(in) :: name
    code = c_region_begin(name // c_null_char)
  end function

  ! The lower-case name of an error code ("invalid_argument", ...; "unknown" for a value that is none).
  function sc_error_name(code) result(name)
    integer(c_int), intent(in) :: code
    character(len=:), allocatable :: name
    name = from_c(c_error_name(code))
  end function

  ! The calling thread's last error message; empty after a call that succeeded.
  function sc_last_error() result(message)
    character(len=:), allocatable :: message
    message = from_c(c_last_error())
  end function

  ! Prints every setting (default, current value, help), the topology, the reserved core, the OpenMP places and the
  ! libfabric provider on standard output. Returns 0, or 2 when a setting in the environment is refused.
  integer(c_int) function sc_info_print() result(code)
    use, intrinsic :: iso_fortran_env, only: output_unit
    flush (output_unit)
    code = sc_info_print_c()
  end function

  ! A NUL-terminated C string as a Fortran string (empty for a null pointer).
  function from_c(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ""
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function
end module sidecore
