/* The Fortran module's calls with buffers (sidecore.f90): a buffer arrives as its Fortran descriptor (TS 29113's
 * CFI_cdesc_t, `type(*), dimension(..)`), from which this file takes the address and the size in bytes, refuses a
 * non-contiguous one, and hands the size to the C API (sidecore_binding_limits) so that a count reaching beyond the
 * variable is refused rather than read or written past it. v-variant count arrays arrive as descriptors too: fewer
 * entries than the communicator has ranks is refused the same way. The calls with arrays of requests, statuses or
 * ranks pass through here too, with the arrays' sizes, so that a count beyond one is refused as well, and for
 * indices that count from 1 (sidecore_waitany's, and reqs(i) in a failure's message).
 *
 * Built with the C compiler that goes with the Fortran compiler: the descriptor's layout is that compiler's
 * (ISO_Fortran_binding.h). Only the descriptor's fields are read, no CFI_* function, so the library does not link
 * the Fortran runtime. */
#include <ISO_Fortran_binding.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sidecore/sidecore.h>

/* The module's SIDECORE_IN_PLACE (bind(C)): a buffer at its address is MPI_IN_PLACE's stand-in. */
extern int sidecore_fortran_in_place;

/* A buffer as the C API takes it: its address, and its size in bytes (-1: not known, or SIDECORE_IN_PLACE). */
typedef struct {
  void* p;
  int64_t bytes;
} fbuf;

/* Fails with `code` and the printf-formatted message, made at its full length: a message cut to a buffer's size
 * would lose what it names last (what is accepted). Should no memory be left for it, the call's code still
 * returns, with the format itself as the message. */
__attribute__((format(printf, 2, 3))) static int fail_with(int code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = vsnprintf(NULL, 0, format, args);
  va_end(args);
  char* message = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!message) return sidecore_binding_fail(code, format);
  va_start(args, format);
  vsnprintf(message, (size_t)n + 1, format, args);
  va_end(args);
  const int rc = sidecore_binding_fail(code, message);
  free(message);
  return rc;
}

/* Refuses argument `name` of `call`, saying why; returns the code. */
static int refuse(const char* call, const char* name, const char* why) {
  return fail_with(SIDECORE_ERR_INVALID_ARGUMENT, "%s: %s %s", call, name, why);
}

/* Reads one choice buffer into *out; 0, or a refusal's code. An absent buffer (NULL: the call has none) is
 * unknown; an unallocated array or a null pointer is 0 bytes at NULL. */
static int read_buffer(const char* call, const char* name, const CFI_cdesc_t* d, fbuf* out) {
  out->p = NULL;
  out->bytes = -1;
  if (!d) return 0;
  /* gfortran hands a polymorphic variable (class(*)) to a type(*) dummy with a descriptor that is not the value's:
   * a scalar's address is the class container's, an array's elem_len is not its elements'. It alone is marked
   * CFI_type_other: every declared type, intrinsic or derived, has a type code of its own. */
  if (d->type == CFI_type_other)
    return refuse(call, name,
                  "is polymorphic (class(*)): its descriptor gives neither the value's address nor its size; "
                  "accepted: a variable of a declared type (inside select type, the name in a type is block)");
  if (d->base_addr == &sidecore_fortran_in_place) {
    out->p = SIDECORE_IN_PLACE;
    return 0;
  }
  out->p = d->base_addr;
  if (!d->base_addr) {
    out->bytes = 0;
    return 0;
  }
  /* An array with no elements is 0 bytes, however its other dimensions stride (g(1:3:2, 1:0)): it is looked for
   * before contiguity. An assumed-size array (last extent -1) has no known size. */
  for (int i = 0; i < d->rank; ++i) {
    const int64_t extent = (int64_t)d->dim[i].extent;
    if (extent <= 0 && !(extent == -1 && i == d->rank - 1)) {
      out->bytes = 0;
      return 0;
    }
  }
  /* Contiguous: each dimension of more than one element steps by the bytes of the dimensions before it. */
  int64_t stride = (int64_t)d->elem_len, elements = 1;
  for (int i = 0; i < d->rank; ++i) {
    const int64_t extent = (int64_t)d->dim[i].extent;
    if (extent == -1) return 0;
    if (extent > 1 && (int64_t)d->dim[i].sm != stride)
      return refuse(call, name,
                    "is not contiguous (an array section with a stride); accepted: a scalar, an array or a "
                    "contiguous section (copy a strided section into a contiguous array first)");
    stride *= extent;
    elements *= extent;
  }
  out->bytes = elements * (int64_t)d->elem_len;
  return 0;
}

