/* The C API used from C (proves sidecore.h is valid C): a ring exchange with sc_isend/sc_irecv/sc_waitall,
 * a handle copied and waited twice, and a truncated sc_recv. Returns 0, or the line of the first failed check
 * (the C++ test reports it with sc_last_error()). */
#include <sidecore/sidecore.h>

#include <stdint.h>
#include <string.h>

#define CHECK(cond)      \
  do {                   \
    if (!(cond)) return __LINE__; \
  } while (0)

int sctest_c_api_roundtrip(int tag, int with_truncation) {
  int rank = -1, size = -1;
  CHECK(sc_rank(&rank) == SC_SUCCESS);
  CHECK(sc_size(&size) == SC_SUCCESS);
  CHECK(rank >= 0 && size >= 1 && rank < size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* Ring exchange. */
  uint64_t out = 1000u + (uint64_t)rank, in = 0;
  sc_request reqs[2] = {SC_REQUEST_NULL, SC_REQUEST_NULL};
  CHECK(sc_irecv(&in, sizeof in, left, tag, SC_COMM_WORLD, &reqs[0]) == SC_SUCCESS);
  CHECK(sc_isend(&out, sizeof out, right, tag, SC_COMM_WORLD, &reqs[1]) == SC_SUCCESS);
  CHECK(reqs[0] != SC_REQUEST_NULL && reqs[1] != SC_REQUEST_NULL);
  sc_status st[2];
  memset(st, 0xff, sizeof st);
  CHECK(sc_waitall(2, reqs, st) == SC_SUCCESS);
  CHECK(reqs[0] == SC_REQUEST_NULL && reqs[1] == SC_REQUEST_NULL);
  CHECK(in == 1000u + (uint64_t)left);
  CHECK(st[0].source == left && st[0].tag == tag && st[0].bytes == sizeof in && st[0].error == SC_SUCCESS);
  CHECK(st[1].source == -1 && st[1].tag == -1 && st[1].error == SC_SUCCESS);

  /* A handle copied, then waited on through both copies. */
  sc_request r = SC_REQUEST_NULL, copy;
  CHECK(sc_irecv(&in, sizeof in, left, tag + 1, SC_COMM_WORLD, &r) == SC_SUCCESS);
  copy = r;
  CHECK(sc_send(&out, sizeof out, right, tag + 1, SC_COMM_WORLD) == SC_SUCCESS);
  sc_status s1;
  CHECK(sc_wait(&r, &s1) == SC_SUCCESS);
  CHECK(r == SC_REQUEST_NULL);
  CHECK(sc_wait(&copy, NULL) == SC_ERR_INVALID_REQUEST);
  CHECK(strlen(sc_last_error()) > 0);
  CHECK(sc_wait(&r, NULL) == SC_ERR_INVALID_REQUEST); /* SC_REQUEST_NULL */

  if (!with_truncation) return 0;
  /* Truncation through sc_recv: the code and the status both say so. */
  char big[100], small[10];
  memset(big, 'x', sizeof big);
  CHECK(sc_isend(big, sizeof big, right, tag + 2, SC_COMM_WORLD, &r) == SC_SUCCESS);
  sc_status s2;
  CHECK(sc_recv(small, sizeof small, left, tag + 2, SC_COMM_WORLD, &s2) == SC_ERR_TRUNCATED);
  CHECK(s2.error == SC_ERR_TRUNCATED && s2.bytes == sizeof small);
  CHECK(sc_wait(&r, NULL) == SC_SUCCESS);
  return 0;
}
