/* MPI 4.0 persistent collectives and partitioned communication under LD_PRELOAD=libsidecore-pmpi.so, run by
 * run_pmpi_persistent_test.sh at 2 to 64 ranks: the profile must count every call in its category and every start of
 * a persistent collective of a monitored kind as one instance of that kind, matched across the ranks.
 * On a duplicate of the world: persistent allreduce, bcast, barrier, reduce (_c), allgather, alltoall (_c) and scan
 * requests, started by MPI_Start and by MPI_Startall (alone, with each other, with persistent point-to-point
 * requests), the odd ranks starting two of them in the other order than the even ranks (legal: persistent starts need
 * not be ordered alike), completed by MPI_Wait, MPI_Waitall, MPI_Waitsome, MPI_Test and MPI_Request_get_status
 * (below: why not the others), interleaved with blocking
 * barriers, then freed; then persistent point-to-point requests, which may get the freed handles back and must not
 * be taken for collectives; then a partitioned send around a ring (MPI_Psend_init, MPI_Precv_init, MPI_Pready,
 * MPI_Pready_range, MPI_Pready_list, MPI_Parrived).
 * Each line's calls are counted in the comment at its end (blocking b, init i, wait w, other o). Per rank: blocking
 * 5, init 31, wait 21, other 28, and the calls of the loops that poll until completion, which the program counts
 * and prints as "pmpi_persistent_app: rank R polls: test=T waitsome=W" (category test T, wait W more).
 * Instances per rank: allreduce 7, bcast 5, barrier 11, reduce 2, allgather 2, alltoall 1 (scan: not monitored).
 * Prints "pmpi_persistent_app: done" on rank 0 when every rank's results were right. */
#include <mpi.h>
#include <stdio.h>

enum { max_ranks = 64, parts = 4, per_part = 8 };

// MPI_STATUSES_IGNORE through a volatile: GCC takes the literal (a null pointer) for an array too small for the
// statuses (-Wstringop-overflow), while MPI reads it as "no statuses".
static MPI_Status* volatile no_statuses = MPI_STATUSES_IGNORE;
static int tests, waits;  // the polling loops' tests (MPI_Test, MPI_Request_get_status, MPI_Parrived), waits

// Tests `r` with MPI_Test until it completes.
static void test_until_done(MPI_Request* r) {
  int flag = 0;
  while (!flag) {
    MPI_Test(r, &flag, MPI_STATUS_IGNORE);
    ++tests;
  }
}

