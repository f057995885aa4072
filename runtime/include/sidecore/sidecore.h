/* sidecore — C API, for C and Fortran (via ISO_C_BINDING) applications.
 *
 * Every function returns SIDECORE_SUCCESS or an error code (the values of sidecore::errc). On error,
 * sidecore_last_error() returns the message of the calling thread's last error: it names the input, the bad value
 * and what is accepted; for SIDECORE_ERR_TRANSPORT from a request, the libfabric call or completion that failed.
 * Request handles are plain integers: SIDECORE_REQUEST_NULL (0) is no request; after sidecore_wait (or a sidecore_test
 * that completes) the handle is set to SIDECORE_REQUEST_NULL. Waiting on a copy of a handle that was already waited on
 * or freed returns SIDECORE_ERR_INVALID_REQUEST, from sidecore_waitall, sidecore_waitany and sidecore_request_free too
 * (which then leave every handle of the call as it was); so does an array that holds one request twice. A request that
 * completes with SIDECORE_ERR_TRUNCATED or SIDECORE_ERR_CANCELED has its sentence in sidecore_last_error() as well; an
 * array call's is that of the request whose error it returns (the first failed one).
 *
 * Names: every name of this API begins with sidecore_ (functions, types) or SIDECORE_ (constants), and so does every
 * C symbol libsidecore exports (test packaging.exported_symbols): short prefixes are taken (p4est's libsc exports
 * sc_init, sc_finalize, sc_reduce, ...), and a program that links two libraries exporting one name gets the first
 * definition in load order for every caller. */
#ifndef SIDECORE_H
#define SIDECORE_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include <sidecore/common/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes: the values of sidecore::errc (sidecore.hpp says what each means), and SIDECORE_ERR_INTERNAL for an
 * unexpected exception inside the library (sidecore_last_error gives its message). */
enum {
  SIDECORE_SUCCESS = 0,
  SIDECORE_ERR_INVALID_ARGUMENT = 1,
  SIDECORE_ERR_NOT_INITIALIZED = 2,
  SIDECORE_ERR_ALREADY_INITIALIZED = 3,
  SIDECORE_ERR_INVALID_REQUEST = 4,
  SIDECORE_ERR_TRUNCATED = 5,
  SIDECORE_ERR_CANCELED = 6,
  SIDECORE_ERR_BAD_SETTING = 7,
  SIDECORE_ERR_TOPOLOGY = 8,
  SIDECORE_ERR_TRANSPORT = 9,
  SIDECORE_ERR_MPI = 10,
  SIDECORE_ERR_PEER_FAILED =
      11, /* the rank the operation involves died; sidecore_last_error names it (docs/failures.md) */
  SIDECORE_ERR_INTERNAL = 99
};

#define SIDECORE_ANY_SOURCE (-1) /* sidecore_irecv / sidecore_recv: match a message from any rank */
#define SIDECORE_ANY_TAG (-1)    /* sidecore_irecv / sidecore_recv: match a message with any tag */
#define SIDECORE_REQUEST_NULL 0  /* no request */

typedef uint64_t sidecore_request; /* a request handle (sidecore::request::handle()) */
/* A communicator's id (sidecore::comm::id()); 0 is the world communicator. Freed ids are reused by later dups and
 * splits, and an integer cannot carry more: as in MPI, a copy of a freed communicator's id names the communicator
 * given that id later, if any (a C++ sidecore::comm handle, which carries its communicator's serial, refuses such a
 * copy instead). */
typedef int sidecore_comm;
#define SIDECORE_COMM_WORLD 0

/* What a completed request reports, as sidecore::status. */
typedef struct sidecore_status {
  int source;     /* -1 for sends */
  int tag;        /* -1 for sends */
  size_t bytes;   /* bytes received */
  int error;      /* SIDECORE_SUCCESS, SIDECORE_ERR_TRUNCATED, SIDECORE_ERR_CANCELED, SIDECORE_ERR_TRANSPORT or
                     SIDECORE_ERR_PEER_FAILED */
} sidecore_status;

