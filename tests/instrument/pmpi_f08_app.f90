! A Fortran program of the mpi_f08 bindings under libsidecore-pmpi.so. MPICH's mpi_f08 MPI_Init, MPI_Finalize and
! the waits call PMPI_* themselves, past the profiler: it cannot profile such a program, and must say so rather than
! leave no profile and no word.
program pmpi_f08_app
  use mpi_f08
  implicit none
  integer :: rank, x, y
  type(MPI_Request) :: req
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  x = rank
  call MPI_Iallreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
end program pmpi_f08_app
