// The runtime's process-wide state between init() and finalize(). Internal.
#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <sidecore/progress/collective.hpp>
#include <sidecore/progress/engine.hpp>
#include <sidecore/progress/tag.hpp>
#include <sidecore/sidecore.hpp>

#include "auto_mode.hpp"
#include "node_segment.hpp"
#include "persistent.hpp"
#include "settings.hpp"
#include "topology.hpp"

namespace sidecore {

// Friends of comm/request that build handles from internal ids.
struct comm_access {
  /// The handle of the communicator with `id` whose entry has `serial` (comm_entry::serial; 0 for world()).
  static comm make(int id, std::uint64_t serial) { return comm(id, serial); }
  static std::uint64_t serial(const comm& c) noexcept { return c.serial_; }
};
struct request_access {
  static request make(std::uint64_t h) { return request(h); }
  /// A handle whose operation was completed and consumed by wait/test: no slot has it (a lookup fails, so a
  /// second wait reports "already completed"), and the destructor has nothing to look up.
  static constexpr std::uint64_t consumed = ~std::uint64_t{0};
  static void mark_consumed(request& r) noexcept { r.handle_ = consumed; }
  static void clear(request& r) noexcept { r.handle_ = 0; }
  /// Takes the value out without orphaning the operation (the C API keeps handles as integers).
  static std::uint64_t detach(request& r) noexcept {
    const std::uint64_t h = r.handle_;
    r.handle_ = 0;
    return h;
  }
};

}  // namespace sidecore