/** Collective: as sidecore::init. */
SIDECORE_C_API int sidecore_init(MPI_Comm comm);
/** Collective: as sidecore::finalize. */
SIDECORE_C_API int sidecore_finalize(void);
/** As sidecore::failed_ranks: writes up to `capacity` ranks of the world communicator found dead to `ranks` and
 *  their number (which may exceed capacity) to *count. SIDECORE_ERR_INVALID_ARGUMENT when count is NULL, or ranks is
 *  NULL with capacity > 0, or capacity < 0. */
SIDECORE_C_API int sidecore_failed_ranks(int* ranks, int capacity, int* count);
/** The end of one iteration, for SIDECORE_PROGRESS=auto: as sidecore::step. SIDECORE_SUCCESS, or
 *  SIDECORE_ERR_INVALID_ARGUMENT when called by another thread than init's or inside an OpenMP parallel region (in mode
 *  auto), SIDECORE_ERR_NOT_INITIALIZED outside init..finalize. */
SIDECORE_C_API int sidecore_step(void);
/** Rank and size in the world communicator. */
SIDECORE_C_API int sidecore_rank(int* rank);
SIDECORE_C_API int sidecore_size(int* size);
/** Rank and size in communicator `comm`. SIDECORE_ERR_INVALID_ARGUMENT for a communicator that is not live (freed, or
 *  never made) or a NULL output. */
SIDECORE_C_API int sidecore_comm_rank(sidecore_comm comm, int* rank);
SIDECORE_C_API int sidecore_comm_size(sidecore_comm comm, int* size);
/** Communicators: dup/split/free of a communicator (collective). A split with color -1 gives *out = -1, and
 *  sidecore_comm_free sets *comm = -1 (copies of the id: see sidecore_comm). */
SIDECORE_C_API int sidecore_comm_dup(sidecore_comm comm, sidecore_comm* out);
SIDECORE_C_API int sidecore_comm_split(sidecore_comm comm, int color, int key, sidecore_comm* out);
SIDECORE_C_API int sidecore_comm_free(sidecore_comm* comm);

/** Point-to-point: as sidecore::isend / irecv / send / recv (bytes is signed so that a negative size is
 *  reported, not wrapped). */
SIDECORE_C_API int sidecore_isend(const void* buf, int64_t bytes, int dest, int tag, sidecore_comm comm,
                                  sidecore_request* req);
SIDECORE_C_API int sidecore_irecv(void* buf, int64_t bytes, int source, int tag, sidecore_comm comm,
                                  sidecore_request* req);
SIDECORE_C_API int sidecore_send(const void* buf, int64_t bytes, int dest, int tag, sidecore_comm comm);
SIDECORE_C_API int sidecore_recv(void* buf, int64_t bytes, int source, int tag, sidecore_comm comm,
                                 sidecore_status* status);
/** Completion. status may be NULL. sidecore_wait returns the request's own error (SIDECORE_ERR_TRUNCATED,
 *  SIDECORE_ERR_CANCELED, SIDECORE_ERR_PEER_FAILED, ...) as well as filling status.error. *index is -1 when no request
 *  is active / completed. */
SIDECORE_C_API int sidecore_wait(sidecore_request* req, sidecore_status* status);
SIDECORE_C_API int sidecore_test(sidecore_request* req, int* flag, sidecore_status* status);
SIDECORE_C_API int sidecore_waitall(int count, sidecore_request* reqs, sidecore_status* statuses);
SIDECORE_C_API int sidecore_waitany(int count, sidecore_request* reqs, int* index, sidecore_status* status);
/** As MPI_Testall: *flag 1 when every request of reqs completed (each then SIDECORE_REQUEST_NULL, statuses filled when
 * not NULL, the first request error returned), 0 when one has not (nothing consumed). SIDECORE_ERR_INVALID_ARGUMENT for
 * a NULL flag or a negative count. */
SIDECORE_C_API int sidecore_testall(int count, sidecore_request* reqs, int* flag, sidecore_status* statuses);
/** As MPI_Testany: *flag 1 and *index the request that completed (its handle SIDECORE_REQUEST_NULL, its error
 * returned), or *flag 1 and *index -1 when no request is active; *flag 0 and *index -1 while none completed. */