// Completes n requests with MPI_Waitsome, as often as it takes.
static void waitsome_until_done(int n, MPI_Request* r) {
  int done = 0, out = 0, idx[3];
  while (done < n) {
    MPI_Waitsome(n, r, &out, idx, no_statuses);
    ++waits;
    if (out != MPI_UNDEFINED) done += out;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, ok = 1, flag = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2 || size > max_ranks) {
    if (rank == 0) fprintf(stderr, "pmpi_persistent_app: needs 2 to %d ranks\n", max_ranks);
    MPI_Finalize();
    return 2;
  }
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);  // o1
  int one = 1, sum = 0, red = 0, scan = 0, bc[4] = {0}, gathered[max_ranks], to_all[max_ranks], from_all[max_ranks];
  for (int k = 0; k < size; ++k) to_all[k] = rank * 100 + k;
  MPI_Request p[7];
  MPI_Allreduce_init(&one, &sum, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &p[0]);                // o2
  MPI_Bcast_init(bc, 4, MPI_INT, 0, comm, MPI_INFO_NULL, &p[1]);                                  // o3
  MPI_Barrier_init(comm, MPI_INFO_NULL, &p[2]);                                                   // o4
  MPI_Reduce_init_c(&one, &red, 1, MPI_INT, MPI_SUM, 0, comm, MPI_INFO_NULL, &p[3]);              // o5
  MPI_Allgather_init(&rank, 1, MPI_INT, gathered, 1, MPI_INT, comm, MPI_INFO_NULL, &p[4]);        // o6
  MPI_Alltoall_init_c(to_all, 1, MPI_INT, from_all, 1, MPI_INT, comm, MPI_INFO_NULL, &p[5]);      // o7
  MPI_Scan_init(&one, &scan, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &p[6]);                    // o8

  for (int it = 0; it < 3; ++it) {
    for (int k = 0; k < 4; ++k) bc[k] = rank == 0 ? it * 10 + k : -1;
    MPI_Start(&p[0]);                            // i1, i4, i7: allreduce
    MPI_Wait(&p[0], MPI_STATUS_IGNORE);          // w1..w3
    ok &= sum == size;
    MPI_Start(&p[1]);                            // i2, i5, i8: bcast
    MPI_Start(&p[2]);                            // i3, i6, i9: barrier
    MPI_Waitall(2, &p[1], no_statuses);  // w4..w6
    for (int k = 0; k < 4; ++k) ok &= bc[k] == it * 10 + k;
    MPI_Barrier(comm);                           // b1..b3: a blocking instance between the persistent ones
  }

  // Persistent point-to-point and collective requests in one MPI_Startall.
  int from = -1;
  MPI_Request mix[5];
  MPI_Recv_init(&from, 1, MPI_INT, left, 7, comm, &mix[0]);   // o9
  MPI_Send_init(&rank, 1, MPI_INT, right, 7, comm, &mix[2]);  // o10
  mix[1] = p[3];
  mix[3] = p[4];
  mix[4] = p[6];
  MPI_Startall(5, mix);                        // i10: receive, reduce, send, allgather, scan
  MPI_Waitall(5, mix, no_statuses);    // w7
  ok &= from == left && (rank != 0 || red == size) && scan == rank + 1;
  for (int k = 0; k < size; ++k) ok &= gathered[k] == k;
  MPI_Startall(5, mix);                        // i11
  for (int k = 4; k >= 0; --k) MPI_Wait(&mix[k], MPI_STATUS_IGNORE);  // w8..w12
  ok &= from == left;

  // Two persistent collectives started in a rank-dependent order.
  MPI_Request two[2] = {p[0], p[2]};
  if (rank % 2 == 0) {
    MPI_Start(&two[0]);  // i12
    MPI_Start(&two[1]);  // i13
  } else {
    MPI_Start(&two[1]);  // i12
    MPI_Start(&two[0]);  // i13
  }
  MPI_Waitall(2, two, no_statuses);            // w13

  // Completion by MPI_Test, MPI_Waitsome and MPI_Request_get_status. Not by MPI_Testall, MPI_Testany, MPI_Testsome
  // or MPI_Waitany, and MPI_Waitsome with one persistent collective among its requests only: MPICH 4.0.2's fail on
  // persistent collective requests or leave them active (the next start fails).
  MPI_Start(&p[5]);                            // i14: alltoall
  test_until_done(&p[5]);
  for (int k = 0; k < size; ++k) ok &= from_all[k] == k * 100 + rank;
  MPI_Startall(2, two);                        // i15: allreduce, barrier
  test_until_done(&two[1]);
  test_until_done(&two[0]);
  MPI_Request q[3] = {mix[0], p[1], mix[2]};
  MPI_Startall(3, q);                          // i16: receive, bcast, send
  waitsome_until_done(3, q);
  ok &= from == left;
  MPI_Request r[2] = {p[1], p[2]};
  MPI_Startall(2, r);                          // i17: bcast, barrier
  do {
    MPI_Request_get_status(r[1], &flag, MPI_STATUS_IGNORE);
    ++tests;
  } while (!flag);
  MPI_Waitall(2, r, no_statuses);              // w14: the barrier already complete
  MPI_Start(&p[2]);                            // i18: barrier
  test_until_done(&p[2]);
  MPI_Start(&p[0]);                            // i19: allreduce
  do {
    MPI_Request_get_status(p[0], &flag, MPI_STATUS_IGNORE);
    ++tests;
  } while (!flag);
  MPI_Wait(&p[0], MPI_STATUS_IGNORE);          // w15: already complete
  MPI_Barrier(comm);                           // b4
  MPI_Request_free(&mix[0]);                   // o11
  MPI_Request_free(&mix[2]);                   // o12
  for (int k = 6; k >= 0; --k) MPI_Request_free(&p[k]);  // o13..o19

  // Persistent point-to-point requests made after the collectives' were freed: MPICH gives the last freed handles
  // back first, the allreduce's and the bcast's.
  MPI_Request pp[2];
  MPI_Recv_init(&from, 1, MPI_INT, left, 8, comm, &pp[0]);   // o20
  MPI_Send_init(&rank, 1, MPI_INT, right, 8, comm, &pp[1]);  // o21
  for (int it = 0; it < 2; ++it) {
    from = -1;
    MPI_Startall(2, pp);                       // i20, i21
    MPI_Waitall(2, pp, no_statuses);   // w16, w17
    ok &= from == left;
  }
  MPI_Request_free(&pp[0]);                    // o22
  MPI_Request_free(&pp[1]);                    // o23

  // A partitioned send around the ring, its partitions made ready one, a range and a list at a time.
  int out[parts * per_part], in[parts * per_part], list[1] = {3};
  MPI_Request ps, pr;
  MPI_Psend_init(out, parts, per_part, MPI_INT, right, 9, comm, MPI_INFO_NULL, &ps);  // o24
  MPI_Precv_init(in, parts, per_part, MPI_INT, left, 9, comm, MPI_INFO_NULL, &pr);    // o25
  for (int it = 0; it < 2; ++it) {
    for (int k = 0; k < parts * per_part; ++k) {
      out[k] = rank * 1000 + it * 100 + k;
      in[k] = -1;
    }
    MPI_Start(&pr);                            // i22, i27
    MPI_Start(&ps);                            // i23, i28
    MPI_Pready(0, ps);                         // i24, i29
    MPI_Pready_range(1, 2, ps);                // i25, i30
    MPI_Pready_list(1, list, ps);              // i26, i31
    for (int k = 0; k < parts; ++k) {
      do {
        MPI_Parrived(pr, k, &flag);
        ++tests;
      } while (!flag);
    }
    MPI_Wait(&ps, MPI_STATUS_IGNORE);          // w18, w20
    MPI_Wait(&pr, MPI_STATUS_IGNORE);          // w19, w21
    for (int k = 0; k < parts * per_part; ++k) ok &= in[k] == left * 1000 + it * 100 + k;
  }
  MPI_Request_free(&ps);                       // o26
  MPI_Request_free(&pr);                       // o27
  MPI_Comm_free(&comm);                        // o28

  printf("pmpi_persistent_app: rank %d polls: test=%d waitsome=%d\n", rank, tests, waits);
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);  // b5
  if (!ok) fprintf(stderr, "pmpi_persistent_app: rank %d: wrong results\n", rank);
  if (rank == 0 && all_ok) printf("pmpi_persistent_app: done\n");
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
