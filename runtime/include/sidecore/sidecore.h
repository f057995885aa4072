/* sidecore — C API, for C and Fortran (via ISO_C_BINDING) applications.
 *
 * Every function returns SC_SUCCESS or an error code (the values of sidecore::errc). On error,
 * sc_last_error() returns the message of the calling thread's last error: it names the input, the bad value
 * and what is accepted; for SC_ERR_TRANSPORT from a request, the libfabric call or completion that failed. Request
 * handles are plain integers: SC_REQUEST_NULL (0) is no request; after sc_wait (or an sc_test that completes) the
 * handle is set to SC_REQUEST_NULL. Waiting on a copy of a handle that was already waited on or freed returns
 * SC_ERR_INVALID_REQUEST, from sc_waitall, sc_waitany and sc_request_free too (which then leave every handle of the
 * call as it was); so does an array that holds one request twice. A request that completes with SC_ERR_TRUNCATED or
 * SC_ERR_CANCELED has its sentence in sc_last_error() as well; an array call's is that of the request whose error
 * it returns (the first failed one).
 *
 * Names: p4est's support library libsc exports sc_init, sc_finalize, sc_reduce, sc_allreduce and sc_allgather too.
 * In a program linking libsc, the dynamic linker gives each caller the first definition in load order: link
 * libsidecore after libsc, and use the C++ API (sidecore.hpp) there, not this one. */
#ifndef SIDECORE_H
#define SIDECORE_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include <sidecore/common/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes: the values of sidecore::errc (sidecore.hpp says what each means), and SC_ERR_INTERNAL for an
 * unexpected exception inside the library (sc_last_error gives its message). */
enum {
  SC_SUCCESS = 0,
  SC_ERR_INVALID_ARGUMENT = 1,
  SC_ERR_NOT_INITIALIZED = 2,
  SC_ERR_ALREADY_INITIALIZED = 3,
  SC_ERR_INVALID_REQUEST = 4,
  SC_ERR_TRUNCATED = 5,
  SC_ERR_CANCELED = 6,
  SC_ERR_BAD_SETTING = 7,
  SC_ERR_TOPOLOGY = 8,
  SC_ERR_TRANSPORT = 9,
  SC_ERR_MPI = 10,
  SC_ERR_PEER_FAILED = 11, /* the rank the operation involves died; sc_last_error names it (docs/failures.md) */
  SC_ERR_INTERNAL = 99
};

#define SC_ANY_SOURCE (-1) /* sc_irecv / sc_recv: match a message from any rank */
#define SC_ANY_TAG (-1)    /* sc_irecv / sc_recv: match a message with any tag */
#define SC_REQUEST_NULL 0  /* no request */

typedef uint64_t sc_request; /* a request handle (sidecore::request::handle()) */
/* A communicator's id (sidecore::comm::id()); 0 is the world communicator. Freed ids are reused by later dups and
 * splits, and an integer cannot carry more: as in MPI, a copy of a freed communicator's id names the communicator
 * given that id later, if any (a C++ sidecore::comm handle, which carries its communicator's serial, refuses such a
 * copy instead). */
typedef int sc_comm;
#define SC_COMM_WORLD 0

/* What a completed request reports, as sidecore::status. */
typedef struct sc_status {
  int source;     /* -1 for sends */
  int tag;        /* -1 for sends */
  size_t bytes;   /* bytes received */
  int error;      /* SC_SUCCESS, SC_ERR_TRUNCATED, SC_ERR_CANCELED, SC_ERR_TRANSPORT or SC_ERR_PEER_FAILED */
} sc_status;

/** Collective: as sidecore::init. */
SIDECORE_C_API int sc_init(MPI_Comm comm);
/** Collective: as sidecore::finalize. */
SIDECORE_C_API int sc_finalize(void);
/** As sidecore::failed_ranks: writes up to `capacity` ranks of the world communicator found dead to `ranks` and
 *  their number (which may exceed capacity) to *count. SC_ERR_INVALID_ARGUMENT when count is NULL, or ranks is
 *  NULL with capacity > 0, or capacity < 0. */
SIDECORE_C_API int sc_failed_ranks(int* ranks, int capacity, int* count);
/** The end of one iteration, for SIDECORE_PROGRESS=auto: as sidecore::step. SC_SUCCESS, or
 *  SC_ERR_INVALID_ARGUMENT when called by another thread than init's or inside an OpenMP parallel region (in mode
 *  auto), SC_ERR_NOT_INITIALIZED outside init..finalize. */
SIDECORE_C_API int sc_step(void);
/** Rank and size in the world communicator. */
SIDECORE_C_API int sc_rank(int* rank);
SIDECORE_C_API int sc_size(int* size);
/** Rank and size in communicator `comm`. SC_ERR_INVALID_ARGUMENT for a communicator that is not live (freed, or
 *  never made) or a NULL output. */