SIDECORE_C_API int sidecore_testany(int count, sidecore_request* reqs, int* index, int* flag, sidecore_status* status);
/** As sidecore::cancel, with its errors (SIDECORE_ERR_INVALID_ARGUMENT for a send or a collective), and
 *  SIDECORE_ERR_INVALID_ARGUMENT for a NULL req: asks to cancel a posted receive, which must still be waited. */
SIDECORE_C_API int sidecore_cancel(sidecore_request* req);

/** Persistent requests (MPI 4.0), as sidecore::send_init / recv_init / start / startall / request_free. A persistent
 *  handle stays valid after sidecore_wait/sidecore_test complete its run (it is not set to SIDECORE_REQUEST_NULL);
 *  sidecore_request_free releases it and sets it to SIDECORE_REQUEST_NULL (an active run completes in the background).
 *  */
SIDECORE_C_API int sidecore_send_init(const void* buf, int64_t bytes, int dest, int tag, sidecore_comm comm,
                                      sidecore_request* req);
SIDECORE_C_API int sidecore_recv_init(void* buf, int64_t bytes, int source, int tag, sidecore_comm comm,
                                      sidecore_request* req);
SIDECORE_C_API int sidecore_start(sidecore_request* req);
SIDECORE_C_API int sidecore_startall(int count, sidecore_request* reqs);
SIDECORE_C_API int sidecore_request_free(sidecore_request* req);

/** Collectives, as sidecore's collectives.hpp: sidecore_i<name> starts one (*req: wait/test it with the point-to-point
 *  calls), sidecore_<name> runs it, sidecore_<name>_init makes a persistent one (start it with sidecore_start). Counts
 *  are elements of `dtype`; v-variant arrays have one entry per rank of `comm`. SIDECORE_IN_PLACE where MPI takes
 *  MPI_IN_PLACE. Bad arguments return SIDECORE_ERR_INVALID_ARGUMENT and sidecore_last_error names the argument, its
 *  value and what is accepted; arguments that differ between ranks complete the collective with
 *  SIDECORE_ERR_INVALID_ARGUMENT (status.error and the wait's return), sidecore_last_error saying which rank passed
 *  what. */
/* Element types of collective buffers, as sidecore::dtype. */
enum sidecore_dtype {
  SIDECORE_BYTE = 0,
  SIDECORE_INT32 = 1,
  SIDECORE_INT64 = 2,
  SIDECORE_UINT64 = 3,
  SIDECORE_FLOAT = 4,
  SIDECORE_DOUBLE = 5
};
/** Built-in operators; minloc/maxloc take pairs {value of dtype; int32_t index} (MPI_2INT's layout and friends). */
enum sidecore_op {
  SIDECORE_SUM = 0,
  SIDECORE_PROD = 1,
  SIDECORE_MIN = 2,
  SIDECORE_MAX = 3,
  SIDECORE_LAND = 4,
  SIDECORE_LOR = 5,
  SIDECORE_BAND = 6,
  SIDECORE_BOR = 7,
  SIDECORE_BXOR = 8,
  SIDECORE_MINLOC = 9,
  SIDECORE_MAXLOC = 10
};
#define SIDECORE_IN_PLACE ((void*)1)
/** A user operator: inout[i] = in[i] op inout[i] for i < count (MPI_User_function's order), called from the
 *  progress pass (the progress thread in core mode); it must not call sidecore. */
typedef void (*sidecore_user_fn)(const void* in, void* inout, size_t count, void* ctx);
/** Registers a user operator (MPI_Op_create); *op receives its id, usable wherever a sidecore_op goes, until
 * sidecore_op_free. commutative 0: every rank's result is in rank order. */
SIDECORE_C_API int sidecore_op_create(sidecore_user_fn fn, void* ctx, int commutative, int* op);
/** Releases an operator of sidecore_op_create and sets *op to -1. SIDECORE_ERR_INVALID_ARGUMENT for a NULL op or an *op
 * that is not a live operator of sidecore_op_create. */
SIDECORE_C_API int sidecore_op_free(int* op);

/** The collectives, each as its C++ namesake in collectives.hpp (what moves where, the buffer sizes, root and
 *  SIDECORE_IN_PLACE), in the three forms described above; `op` is a sidecore_op or an id from sidecore_op_create. */
