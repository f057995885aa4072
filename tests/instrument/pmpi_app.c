/* A small MPI program with known call counts, run under LD_PRELOAD=libsidecore-pmpi.so by the pmpi test.
 * Per rank, with ITERS = 10 (the MPI 4.0 large-count "_c" variants count in their twins' categories):
 *   blocking: 8 per iteration (Barrier, Allreduce, Sendrecv, Bcast, Neighbor_allgather,
 *             Send_c, Recv_c, Allreduce_c) + 1 final Reduce                                 = 81
 *   init:     7 per iteration (Irecv, Isend, Iallreduce, Isendrecv, Irecv_c, Isend_c, Ibcast_c) = 70
 *   test:     6 per iteration (3 x Test, 2 x Iprobe, Request_get_status)                  = 60
 *   wait:     6 per iteration (Waitall, 2 x Wait, 3 x Wait for Irecv_c, Isend_c, Ibcast_c) = 60
 *   other:    Comm_dup + Cart_create + 2 x Comm_free                                        =  4
 * Each iteration also computes (spins) COMPUTE_US microseconds between Isend and Waitall, outside MPI.
 * The expected counts are printed by rank 0 for the checker (pmpi_check) to compare with the profile. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define ITERS 10
#define COMPUTE_US 2000

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double spin(double seconds) {
  const double end = now_s() + seconds;
  double x = 0.0;
  while (now_s() < end) x += 1.0;
  return x;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm ring; /* a periodic 1-D cartesian ring: neighbours left and right */
  const int dims[1] = {size}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double sink = 0.0;
  for (int it = 0; it < ITERS; ++it) {
    MPI_Barrier(comm);
    int out = rank + it, in = -1;
    MPI_Request rq[2];
    MPI_Irecv(&in, 1, MPI_INT, left, 7, comm, &rq[0]);
    MPI_Isend(&out, 1, MPI_INT, right, 7, comm, &rq[1]);
    sink += spin(COMPUTE_US * 1e-6);
    MPI_Status statuses[2];
    MPI_Waitall(2, rq, statuses);
    if (in != left + it) {
      fprintf(stderr, "rank %d: ring exchange got %d, expected %d\n", rank, in, left + it);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, 99, comm, &flag, MPI_STATUS_IGNORE);
    MPI_Iprobe(MPI_ANY_SOURCE, 99, comm, &flag, MPI_STATUS_IGNORE);
    int v = 1, s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, comm);
    MPI_Request r;
    int v2 = 2, s2 = 0;
    MPI_Iallreduce(&v2, &s2, 1, MPI_INT, MPI_SUM, comm, &r);
    for (int k = 0; k < 3; ++k) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    int a = rank, b = -1;
    MPI_Sendrecv(&a, 1, MPI_INT, right, 8, &b, 1, MPI_INT, left, 8, comm, MPI_STATUS_IGNORE);
    int root_value = rank == 0 ? 42 : 0;
    MPI_Bcast(&root_value, 1, MPI_INT, 0, comm);
    int c = -1;
    MPI_Request rs;
    MPI_Isendrecv(&a, 1, MPI_INT, right, 9, &c, 1, MPI_INT, left, 9, comm, &rs);
    MPI_Request_get_status(rs, &flag, MPI_STATUS_IGNORE);
    MPI_Wait(&rs, MPI_STATUS_IGNORE);
    int nb[2] = {-1, -1}; /* cartesian neighbour order: source (left), then destination (right) */
    MPI_Neighbor_allgather(&a, 1, MPI_INT, nb, 1, MPI_INT, ring);
    /* Large-count variants, two ring passes that cannot deadlock at any size (1 included, where left = right =
     * rank): each blocking Send_c goes to a rank that posted its Irecv_c first, and each blocking Recv_c waits for an
     * Isend_c that its sender posts once its own Send_c is done. */
    const MPI_Count one = 1;
    int lc_out = 100 + rank, lc_in = -1, lc_nin = -1;
    MPI_Request lrq[2];
    MPI_Irecv_c(&lc_nin, one, MPI_INT, left, 11, comm, &lrq[0]);
    MPI_Send_c(&lc_out, one, MPI_INT, right, 11, comm);
    MPI_Isend_c(&lc_out, one, MPI_INT, right, 10, comm, &lrq[1]);
    MPI_Recv_c(&lc_in, one, MPI_INT, left, 10, comm, MPI_STATUS_IGNORE);
    MPI_Wait(&lrq[0], MPI_STATUS_IGNORE);
    MPI_Wait(&lrq[1], MPI_STATUS_IGNORE);
    int lc_v = 3, lc_s = 0;
    MPI_Allreduce_c(&lc_v, &lc_s, one, MPI_INT, MPI_SUM, comm);
    int lc_root = rank == 0 ? 43 : 0;
    MPI_Request lb;
    MPI_Ibcast_c(&lc_root, one, MPI_INT, 0, comm, &lb);
    MPI_Wait(&lb, MPI_STATUS_IGNORE);
    if (lc_in != 100 + left || lc_nin != 100 + left || lc_s != 3 * size || lc_root != 43) {
      fprintf(stderr, "rank %d: wrong large-count result\n", rank);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (s != size || s2 != 2 * size || b != left || root_value != 42 || c != left || nb[0] != left || nb[1] != right) {
      fprintf(stderr, "rank %d: wrong collective result\n", rank);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  double total = 0.0;
  MPI_Reduce(&sink, &total, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
  MPI_Comm_free(&comm);
  MPI_Comm_free(&ring);
  if (rank == 0) printf("pmpi_app: done (%g)\n", total > 0 ? 1.0 : 0.0);
  MPI_Finalize();
  return 0;
}
