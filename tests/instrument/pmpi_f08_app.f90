! A Fortran program of the mpi_f08 bindings under libsidecore-pmpi.so, with known call counts per rank. MPICH's
! mpi_f08 MPI_Init, MPI_Finalize, waits, tests and MPI_Barrier call PMPI_* themselves, not the C MPI_* functions the
! profiler wraps; the counts below must be exact all the same (run_pmpi_edge_test.sh, case f08):
! blocking 2 (Barrier, Allreduce), init 9 (Isend, Irecv, Iallreduce, Ibarrier, 2 Start of a persistent barrier,
! 2 Start and a Pready of a partitioned send and receive), wait 7 (Waitall, 6 Wait), test 1 (Test of a null
! request), other 8 (Comm_dup, Comm_free, Barrier_init, Psend_init, Precv_init, 3 Request_free); 4 barrier instances.
! Barrier_init and Pready are among the calls MPICH's mpi_f08 bindings make through PMPI_*.
program pmpi_f08_app
  use mpi_f08
  implicit none
  integer :: rank, nranks, partner, x, y, z
  integer :: out(1000), in(1000)
  logical :: flag
  type(MPI_Request) :: reqs(2), req, psend, precv
  integer(kind=MPI_COUNT_KIND), parameter :: one = 1
  integer :: i
  ! Asynchronous: the partitioned receive writes part_in during MPI_Wait, a call that does not name it.
  integer, asynchronous :: part_out(1), part_in(1)
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
  call MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, req)
  do i = 1, 2
    call MPI_Start(req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
  end do
  call MPI_Request_free(req)
  part_out = rank
  part_in = -1
  call MPI_Psend_init(part_out, 1, one, MPI_INTEGER, partner, 8, MPI_COMM_WORLD, MPI_INFO_NULL, psend)
  call MPI_Precv_init(part_in, 1, one, MPI_INTEGER, partner, 8, MPI_COMM_WORLD, MPI_INFO_NULL, precv)
  call MPI_Start(precv)
  call MPI_Start(psend)
  call MPI_Pready(0, psend)
  call MPI_Wait(psend, MPI_STATUS_IGNORE)
  call MPI_Wait(precv, MPI_STATUS_IGNORE)
  call MPI_Request_free(psend)
  call MPI_Request_free(precv)
  req = MPI_REQUEST_NULL
  call MPI_Test(req, flag, MPI_STATUS_IGNORE)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Allreduce(x, z, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_free(dup)
  if (any(in /= partner) .or. part_in(1) /= partner .or. y /= nranks * (nranks - 1) / 2 .or. z /= y &
      .or. .not. flag) then
    print '(a, i0, a)', 'pmpi_f08_app: rank ', rank, ': wrong result'
    call MPI_Abort(MPI_COMM_WORLD, 3)
  end if
  if (rank == 0) print '(a)', 'pmpi_f08_app: f08 done'
  call MPI_Finalize()
end program pmpi_f08_app
