/* sidecore — C API, for C and Fortran (via ISO_C_BINDING) applications.
 *
 * Every function returns SC_SUCCESS or an error code (the values of sidecore::errc). On error,
 * sc_last_error() returns the message of the calling thread's last error: it names the input, the bad value
 * and what is accepted; for SC_ERR_TRANSPORT from a request, the libfabric call or completion that failed. Request handles are plain integers: SC_REQUEST_NULL (0) is no request; after
 * sc_wait (or an sc_test that completes) the handle is set to SC_REQUEST_NULL. Waiting on a copy of a handle
 * that was already waited on returns SC_ERR_INVALID_REQUEST. */
#ifndef SIDECORE_H
#define SIDECORE_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include <sidecore/common/common.h>

#ifdef __cplusplus
extern "C" {
#endif

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
  SC_ERR_INTERNAL = 99
};

#define SC_ANY_SOURCE (-1)
#define SC_ANY_TAG (-1)
#define SC_REQUEST_NULL 0

typedef uint64_t sc_request;
typedef int sc_comm; /* 0 is the world communicator */
#define SC_COMM_WORLD 0

typedef struct sc_status {
  int source;     /* -1 for sends */
  int tag;        /* -1 for sends */
  size_t bytes;   /* bytes received */
  int error;      /* SC_SUCCESS, SC_ERR_TRUNCATED or SC_ERR_CANCELED */
} sc_status;

/** Collective: as sidecore::init. */
SIDECORE_C_API int sc_init(MPI_Comm comm);
/** Collective: as sidecore::finalize. */
SIDECORE_C_API int sc_finalize(void);
/** The end of one iteration, for SIDECORE_PROGRESS=auto: as sidecore::step. SC_SUCCESS, or
 *  SC_ERR_INVALID_ARGUMENT when called by another thread than init's or inside an OpenMP parallel region (in mode
 *  auto), SC_ERR_NOT_INITIALIZED outside init..finalize. */
SIDECORE_C_API int sc_step(void);
/** Rank and size in the world communicator. */
SIDECORE_C_API int sc_rank(int* rank);
SIDECORE_C_API int sc_size(int* size);
/** Communicators: dup/split/free of a communicator (collective). A split with color -1 gives *out = -1. */
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
 *  SC_ERR_CANCELED) as well as filling status.error. *index is -1 when no request is active / completed. */
SIDECORE_C_API int sc_wait(sc_request* req, sc_status* status);
SIDECORE_C_API int sc_test(sc_request* req, int* flag, sc_status* status);
SIDECORE_C_API int sc_waitall(int count, sc_request* reqs, sc_status* statuses);
SIDECORE_C_API int sc_waitany(int count, sc_request* reqs, int* index, sc_status* status);
SIDECORE_C_API int sc_cancel(sc_request* req);

/** Regions for the overlap profile (nestable; end closes the innermost). */
SIDECORE_C_API int sc_region_begin(const char* name);
SIDECORE_C_API int sc_region_end(void);

/** Lower-case name of an error code; the calling thread's last error message (empty when none). */
SIDECORE_C_API const char* sc_error_name(int code);
SIDECORE_C_API const char* sc_last_error(void);

/** Prints every setting (default, current value, help), the topology, the reserved core, the OpenMP places
 *  and the libfabric provider to `out`. Needs neither MPI_Init nor sc_init. Returns 0, or 2 when a setting
 *  in the environment is rejected (the message is printed too). Used by the `sidecore info` command. */
SIDECORE_C_API int sc_info_print(FILE* out);

#ifdef __cplusplus
}
#endif

#endif /* SIDECORE_H */