namespace sidecore::detail {

struct comm_entry {
  MPI_Comm mpi = MPI_COMM_NULL;  // owned (a dup or split of the init communicator)
  int rank = 0;
  int size = 0;
  std::vector<int> to_world;     // comm rank -> rank in the init communicator (engine address index)
  std::shared_ptr<progress::coll_comm> coll;  // the communicator as its collectives see it
  // This process's serial of the entry, never reused (0 for world(), which is never freed): an id serves another
  // communicator once this one is freed, and neither a copy of this one's handle nor a persistent send or receive
  // made on it may reach that one. The comm handle carries it.
  std::uint64_t serial = 0;
};

struct runtime_state {
  settings cfg;
  std::unique_ptr<topology> topo;
  // The node's shared memory: the doorbells and node rings the engine uses, so it outlives the engine.
  std::unique_ptr<node_segment> node_shm;
  std::unique_ptr<progress::engine> eng;
  int reserved_core = -1;
  omp_fence_report fence;
  int off_threads = 0;         // OpenMP threads of mode off (omp_get_max_threads at init)
  bool core_active = false;    // the progress thread runs: mode core now (mode_switch.hpp)
  std::unique_ptr<auto_controller> autom;  // SIDECORE_PROGRESS=auto
  std::array<std::atomic<comm_entry*>, progress::tag::max_comms> comms{};
  std::mutex comm_mutex;  // comm creation/free (rare, collective)
  int next_comm_id = 1;
  MPI_Comm node = MPI_COMM_NULL;     // the ranks of this node (shared memory)
  // collectives: the executor, and the algorithm per kind and segment size of the calls to come (the settings at
  // init, changed by set_coll_algorithm / set_coll_segment)
  std::unique_ptr<progress::coll_executor> coll;
  std::array<std::atomic<std::uint8_t>, coll::kind_count> coll_algorithm{};
  std::atomic<std::uint64_t> coll_segment{coll::default_segment_bytes};
  persistent_table persistent;
};

enum class phase : int { before_init = 0, running = 1, finalized = 2 };
extern std::atomic<int> g_phase;
extern runtime_state* g_state;

[[noreturn]] void throw_not_running(const char* what);
/// `what` refused `c`: null, an id that serves no communicator, or a copy of a freed communicator whose id serves
/// a newer one.
[[noreturn]] void throw_bad_comm(const comm& c, const char* what);

/// The state, or throws error(errc::not_initialized) naming `what` (the function called). Inline: every call
/// of the API starts here.
inline runtime_state& state_or_throw(const char* what) {
  if (g_phase.load(std::memory_order_acquire) != static_cast<int>(phase::running)) [[unlikely]]
    throw_not_running(what);
  return *g_state;
}

/// Throws error(errc::mpi) naming `call` and MPI's own message when rc is not MPI_SUCCESS.
void mpi_check(int rc, const char* call);

/// A new communicator entry (communicators.cpp) for `mpi`, whose members' ranks are translated to `world`'s, with
/// sidecore id `id` and a cache of `coll_cache` built collective plans. The caller stores it in runtime_state::comms.
comm_entry* make_comm_entry(MPI_Comm mpi, MPI_Comm world, int id, std::size_t coll_cache);

/// At init, collective over the node (node_setup.cpp): the doorbells of the node's ranks in its shared memory
/// (runtime_state::node_shm), and with SIDECORE_SHM_FASTPATH their node rings, handed to the engine; then the
/// engine connects its peers. Throws error(errc::transport) if the node's shared memory cannot be made,
/// progress::transport_error if the engine cannot connect.
void setup_doorbells(runtime_state& s, MPI_Comm world);

/// At init: a program that reaches MPI_Finalize without sidecore::finalize() gets a warning and is finalized there
/// (an attribute delete callback on MPI_COMM_SELF; finalize_guard.cpp).
void watch_mpi_finalize();

/// Region hooks (instrumentation); cost one branch when profiling is off.
void region_enter(std::string_view name) noexcept;
void region_exit() noexcept;

/// Instrumentation at init (after the engine is up; may calibrate with a ping-pong) and at finalize (profile
/// per rank, job profile on rank 0, trace). Both do nothing when SIDECORE_PROFILE and SIDECORE_TRACE are unset.
/// `dead_ranks` (finalize: the ranks found dead): when not empty, nothing collective is done (a dead rank never
/// joins): each survivor writes its own profile and trace, without the collectives' cross-rank figures, and the job
/// profile is not written (rank 0, or the lowest live rank, says why).
void instrument_start(runtime_state& s, const comm& world);
void instrument_finish(runtime_state& s, const comm& world, double t_total_s, const std::vector<int>& dead_ranks);

/// Runs `start`, an engine or collective executor call that starts a request, and returns its handle; the engine's
/// refusal when engine_config::max_requests are in flight becomes error(errc::invalid_argument) naming `call`.
template <typename F>
std::uint64_t start_request(const char* call, F&& start) {
  try {
    return start();
  } catch (const progress::too_many_requests& e) {
    throw error(errc::invalid_argument, std::string(call) + ": " + e.what() + "; complete some (wait, test) or free "
                                        "them before starting more, or raise SIDECORE_MAX_REQUESTS (now " +
                                        std::to_string(e.capacity) + ")");
  }
}

/// What a handle that names nothing is told (after "the handle " or "reqs[i] "): a plain request, a persistent one.
inline constexpr const char* no_request_in_flight =
    "names no request in flight (already completed and consumed by an earlier wait/test, or a value sidecore did "
    "not give)";
inline constexpr const char* no_persistent_request =
    "names no persistent request (already freed, or a value sidecore did not give)";

/// The sentence saying why this thread's last request that completed with errc::transport failed (empty if none).
const std::string& last_transport_error() noexcept;

/// isend, always with a request slot (never progress::is_inline): for the C API, whose integer handles can be
/// copied, so that a copy waited on after the original is recognised as consumed, and for persistent sends.
/// `call` is named when the request limit refuses the start (the user's call: sidecore::start for a persistent one).
request isend_with_slot(const void* buf, std::int64_t bytes, int dest, int t, const comm& c,
                        const char* call = "sidecore::isend");
/// irecv, naming `call` when the request limit refuses the start (sidecore::recv, sidecore::start).
request irecv_as(void* buf, std::int64_t bytes, int source, int t, const comm& c, const char* call);
/// sidecore::recv without its throw on a failed transport or peer: the status says it (sidecore_recv returns it so).
status blocking_recv(void* buf, std::int64_t bytes, int source, int t, const comm& c, const char* call);

/// The sentence of this thread's last request that completed with an error that has one (transport; a collective's
/// invalid_argument): what send(), the blocking collectives and the C API's sidecore_last_error report.
void note_request_error(const std::string& text);

/// Releases a persistent request by handle (request_free, a persistent request's destructor): an active run is
/// orphaned and completes in the background. False if the handle names no live persistent request.
bool free_persistent(runtime_state& s, std::uint64_t handle) noexcept;

/// The model category of a call form, and the public name of a collective call ("sidecore::iallreduce").
const char* coll_call_name(coll_op_kind k, coll_form f) noexcept;

/// The communicator entry for c, or throws error(errc::invalid_argument) for a null/freed communicator, or a copy
/// of a freed one whose id now serves another (its serial differs), and errc::not_initialized outside
/// init..finalize.
inline comm_entry& comm_or_throw(const comm& c, const char* what) {
  runtime_state& s = state_or_throw(what);
  const auto id = static_cast<unsigned>(c.id());
  comm_entry* e = id < static_cast<unsigned>(progress::tag::max_comms) ? s.comms[id].load(std::memory_order_acquire)
                                                                       : nullptr;
  if (!e || e->serial != comm_access::serial(c)) [[unlikely]]
    throw_bad_comm(c, what);
  return *e;
}

/// The handle of whichever communicator holds `id` now (the serial of its live entry), for the C API and Fortran,
/// whose integer ids cannot carry a serial: MPI's semantics. With no live entry (or outside init..finalize) the
/// handle has serial 0, which no entry but world()'s has, so a call refuses it as comm_or_throw says.
inline comm live_comm(int id) {
  const auto i = static_cast<unsigned>(id);
  const comm_entry* e = g_phase.load(std::memory_order_acquire) == static_cast<int>(phase::running) &&
                                i < static_cast<unsigned>(progress::tag::max_comms)
                            ? g_state->comms[i].load(std::memory_order_acquire)
                            : nullptr;
  return comm_access::make(id, e ? e->serial : 0);
}

/// A C API call refused before it reached the C++ API: sets sidecore_last_error() to `message`, returns `code`
/// (c_api.cpp).
int c_fail(int code, const char* message);
/// A C API call that succeeded without reaching guarded(): clears sidecore_last_error(), returns SIDECORE_SUCCESS
/// (c_api.cpp).
int c_succeed();

}  // namespace sidecore::detail
