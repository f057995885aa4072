// sidecore — public C++ API.
//
// A hybrid MPI+OpenMP application calls sidecore::init() after MPI_Init, then sends and receives through
// sidecore's nonblocking requests. With SIDECORE_PROGRESS=core a progress thread, pinned by hwloc to a
// reserved core, moves the data while the application computes; OpenMP is fenced off that core.
// With SIDECORE_PROGRESS=off the engine advances only inside sidecore calls (what plain MPI does).
//
// Error model:
//  * Bad arguments, calls before init / after finalize, and transport failures throw sidecore::error,
//    whose code() says which and whose what() names the input, the bad value and what is accepted.
//  * A request that completes badly (a message larger than the posted buffer, a cancelled receive)
//    is not an exception: its status carries the error, as MPI_ERROR does under MPI_ERRORS_RETURN.
//    Data beyond the posted buffer is never written.
//
// Thread safety: under MPI_THREAD_MULTIPLE (MPI_Init_thread), every function may be called from any number of
// threads at once (isend/irecv/test/wait from inside OpenMP parallel regions), except init/finalize and communicator
// creation, which are collective and called by one thread per process. Below it (MPI_Init; FUNNELED, SERIALIZED)
// the application promised one calling thread at a time; sidecore's calls stay correct if it breaks the promise
// (MPI's may not), and a second thread found calling at the same time is reported once on stderr.
// One request must not be waited or tested by two threads at once.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <sidecore/common/common.hpp>

namespace sidecore {

/// Error codes. errc_name() gives a stable lower-case name.
enum class errc : int {
  success = 0,
  invalid_argument,     ///< a bad argument: rank, size, buffer, tag, request handle
  not_initialized,      ///< called before init() or after finalize()
  already_initialized,  ///< init() called twice
  invalid_request,      ///< waiting/testing a request already completed, or never started
  truncated,            ///< (status) the message was larger than the posted receive buffer
  canceled,             ///< (status) the receive was cancelled
  bad_setting,          ///< a SIDECORE_* variable has a value that is not accepted
  topology,             ///< the core reservation cannot be made (e.g. one core only)
  transport,            ///< libfabric reported an error
  mpi,                  ///< an MPI call made by sidecore failed
  /// (status, or thrown by the blocking calls) the rank the operation involves died: a send to it, a receive from
  /// it, an any-source receive pending when a death was found, a collective whose communicator holds it. The
  /// message names that rank (of world()); docs/failures.md says what a survivor can still do.
  peer_failed,
};

/// Stable lower-case name of an error code ("invalid_argument", "truncated", ...).
[[nodiscard]] SIDECORE_API const char* errc_name(errc code) noexcept;

/// The exception every sidecore function throws. what() is a complete sentence naming the input,
/// the bad value and what is accepted.
class SIDECORE_API error : public std::runtime_error {
 public:
  /// An error of kind `code` whose what() is `message`.
  error(errc code, const std::string& message) : std::runtime_error(message), code_(code) {}
  /// Which kind of error (never errc::success for an error sidecore threw).
  [[nodiscard]] errc code() const noexcept { return code_; }

