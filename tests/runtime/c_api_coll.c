/* The collectives of the C API used from C: nonblocking, blocking and persistent forms, a user operator, in place,
 * a v-variant, and bad arguments. Returns 0, or the line of the first failed check (the C++ test reports it with
 * sidecore_last_error()). Results are checked against MPI on MPI_COMM_WORLD (the communicator sidecore_init was given).
 */
#include <sidecore/sidecore.h>

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)               \
  do {                            \
    if (!(cond)) return __LINE__; \
  } while (0)

/* inout = in - inout... elementwise max of |x| (commutative): enough to see the callback run */
static void absmax(const void* in, void* inout, size_t count, void* ctx) {
  const int64_t* x = (const int64_t*)in;
  int64_t* y = (int64_t*)inout;
  for (size_t i = 0; i < count; ++i) {
    const int64_t a = x[i] < 0 ? -x[i] : x[i], b = y[i] < 0 ? -y[i] : y[i];
    y[i] = a > b ? a : b;
  }
  ++*(int*)ctx;
}

int sctest_c_api_coll(void) {
  int rank = -1, size = -1;
  CHECK(sidecore_rank(&rank) == SIDECORE_SUCCESS);
  CHECK(sidecore_size(&size) == SIDECORE_SUCCESS);

  /* iallreduce mixed with a point-to-point pair in one sidecore_waitall */
  double x[5], sum[5], want[5];
  for (int i = 0; i < 5; ++i) x[i] = rank + i;
  int token = rank, got = -1;
  sidecore_request reqs[3];
  CHECK(sidecore_iallreduce(x, sum, 5, SIDECORE_DOUBLE, SIDECORE_SUM, SIDECORE_COMM_WORLD, &reqs[0]) ==
        SIDECORE_SUCCESS);
  CHECK(sidecore_irecv(&got, sizeof got, (rank + size - 1) % size, 77, SIDECORE_COMM_WORLD, &reqs[1]) ==
        SIDECORE_SUCCESS);
  CHECK(sidecore_isend(&token, sizeof token, (rank + 1) % size, 77, SIDECORE_COMM_WORLD, &reqs[2]) == SIDECORE_SUCCESS);
  CHECK(sidecore_waitall(3, reqs, NULL) == SIDECORE_SUCCESS);
  MPI_Allreduce(x, want, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  CHECK(memcmp(sum, want, sizeof sum) == 0);
  CHECK(got == (rank + size - 1) % size);

  /* blocking bcast and in-place allreduce */
  int32_t b[3] = {rank, rank, rank};
  CHECK(sidecore_bcast(b, 3, SIDECORE_INT32, size - 1, SIDECORE_COMM_WORLD) == SIDECORE_SUCCESS);
  CHECK(b[0] == size - 1 && b[2] == size - 1);
  int64_t m[2] = {rank, -rank};
  CHECK(sidecore_allreduce(SIDECORE_IN_PLACE, m, 2, SIDECORE_INT64, SIDECORE_MAX, SIDECORE_COMM_WORLD) ==
        SIDECORE_SUCCESS);
  CHECK(m[0] == size - 1 && m[1] == 0);

  /* a user operator */
  int calls = 0, op = -1;
  CHECK(sidecore_op_create(absmax, &calls, 1, &op) == SIDECORE_SUCCESS);
  int64_t u = rank % 2 ? -(int64_t)rank * 3 : rank, ur = 0;
  CHECK(sidecore_allreduce(&u, &ur, 1, SIDECORE_INT64, op, SIDECORE_COMM_WORLD) == SIDECORE_SUCCESS);
  CHECK(ur == (size - 1) * 3 || ur == (size - 1) * 3 - 3 || size == 1);
  CHECK(sidecore_op_free(&op) == SIDECORE_SUCCESS);
  CHECK(sidecore_allreduce(&u, &ur, 1, SIDECORE_INT64, 100, SIDECORE_COMM_WORLD) == SIDECORE_ERR_INVALID_ARGUMENT);

  /* a persistent allreduce started three times */
  int32_t pin = 0, pout = 0;
  sidecore_request p = SIDECORE_REQUEST_NULL;
  CHECK(sidecore_allreduce_init(&pin, &pout, 1, SIDECORE_INT32, SIDECORE_SUM, SIDECORE_COMM_WORLD, &p) ==
        SIDECORE_SUCCESS);
  for (int it = 0; it < 3; ++it) {
    pin = rank + it;
    CHECK(sidecore_start(&p) == SIDECORE_SUCCESS);
    CHECK(sidecore_wait(&p, NULL) == SIDECORE_SUCCESS);
    CHECK(p != SIDECORE_REQUEST_NULL); /* persistent: still valid */
    CHECK(pout == size * (size - 1) / 2 + size * it);
  }
  CHECK(sidecore_request_free(&p) == SIDECORE_SUCCESS);
  CHECK(p == SIDECORE_REQUEST_NULL);

  /* allgatherv: rank i gives i + 1 elements */
  int64_t* counts = malloc(sizeof(int64_t) * (size_t)size);
  int64_t* displs = malloc(sizeof(int64_t) * (size_t)size);
  int64_t total = 0;
  for (int i = 0; i < size; ++i) {
    counts[i] = i + 1;
    displs[i] = total;
    total += i + 1;
  }
  int32_t mine[64];
  for (int i = 0; i <= rank; ++i) mine[i] = rank * 100 + i;
  int32_t* all = malloc(sizeof(int32_t) * (size_t)total);
  sidecore_request r = SIDECORE_REQUEST_NULL;
  CHECK(sidecore_iallgatherv(mine, rank + 1, all, counts, displs, SIDECORE_INT32, SIDECORE_COMM_WORLD, &r) ==
        SIDECORE_SUCCESS);
  CHECK(sidecore_wait(&r, NULL) == SIDECORE_SUCCESS);
  for (int i = 0; i < size; ++i)
    for (int j = 0; j <= i; ++j) CHECK(all[displs[i] + j] == i * 100 + j);
  /* bad arguments */
  CHECK(sidecore_iallgatherv(mine, rank + 1, all, NULL, displs, SIDECORE_INT32, SIDECORE_COMM_WORLD, &r) ==
        SIDECORE_ERR_INVALID_ARGUMENT);
  CHECK(strstr(sidecore_last_error(), "recv_counts") != NULL);
  CHECK(sidecore_iallreduce(x, sum, 5, SIDECORE_DOUBLE, SIDECORE_BXOR, SIDECORE_COMM_WORLD, &r) ==
        SIDECORE_ERR_INVALID_ARGUMENT);
  CHECK(sidecore_iallreduce(NULL, sum, 5, SIDECORE_DOUBLE, SIDECORE_SUM, SIDECORE_COMM_WORLD, &r) ==
        SIDECORE_ERR_INVALID_ARGUMENT);
  CHECK(sidecore_iallreduce(x, sum, 5, 17, SIDECORE_SUM, SIDECORE_COMM_WORLD, &r) == SIDECORE_ERR_INVALID_ARGUMENT);
  CHECK(sidecore_ibcast(b, 3, SIDECORE_INT32, size, SIDECORE_COMM_WORLD, &r) == SIDECORE_ERR_INVALID_ARGUMENT);
  CHECK(sidecore_ibarrier(SIDECORE_COMM_WORLD, NULL) == SIDECORE_ERR_INVALID_ARGUMENT);
  CHECK(sidecore_barrier(12345) == SIDECORE_ERR_INVALID_ARGUMENT);
  free(all);
  free(counts);
  free(displs);
  return 0;
}