SIDECORE_C_API int sidecore_ibarrier(sidecore_comm comm, sidecore_request* req);
SIDECORE_C_API int sidecore_barrier(sidecore_comm comm);
SIDECORE_C_API int sidecore_barrier_init(sidecore_comm comm, sidecore_request* req);
SIDECORE_C_API int sidecore_ibcast(void* buf, int64_t count, int dtype, int root, sidecore_comm comm,
                                   sidecore_request* req);
SIDECORE_C_API int sidecore_bcast(void* buf, int64_t count, int dtype, int root, sidecore_comm comm);
SIDECORE_C_API int sidecore_bcast_init(void* buf, int64_t count, int dtype, int root, sidecore_comm comm,
                                       sidecore_request* req);
SIDECORE_C_API int sidecore_ireduce(const void* send, void* recv, int64_t count, int dtype, int op, int root,
                                    sidecore_comm comm, sidecore_request* req);
SIDECORE_C_API int sidecore_reduce(const void* send, void* recv, int64_t count, int dtype, int op, int root,
                                   sidecore_comm comm);
SIDECORE_C_API int sidecore_reduce_init(const void* send, void* recv, int64_t count, int dtype, int op, int root,
                                  sidecore_comm comm, sidecore_request* req);
SIDECORE_C_API int sidecore_iallreduce(const void* send, void* recv, int64_t count, int dtype, int op,
                                       sidecore_comm comm, sidecore_request* req);
SIDECORE_C_API int sidecore_allreduce(const void* send, void* recv, int64_t count, int dtype, int op,
                                      sidecore_comm comm);
SIDECORE_C_API int sidecore_allreduce_init(const void* send, void* recv, int64_t count, int dtype, int op,
                                           sidecore_comm comm, sidecore_request* req);
SIDECORE_C_API int sidecore_igather(const void* send, void* recv, int64_t count, int dtype, int root,
                                    sidecore_comm comm, sidecore_request* req);
SIDECORE_C_API int sidecore_gather(const void* send, void* recv, int64_t count, int dtype, int root,
                                   sidecore_comm comm);
SIDECORE_C_API int sidecore_gather_init(const void* send, void* recv, int64_t count, int dtype, int root,
                                        sidecore_comm comm, sidecore_request* req);
SIDECORE_C_API int sidecore_iscatter(const void* send, void* recv, int64_t count, int dtype, int root,
                                     sidecore_comm comm, sidecore_request* req);
SIDECORE_C_API int sidecore_scatter(const void* send, void* recv, int64_t count, int dtype, int root,
                                    sidecore_comm comm);
SIDECORE_C_API int sidecore_scatter_init(const void* send, void* recv, int64_t count, int dtype, int root,
                                         sidecore_comm comm, sidecore_request* req);
SIDECORE_C_API int sidecore_iallgather(const void* send, void* recv, int64_t count, int dtype, sidecore_comm comm,
                                 sidecore_request* req);
SIDECORE_C_API int sidecore_allgather(const void* send, void* recv, int64_t count, int dtype, sidecore_comm comm);
SIDECORE_C_API int sidecore_allgather_init(const void* send, void* recv, int64_t count, int dtype, sidecore_comm comm,
                                     sidecore_request* req);
SIDECORE_C_API int sidecore_ialltoall(const void* send, void* recv, int64_t count, int dtype, sidecore_comm comm,
                                      sidecore_request* req);
SIDECORE_C_API int sidecore_alltoall(const void* send, void* recv, int64_t count, int dtype, sidecore_comm comm);
SIDECORE_C_API int sidecore_alltoall_init(const void* send, void* recv, int64_t count, int dtype, sidecore_comm comm,
                                    sidecore_request* req);
SIDECORE_C_API int sidecore_ireduce_scatter_block(const void* send, void* recv, int64_t count, int dtype, int op,
                                            sidecore_comm comm, sidecore_request* req);
SIDECORE_C_API int sidecore_reduce_scatter_block(const void* send, void* recv, int64_t count, int dtype, int op,
                                           sidecore_comm comm);
SIDECORE_C_API int sidecore_reduce_scatter_block_init(const void* send, void* recv, int64_t count, int dtype, int op,
                                                sidecore_comm comm, sidecore_request* req);
