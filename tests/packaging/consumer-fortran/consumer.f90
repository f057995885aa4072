! The Fortran module from a Fortran-only project outside the sidecore tree: each rank sends its rank to the next one
! and checks what it received from the previous one.
program consumer_fortran
  use, intrinsic :: iso_c_binding, only: c_int
  use mpi
  use sidecore
  implicit none
  integer :: provided, ierr
  integer(c_int) :: rank, size, code
  integer(c_int), asynchronous :: mine, got
  integer(sidecore_request_kind) :: reqs(2)
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  code = sidecore_init(MPI_COMM_WORLD)
  if (code == SIDECORE_SUCCESS) code = sidecore_rank(rank)
  if (code == SIDECORE_SUCCESS) code = sidecore_size(size)
  mine = rank
  got = -1
  if (code == SIDECORE_SUCCESS) code = sidecore_irecv(got, 4_sidecore_count_kind, modulo(rank - 1, size), 3, &
      SIDECORE_COMM_WORLD, reqs(1))
  if (code == SIDECORE_SUCCESS) code = sidecore_isend(mine, 4_sidecore_count_kind, modulo(rank + 1, size), 3, &
      SIDECORE_COMM_WORLD, reqs(2))
  if (code == SIDECORE_SUCCESS) code = sidecore_waitall(2, reqs)
  if (code /= SIDECORE_SUCCESS) then
    write (*, '(2a)') 'consumer_fortran: ', sidecore_last_error()
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  if (got /= modulo(rank - 1, size)) then
    write (*, '(a, i0, a, i0)') 'consumer_fortran: rank ', rank, ' received ', got
    error stop 1
  end if
  if (rank == 0) write (*, '(a, i0, a)') 'consumer_fortran: OK, ', size, ' ranks'
  code = sidecore_finalize()
  call MPI_Finalize(ierr)
end program