/* Both buffers of a call. A call with one buffer (point-to-point, bcast) has no in-place form: SIDECORE_IN_PLACE there
 * would be read or written at its marker address. */
static int read_buffers(const char* call, const CFI_cdesc_t* send, const CFI_cdesc_t* recv, fbuf* s, fbuf* r) {
  int rc = read_buffer(call, recv ? "send" : "buf", send, s);
  if (rc == 0) rc = read_buffer(call, send ? "recv" : "buf", recv, r);
  if (rc == 0 && !(send && recv) && (s->p == SIDECORE_IN_PLACE || r->p == SIDECORE_IN_PLACE))
    return refuse(call, "buf",
                  "is SIDECORE_IN_PLACE; accepted: a variable (SIDECORE_IN_PLACE goes where MPI takes MPI_IN_PLACE: a "
                  "collective's send, or scatter's recv at the root)");
  return rc;
}

/* The buffers' sizes for the C call that comes next: the last sidecore call before it. */
static int set_limits(const fbuf* s, const fbuf* r) {
  return sidecore_binding_limits(s->p == SIDECORE_IN_PLACE ? -1 : s->bytes, r->p == SIDECORE_IN_PLACE ? -1 : r->bytes);
}

/* A call without v-variant arrays: its buffers read, their sizes set for the C call that follows. */
static int begin(const char* call, const CFI_cdesc_t* send, const CFI_cdesc_t* recv, fbuf* s, fbuf* r) {
  const int rc = read_buffers(call, send, recv, s, r);
  return rc ? rc : set_limits(s, r);
}

/* A v-variant array: contiguous, with at least one entry per rank of comm. A communicator that is not live is left
 * to the C call to refuse. */
static int counts(const char* call, const char* name, const CFI_cdesc_t* d, int comm, const int64_t** out) {
  int size = 0;
  *out = (const int64_t*)d->base_addr;
  if (sidecore_comm_size(comm, &size) != SIDECORE_SUCCESS) return 0;
  const int64_t extent = (int64_t)d->dim[0].extent;
  if (extent < size)
    return fail_with(SIDECORE_ERR_INVALID_ARGUMENT,
                     "%s: %s has %lld entries; accepted: one per rank of the communicator (%d)", call, name,
                     (long long)extent, size);
  if (extent > 1 && (int64_t)d->dim[0].sm != (int64_t)sizeof(int64_t))
    return refuse(call, name, "is not contiguous (an array section with a stride); accepted: a contiguous array");
  return 0;
}

/* A v-variant call: its buffers, its count arrays (d: send_counts, send_displs, recv_counts, recv_displs; NULL where
 * the call has none, and the send side's are not read when it sends in place), then the buffers' sizes. */
typedef struct {
  const int64_t* a[4];
} varrays;
static int begin_v(const char* call, const CFI_cdesc_t* send, const CFI_cdesc_t* recv, const CFI_cdesc_t* const d[4],
                   int comm, fbuf* s, fbuf* r, varrays* v) {
  static const char* const names[4] = {"send_counts", "send_displs", "recv_counts", "recv_displs"};
  int rc = read_buffers(call, send, recv, s, r);
  for (int i = 0; i < 4; ++i) {
    v->a[i] = NULL;
    if (rc == 0 && d[i] && !(i < 2 && s->p == SIDECORE_IN_PLACE)) rc = counts(call, names[i], d[i], comm, &v->a[i]);
  }
  return rc ? rc : set_limits(s, r);
}

/* The module passes an integer(c_int); an MPI whose MPI_Fint is wider (built for -fdefault-integer-8) takes it
 * converted rather than read past it. */
int sidecore_fortran_init(const int* comm) { return sidecore_init(MPI_Comm_f2c((MPI_Fint)*comm)); }

/* The request-array calls: a failure's message names a request as the program does, reqs(i) from 1, where the C
 * API writes reqs[i - 1]. The message is rewritten whole, however long. Each "reqs[i]" (7 characters or more)
 * grows by one character at most (i + 1 may have one digit more), which bounds the copy's size. */