 private:
  errc code_;
};

inline constexpr int any_source = -1;            ///< irecv/recv: match a message from any rank
inline constexpr int any_tag = -1;               ///< irecv/recv: match a message with any tag
inline constexpr int tag_max = (1 << 28) - 1;    ///< largest user tag (tags are 0..tag_max)

/// What a completed request reports.
struct status {
  int source = -1;          ///< rank (in the request's communicator) the message came from; -1 for sends
  int tag = -1;             ///< tag of the message received; -1 for sends
  /// Bytes received. For a truncated message: the buffer size, and never a byte past it; whether the part
  /// that fits is written depends on the provider (shm writes it, tcp;ofi_rxm in libfabric 1.17 does not).
  std::size_t bytes = 0;
  /// success, truncated, canceled, transport (the provider failed the operation; send() throws with why, and
  /// the C API's sidecore_last_error says it), or peer_failed (the rank it involves died; likewise)
  errc error = errc::success;
  /// True when the operation completed without error (error == errc::success).
  [[nodiscard]] bool ok() const noexcept { return error == errc::success; }
  /// True when a cancel() won: the receive matched no message (error == errc::canceled).
  [[nodiscard]] bool canceled() const noexcept { return error == errc::canceled; }
};

/// A communicator: a group of ranks and a matching context (messages in one never match the other).
/// Cheap to copy: the communicator's id and the serial of the communicator that id served when the handle was made
/// (never reused within the process). world() is every rank of the communicator given to init().
class SIDECORE_API comm {
 public:
  /// A null communicator (null() is true): between init and finalize every call that takes it throws
  /// errc::invalid_argument.
  comm() = default;
  /// This process's rank in the communicator. Throws errc::not_initialized / invalid_argument (null comm).
  [[nodiscard]] int rank() const;
  /// Number of ranks. Throws as rank().
  [[nodiscard]] int size() const;
  /// Collective: a new communicator with the same ranks and a separate matching context. The ids of freed
  /// communicators are reused (the oldest first); dup() and split() throw errc::invalid_argument when 16383
  /// communicators besides world() are alive at once. An MPI library may run out first (MPICH: about 2000 per
  /// process, the application's own included): its error handler then decides (MPICH's default aborts the job with
  /// "Too many communicators"). sidecore does not turn that into an error of dup(): MPICH finds it on one rank before
  /// the others, which would then wait inside MPI_Comm_dup for ever. A rank of this communicator found dead
  /// (failed_ranks()) before or during the call: throws errc::peer_failed naming it.
  [[nodiscard]] comm dup() const;
  /// Collective: split by color (>= 0, or -1 to take no part: returns a null comm), ordered by key then rank. A rank
  /// of this communicator found dead before or while the ranks agree on the new id: throws errc::peer_failed naming
  /// it (MPI_Comm_split, which follows, has no nonblocking form: a rank that dies inside it leaves the others
  /// waiting there, docs/failures.md).
  [[nodiscard]] comm split(int color, int key) const;
  /// Collective: release a communicator made by dup()/split(); the handle becomes null. Throws
  /// errc::invalid_argument for world() (it cannot be freed) or a null or freed handle. Requests in flight on it
  /// complete; persistent collectives made on it keep working; persistent sends and receives are refused at their
  /// next start. Copies of the handle are stale: every call refuses them with errc::invalid_argument, also once a
  /// later dup() or split() has given their id() to a new communicator (the handle carries the serial of the
  /// communicator it names, which MPI's handles do not; the C API's and Fortran's integer ids, which cannot, keep
  /// MPI's semantics and name whichever communicator holds the id). A rank of the communicator found dead before
  /// or while every rank reaches the free: throws errc::peer_failed naming it, and the communicator stays (the
  /// handle is not made null; point-to-point with its live ranks still works).
  void free();
  /// True for a null communicator (default-constructed, freed, or split with color -1).
  [[nodiscard]] bool null() const noexcept { return id_ < 0; }
  /// The MPI communicator with the same ranks (owned by sidecore; valid until free()/finalize()).
  [[nodiscard]] MPI_Comm mpi() const;
  /// sidecore's id of the communicator, the C API's sidecore_comm: 0 for world(), -1 for a null one. A freed
  /// communicator's id is given to a later dup() or split(), so the id alone does not tell a handle of a freed
  /// communicator from one of the newer communicator given its id (the handle's serial does).
  [[nodiscard]] int id() const noexcept { return id_; }

