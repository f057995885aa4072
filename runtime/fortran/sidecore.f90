! sidecore — the Fortran module (`use sidecore`): the C API of sidecore.h for Fortran 2018 programs.
!
! Every function returns SIDECORE_SUCCESS or an error code, as in C, and sidecore_last_error() gives the calling
! thread's last message (naming the argument, its value and what is accepted). Buffers are any contiguous variable: a
! scalar, an array or a contiguous section, of any type and rank. Unlike C, sidecore knows the buffer's size here, so a
! count that would read or write beyond the variable is refused (SIDECORE_ERR_INVALID_ARGUMENT) instead of overrunning
! it; a non-contiguous section (a(1, :)) is refused too, as sidecore would not see the elements between its strides.
! Point-to-point counts are bytes, collective counts elements of `dtype`, both integer(sidecore_count_kind). Indices of
! sidecore_waitany and sidecore_testany count from 1, as MPI's Fortran ones; everything else is as in C
! (docs/fortran.md). Outputs (ranks, flags, requests, statuses, ids, indices) are intent(inout), not intent(out): a
! refused call leaves them as they were, which intent(out) would not keep (the compiler may drop the caller's earlier
! value, and a type(sidecore_status) is reset to its default on entry).
module sidecore
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_size_t, c_ptr, c_funptr, c_char, c_null_char, &
                                         c_null_ptr, c_funloc, c_associated, c_f_pointer
  implicit none
  private

  ! Kinds: a request handle, and a count (bytes of point-to-point calls, elements of collectives).
  integer, parameter, public :: sidecore_request_kind = c_int64_t
  integer, parameter, public :: sidecore_count_kind = c_int64_t

  ! Error codes (sidecore::errc).
  integer(c_int), parameter, public :: SIDECORE_SUCCESS = 0, SIDECORE_ERR_INVALID_ARGUMENT = 1, &
    SIDECORE_ERR_NOT_INITIALIZED = 2, SIDECORE_ERR_ALREADY_INITIALIZED = 3, SIDECORE_ERR_INVALID_REQUEST = 4, &
    SIDECORE_ERR_TRUNCATED = 5, SIDECORE_ERR_CANCELED = 6, SIDECORE_ERR_BAD_SETTING = 7, SIDECORE_ERR_TOPOLOGY = 8, &
    SIDECORE_ERR_TRANSPORT = 9, SIDECORE_ERR_MPI = 10, SIDECORE_ERR_PEER_FAILED = 11, SIDECORE_ERR_INTERNAL = 99

  integer(c_int), parameter, public :: SIDECORE_ANY_SOURCE = -1, SIDECORE_ANY_TAG = -1, SIDECORE_COMM_WORLD = 0, &
    SIDECORE_UNDEFINED = -1
  integer(sidecore_request_kind), parameter, public :: SIDECORE_REQUEST_NULL = 0

  ! Element types and built-in operators of the collectives (minloc/maxloc: pairs {value; int32 index}).
  integer(c_int), parameter, public :: SIDECORE_BYTE = 0, SIDECORE_INT32 = 1, SIDECORE_INT64 = 2, SIDECORE_UINT64 = 3, &
    SIDECORE_FLOAT = 4, SIDECORE_DOUBLE = 5
  integer(c_int), parameter, public :: SIDECORE_SUM = 0, SIDECORE_PROD = 1, SIDECORE_MIN = 2, SIDECORE_MAX = 3, &
    SIDECORE_LAND = 4, SIDECORE_LOR = 5, SIDECORE_BAND = 6, SIDECORE_BOR = 7, SIDECORE_BXOR = 8, SIDECORE_MINLOC = 9, &
    SIDECORE_MAXLOC = 10

  ! Pass SIDECORE_IN_PLACE where MPI takes MPI_IN_PLACE: sidecore recognises this variable by its address.
  integer(c_int), bind(C, name="sidecore_fortran_in_place"), public, target :: SIDECORE_IN_PLACE = 0

  ! A completed request's status: source and tag -1 for sends; bytes received; its error code.
  type, bind(C), public :: sidecore_status
    integer(c_int) :: source = -1
    integer(c_int) :: tag = -1
    integer(c_size_t) :: bytes = 0
    integer(c_int) :: error = SIDECORE_SUCCESS
  end type

  ! A user operator for sidecore_op_create: inout(i) = in(i) op inout(i) for i <= count, the arrays being `count`
  ! elements of the collective's dtype (c_f_pointer gives them their type). Called from sidecore's progress; it must not
  ! call sidecore. `ctx` is sidecore_op_create's.
  abstract interface
    subroutine sidecore_user_function(in, inout, count, ctx) bind(C)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: in, inout
      integer(c_size_t), value :: count
      type(c_ptr), value :: ctx
    end subroutine
  end interface
  public :: sidecore_user_function

  public :: sidecore_init, sidecore_finalize, sidecore_failed_ranks, sidecore_step, sidecore_rank, sidecore_size, &
      sidecore_comm_rank, sidecore_comm_size
  public :: sidecore_comm_dup, sidecore_comm_split, sidecore_comm_free
  public :: sidecore_isend, sidecore_irecv, sidecore_send, sidecore_recv, sidecore_send_init, sidecore_recv_init
  public :: sidecore_wait, sidecore_test, sidecore_waitall, sidecore_waitany, sidecore_testall, sidecore_testany, &
      sidecore_cancel
  public :: sidecore_start, sidecore_startall, sidecore_request_free
  public :: sidecore_op_create, sidecore_op_free
  interface sidecore_op_create
    module procedure op_create_l1, op_create_l4, op_create_l8
  end interface
  public :: sidecore_ibarrier, sidecore_barrier, sidecore_barrier_init, sidecore_ibcast, sidecore_bcast, &
      sidecore_bcast_init
  public :: sidecore_ireduce, sidecore_reduce, sidecore_reduce_init, sidecore_iallreduce, sidecore_allreduce, &
      sidecore_allreduce_init
  public :: sidecore_igather, sidecore_gather, sidecore_gather_init, sidecore_iscatter, sidecore_scatter, &
      sidecore_scatter_init
  public :: sidecore_iallgather, sidecore_allgather, sidecore_allgather_init, sidecore_ialltoall, sidecore_alltoall, &
      sidecore_alltoall_init
  public :: sidecore_ireduce_scatter_block, sidecore_reduce_scatter_block, sidecore_reduce_scatter_block_init
  public :: sidecore_iallgatherv, sidecore_allgatherv, sidecore_allgatherv_init, sidecore_ialltoallv, &
      sidecore_alltoallv, sidecore_alltoallv_init
  public :: sidecore_region_begin, sidecore_region_end, sidecore_error_name, sidecore_last_error, sidecore_info_print

  ! ---- calls without buffers: the C functions themselves ------------------------------------------------------
  ! (the calls with arrays through buffers.c, below)
  interface
    ! Collective: as sidecore::finalize.
    integer(c_int) function sidecore_finalize() bind(C, name="sidecore_finalize")
      import :: c_int
    end function
    ! The end of one iteration, for SIDECORE_PROGRESS=auto.
    integer(c_int) function sidecore_step() bind(C, name="sidecore_step")
      import :: c_int
    end function
    integer(c_int) function sidecore_rank(rank) bind(C, name="sidecore_rank")
      import :: c_int
      integer(c_int), intent(inout) :: rank
    end function
    integer(c_int) function sidecore_size(size) bind(C, name="sidecore_size")
      import :: c_int
      integer(c_int), intent(inout) :: size
    end function
    integer(c_int) function sidecore_comm_rank(comm, rank) bind(C, name="sidecore_comm_rank")
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: rank
    end function
    integer(c_int) function sidecore_comm_size(comm, size) bind(C, name="sidecore_comm_size")
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: size
    end function
    integer(c_int) function sidecore_comm_dup(comm, out) bind(C, name="sidecore_comm_dup")
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(inout) :: out
    end function
    ! A color of -1 gives out = -1.
    integer(c_int) function sidecore_comm_split(comm, color, key, out) bind(C, name="sidecore_comm_split")
      import :: c_int
      integer(c_int), value :: comm, color, key
      integer(c_int), intent(inout) :: out
    end function
    integer(c_int) function sidecore_comm_free(comm) bind(C, name="sidecore_comm_free")
      import :: c_int
      integer(c_int), intent(inout) :: comm
    end function
    integer(c_int) function sidecore_wait(req, status) bind(C, name="sidecore_wait")
      import :: c_int, sidecore_request_kind, sidecore_status
      integer(sidecore_request_kind), intent(inout) :: req
      type(sidecore_status), intent(inout), optional :: status
    end function
    integer(c_int) function sidecore_test(req, flag, status) bind(C, name="sidecore_test")
      import :: c_int, sidecore_request_kind, sidecore_status
      integer(sidecore_request_kind), intent(inout) :: req
      integer(c_int), intent(inout) :: flag
      type(sidecore_status), intent(inout), optional :: status
    end function
    integer(c_int) function sidecore_cancel(req) bind(C, name="sidecore_cancel")
      import :: c_int, sidecore_request_kind
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_start(req) bind(C, name="sidecore_start")
      import :: c_int, sidecore_request_kind
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_request_free(req) bind(C, name="sidecore_request_free")
      import :: c_int, sidecore_request_kind
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function c_op_create(fn, ctx, commutative, op) bind(C, name="sidecore_op_create")
      import :: c_int, c_funptr, c_ptr
      type(c_funptr), value :: fn
      type(c_ptr), value :: ctx
      integer(c_int), value :: commutative
      integer(c_int), intent(inout) :: op
    end function
    integer(c_int) function sidecore_op_free(op) bind(C, name="sidecore_op_free")
      import :: c_int
      integer(c_int), intent(inout) :: op
    end function
    integer(c_int) function sidecore_ibarrier(comm, req) bind(C, name="sidecore_ibarrier")
      import :: c_int, sidecore_request_kind
      integer(c_int), value :: comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_barrier(comm) bind(C, name="sidecore_barrier")
      import :: c_int
      integer(c_int), value :: comm
    end function
    integer(c_int) function sidecore_barrier_init(comm, req) bind(C, name="sidecore_barrier_init")
      import :: c_int, sidecore_request_kind
      integer(c_int), value :: comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_region_end() bind(C, name="sidecore_region_end")
      import :: c_int
    end function
    integer(c_int) function c_region_begin(name) bind(C, name="sidecore_region_begin")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
    end function
    type(c_ptr) function c_error_name(code) bind(C, name="sidecore_error_name")
      import :: c_ptr, c_int
      integer(c_int), value :: code
    end function
    type(c_ptr) function c_last_error() bind(C, name="sidecore_last_error")
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
    integer(c_int) function c_failed_ranks(ranks, nranks, capacity, count) bind(C, name="sidecore_fortran_failed_ranks")
      import :: c_int, c_int64_t
      integer(c_int), intent(inout) :: ranks(*)
      integer(c_int64_t), value :: nranks
      integer(c_int), value :: capacity
      integer(c_int), intent(inout) :: count
    end function
    integer(c_int) function c_waitall(count, reqs, nreqs, statuses, nstatuses) bind(C, name="sidecore_fortran_waitall")
      import :: c_int, c_int64_t, sidecore_request_kind, sidecore_status
      integer(c_int), value :: count
      integer(sidecore_request_kind), intent(inout) :: reqs(*)
      integer(c_int64_t), value :: nreqs
      type(sidecore_status), intent(inout), optional :: statuses(*)
      integer(c_int64_t), value :: nstatuses
    end function
    integer(c_int) function c_testall(count, reqs, nreqs, flag, statuses, nstatuses) &
        bind(C, name="sidecore_fortran_testall")
      import :: c_int, c_int64_t, sidecore_request_kind, sidecore_status
      integer(c_int), value :: count
      integer(sidecore_request_kind), intent(inout) :: reqs(*)
      integer(c_int64_t), value :: nreqs
      integer(c_int), intent(inout) :: flag
      type(sidecore_status), intent(inout), optional :: statuses(*)
      integer(c_int64_t), value :: nstatuses
    end function
    integer(c_int) function c_waitany(count, reqs, nreqs, index, status) bind(C, name="sidecore_fortran_waitany")
      import :: c_int, c_int64_t, sidecore_request_kind, sidecore_status
      integer(c_int), value :: count
      integer(sidecore_request_kind), intent(inout) :: reqs(*)
      integer(c_int64_t), value :: nreqs
      integer(c_int), intent(inout) :: index
      type(sidecore_status), intent(inout), optional :: status
    end function
    integer(c_int) function c_testany(count, reqs, nreqs, index, flag, status) bind(C, name="sidecore_fortran_testany")
      import :: c_int, c_int64_t, sidecore_request_kind, sidecore_status
      integer(c_int), value :: count
      integer(sidecore_request_kind), intent(inout) :: reqs(*)
      integer(c_int64_t), value :: nreqs
      integer(c_int), intent(inout) :: index
      integer(c_int), intent(inout) :: flag
      type(sidecore_status), intent(inout), optional :: status
    end function
    integer(c_int) function c_startall(count, reqs, nreqs) bind(C, name="sidecore_fortran_startall")
      import :: c_int, c_int64_t, sidecore_request_kind
      integer(c_int), value :: count
      integer(sidecore_request_kind), intent(inout) :: reqs(*)
      integer(c_int64_t), value :: nreqs
    end function
  end interface

  ! ---- calls with buffers: buffers.c reads each variable's descriptor (address, size, contiguity) ----------
  interface
    ! Collective: as sidecore::init, on the MPI communicator `comm` (a Fortran handle: MPI_COMM_WORLD of `use mpi`,
    ! or comm%MPI_VAL of `use mpi_f08`).
    integer(c_int) function sidecore_init(comm) bind(C, name="sidecore_fortran_init")
      import :: c_int
      integer(c_int), intent(in) :: comm
    end function
    integer(c_int) function sidecore_info_print_c() bind(C, name="sidecore_fortran_info_print")
      import :: c_int
    end function

    integer(c_int) function sidecore_isend(buf, bytes, dest, tag, comm, req) bind(C, name="sidecore_fortran_isend")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: buf
      integer(sidecore_count_kind), value :: bytes
      integer(c_int), value :: dest, tag, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_irecv(buf, bytes, source, tag, comm, req) bind(C, name="sidecore_fortran_irecv")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(inout), asynchronous :: buf
      integer(sidecore_count_kind), value :: bytes
      integer(c_int), value :: source, tag, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_send(buf, bytes, dest, tag, comm) bind(C, name="sidecore_fortran_send")
      import :: c_int, sidecore_count_kind
      type(*), dimension(..), intent(in) :: buf
      integer(sidecore_count_kind), value :: bytes
      integer(c_int), value :: dest, tag, comm
    end function
    integer(c_int) function sidecore_recv(buf, bytes, source, tag, comm, status) bind(C, name="sidecore_fortran_recv")
      import :: c_int, sidecore_count_kind, sidecore_status
      type(*), dimension(..), intent(inout) :: buf
      integer(sidecore_count_kind), value :: bytes
      integer(c_int), value :: source, tag, comm
      type(sidecore_status), intent(inout), optional :: status
    end function
    integer(c_int) function sidecore_send_init(buf, bytes, dest, tag, comm, req) bind(C, &
        name="sidecore_fortran_send_init")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: buf
      integer(sidecore_count_kind), value :: bytes
      integer(c_int), value :: dest, tag, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_recv_init(buf, bytes, source, tag, comm, req) bind(C, &
        name="sidecore_fortran_recv_init")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(inout), asynchronous :: buf
      integer(sidecore_count_kind), value :: bytes
      integer(c_int), value :: source, tag, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function

    integer(c_int) function sidecore_ibcast(buf, count, dtype, root, comm, req) bind(C, name="sidecore_fortran_ibcast")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(inout), asynchronous :: buf
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_bcast(buf, count, dtype, root, comm) bind(C, name="sidecore_fortran_bcast")
      import :: c_int, sidecore_count_kind
      type(*), dimension(..), intent(inout) :: buf
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
    end function
    integer(c_int) function sidecore_bcast_init(buf, count, dtype, root, comm, req) bind(C, &
        name="sidecore_fortran_bcast_init")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(inout), asynchronous :: buf
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_ireduce(send, recv, count, dtype, op, root, comm, req) &
        bind(C, name="sidecore_fortran_ireduce")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, op, root, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_reduce(send, recv, count, dtype, op, root, comm) bind(C, &
        name="sidecore_fortran_reduce")
      import :: c_int, sidecore_count_kind
      type(*), dimension(..), intent(in) :: send
      type(*), dimension(..), intent(inout) :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, op, root, comm
    end function
    integer(c_int) function sidecore_reduce_init(send, recv, count, dtype, op, root, comm, req) &
        bind(C, name="sidecore_fortran_reduce_init")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, op, root, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_iallreduce(send, recv, count, dtype, op, comm, req) &
        bind(C, name="sidecore_fortran_iallreduce")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, op, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_allreduce(send, recv, count, dtype, op, comm) bind(C, &
        name="sidecore_fortran_allreduce")
      import :: c_int, sidecore_count_kind
      type(*), dimension(..), intent(in) :: send
      type(*), dimension(..), intent(inout) :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, op, comm
    end function
    integer(c_int) function sidecore_allreduce_init(send, recv, count, dtype, op, comm, req) &
        bind(C, name="sidecore_fortran_allreduce_init")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, op, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_igather(send, recv, count, dtype, root, comm, req) bind(C, &
        name="sidecore_fortran_igather")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_gather(send, recv, count, dtype, root, comm) bind(C, &
        name="sidecore_fortran_gather")
      import :: c_int, sidecore_count_kind
      type(*), dimension(..), intent(in) :: send
      type(*), dimension(..), intent(inout) :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
    end function
    integer(c_int) function sidecore_gather_init(send, recv, count, dtype, root, comm, req) &
        bind(C, name="sidecore_fortran_gather_init")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_iscatter(send, recv, count, dtype, root, comm, req) &
        bind(C, name="sidecore_fortran_iscatter")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_scatter(send, recv, count, dtype, root, comm) bind(C, &
        name="sidecore_fortran_scatter")
      import :: c_int, sidecore_count_kind
      type(*), dimension(..), intent(in) :: send
      type(*), dimension(..), intent(inout) :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
    end function
    integer(c_int) function sidecore_scatter_init(send, recv, count, dtype, root, comm, req) &
        bind(C, name="sidecore_fortran_scatter_init")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, root, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_iallgather(send, recv, count, dtype, comm, req) bind(C, &
        name="sidecore_fortran_iallgather")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_allgather(send, recv, count, dtype, comm) bind(C, &
        name="sidecore_fortran_allgather")
      import :: c_int, sidecore_count_kind
      type(*), dimension(..), intent(in) :: send
      type(*), dimension(..), intent(inout) :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, comm
    end function
    integer(c_int) function sidecore_allgather_init(send, recv, count, dtype, comm, req) &
        bind(C, name="sidecore_fortran_allgather_init")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_ialltoall(send, recv, count, dtype, comm, req) bind(C, &
        name="sidecore_fortran_ialltoall")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_alltoall(send, recv, count, dtype, comm) bind(C, name="sidecore_fortran_alltoall")
      import :: c_int, sidecore_count_kind
      type(*), dimension(..), intent(in) :: send
      type(*), dimension(..), intent(inout) :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, comm
    end function
    integer(c_int) function sidecore_alltoall_init(send, recv, count, dtype, comm, req) &
        bind(C, name="sidecore_fortran_alltoall_init")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_ireduce_scatter_block(send, recv, count, dtype, op, comm, req) &
        bind(C, name="sidecore_fortran_ireduce_scatter_block")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, op, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_reduce_scatter_block(send, recv, count, dtype, op, comm) &
        bind(C, name="sidecore_fortran_reduce_scatter_block")
      import :: c_int, sidecore_count_kind
      type(*), dimension(..), intent(in) :: send
      type(*), dimension(..), intent(inout) :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, op, comm
    end function
    integer(c_int) function sidecore_reduce_scatter_block_init(send, recv, count, dtype, op, comm, req) &
        bind(C, name="sidecore_fortran_reduce_scatter_block_init")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), value :: count
      integer(c_int), value :: dtype, op, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_iallgatherv(send, send_count, recv, recv_counts, recv_displs, dtype, comm, req) &
        bind(C, name="sidecore_fortran_iallgatherv")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      integer(sidecore_count_kind), value :: send_count
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), intent(in), asynchronous :: recv_counts(:)
      integer(sidecore_count_kind), intent(in), asynchronous :: recv_displs(:)
      integer(c_int), value :: dtype, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_allgatherv(send, send_count, recv, recv_counts, recv_displs, dtype, comm) &
        bind(C, name="sidecore_fortran_allgatherv")
      import :: c_int, sidecore_count_kind
      type(*), dimension(..), intent(in) :: send
      integer(sidecore_count_kind), value :: send_count
      type(*), dimension(..), intent(inout) :: recv
      integer(sidecore_count_kind), intent(in) :: recv_counts(:)
      integer(sidecore_count_kind), intent(in) :: recv_displs(:)
      integer(c_int), value :: dtype, comm
    end function
    integer(c_int) function sidecore_allgatherv_init(send, send_count, recv, recv_counts, recv_displs, dtype, comm, &
        req) &
        bind(C, name="sidecore_fortran_allgatherv_init")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      integer(sidecore_count_kind), value :: send_count
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), intent(in), asynchronous :: recv_counts(:)
      integer(sidecore_count_kind), intent(in), asynchronous :: recv_displs(:)
      integer(c_int), value :: dtype, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_ialltoallv(send, send_counts, send_displs, recv, recv_counts, recv_displs, &
        dtype, comm, req) &
        bind(C, name="sidecore_fortran_ialltoallv")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      integer(sidecore_count_kind), intent(in), asynchronous :: send_counts(:)
      integer(sidecore_count_kind), intent(in), asynchronous :: send_displs(:)
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), intent(in), asynchronous :: recv_counts(:)
      integer(sidecore_count_kind), intent(in), asynchronous :: recv_displs(:)
      integer(c_int), value :: dtype, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
    integer(c_int) function sidecore_alltoallv(send, send_counts, send_displs, recv, recv_counts, recv_displs, &
        dtype, comm) &
        bind(C, name="sidecore_fortran_alltoallv")
      import :: c_int, sidecore_count_kind
      type(*), dimension(..), intent(in) :: send
      integer(sidecore_count_kind), intent(in) :: send_counts(:)
      integer(sidecore_count_kind), intent(in) :: send_displs(:)
      type(*), dimension(..), intent(inout) :: recv
      integer(sidecore_count_kind), intent(in) :: recv_counts(:)
      integer(sidecore_count_kind), intent(in) :: recv_displs(:)
      integer(c_int), value :: dtype, comm
    end function
    integer(c_int) function sidecore_alltoallv_init(send, send_counts, send_displs, recv, recv_counts, recv_displs, &
        dtype, comm, req) &
        bind(C, name="sidecore_fortran_alltoallv_init")
      import :: c_int, sidecore_count_kind, sidecore_request_kind
      type(*), dimension(..), intent(in), asynchronous :: send
      integer(sidecore_count_kind), intent(in), asynchronous :: send_counts(:)
      integer(sidecore_count_kind), intent(in), asynchronous :: send_displs(:)
      type(*), dimension(..), intent(inout), asynchronous :: recv
      integer(sidecore_count_kind), intent(in), asynchronous :: recv_counts(:)
      integer(sidecore_count_kind), intent(in), asynchronous :: recv_displs(:)
      integer(c_int), value :: dtype, comm
      integer(sidecore_request_kind), intent(inout) :: req
    end function
  end interface