static int fortran_indices(int rc) {
  const char* in = sidecore_last_error();
  if (rc == SIDECORE_SUCCESS || !strstr(in, "reqs[")) return rc;
  const size_t room = strlen(in) + strlen(in) / 7 + 1;
  char* message = malloc(room);
  if (!message) return rc; /* the C API's message stays, with its indices from 0 */
  size_t n = 0;
  while (*in) {
    long long i = -1;
    int used = 0;
    if (sscanf(in, "reqs[%lld]%n", &i, &used) == 1 && used > 0) {
      n += (size_t)snprintf(message + n, room - n, "reqs(%lld)", i + 1);
      in += used;
    } else {
      message[n++] = *in++;
    }
  }
  message[n] = '\0';
  rc = sidecore_binding_fail(rc, message);
  free(message);
  return rc;
}

/* The module's arrays of requests, statuses and ranks arrive with their sizes (`size`: entries; -1: the optional
 * array is absent), so that a count beyond one is refused rather than read or written past it. `unit` and `units`
 * name one entry and several; `also` is appended to what is accepted. A negative count is the C API's to refuse. */
static int within(const char* call, const char* count_name, int count, const char* name, int64_t size,
                  const char* unit, const char* units, const char* also) {
  if (size < 0 || count <= size) return 0;
  return fail_with(SIDECORE_ERR_INVALID_ARGUMENT,
                   "%s: %s=%d reaches beyond %s, which holds %lld %s; accepted: 0..%lld%s", call, count_name, count,
                   name, (long long)size, size == 1 ? unit : units, (long long)size, also);
}
static int within_reqs(const char* call, int count, int64_t nreqs) {
  return within(call, "count", count, "reqs", nreqs, "request", "requests", "");
}
static int within_statuses(const char* call, int count, int64_t nstatuses) {
  return within(call, "count", count, "statuses", nstatuses, "status", "statuses", ", or statuses left out");
}

int sidecore_fortran_failed_ranks(int* ranks, int64_t nranks, int capacity, int* count) {
  const int rc = within("sidecore_failed_ranks", "capacity", capacity, "ranks", nranks, "entry", "entries", "");
  return rc ? rc : sidecore_failed_ranks(ranks, capacity, count);
}
int sidecore_fortran_waitall(int count, sidecore_request* reqs, int64_t nreqs, sidecore_status* statuses,
                             int64_t nstatuses) {
  int rc = within_reqs("sidecore_waitall", count, nreqs);
  if (rc == 0) rc = within_statuses("sidecore_waitall", count, nstatuses);
  return rc ? rc : fortran_indices(sidecore_waitall(count, reqs, statuses));
}
int sidecore_fortran_testall(int count, sidecore_request* reqs, int64_t nreqs, int* flag, sidecore_status* statuses,
                       int64_t nstatuses) {
  int rc = within_reqs("sidecore_testall", count, nreqs);
  if (rc == 0) rc = within_statuses("sidecore_testall", count, nstatuses);
  return rc ? rc : fortran_indices(sidecore_testall(count, reqs, flag, statuses));
}
int sidecore_fortran_startall(int count, sidecore_request* reqs, int64_t nreqs) {
  const int rc = within_reqs("sidecore_startall", count, nreqs);
  return rc ? rc : fortran_indices(sidecore_startall(count, reqs));
}

/* An index from 1 where the C call wrote one (a refusal leaves *index as it was); SIDECORE_UNDEFINED stays -1. */
static void from_one(int c_index, int* index) {
  if (c_index != -2) *index = c_index >= 0 ? c_index + 1 : c_index;
}
int sidecore_fortran_waitany(int count, sidecore_request* reqs, int64_t nreqs, int* index, sidecore_status* status) {
  const int refused = within_reqs("sidecore_waitany", count, nreqs);
  if (refused) return refused;
  int i = -2;
  const int rc = sidecore_waitany(count, reqs, &i, status);
  from_one(i, index);
  return fortran_indices(rc);
}
int sidecore_fortran_testany(int count, sidecore_request* reqs, int64_t nreqs, int* index, int* flag,
                             sidecore_status* status) {
  const int refused = within_reqs("sidecore_testany", count, nreqs);
  if (refused) return refused;
  int i = -2;
  const int rc = sidecore_testany(count, reqs, &i, flag, status);
  from_one(i, index);
  return fortran_indices(rc);
}

