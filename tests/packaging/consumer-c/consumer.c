/* The C API from a C-only project outside the sidecore tree: each rank sends its rank to the next one and checks
 * what it received from the previous one. */
#include <stdio.h>

#include <sidecore/sidecore.h>

int main(int argc, char** argv) {
  int provided = 0, rank = -1, size = 0, in = -1, rc = 0;
  sidecore_request r = SIDECORE_REQUEST_NULL, s = SIDECORE_REQUEST_NULL;
  sidecore_status st;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  if (sidecore_init(MPI_COMM_WORLD) != 0 || sidecore_rank(&rank) != 0 || sidecore_size(&size) != 0 ||
      sidecore_irecv(&in, sizeof in, (rank + size - 1) % size, 3, SIDECORE_COMM_WORLD, &r) != 0 ||
      sidecore_isend(&rank, sizeof rank, (rank + 1) % size, 3, SIDECORE_COMM_WORLD, &s) != 0 ||
      sidecore_wait(&r, &st) != 0 || sidecore_wait(&s, NULL) != 0) {
    fprintf(stderr, "consumer_c: %s\n", sidecore_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (in != (rank + size - 1) % size) {
    fprintf(stderr, "consumer_c: rank %d received %d, expected %d\n", rank, in, (rank + size - 1) % size);
    rc = 1;
  }
  if (rank == 0 && rc == 0) printf("consumer_c: OK, %d ranks\n", size);
  sidecore_finalize();
  MPI_Finalize();
  return rc;
}
