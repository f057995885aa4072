/* The C API used from C (proves sidecore.h is valid C): a ring exchange with
 * sidecore_isend/sidecore_irecv/sidecore_waitall, a handle copied and waited twice, and a truncated sidecore_recv.
 * Returns 0, or the line of the first failed check (the C++ test reports it with sidecore_last_error()). */
#include <sidecore/sidecore.h>

#include <stdint.h>
#include <string.h>

#define CHECK(cond)      \
  do {                   \
    if (!(cond)) return __LINE__; \
  } while (0)

int sctest_c_api_roundtrip(int tag, int with_truncation) {
  int rank = -1, size = -1;
  CHECK(sidecore_rank(&rank) == SIDECORE_SUCCESS);
  CHECK(sidecore_size(&size) == SIDECORE_SUCCESS);
  CHECK(rank >= 0 && size >= 1 && rank < size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* Ring exchange. */
  uint64_t out = 1000u + (uint64_t)rank, in = 0;
  sidecore_request reqs[2] = {SIDECORE_REQUEST_NULL, SIDECORE_REQUEST_NULL};
  CHECK(sidecore_irecv(&in, sizeof in, left, tag, SIDECORE_COMM_WORLD, &reqs[0]) == SIDECORE_SUCCESS);
  CHECK(sidecore_isend(&out, sizeof out, right, tag, SIDECORE_COMM_WORLD, &reqs[1]) == SIDECORE_SUCCESS);
  CHECK(reqs[0] != SIDECORE_REQUEST_NULL && reqs[1] != SIDECORE_REQUEST_NULL);
  sidecore_status st[2];
  memset(st, 0xff, sizeof st);
  CHECK(sidecore_waitall(2, reqs, st) == SIDECORE_SUCCESS);
  CHECK(reqs[0] == SIDECORE_REQUEST_NULL && reqs[1] == SIDECORE_REQUEST_NULL);
  CHECK(in == 1000u + (uint64_t)left);
  CHECK(st[0].source == left && st[0].tag == tag && st[0].bytes == sizeof in && st[0].error == SIDECORE_SUCCESS);
  CHECK(st[1].source == -1 && st[1].tag == -1 && st[1].error == SIDECORE_SUCCESS);

  /* A handle copied, then waited on through both copies. */
  sidecore_request r = SIDECORE_REQUEST_NULL, copy;
  CHECK(sidecore_irecv(&in, sizeof in, left, tag + 1, SIDECORE_COMM_WORLD, &r) == SIDECORE_SUCCESS);
  copy = r;
  CHECK(sidecore_send(&out, sizeof out, right, tag + 1, SIDECORE_COMM_WORLD) == SIDECORE_SUCCESS);
  sidecore_status s1;
  CHECK(sidecore_wait(&r, &s1) == SIDECORE_SUCCESS);
  CHECK(r == SIDECORE_REQUEST_NULL);
  CHECK(sidecore_wait(&copy, NULL) == SIDECORE_ERR_INVALID_REQUEST);
  CHECK(strlen(sidecore_last_error()) > 0);
  CHECK(sidecore_wait(&r, NULL) == SIDECORE_ERR_INVALID_REQUEST); /* SIDECORE_REQUEST_NULL */

  if (!with_truncation) return 0;
  /* Truncation through sidecore_recv: the code and the status both say so. */
  char big[100], small[10];
  memset(big, 'x', sizeof big);
  CHECK(sidecore_isend(big, sizeof big, right, tag + 2, SIDECORE_COMM_WORLD, &r) == SIDECORE_SUCCESS);
  sidecore_status s2;
  CHECK(sidecore_recv(small, sizeof small, left, tag + 2, SIDECORE_COMM_WORLD, &s2) == SIDECORE_ERR_TRUNCATED);
  CHECK(s2.error == SIDECORE_ERR_TRUNCATED && s2.bytes == sizeof small);
  CHECK(sidecore_wait(&r, NULL) == SIDECORE_SUCCESS);
  return 0;
}