int sidecore_fortran_info_print(void) {
  const int rc = sidecore_info_print(stdout);
  fflush(stdout);
  return rc;
}

int sidecore_fortran_isend(const CFI_cdesc_t* buf, int64_t bytes, int dest, int tag, int comm, sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_isend", buf, NULL, &s, &r);
  return rc ? rc : sidecore_isend(s.p, bytes, dest, tag, comm, req);
}
int sidecore_fortran_irecv(const CFI_cdesc_t* buf, int64_t bytes, int source, int tag, int comm,
                           sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_irecv", NULL, buf, &s, &r);
  return rc ? rc : sidecore_irecv(r.p, bytes, source, tag, comm, req);
}
int sidecore_fortran_send(const CFI_cdesc_t* buf, int64_t bytes, int dest, int tag, int comm) {
  fbuf s, r;
  const int rc = begin("sidecore_send", buf, NULL, &s, &r);
  return rc ? rc : sidecore_send(s.p, bytes, dest, tag, comm);
}
int sidecore_fortran_recv(const CFI_cdesc_t* buf, int64_t bytes, int source, int tag, int comm,
                          sidecore_status* status) {
  fbuf s, r;
  const int rc = begin("sidecore_recv", NULL, buf, &s, &r);
  return rc ? rc : sidecore_recv(r.p, bytes, source, tag, comm, status);
}
int sidecore_fortran_send_init(const CFI_cdesc_t* buf, int64_t bytes, int dest, int tag, int comm,
                               sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_send_init", buf, NULL, &s, &r);
  return rc ? rc : sidecore_send_init(s.p, bytes, dest, tag, comm, req);
}
int sidecore_fortran_recv_init(const CFI_cdesc_t* buf, int64_t bytes, int source, int tag, int comm,
                               sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_recv_init", NULL, buf, &s, &r);
  return rc ? rc : sidecore_recv_init(r.p, bytes, source, tag, comm, req);
}