SIDECORE_C_API int sc_comm_rank(sc_comm comm, int* rank);
SIDECORE_C_API int sc_comm_size(sc_comm comm, int* size);
/** Communicators: dup/split/free of a communicator (collective). A split with color -1 gives *out = -1, and
 *  sc_comm_free sets *comm = -1 (copies of the id: see sc_comm). */
SIDECORE_C_API int sc_comm_dup(sc_comm comm, sc_comm* out);
SIDECORE_C_API int sc_comm_split(sc_comm comm, int color, int key, sc_comm* out);
SIDECORE_C_API int sc_comm_free(sc_comm* comm);

/** Point-to-point: as sidecore::isend / irecv / send / recv (bytes is signed so that a negative size is
 *  reported, not wrapped). */
SIDECORE_C_API int sc_isend(const void* buf, int64_t bytes, int dest, int tag, sc_comm comm, sc_request* req);
SIDECORE_C_API int sc_irecv(void* buf, int64_t bytes, int source, int tag, sc_comm comm, sc_request* req);
SIDECORE_C_API int sc_send(const void* buf, int64_t bytes, int dest, int tag, sc_comm comm);
SIDECORE_C_API int sc_recv(void* buf, int64_t bytes, int source, int tag, sc_comm comm, sc_status* status);
/** Completion. status may be NULL. sc_wait returns the request's own error (SC_ERR_TRUNCATED,
 *  SC_ERR_CANCELED, SC_ERR_PEER_FAILED, ...) as well as filling status.error. *index is -1 when no request is
 *  active / completed. */
SIDECORE_C_API int sc_wait(sc_request* req, sc_status* status);
SIDECORE_C_API int sc_test(sc_request* req, int* flag, sc_status* status);
SIDECORE_C_API int sc_waitall(int count, sc_request* reqs, sc_status* statuses);
SIDECORE_C_API int sc_waitany(int count, sc_request* reqs, int* index, sc_status* status);
/** As MPI_Testall: *flag 1 when every request of reqs completed (each then SC_REQUEST_NULL, statuses filled when not
 *  NULL, the first request error returned), 0 when one has not (nothing consumed). SC_ERR_INVALID_ARGUMENT for a
 *  NULL flag or a negative count. */
SIDECORE_C_API int sc_testall(int count, sc_request* reqs, int* flag, sc_status* statuses);
/** As MPI_Testany: *flag 1 and *index the request that completed (its handle SC_REQUEST_NULL, its error returned),
 *  or *flag 1 and *index -1 when no request is active; *flag 0 and *index -1 while none completed. */
SIDECORE_C_API int sc_testany(int count, sc_request* reqs, int* index, int* flag, sc_status* status);
/** As sidecore::cancel, with its errors (SC_ERR_INVALID_ARGUMENT for a send or a collective), and
 *  SC_ERR_INVALID_ARGUMENT for a NULL req: asks to cancel a posted receive, which must still be waited. */
SIDECORE_C_API int sc_cancel(sc_request* req);

/** Persistent requests (MPI 4.0), as sidecore::send_init / recv_init / start / startall / request_free. A
 *  persistent handle stays valid after sc_wait/sc_test complete its run (it is not set to SC_REQUEST_NULL);
 *  sc_request_free releases it and sets it to SC_REQUEST_NULL (an active run completes in the background). */
SIDECORE_C_API int sc_send_init(const void* buf, int64_t bytes, int dest, int tag, sc_comm comm, sc_request* req);
SIDECORE_C_API int sc_recv_init(void* buf, int64_t bytes, int source, int tag, sc_comm comm, sc_request* req);
SIDECORE_C_API int sc_start(sc_request* req);
SIDECORE_C_API int sc_startall(int count, sc_request* reqs);
SIDECORE_C_API int sc_request_free(sc_request* req);

/** Collectives, as sidecore's collectives.hpp: sc_i<name> starts one (*req: wait/test it with the point-to-point
 *  calls), sc_<name> runs it, sc_<name>_init makes a persistent one (start it with sc_start). Counts are elements of
 *  `dtype`; v-variant arrays have one entry per rank of `comm`. SC_IN_PLACE where MPI takes MPI_IN_PLACE. Bad
 *  arguments return SC_ERR_INVALID_ARGUMENT and sc_last_error names the argument, its value and what is accepted;
 *  arguments that differ between ranks complete the collective with SC_ERR_INVALID_ARGUMENT (status.error and the
 *  wait's return), sc_last_error saying which rank passed what. */
