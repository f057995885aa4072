/* Collectives of every kind the PMPI profiler monitors, with one rank deliberately late: before each collective
 * instance, rank LATE sleeps SLEEP_MS milliseconds, so it should be reported last to arrive, and the others' arrival
 * wait should be about the sleep. Blocking and nonblocking, on MPI_COMM_WORLD, a duplicate and a split of it (the
 * communicators' keys must be derived alike on every rank for the instances to match).
 * Usage: pmpi_coll_app LATE SLEEP_MS ITERS. Per rank and iteration: barrier, bcast, reduce, allreduce, gather,
 * scatter, allgather, alltoall, reduce_scatter_block, allgatherv, alltoallv on the world; iallreduce + MPI_Wait and
 * ibcast + MPI_Test until done on the duplicate; iallgather + MPI_Waitall on the split. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int late = 1, rank = 0;
static long sleep_ms = 20;

static void maybe_late(void) {
  if (rank != late) return;
  struct timespec ts = {sleep_ms / 1000, (sleep_ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: pmpi_coll_app LATE SLEEP_MS ITERS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  late = atoi(argv[1]);
  sleep_ms = atol(argv[2]);
  const int iters = atoi(argv[3]);
  MPI_Comm dup, split;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &split); /* every rank, in reverse order */
  int* send = malloc(sizeof(int) * (size_t)size * 8);
  int* recv = malloc(sizeof(int) * (size_t)size * 8);
  int* counts = malloc(sizeof(int) * (size_t)size);
  int* displs = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size * 8; ++i) send[i] = rank * 1000 + i;
  for (int i = 0; i < size; ++i) {
    counts[i] = 2;
    displs[i] = 2 * i;
  }
  long check = 0;
  for (int it = 0; it < iters; ++it) {
    maybe_late(); MPI_Barrier(MPI_COMM_WORLD);
    maybe_late(); MPI_Bcast(send, 8, MPI_INT, 0, MPI_COMM_WORLD);
    maybe_late(); MPI_Reduce(send, recv, 8, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    maybe_late(); MPI_Allreduce(send, recv, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check += recv[0];
    maybe_late(); MPI_Gather(send, 1, MPI_INT, recv, 1, MPI_INT, 0, MPI_COMM_WORLD);
    maybe_late(); MPI_Scatter(send, 1, MPI_INT, recv, 1, MPI_INT, 0, MPI_COMM_WORLD);
    maybe_late(); MPI_Allgather(send, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD);
    maybe_late(); MPI_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD);
    maybe_late(); MPI_Reduce_scatter_block(send, recv, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    maybe_late(); MPI_Allgatherv(send, 2, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD);
    maybe_late(); MPI_Alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Request r[1];
    maybe_late(); MPI_Iallreduce(send, recv, 4, MPI_INT, MPI_MAX, dup, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    maybe_late(); MPI_Ibcast(recv, 4, MPI_INT, 1 % size, dup, &r[0]);
    for (int done = 0; !done;) MPI_Test(&r[0], &done, MPI_STATUS_IGNORE);
    maybe_late(); MPI_Iallgather(send, 1, MPI_INT, recv, 1, MPI_INT, split, &r[0]);
    MPI_Status st[1];
    MPI_Waitall(1, r, st);
  }
  MPI_Comm_free(&split);
  MPI_Comm_free(&dup);
  free(send);
  free(recv);
  free(counts);
  free(displs);
  if (rank == 0) printf("pmpi_coll_app: %d ranks, %d iterations, rank %d late by %ld ms (%ld)\n", size, iters, late,
                        sleep_ms, check);
  MPI_Finalize();
  return 0;
}