/* The collectives: send and recv as the C API's (bcast's one buffer is its recv). */
int sidecore_fortran_ibcast(const CFI_cdesc_t* buf, int64_t count, int dtype, int root, int comm,
                            sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_ibcast", NULL, buf, &s, &r);
  return rc ? rc : sidecore_ibcast(r.p, count, dtype, root, comm, req);
}
int sidecore_fortran_bcast(const CFI_cdesc_t* buf, int64_t count, int dtype, int root, int comm) {
  fbuf s, r;
  const int rc = begin("sidecore_bcast", NULL, buf, &s, &r);
  return rc ? rc : sidecore_bcast(r.p, count, dtype, root, comm);
}
int sidecore_fortran_bcast_init(const CFI_cdesc_t* buf, int64_t count, int dtype, int root, int comm,
                                sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_bcast_init", NULL, buf, &s, &r);
  return rc ? rc : sidecore_bcast_init(r.p, count, dtype, root, comm, req);
}
int sidecore_fortran_ireduce(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int op,
                             int root, int comm, sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_ireduce", send, recv, &s, &r);
  return rc ? rc : sidecore_ireduce(s.p, r.p, count, dtype, op, root, comm, req);
}
int sidecore_fortran_reduce(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int op,
                            int root, int comm) {
  fbuf s, r;
  const int rc = begin("sidecore_reduce", send, recv, &s, &r);
  return rc ? rc : sidecore_reduce(s.p, r.p, count, dtype, op, root, comm);
}
int sidecore_fortran_reduce_init(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int op,
                           int root, int comm, sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_reduce_init", send, recv, &s, &r);
  return rc ? rc : sidecore_reduce_init(s.p, r.p, count, dtype, op, root, comm, req);
}
int sidecore_fortran_iallreduce(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int op,
                          int comm, sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_iallreduce", send, recv, &s, &r);
  return rc ? rc : sidecore_iallreduce(s.p, r.p, count, dtype, op, comm, req);
}
int sidecore_fortran_allreduce(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int op,
                               int comm) {
  fbuf s, r;
  const int rc = begin("sidecore_allreduce", send, recv, &s, &r);
  return rc ? rc : sidecore_allreduce(s.p, r.p, count, dtype, op, comm);
}
int sidecore_fortran_allreduce_init(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int op,
                              int comm, sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_allreduce_init", send, recv, &s, &r);
  return rc ? rc : sidecore_allreduce_init(s.p, r.p, count, dtype, op, comm, req);
}
int sidecore_fortran_igather(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int root,
                       int comm, sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_igather", send, recv, &s, &r);
  return rc ? rc : sidecore_igather(s.p, r.p, count, dtype, root, comm, req);
}
int sidecore_fortran_gather(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int root,
                            int comm) {
  fbuf s, r;
  const int rc = begin("sidecore_gather", send, recv, &s, &r);
  return rc ? rc : sidecore_gather(s.p, r.p, count, dtype, root, comm);
}
int sidecore_fortran_gather_init(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int root,
                           int comm, sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_gather_init", send, recv, &s, &r);
  return rc ? rc : sidecore_gather_init(s.p, r.p, count, dtype, root, comm, req);
}
int sidecore_fortran_iscatter(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int root,
                        int comm, sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_iscatter", send, recv, &s, &r);
  return rc ? rc : sidecore_iscatter(s.p, r.p, count, dtype, root, comm, req);
}
int sidecore_fortran_scatter(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int root,
                             int comm) {
  fbuf s, r;
  const int rc = begin("sidecore_scatter", send, recv, &s, &r);
  return rc ? rc : sidecore_scatter(s.p, r.p, count, dtype, root, comm);
}
int sidecore_fortran_scatter_init(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int root,
                            int comm, sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_scatter_init", send, recv, &s, &r);
  return rc ? rc : sidecore_scatter_init(s.p, r.p, count, dtype, root, comm, req);
}
int sidecore_fortran_iallgather(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int comm,
                          sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_iallgather", send, recv, &s, &r);
  return rc ? rc : sidecore_iallgather(s.p, r.p, count, dtype, comm, req);
}
int sidecore_fortran_allgather(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int comm) {
  fbuf s, r;
  const int rc = begin("sidecore_allgather", send, recv, &s, &r);
  return rc ? rc : sidecore_allgather(s.p, r.p, count, dtype, comm);
}
int sidecore_fortran_allgather_init(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype,
                                    int comm, sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_allgather_init", send, recv, &s, &r);
  return rc ? rc : sidecore_allgather_init(s.p, r.p, count, dtype, comm, req);
}
int sidecore_fortran_ialltoall(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int comm,
                         sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_ialltoall", send, recv, &s, &r);
  return rc ? rc : sidecore_ialltoall(s.p, r.p, count, dtype, comm, req);
}
int sidecore_fortran_alltoall(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int comm) {
  fbuf s, r;
  const int rc = begin("sidecore_alltoall", send, recv, &s, &r);
  return rc ? rc : sidecore_alltoall(s.p, r.p, count, dtype, comm);
}
int sidecore_fortran_alltoall_init(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype, int comm,
                             sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_alltoall_init", send, recv, &s, &r);
  return rc ? rc : sidecore_alltoall_init(s.p, r.p, count, dtype, comm, req);
}
int sidecore_fortran_ireduce_scatter_block(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype,
                                     int op, int comm, sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_ireduce_scatter_block", send, recv, &s, &r);
  return rc ? rc : sidecore_ireduce_scatter_block(s.p, r.p, count, dtype, op, comm, req);
}
int sidecore_fortran_reduce_scatter_block(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count, int dtype,
                                    int op, int comm) {
  fbuf s, r;
  const int rc = begin("sidecore_reduce_scatter_block", send, recv, &s, &r);
  return rc ? rc : sidecore_reduce_scatter_block(s.p, r.p, count, dtype, op, comm);
}
int sidecore_fortran_reduce_scatter_block_init(const CFI_cdesc_t* send, const CFI_cdesc_t* recv, int64_t count,
                                               int dtype, int op, int comm, sidecore_request* req) {
  fbuf s, r;
  const int rc = begin("sidecore_reduce_scatter_block_init", send, recv, &s, &r);
  return rc ? rc : sidecore_reduce_scatter_block_init(s.p, r.p, count, dtype, op, comm, req);
}
int sidecore_fortran_iallgatherv(const CFI_cdesc_t* send, int64_t send_count, const CFI_cdesc_t* recv,
                           const CFI_cdesc_t* recv_counts, const CFI_cdesc_t* recv_displs, int dtype, int comm,
                           sidecore_request* req) {
  fbuf s, r;
  varrays v;
  const CFI_cdesc_t* const d[4] = {NULL, NULL, recv_counts, recv_displs};
  const int rc = begin_v("sidecore_iallgatherv", send, recv, d, comm, &s, &r, &v);
  return rc ? rc : sidecore_iallgatherv(s.p, send_count, r.p, v.a[2], v.a[3], dtype, comm, req);
}
int sidecore_fortran_allgatherv(const CFI_cdesc_t* send, int64_t send_count, const CFI_cdesc_t* recv,
                          const CFI_cdesc_t* recv_counts, const CFI_cdesc_t* recv_displs, int dtype, int comm) {
  fbuf s, r;
  varrays v;
  const CFI_cdesc_t* const d[4] = {NULL, NULL, recv_counts, recv_displs};
  const int rc = begin_v("sidecore_allgatherv", send, recv, d, comm, &s, &r, &v);
  return rc ? rc : sidecore_allgatherv(s.p, send_count, r.p, v.a[2], v.a[3], dtype, comm);
}
int sidecore_fortran_allgatherv_init(const CFI_cdesc_t* send, int64_t send_count, const CFI_cdesc_t* recv,
                               const CFI_cdesc_t* recv_counts, const CFI_cdesc_t* recv_displs, int dtype, int comm,
                               sidecore_request* req) {
  fbuf s, r;
  varrays v;
  const CFI_cdesc_t* const d[4] = {NULL, NULL, recv_counts, recv_displs};
  const int rc = begin_v("sidecore_allgatherv_init", send, recv, d, comm, &s, &r, &v);
  return rc ? rc : sidecore_allgatherv_init(s.p, send_count, r.p, v.a[2], v.a[3], dtype, comm, req);
}
int sidecore_fortran_ialltoallv(const CFI_cdesc_t* send, const CFI_cdesc_t* send_counts, const CFI_cdesc_t* send_displs,
                          const CFI_cdesc_t* recv, const CFI_cdesc_t* recv_counts, const CFI_cdesc_t* recv_displs,
                          int dtype, int comm, sidecore_request* req) {
  fbuf s, r;
  varrays v;
  const CFI_cdesc_t* const d[4] = {send_counts, send_displs, recv_counts, recv_displs};
  const int rc = begin_v("sidecore_ialltoallv", send, recv, d, comm, &s, &r, &v);
  return rc ? rc : sidecore_ialltoallv(s.p, v.a[0], v.a[1], r.p, v.a[2], v.a[3], dtype, comm, req);
}
int sidecore_fortran_alltoallv(const CFI_cdesc_t* send, const CFI_cdesc_t* send_counts, const CFI_cdesc_t* send_displs,
                         const CFI_cdesc_t* recv, const CFI_cdesc_t* recv_counts, const CFI_cdesc_t* recv_displs,
                         int dtype, int comm) {
  fbuf s, r;
  varrays v;
  const CFI_cdesc_t* const d[4] = {send_counts, send_displs, recv_counts, recv_displs};
  const int rc = begin_v("sidecore_alltoallv", send, recv, d, comm, &s, &r, &v);
  return rc ? rc : sidecore_alltoallv(s.p, v.a[0], v.a[1], r.p, v.a[2], v.a[3], dtype, comm);
}
int sidecore_fortran_alltoallv_init(const CFI_cdesc_t* send, const CFI_cdesc_t* send_counts,
                              const CFI_cdesc_t* send_displs, const CFI_cdesc_t* recv, const CFI_cdesc_t* recv_counts,
                              const CFI_cdesc_t* recv_displs, int dtype, int comm, sidecore_request* req) {
  fbuf s, r;
  varrays v;
  const CFI_cdesc_t* const d[4] = {send_counts, send_displs, recv_counts, recv_displs};
  const int rc = begin_v("sidecore_alltoallv_init", send, recv, d, comm, &s, &r, &v);
  return rc ? rc : sidecore_alltoallv_init(s.p, v.a[0], v.a[1], r.p, v.a[2], v.a[3], dtype, comm, req);
}