/* Element types of collective buffers, as sidecore::dtype. */
enum sc_dtype { SC_BYTE = 0, SC_INT32 = 1, SC_INT64 = 2, SC_UINT64 = 3, SC_FLOAT = 4, SC_DOUBLE = 5 };
/** Built-in operators; minloc/maxloc take pairs {value of dtype; int32_t index} (MPI_2INT's layout and friends). */
enum sc_op {
  SC_SUM = 0, SC_PROD = 1, SC_MIN = 2, SC_MAX = 3, SC_LAND = 4, SC_LOR = 5, SC_BAND = 6, SC_BOR = 7, SC_BXOR = 8,
  SC_MINLOC = 9, SC_MAXLOC = 10
};
#define SC_IN_PLACE ((void*)1)
/** A user operator: inout[i] = in[i] op inout[i] for i < count (MPI_User_function's order), called from the
 *  progress pass (the progress thread in core mode); it must not call sidecore. */
typedef void (*sc_user_fn)(const void* in, void* inout, size_t count, void* ctx);
/** Registers a user operator (MPI_Op_create); *op receives its id, usable wherever an sc_op goes, until sc_op_free.
 *  commutative 0: every rank's result is in rank order. */
SIDECORE_C_API int sc_op_create(sc_user_fn fn, void* ctx, int commutative, int* op);
/** Releases an operator of sc_op_create and sets *op to -1. SC_ERR_INVALID_ARGUMENT for a NULL op or an *op that
 *  is not a live operator of sc_op_create. */
SIDECORE_C_API int sc_op_free(int* op);

/** The collectives, each as its C++ namesake in collectives.hpp (what moves where, the buffer sizes, root and
 *  SC_IN_PLACE), in the three forms described above; `op` is an sc_op or an id from sc_op_create. */
SIDECORE_C_API int sc_ibarrier(sc_comm comm, sc_request* req);
SIDECORE_C_API int sc_barrier(sc_comm comm);
SIDECORE_C_API int sc_barrier_init(sc_comm comm, sc_request* req);
SIDECORE_C_API int sc_ibcast(void* buf, int64_t count, int dtype, int root, sc_comm comm, sc_request* req);
SIDECORE_C_API int sc_bcast(void* buf, int64_t count, int dtype, int root, sc_comm comm);
SIDECORE_C_API int sc_bcast_init(void* buf, int64_t count, int dtype, int root, sc_comm comm, sc_request* req);
SIDECORE_C_API int sc_ireduce(const void* send, void* recv, int64_t count, int dtype, int op, int root, sc_comm comm,
                              sc_request* req);
SIDECORE_C_API int sc_reduce(const void* send, void* recv, int64_t count, int dtype, int op, int root, sc_comm comm);
SIDECORE_C_API int sc_reduce_init(const void* send, void* recv, int64_t count, int dtype, int op, int root,
                                  sc_comm comm, sc_request* req);
SIDECORE_C_API int sc_iallreduce(const void* send, void* recv, int64_t count, int dtype, int op, sc_comm comm,
                                 sc_request* req);
SIDECORE_C_API int sc_allreduce(const void* send, void* recv, int64_t count, int dtype, int op, sc_comm comm);
SIDECORE_C_API int sc_allreduce_init(const void* send, void* recv, int64_t count, int dtype, int op, sc_comm comm,
                                     sc_request* req);
SIDECORE_C_API int sc_igather(const void* send, void* recv, int64_t count, int dtype, int root, sc_comm comm,
                              sc_request* req);
SIDECORE_C_API int sc_gather(const void* send, void* recv, int64_t count, int dtype, int root, sc_comm comm);
SIDECORE_C_API int sc_gather_init(const void* send, void* recv, int64_t count, int dtype, int root, sc_comm comm,
                                  sc_request* req);
SIDECORE_C_API int sc_iscatter(const void* send, void* recv, int64_t count, int dtype, int root, sc_comm comm,
                               sc_request* req);
SIDECORE_C_API int sc_scatter(const void* send, void* recv, int64_t count, int dtype, int root, sc_comm comm);
SIDECORE_C_API int sc_scatter_init(const void* send, void* recv, int64_t count, int dtype, int root, sc_comm comm,
                                   sc_request* req);
SIDECORE_C_API int sc_iallgather(const void* send, void* recv, int64_t count, int dtype, sc_comm comm,
                                 sc_request* req);
SIDECORE_C_API int sc_allgather(const void* send, void* recv, int64_t count, int dtype, sc_comm comm);
SIDECORE_C_API int sc_allgather_init(const void* send, void* recv, int64_t count, int dtype, sc_comm comm,
                                     sc_request* req);
SIDECORE_C_API int sc_ialltoall(const void* send, void* recv, int64_t count, int dtype, sc_comm comm, sc_request* req);
SIDECORE_C_API int sc_alltoall(const void* send, void* recv, int64_t count, int dtype, sc_comm comm);
SIDECORE_C_API int sc_alltoall_init(const void* send, void* recv, int64_t count, int dtype, sc_comm comm,
                                    sc_request* req);
