! Compiled, not run (runtime.fortran.class_t): docs/fortran.md's way past gfortran 12's internal compiler error for
! a class(t) buffer: the value passed from a `type is (t)` block, where it has its declared type.
program fortran_class_t
  use, intrinsic :: iso_c_binding
  use sidecore
  implicit none
  type :: pt
    real(c_double) :: x, y, z
  end type
  type(pt) :: points(4)
  integer(c_int) :: code
  points = pt(1, 2, 3)
  code = send_points(points, 24_sidecore_count_kind * size(points))
  code = send_point(points(1), 24_sidecore_count_kind)
contains
  integer(c_int) function send_points(p, bytes) result(code)
    class(pt), intent(in) :: p(:)
    integer(sidecore_count_kind), intent(in) :: bytes
    code = SIDECORE_ERR_INVALID_ARGUMENT
    select type (p)
    type is (pt)
      code = sidecore_send(p, bytes, 0_c_int, 1_c_int, SIDECORE_COMM_WORLD)
    end select
  end function
  integer(c_int) function send_point(p, bytes) result(code)
    class(pt), intent(in) :: p
    integer(sidecore_count_kind), intent(in) :: bytes
    code = SIDECORE_ERR_INVALID_ARGUMENT
    select type (p)
    type is (pt)
      code = sidecore_send(p, bytes, 0_c_int, 1_c_int, SIDECORE_COMM_WORLD)
    end select
  end function
end program
