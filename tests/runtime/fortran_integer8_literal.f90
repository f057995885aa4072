! Compiled, not run (runtime.fortran.integer8_literal): with -fdefault-integer-8 a default-integer literal where
! sidecore takes an integer(c_int) is a compile-time error, with the message docs/fortran.md quotes.
program fortran_integer8_literal
  use, intrinsic :: iso_c_binding
  use sidecore
  implicit none
  integer(c_int) :: code
  integer(sidecore_request_kind) :: r
  real(c_double), asynchronous :: a(4)
  a = 1
  code = sidecore_isend(a, 32_sidecore_count_kind, 1, 0_c_int, SIDECORE_COMM_WORLD, r)
end program