SIDECORE_C_API int sc_ireduce_scatter_block(const void* send, void* recv, int64_t count, int dtype, int op,
                                            sc_comm comm, sc_request* req);
SIDECORE_C_API int sc_reduce_scatter_block(const void* send, void* recv, int64_t count, int dtype, int op,
                                           sc_comm comm);
SIDECORE_C_API int sc_reduce_scatter_block_init(const void* send, void* recv, int64_t count, int dtype, int op,
                                                sc_comm comm, sc_request* req);
SIDECORE_C_API int sc_iallgatherv(const void* send, int64_t send_count, void* recv, const int64_t* recv_counts,
                                  const int64_t* recv_displs, int dtype, sc_comm comm, sc_request* req);
SIDECORE_C_API int sc_allgatherv(const void* send, int64_t send_count, void* recv, const int64_t* recv_counts,
                                 const int64_t* recv_displs, int dtype, sc_comm comm);
SIDECORE_C_API int sc_allgatherv_init(const void* send, int64_t send_count, void* recv, const int64_t* recv_counts,
                                      const int64_t* recv_displs, int dtype, sc_comm comm, sc_request* req);
SIDECORE_C_API int sc_ialltoallv(const void* send, const int64_t* send_counts, const int64_t* send_displs, void* recv,
                                 const int64_t* recv_counts, const int64_t* recv_displs, int dtype, sc_comm comm,
                                 sc_request* req);
SIDECORE_C_API int sc_alltoallv(const void* send, const int64_t* send_counts, const int64_t* send_displs, void* recv,
                                const int64_t* recv_counts, const int64_t* recv_displs, int dtype, sc_comm comm);
SIDECORE_C_API int sc_alltoallv_init(const void* send, const int64_t* send_counts, const int64_t* send_displs,
                                     void* recv, const int64_t* recv_counts, const int64_t* recv_displs, int dtype,
                                     sc_comm comm, sc_request* req);

/** Regions for the overlap profile (nestable; end closes the innermost of its thread). sc_region_begin: NULL name is
 *  SC_ERR_INVALID_ARGUMENT. sc_region_end with no region of the thread open: SC_ERR_INVALID_ARGUMENT. */
SIDECORE_C_API int sc_region_begin(const char* name);
SIDECORE_C_API int sc_region_end(void);

/** Lower-case name of an error code; the calling thread's last error message (empty when none). The message is
 *  whole, NUL-terminated, at whatever length it has: there is no fixed limit (one naming every rank of a large
 *  communicator, or a long path, runs to kilobytes), so measure it (strlen) rather than copy it into a fixed array.
 *  The pointer and its text stay valid until the calling thread's next call of this API: copy it to keep it. */
SIDECORE_C_API const char* sc_error_name(int code);
SIDECORE_C_API const char* sc_last_error(void);

/** Prints every setting (default, current value, help), the topology, the reserved core, the OpenMP places
 *  and the libfabric provider to `out`. Needs neither MPI_Init nor sc_init. Returns 0, or 2 when a setting
 *  in the environment is rejected (the message is printed too). Used by the `sidecore info` command. */
SIDECORE_C_API int sc_info_print(FILE* out);

/** For language bindings layered on this API (the Fortran module, docs/fortran.md); applications do not need them.
 *  sc_binding_limits: the sizes in bytes of the buffers that the calling thread's next call of this API with a
 *  buffer (point-to-point or collective) passes, when the binding knows them: `send_bytes` the buffer the call reads
 *  (sc_isend's buf, a collective's send), `recv_bytes` the one it writes (sc_irecv's buf, sc_bcast's buf, a
 *  collective's recv); -1 for unknown. That call takes them before anything else and refuses, with
 *  SC_ERR_INVALID_ARGUMENT naming the buffer, its size and the bytes needed, a count that would read or write
 *  beyond them (a collective's refusal gives the count, and both sizes in bytes and in elements of dtype, with the
 *  counts accepted). Returns SC_SUCCESS, or SC_ERR_INVALID_ARGUMENT for a size below -1 (then no limit is set).
 *  sc_binding_fail: makes `message` the calling thread's sc_last_error() and returns `code`; SC_ERR_INVALID_ARGUMENT
 *  (and a message saying so) for a NULL message or a code that is no SC_ERR_* value. */
SIDECORE_C_API int sc_binding_limits(int64_t send_bytes, int64_t recv_bytes);
SIDECORE_C_API int sc_binding_fail(int code, const char* message);

#ifdef __cplusplus
}
#endif

#endif /* SIDECORE_H */