contains

  ! The calls with arrays take them assumed-shape, so that their sizes are known: a count beyond an array is refused
  ! (SIDECORE_ERR_INVALID_ARGUMENT) rather than read or written past it. A strided section reaches C as a contiguous
  ! copy, written back when the call returns.

  ! Writes up to `capacity` ranks of the world communicator found dead to `ranks`, their number to `count`.
  integer(c_int) function sidecore_failed_ranks(ranks, capacity, count) result(code)
    integer(c_int), intent(inout) :: ranks(:)
    integer(c_int), intent(in) :: capacity
    integer(c_int), intent(inout) :: count
    code = c_failed_ranks(ranks, size(ranks, kind=c_int64_t), capacity, count)
  end function

  integer(c_int) function sidecore_waitall(count, reqs, statuses) result(code)
    integer(c_int), intent(in) :: count
    integer(sidecore_request_kind), intent(inout) :: reqs(:)
    type(sidecore_status), intent(inout), optional :: statuses(:)
    code = c_waitall(count, reqs, size(reqs, kind=c_int64_t), statuses, entries(statuses))
  end function

  integer(c_int) function sidecore_testall(count, reqs, flag, statuses) result(code)
    integer(c_int), intent(in) :: count
    integer(sidecore_request_kind), intent(inout) :: reqs(:)
    integer(c_int), intent(inout) :: flag
    type(sidecore_status), intent(inout), optional :: statuses(:)
    code = c_testall(count, reqs, size(reqs, kind=c_int64_t), flag, statuses, entries(statuses))
  end function

  ! The index counts from 1, as MPI's Fortran ones: SIDECORE_UNDEFINED when no request of reqs(1:count) is active. A
  ! refusal leaves it as it was.
  integer(c_int) function sidecore_waitany(count, reqs, index, status) result(code)
    integer(c_int), intent(in) :: count
    integer(sidecore_request_kind), intent(inout) :: reqs(:)
    integer(c_int), intent(inout) :: index
    type(sidecore_status), intent(inout), optional :: status
    code = c_waitany(count, reqs, size(reqs, kind=c_int64_t), index, status)
  end function

  ! The index counts from 1: flag 1 and the request's index when one completed, flag 1 and SIDECORE_UNDEFINED when none
  ! is active, flag 0 and SIDECORE_UNDEFINED while none completed.
  integer(c_int) function sidecore_testany(count, reqs, index, flag, status) result(code)
    integer(c_int), intent(in) :: count
    integer(sidecore_request_kind), intent(inout) :: reqs(:)
    integer(c_int), intent(inout) :: index
    integer(c_int), intent(inout) :: flag
    type(sidecore_status), intent(inout), optional :: status
    code = c_testany(count, reqs, size(reqs, kind=c_int64_t), index, flag, status)
  end function

  integer(c_int) function sidecore_startall(count, reqs) result(code)
    integer(c_int), intent(in) :: count
    integer(sidecore_request_kind), intent(inout) :: reqs(:)
    code = c_startall(count, reqs, size(reqs, kind=c_int64_t))
  end function

  ! The number of statuses an optional array holds; -1 when it is absent.
  integer(c_int64_t) function entries(statuses)
    type(sidecore_status), intent(in), optional :: statuses(:)
    entries = -1
    if (present(statuses)) entries = size(statuses, kind=c_int64_t)
  end function

  ! Registers a user operator (MPI_Op_create): `op` receives its id, usable wherever a SIDECORE_SUM goes, until
  ! sidecore_op_free. `ctx` (optional) is given to fn at each call. commutative .false.: results are in rank order.
  ! One function per logical kind (sidecore_op_create is their generic name), so that the program's default logical is
  ! taken whatever its size: kind 4, or 8 under -fdefault-integer-8; kind 1 is logical(c_bool).
  integer(c_int) function op_create_l1(fn, commutative, op, ctx) result(code)
    procedure(sidecore_user_function) :: fn
    logical(1), intent(in) :: commutative
    integer(c_int), intent(inout) :: op
    type(c_ptr), intent(in), optional :: ctx
    code = op_create(fn, logical(commutative), op, ctx)
  end function
  integer(c_int) function op_create_l4(fn, commutative, op, ctx) result(code)
    procedure(sidecore_user_function) :: fn
    logical(4), intent(in) :: commutative
    integer(c_int), intent(inout) :: op
    type(c_ptr), intent(in), optional :: ctx
    code = op_create(fn, logical(commutative), op, ctx)
  end function
  integer(c_int) function op_create_l8(fn, commutative, op, ctx) result(code)
    procedure(sidecore_user_function) :: fn
    logical(8), intent(in) :: commutative
    integer(c_int), intent(inout) :: op
    type(c_ptr), intent(in), optional :: ctx
    code = op_create(fn, logical(commutative), op, ctx)
  end function
  integer(c_int) function op_create(fn, commutative, op, ctx) result(code)
    procedure(sidecore_user_function) :: fn
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

  ! Opens a region of the overlap profile (nestable; sidecore_region_end closes the innermost). Trailing blanks of
  ! `name` are part of it: pass trim(name) to drop them.
  integer(c_int) function sidecore_region_begin(name) result(code)
    character(len=*), intent(in) :: name
    code = c_region_begin(name // c_null_char)
  end function

  ! The lower-case name of an error code ("invalid_argument", ...; "unknown" for a value that is none).
  function sidecore_error_name(code) result(name)
    integer(c_int), intent(in) :: code
    character(len=:), allocatable :: name
    name = from_c(c_error_name(code))
  end function

  ! The calling thread's last error message; empty after a call that succeeded.
  function sidecore_last_error() result(message)
    character(len=:), allocatable :: message
    message = from_c(c_last_error())
  end function

  ! Prints every setting (default, current value, help), the topology, the reserved core, the OpenMP places and the
  ! libfabric provider on standard output. Returns 0, or 2 when a setting in the environment is refused.
  integer(c_int) function sidecore_info_print() result(code)
    use, intrinsic :: iso_fortran_env, only: output_unit
    flush (output_unit)
    code = sidecore_info_print_c()
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