SIDECORE_C_API int sidecore_iallgatherv(const void* send, int64_t send_count, void* recv, const int64_t* recv_counts,
                                  const int64_t* recv_displs, int dtype, sidecore_comm comm, sidecore_request* req);
SIDECORE_C_API int sidecore_allgatherv(const void* send, int64_t send_count, void* recv, const int64_t* recv_counts,
                                 const int64_t* recv_displs, int dtype, sidecore_comm comm);
SIDECORE_C_API int sidecore_allgatherv_init(const void* send, int64_t send_count, void* recv,
                                            const int64_t* recv_counts, const int64_t* recv_displs, int dtype,
                                            sidecore_comm comm, sidecore_request* req);
SIDECORE_C_API int sidecore_ialltoallv(const void* send, const int64_t* send_counts, const int64_t* send_displs,
                                       void* recv, const int64_t* recv_counts, const int64_t* recv_displs, int dtype,
                                       sidecore_comm comm, sidecore_request* req);
SIDECORE_C_API int sidecore_alltoallv(const void* send, const int64_t* send_counts, const int64_t* send_displs,
                                      void* recv, const int64_t* recv_counts, const int64_t* recv_displs, int dtype,
                                      sidecore_comm comm);
SIDECORE_C_API int sidecore_alltoallv_init(const void* send, const int64_t* send_counts, const int64_t* send_displs,
                                     void* recv, const int64_t* recv_counts, const int64_t* recv_displs, int dtype,
                                     sidecore_comm comm, sidecore_request* req);

/** Regions for the overlap profile (nestable; end closes the innermost of its thread). sidecore_region_begin: NULL name
 * is SIDECORE_ERR_INVALID_ARGUMENT. sidecore_region_end with no region of the thread open:
 * SIDECORE_ERR_INVALID_ARGUMENT. */
SIDECORE_C_API int sidecore_region_begin(const char* name);
SIDECORE_C_API int sidecore_region_end(void);

/** Lower-case name of an error code; the calling thread's last error message (empty when none). The message is
 *  whole, NUL-terminated, at whatever length it has: there is no fixed limit (one naming every rank of a large
 *  communicator, or a long path, runs to kilobytes), so measure it (strlen) rather than copy it into a fixed array.
 *  The pointer and its text stay valid until the calling thread's next call of this API: copy it to keep it. */
SIDECORE_C_API const char* sidecore_error_name(int code);
SIDECORE_C_API const char* sidecore_last_error(void);

/** Prints every setting (default, current value, help), the topology, the reserved core, the OpenMP places
 *  and the libfabric provider to `out`. Needs neither MPI_Init nor sidecore_init. Returns 0, or 2 when a setting
 *  in the environment is rejected (the message is printed too). Used by the `sidecore info` command. */
SIDECORE_C_API int sidecore_info_print(FILE* out);

/** For language bindings layered on this API (the Fortran module, docs/fortran.md); applications do not need them.
 *  sidecore_binding_limits: the sizes in bytes of the buffers that the calling thread's next call of this API with a
 *  buffer (point-to-point or collective) passes, when the binding knows them: `send_bytes` the buffer the call reads
 *  (sidecore_isend's buf, a collective's send), `recv_bytes` the one it writes (sidecore_irecv's buf, sidecore_bcast's
 *  buf, a collective's recv); -1 for unknown. That call takes them before anything else and refuses, with
 *  SIDECORE_ERR_INVALID_ARGUMENT naming the buffer, its size and the bytes needed, a count that would read or write
 *  beyond them (a collective's refusal gives the count, and both sizes in bytes and in elements of dtype, with the
 *  counts accepted). Returns SIDECORE_SUCCESS, or SIDECORE_ERR_INVALID_ARGUMENT for a size below -1 (then no limit is
 *  set). sidecore_binding_fail: makes `message` the calling thread's sidecore_last_error() and returns `code`;
 *  SIDECORE_ERR_INVALID_ARGUMENT (and a message saying so) for a NULL message or a code that is no SIDECORE_ERR_*
 *  value. / */
SIDECORE_C_API int sidecore_binding_limits(int64_t send_bytes, int64_t recv_bytes);
SIDECORE_C_API int sidecore_binding_fail(int code, const char* message);

#ifdef __cplusplus
}
#endif

#endif /* SIDECORE_H */
