! Messages of any length reach a Fortran program whole: sidecore_last_error() is a string of the message's own length,
! through the C API's accessor and through the module's C glue, which rewrites a failed array call's reqs[i] as
! reqs(i + 1). The array call's message comes from fortran_messages_stub.c (a stand-in for the C API's sidecore_startall
! that fails with a message of a length the program picks), as no call of sidecore writes one that long today.
! Needs no MPI and no sidecore_init. Prints "fortran_messages: ok"; any failure stops the program with the line that
! failed.
module fortran_messages_stub
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  ! The length of the filler in the stub's message (fortran_messages_stub.c).
  integer(c_int), bind(C, name="fortran_messages_filler") :: filler
end module

program fortran_messages
  use, intrinsic :: iso_c_binding
  use sidecore
  use fortran_messages_stub
  implicit none
  interface
    integer(c_int) function c_binding_fail(code, message) bind(C, name="sidecore_binding_fail")
      import :: c_int, c_char
      integer(c_int), value :: code
      character(kind=c_char), intent(in) :: message(*)
    end function
  end interface
  integer :: failures, n
  integer(sidecore_request_kind) :: reqs(2)
  character(len=:), allocatable :: m, long
  integer, parameter :: fillers(3) = [100, 4000, 70000]
  character(len=*), parameter :: head = "sidecore_startall: reqs(1): ", tail = " (reqs(2) was not started) end"

  failures = 0
  m = ""  ! set before the loops: gfortran -O2 otherwise warns that its length may be read unset
  ! The C API's accessor: a message set through sidecore_binding_fail comes back whole, however long.
  do n = 100, 100000, 99900
    long = repeat("y", n - 3) // "end"
    call check(c_binding_fail(SIDECORE_ERR_INVALID_ARGUMENT, long // c_null_char) == SIDECORE_ERR_INVALID_ARGUMENT, &
        __LINE__)
    m = sidecore_last_error()
    call check(len(m) == n .and. m == long, __LINE__)
  end do

  ! A failed array call's message, with its indices rewritten, at lengths on both sides of any fixed buffer.
  reqs = SIDECORE_REQUEST_NULL
  do n = 1, 3
    filler = fillers(n)
    call check(sidecore_startall(2, reqs) == SIDECORE_ERR_INVALID_REQUEST, __LINE__)
    m = sidecore_last_error()
    call check(len(m) == len(head) + filler + len(tail), __LINE__)
    call check(m == head // repeat("x", filler) // tail, __LINE__)
  end do

  if (failures > 0) then
    write (*, '(a, i0)') 'fortran_messages: failures: ', failures
    error stop 1
  end if
  write (*, '(a)') 'fortran_messages: ok'

contains

  subroutine check(cond, line)
    logical, intent(in) :: cond
    integer, intent(in) :: line
    character(len=:), allocatable :: e
    if (.not. cond) then
      e = sidecore_last_error()
      write (*, '(a, i0, a, i0, 2a)') 'fortran_messages.F90:', line, ': check failed; sidecore_last_error() has ', &
        len(e), ' characters, ending: ', e(max(1, len(e) - 60):)
      failures = failures + 1
    end if
  end subroutine
end program
