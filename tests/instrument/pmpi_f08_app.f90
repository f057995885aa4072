! A Fortran program of the mpi_f08 bindings under libsidecore-pmpi.so, with known call counts per rank. MPICH's
! mpi_f08 MPI_Init, MPI_Finalize, waits, tests and MPI_Barrier call PMPI_* themselves, not the C MPI_* functions the
! profiler wraps; the counts below must be exact all the same (run_pmpi_edge_test.sh, case f08):
! blocking 2 (Barrier, Allreduce), init 4 (Isend, Irecv, Iallreduce, Ibarrier), wait 3 (Waitall, Wait, Wait),
! test 1 (Test of a null request), other 2 (Comm_dup, Comm_free).
program pmpi_f08_app
  use mpi_f08
  implicit none
  integer :: rank, nranks, partner, x, y, z
  integer :: out(1000), in(1000)
  logical :: flag
  type(MPI_Request) :: reqs(2), req
  type(MPI_Comm) :: dup
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  partner = ieor(rank, 1)
  if (partner >= nranks) partner = rank
  out = rank
  call MPI_Irecv(in, size(in), MPI_INTEGER, partner, 7, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(out, size(out), MPI_INTEGER, partner, 7, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  x = rank
  call MPI_Iallreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call MPI_Ibarrier(MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  req = MPI_REQUEST_NULL
  call MPI_Test(req, flag, MPI_STATUS_IGNORE)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Allreduce(x, z, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_free(dup)
  if (any(in /= partner) .or. y /= nranks * (nranks - 1) / 2 .or. z /= y .or. .not. flag) then
    print '(a, i0, a)', 'pmpi_f08_app: rank ', rank, ': wrong result'
    call MPI_Abort(MPI_COMM_WORLD, 3)
  end if
  if (rank == 0) print '(a)', 'pmpi_f08_app: f08 done'
  call MPI_Finalize()
end program pmpi_f08_app