 private:
  friend struct comm_access;
  comm(int id, std::uint64_t serial) : id_(id), serial_(serial) {}
  int id_ = -1;
  std::uint64_t serial_ = 0;  // the serial of the communicator's entry in the runtime (0: world(), or null)
};

/// A nonblocking operation in flight: point-to-point or collective, waited and tested alike. Move-only. After a
/// wait (or a test that returned true) the handle is consumed: waiting or testing it again throws
/// errc::invalid_request; waitall/waitany/testall/testany skip consumed and default-constructed handles, as MPI
/// skips MPI_REQUEST_NULL (a handle naming no request of this process, or one request twice in an array, which only
/// the C API's integers can hold, is refused with errc::invalid_request before any request of the array is touched).
/// Destroying a handle whose operation is still in flight is allowed: the operation completes and its resources are
/// released by the engine (the buffer must stay valid until then, as in MPI).
/// A persistent request (send_init, recv_init, allreduce_init, ...) is never consumed: it is inactive until start(),
/// active until a wait or successful test completes its run, then inactive again (a wait or test of an inactive one
/// returns at once with an empty status, as MPI's). request_free() or its destruction releases it (a run in flight
/// completes first, in the background).
class SIDECORE_API request {
 public:
  /// A handle that holds no operation (MPI_REQUEST_NULL): wait and test throw errc::invalid_request on it; the array
  /// calls (waitall, ...) skip it.
  request() = default;
  /// Takes other's operation; other is left default-constructed.
  request(request&& other) noexcept : handle_(other.handle_) { other.handle_ = 0; }
  /// Releases this handle's operation as the destructor does (one in flight completes in the background), then
  /// takes other's; other is left default-constructed.
  request& operator=(request&& other) noexcept;
  request(const request&) = delete;
  request& operator=(const request&) = delete;
  /// Releases the operation: one in flight completes in the background, a persistent one is freed (request_free).
  ~request();
  /// True while the handle refers to an operation not yet waited for (a persistent request: while started and
  /// not yet completed by a wait or test).
  [[nodiscard]] bool active() const noexcept;
  /// True for a persistent request not yet freed.
  [[nodiscard]] bool persistent() const noexcept;
  /// Opaque value (for the C API): 0 for a request that never held an operation, ~0 once a wait or a successful
  /// test consumed it (waiting on it again is then errc::invalid_request, not an empty wait); neither names an
  /// operation.
  [[nodiscard]] std::uint64_t handle() const noexcept { return handle_; }

 private:
  friend struct request_access;
  explicit request(std::uint64_t h) : handle_(h) {}
  void release() noexcept;  // the destructor's work, for it and for move assignment
  std::uint64_t handle_ = 0;
};

// ---- lifecycle --------------------------------------------------------------------------------------------

/// Collective over `comm`: reads the SIDECORE_* settings, reserves the progress core (mode core), opens the
/// libfabric endpoint and exchanges addresses through MPI. MPI must be initialized. Throws
/// errc::already_initialized if called twice, errc::bad_setting for a rejected variable, errc::topology when
/// core mode cannot reserve a core, errc::transport when no provider fits (or, with SIDECORE_PEER_TIMEOUT set, when
/// the start-up exchange with a rank of this node does not complete within it: the message names that rank),
/// errc::mpi when MPI is not initialized or already finalized, errc::invalid_argument when `comm` is MPI_COMM_NULL,
/// an intercommunicator or no communicator MPI knows (SIDECORE_COMM_WORLD, sidecore's own id, is a natural slip: MPI
/// would abort on it; the question is asked with MPI's error handlers set to return). After a transport failure the MPI
/// objects init made stay allocated (freeing them is collective with ranks that may not answer): end the job
/// (MPI_Abort).
SIDECORE_API void init(MPI_Comm comm = MPI_COMM_WORLD);
/// Collective: waits for every rank, stops the progress thread, writes the profile/trace when asked, and
/// closes the endpoint. Operations still in flight are dropped, with a warning saying how many; their buffers
/// are not touched after finalize returns. Throws errc::not_initialized
/// when not initialized. After finalize, init may not be called again (errc::already_initialized).
/// With a rank found dead (failed_ranks()), it waits for the live ranks only, until it finds the death itself if
/// it had not yet (about 20 ms on one node; SIDECORE_PEER_TIMEOUT across nodes), and frees no MPI object that
/// needs the dead rank. MPICH's MPI_Finalize then waits for the dead rank forever: a survivor should end with
/// exit() instead of calling MPI_Finalize (docs/failures.md).
SIDECORE_API void finalize();
/// The ranks of world() found dead so far, in the order they were found; after finalize, those found until then.
/// Empty before init and in a job where every rank lives.
[[nodiscard]] SIDECORE_API std::vector<int> failed_ranks();
/// True between init() and finalize().
[[nodiscard]] SIDECORE_API bool initialized() noexcept;
/// The communicator given to init(). Never throws: before init or after finalize the handle it returns makes
/// the function that uses it throw errc::not_initialized, naming that function.
[[nodiscard]] SIDECORE_API comm world();
/// world().rank() and world().size(). Throw errc::not_initialized outside init/finalize.
[[nodiscard]] SIDECORE_API int rank();
[[nodiscard]] SIDECORE_API int size();

/// The mode in force ("off" or "core"), the provider chosen, the reserved core (logical hwloc core index;
/// -1 in mode off; in mode auto the core a switch would take, -1 when the cpuset has none to spare), the cores
/// available to this rank (N_core: SIDECORE_NCORE when set, else the cores of the process's cpuset; the profile's
/// n_core) and the number of OpenMP threads the application was given.
struct runtime_info {
  std::string mode;  ///< the mode now: "off" or "core" (with SIDECORE_PROGRESS=auto, the one auto switched to)
  bool auto_mode = false;  ///< SIDECORE_PROGRESS=auto: the mode is decided at run time (step())
  std::string provider;     ///< the libfabric provider in use, e.g. "shm" or "tcp;ofi_rxm"
  int reserved_core = -1;   ///< the reserved core, or -1, as the struct's comment says
  int n_core = 0;           ///< N_core: the cores available to this rank
  int omp_threads = 0;      ///< the OpenMP threads the application was given
};
/// This rank's runtime_info. Throws errc::not_initialized outside init..finalize.
[[nodiscard]] SIDECORE_API runtime_info info();

/// Marks the end of one iteration of the application's main loop, for SIDECORE_PROGRESS=auto with
/// SIDECORE_AUTO_STEPS=K: the iterations between the first step() and the (K+1)-th are profiled in mode off, and at
/// that step() every rank agrees on the verdict of the dedicated-core model and, when it pays, switches to mode core
/// before returning (progress thread on the reserved core; OpenMP's next parallel region runs on the other cores).
/// Requests in flight across the switch complete normally. Collective by contract: every rank calls it once per
/// iteration, in the same iteration, from the thread that called init, outside OpenMP parallel regions. With a time
/// window (SIDECORE_AUTO_WINDOW) it only gives the runtime a point to look at its agreement; in modes off and core it
/// does nothing. Throws errc::not_initialized outside init..finalize, and in mode auto errc::invalid_argument when
/// called by another thread or inside a parallel region.
SIDECORE_API void step();

// ---- point-to-point -----------------------------------------------------------------------------------------

/// Starts sending `bytes` bytes from `buf` to rank `dest` of `c` with `tag` (0..tag_max). The buffer must stay
/// unchanged until the request completes. Throws errc::invalid_argument for dest outside [0, size), bytes < 0,
/// buf == nullptr with bytes > 0, tag outside [0, tag_max], a null communicator, or bytes above the
/// provider's largest message; errc::not_initialized outside init/finalize. A small message (one provider
/// inject) is usually sent before isend returns: the request is then already complete (wait/test return at once).
[[nodiscard]] SIDECORE_API request isend(const void* buf, std::int64_t bytes, int dest, int tag,
                                         const comm& c = world());
/// Starts receiving at most `bytes` bytes into `buf` from `source` (or any_source) with `tag` (or any_tag).
/// A longer message completes with status error errc::truncated and nothing written past `bytes`. Throws as
/// isend. Known provider limits (libfabric 1.17, see docs/runtime.md): on shm an any_tag receive does not match
/// a message that arrived before it was posted, and truncating a message above 4 KiB hangs in the provider;
/// on tcp;ofi_rxm a truncation can stop later traffic between the pair.
[[nodiscard]] SIDECORE_API request irecv(void* buf, std::int64_t bytes, int source, int tag, const comm& c = world());
/// Blocking send: isend + wait. Throws as isend, and errc::transport or errc::peer_failed when the send fails so.
SIDECORE_API void send(const void* buf, std::int64_t bytes, int dest, int tag, const comm& c = world());
/// Blocking receive: irecv + wait; returns the status (check status.ok() for truncation). Throws as irecv, and
/// errc::transport or errc::peer_failed when the receive fails so.
[[nodiscard]] SIDECORE_API status recv(void* buf, std::int64_t bytes, int source, int tag, const comm& c = world());

/// Waits for `r`, consumes it and returns its status. Throws errc::invalid_request for a consumed or
/// default-constructed request.
[[nodiscard]] SIDECORE_API status wait(request& r);
/// True (and `*st` filled, the request consumed) when `r` has completed; false otherwise. Throws as wait.
[[nodiscard]] SIDECORE_API bool test(request& r, status* st = nullptr);
/// Waits for every active request; `statuses` is empty or has reqs.size() entries (else invalid_argument).
SIDECORE_API void waitall(std::span<request> reqs, std::span<status> statuses = {});
/// Waits for one active request; returns its index (consumed, `*st` filled), or -1 when none is active.
[[nodiscard]] SIDECORE_API int waitany(std::span<request> reqs, status* st = nullptr);
/// True when every active request has completed (all then consumed, statuses filled); false leaves all as they are.
[[nodiscard]] SIDECORE_API bool testall(std::span<request> reqs, std::span<status> statuses = {});
/// Index of one completed request (consumed, `*st` filled), or -1 when none has completed or none is active.
[[nodiscard]] SIDECORE_API int testany(std::span<request> reqs, status* st = nullptr);
/// Asks to cancel a posted receive. The request must still be waited: its status says canceled() if the
/// cancel won, or holds the message if it had already matched. Cancelling a send or a collective is not supported
/// (errc::invalid_argument), as in MPI 4. Throws errc::invalid_request for a consumed request.
SIDECORE_API void cancel(request& r);

// ---- persistent requests (MPI 4.0) ------------------------------------------------------------------------------

/// A persistent send of `bytes` bytes from `buf` to `dest` with `tag`: an inactive request that start() sends
/// again each time (the buffer's content at each start). Throws as isend, for the same arguments.
[[nodiscard]] SIDECORE_API request send_init(const void* buf, std::int64_t bytes, int dest, int tag,
                                             const comm& c = world());
/// A persistent receive into `buf` (at most `bytes`) from `source` (or any_source) with `tag` (or any_tag).
/// Throws as irecv.
[[nodiscard]] SIDECORE_API request recv_init(void* buf, std::int64_t bytes, int source, int tag,
                                             const comm& c = world());
/// Starts an inactive persistent request: it becomes active, and a wait or test completes this run. Throws
/// errc::invalid_request for a request that is not persistent, was freed, or is still active (started and not yet
/// completed); a persistent collective's starts must come in the same order on every rank, as collectives do.
/// errc::invalid_argument for a persistent send or receive whose communicator was freed (unlike MPI, where the
/// request keeps it: free such requests first; a persistent collective keeps its communicator, as in MPI), and
/// when SIDECORE_MAX_REQUESTS requests are in flight.
SIDECORE_API void start(request& r);
/// start() of each request, in order; on an error the ones before it are started, the rest not: the error names the
/// element ("sidecore::startall: reqs[1]: ...") and says which were started.
SIDECORE_API void startall(std::span<request> reqs);
/// Releases a persistent request (MPI_Request_free): an active run completes in the background, its buffers
/// untouched only once it has. For a nonblocking request, as dropping its handle. The handle becomes empty.
/// Throws errc::invalid_request for an empty or consumed handle.
SIDECORE_API void request_free(request& r);

// ---- regions (instrumentation) --------------------------------------------------------------------------------

/// Marks a named code region for the overlap profile while the object lives; nestable. Costs one branch
/// when profiling is off.
class SIDECORE_API region {
 public:
  /// Enters region `name` on the calling thread (nested in the thread's open regions).
  explicit region(std::string_view name);
  /// Leaves it.
  ~region();
  region(const region&) = delete;
  region& operator=(const region&) = delete;
};

}  // namespace sidecore

#include <sidecore/collectives.hpp>
