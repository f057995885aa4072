// sidecore instrument — self-instrumentation of sidecore (internal API, used by the runtime, the progress engine
// and the PMPI profiler; applications use the public region API of runtime/).
//
// Event model (seed 000, Section 2.1): CALL_ENTER/CALL_EXIT around every call into sidecore, with its category;
// XFER_BEGIN/XFER_END around every data transfer; REGION_ENTER/EXIT for named code regions. Events are fixed-size
// binary records (seed 002) written to a per-thread ring and time-stamped with one event clock for all threads
// (raw TSC where it is invariant, calibrated against CLOCK_MONOTONIC at the start and at the end of the
// collection; CLOCK_MONOTONIC otherwise). Rings are folded incrementally into accumulators (overlap bounds, call
// categories, region times) kept in clock ticks, and converted to the now_ns() time base when the profile is
// written, so memory stays bounded for any run length. See docs/instrument.md.
//
// Threads: every hook may be called from any thread, concurrently. start(), stop(), rank_profile_json(),
// write_trace() and the set_* functions are called by one thread (the runtime's init/finalize thread); stop() and
// write_trace() require that no other thread is still recording (the engine has stopped its progress thread).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sidecore/common/common.hpp"
#include "sidecore/common/profile.hpp"
#include "sidecore/instrument/bounds.hpp"
#include "sidecore/instrument/op_kind.hpp"

namespace sidecore::instrument {

/// The clock that time-stamps events (docs/instrument.md, "Event clock").
enum class event_clock : std::uint8_t {
  automatic,  ///< tsc where tsc_usable(), monotonic otherwise (the default)
  tsc,        ///< raw rdtsc, calibrated against CLOCK_MONOTONIC; falls back to monotonic where not tsc_usable()
  monotonic,  ///< sidecore::now_ns() (CLOCK_MONOTONIC through the vDSO): ticks are nanoseconds, no calibration
};

/// What to collect. Both collections are off by default; with both off every hook is one predictable branch.
struct config {
  bool profile = false;            ///< accumulate the profile (categories, overlap bounds, regions)
  std::string profile_path;        ///< where the runtime writes it (%r = rank); informational here
  bool trace = false;              ///< stream a Chrome trace-event timeline
  std::string trace_path;          ///< trace file (%r = rank, substituted by start())
  std::size_t trace_max_events = 1000000;  ///< stop tracing, with one warning, past this many trace events
  std::vector<std::size_t> size_bin_edges = default_size_bin_edges();  ///< see size_bins
  /// Per-thread ring capacity in records, rounded up to a power of two in 16..1024: a ring never holds more than 512
  /// records between folds, so larger values are capped (with a warning on rank 0). 48 bytes per record.
  std::size_t ring_events = 1024;
  /// Collective instances kept per communicator for the cross-rank figures (collectives.hpp), a power of two
  /// 16..65536: the instances whose sequence number is a multiple of a stride, doubled whenever the sample is full,
  /// so every member keeps the same ones. 32 bytes each; the samples of all communicators stay within 8 MiB (further
  /// communicators get no sample, with a warning).
  std::size_t coll_samples = 1024;
  event_clock clock = event_clock::automatic;  ///< tests that pass synthetic nanoseconds choose monotonic
};

/// Thread id 0 means "no thread" (instrumentation off, or the thread table is full).
inline constexpr std::uint32_t no_thread = 0;
/// Most threads that can record between one start() and stop().
inline constexpr std::uint32_t max_threads = 1024;

namespace detail {
/// What every hook reads, on one cache line of its own that only start()/stop() (and the first call, once) write:
/// no other thread's writes invalidate it. Relaxed loads are plain loads.
struct alignas(64) hot_state {
  std::atomic<bool> enabled{false};              ///< a collection is on
  std::atomic<bool> tsc{false};                  ///< the event clock is the TSC (else CLOCK_MONOTONIC)
  std::atomic<bool> trace{false};                ///< call events go to the ring too (the trace draws them)
  std::atomic<std::uint32_t> main_thread{0};     ///< the first thread that made a call (t_comp's thread)
  std::atomic<std::uint64_t> generation{0};      ///< bumped by start(): per-thread slots of older collections expire
};
static_assert(sizeof(hot_state) == 64, "the hooks' shared state is one cache line");
extern hot_state g_hot;

/// Raw time-stamp counter (x86-64 rdtsc, ~9 ns on the development VM); 0 elsewhere. Not serialising: the CPU may
/// execute it a little before the instructions that precede it (measured: up to ~80 ns in a cross-thread hand-off),
/// so two events of different threads closer than that can come out in either order. An lfence would order it but
/// costs ~7 ns per event, and more on the hooks around it (docs/instrument.md, "Event clock").
inline std::uint64_t read_tsc() noexcept {
#if defined(__x86_64__)
  return __builtin_ia32_rdtsc();
#else
  return 0;
#endif
}

/// The event clock, in ticks: TSC cycles, or nanoseconds (now_ns) with the monotonic clock. The same clock on every
/// thread of the collection. Convert with ticks_to_ns().
inline std::uint64_t ticks() noexcept {
  if (g_hot.tsc.load(std::memory_order_relaxed)) return read_tsc();
  return now_ns();
}

// Out-of-line recording functions, with an explicit timestamp in event-clock ticks: the inline hooks pass ticks()
// (0 for the call hooks, which then read the clock only for an outermost call); tests pass synthetic times (> 0;
// nanoseconds with event_clock::monotonic). Same contracts as the hooks below; only call them while enabled().
void call_enter_at(category c, std::uint64_t t, const char* name = nullptr) noexcept;
void call_exit_at(category c, std::uint64_t t) noexcept;
void xfer_begin_at(std::uint64_t xfer_id, std::size_t bytes, int peer, std::uint32_t owner, std::uint64_t t,
                   op_kind op = op_kind::p2p) noexcept;
void xfer_end_at(std::uint64_t xfer_id, std::uint32_t owner, std::uint64_t t) noexcept;
void xfer_end_only_at(std::uint64_t xfer_id, std::size_t bytes, int peer, std::uint32_t owner, std::uint64_t t,
                      op_kind op = op_kind::p2p) noexcept;
void region_enter_at(std::string_view name, std::uint64_t t) noexcept;
void region_exit_at(std::uint64_t t) noexcept;
std::uint32_t register_current_thread() noexcept;
void trace_post_at(bool send, std::uint64_t req, int peer, int world_peer, int tag, int comm, std::size_t bytes,
                   const char* proto, std::uint64_t t_ns) noexcept;
void trace_done_at(std::uint64_t req, int source, int world_source, int tag, std::size_t bytes,
                   std::uint64_t t_ns) noexcept;
/// Sets the end of the measured window, in ticks (tests); normally the first rank_profile_json() or stop() sets it.
void set_window_end(std::uint64_t t) noexcept;
/// Sets the start of the measured window, in ticks (tests); normally start() sets it to ticks().
void set_window_start(std::uint64_t t) noexcept;
}  // namespace detail

/// Makes the calling thread the one that communicates (t_comp is its time outside calls), instead of the first thread
/// that makes a call: the PMPI profiler names the thread that called MPI_Init, which an MPI_THREAD_MULTIPLE program's
/// helper thread may precede with a call of its own. Call it after start(); no effect when not collecting.
void claim_communicating_thread() noexcept;

/// The measured window starts now, not at start(): call it after the collective set-up that follows start() (the run
/// id, the clock offsets), so that its time is not counted as the application's computation.
void open_window() noexcept;

/// Starts collecting for this rank. Replaces any earlier collection (call stop() first to write it). Chooses the
/// event clock and, for the TSC, takes the first calibration point (~0.1 ms). Opens the trace file when cfg.trace
/// (a failure to open is reported on stderr and tracing stays off: callers check_outputs() first, so that an unusable
/// path is an error before the run). Throws std::invalid_argument for bad size_bin_edges.
void start(const config& cfg, int rank, int nranks);

/// Whether any collection is on. Inline and branch-only, so hooks cost nothing measurable when off.
[[nodiscard]] inline bool enabled() noexcept { return detail::g_hot.enabled.load(std::memory_order_relaxed); }

/// Whether the TSC can be the event clock on this machine: x86-64, an invariant TSC (CPUID 0x80000007 EDX bit 8:
/// constant rate in every P-, C- and T-state) and, where it can be read, the kernel's clocksource is "tsc" (the
/// kernel checked that the CPUs' counters agree; it switches away from tsc when they do not). `why` receives the
/// reason when not.
[[nodiscard]] bool tsc_usable(std::string* why = nullptr) noexcept;

/// The clock of the current (or last) collection: event_clock::tsc or event_clock::monotonic.
[[nodiscard]] event_clock active_clock() noexcept;

/// The ticks -> nanoseconds fit of the current (or last) collection. With the TSC: ns = ns0 + (ticks - tick0) *
/// ns_per_tick, through the point taken at start() and, once the window is closed (first rank_profile_json() or
/// stop()), the one taken at its end (final_fit); before that the second point is the latest one taken while
/// folding (provisional). With the monotonic clock: the identity.
struct clock_calibration {
  bool tsc = false;           ///< the event clock is the TSC (false: monotonic, the fit is the identity)
  bool final_fit = false;     ///< the second point is the window's end (false: the latest fold's, provisional)
  double ns_per_tick = 1.0;   ///< the fit's slope
  std::uint64_t tick0 = 0, ns0 = 0;  ///< start point
  std::uint64_t tick1 = 0, ns1 = 0;  ///< end (or latest) point
  std::uint64_t spread0 = 0, spread1 = 0;  ///< ticks between the two TSC reads around each now_ns() (uncertainty)
};
/// The current fit (see clock_calibration).
[[nodiscard]] clock_calibration calibration() noexcept;
/// Converts an event-clock reading to the now_ns() time base with the current fit.
[[nodiscard]] std::uint64_t ticks_to_ns(std::uint64_t ticks) noexcept;

/// CALL_ENTER / CALL_EXIT: bracket every call from the application into sidecore, on the calling thread. Calls
/// nest (a blocking call built on nonblocking ones): only the outermost pair is counted, under its own category.
/// `name` (optional) must be a string with static storage ("MPI_Send", "sidecore_isend"): the trace shows it; the
/// profile counts by category only.
inline void call_enter(category c, const char* name = nullptr) noexcept {
  if (enabled()) detail::call_enter_at(c, 0, name);
}
/// The CALL_EXIT matching a call_enter(c) of the same thread.
inline void call_exit(category c) noexcept {
  if (enabled()) detail::call_exit_at(c, 0);
}

/// XFER_BEGIN: a data transfer was posted (to libfabric) — from the progress thread in core mode or from the
/// application thread inside a call in off mode. `owner` is current_thread_id() of the application thread that
/// initiated the request; `xfer_id` identifies the transfer until its xfer_end. `op`: the operation the transfer
/// belongs to — op_kind::p2p for point-to-point, the collective's kind for a transfer of a collective schedule — so
/// that the profile's overlap bounds break down by kind (overlap.by_op).
inline void xfer_begin(std::uint64_t xfer_id, std::size_t bytes, int peer, std::uint32_t owner,
                       op_kind op = op_kind::p2p) noexcept {
  if (enabled()) detail::xfer_begin_at(xfer_id, bytes, peer, owner, detail::ticks(), op);
}
/// XFER_END: the transfer begun with the same id completed. Any thread. `owner` is the same as passed to
/// xfer_begin: the owner's state at this instant decides the bounds. Ids must not be reused while a transfer
/// is in flight (a 64-bit counter is the simplest).
inline void xfer_end(std::uint64_t xfer_id, std::uint32_t owner) noexcept {
  if (enabled()) detail::xfer_end_at(xfer_id, owner, detail::ticks());
}
/// XFER_END of a transfer whose beginning cannot be seen (seed 000 case 3, e.g. an eager message arriving at the
/// receiver): counted with min = 0, max = xfer_time. Do not call xfer_begin for it. `op` as for xfer_begin.
inline void xfer_end_unpaired(std::uint64_t xfer_id, std::size_t bytes, int peer, std::uint32_t owner,
                              op_kind op = op_kind::p2p) noexcept {
  if (enabled()) detail::xfer_end_only_at(xfer_id, bytes, peer, owner, detail::ticks(), op);
}

/// The calling thread's instrumentation id (registers it on first use), to pass as `owner` to xfer_begin.
/// Returns no_thread when collection is off.
[[nodiscard]] inline std::uint32_t current_thread_id() noexcept {
  return enabled() ? detail::register_current_thread() : no_thread;
}
/// Whether a trace is being written (and still accepts events). Inline and branch-only.
[[nodiscard]] inline bool tracing() noexcept { return detail::g_hot.trace.load(std::memory_order_relaxed); }

/// Trace records of the communication operations, for the trace-driven replay (`sidecore whatif`,
/// docs/simulate.md "What the trace carries"); nothing happens unless tracing(). Call them inside the call's
/// call_enter/call_exit, on the calling thread.
/// trace_post: a send or receive was started; `req` is the request's handle (the id of its transfer events),
/// `peer` the destination or source in communicator `comm` (any_source as given), `world_peer` the same in the
/// init communicator (-1 for any source), `tag` as given (any_tag as given), `bytes` the posted size, `proto`
/// "inject" (completed inside the call), "eager" or "rndv" (for sends; "posted" for receives).
inline void trace_post(bool send, std::uint64_t req, int peer, int world_peer, int tag, int comm, std::size_t bytes,
                       const char* proto) noexcept {
  if (tracing()) detail::trace_post_at(send, req, peer, world_peer, tag, comm, bytes, proto, now_ns());
}
/// trace_done: a wait or test completed request `req`; for a receive, the *matched* source (in its communicator
/// and in the init communicator), tag and size; for a send, source and tags are -1.
inline void trace_done(std::uint64_t req, int source, int world_source, int tag, std::size_t bytes) noexcept {
  if (tracing()) detail::trace_done_at(req, source, world_source, tag, bytes, now_ns());
}
/// Process metadata for the trace's "otherData": the engine's eager limit and inject size, the OpenMP threads.
/// Mode and provider come from set_run_info(). Calling it also says that the trace carries the operation records
/// (trace_post, trace_done) a replay needs ("ops" in otherData); a trace without it (the PMPI profiler's) is refused
/// by the replay.
void set_trace_info(std::size_t eager_max, std::size_t inject_size, int omp_threads) noexcept;

/// Names the calling thread in the trace ("progress", "main", ...). Truncated to 31 bytes.
void name_current_thread(std::string_view name) noexcept;
/// Marks the calling thread as the progress thread (named "progress", listed apart in the trace).
void mark_progress_thread() noexcept;

/// Named region, on the calling thread; nestable (depth up to 64). The profile reports per region path
/// ("solve/halo") its entries, its wall time, the calls made inside it and the overlap bounds of the transfers
/// begun inside it, sub-regions included (a transfer belongs to the owner's innermost region path at its first known
/// event, and counts for that path's ancestors too). The name is interned: the
/// first use of a name allocates and takes a short lock; later uses hit a per-thread cache (no lock).
inline void region_enter(std::string_view name) noexcept {
  if (enabled()) detail::region_enter_at(name, detail::ticks());
}
/// Leaves the calling thread's innermost open region.
inline void region_exit() noexcept {
  if (enabled()) detail::region_exit_at(detail::ticks());
}

/// Folds the calling thread's ring (e.g. from the progress thread's idle path, where it costs nothing). Returns at
/// once, taking no lock, while the ring holds fewer than min(`min_records`, a quarter of the fold batch) records (the
/// owner folds every 512 records, or at ¾ of a smaller ring): the default folds in batches of 128 records, so that an
/// idle path that runs after every few events does not pay a fold (two locks) each time; pass 1 to fold whatever is
/// there.
void fold_current_thread(std::size_t min_records = SIZE_MAX) noexcept;

/// Sets the a-priori transfer-time table (bytes, seconds), interpolated; `source` goes into the profile
/// ("calibration: built-in ping-pong at init", or the table's path). Call before transfers are recorded.
/// Throws std::invalid_argument for a bad point.
void set_xfer_time_table(std::vector<std::pair<std::size_t, double>> bytes_to_seconds, std::string source);
/// Same, from a table already read (read_xfer_time_table).
void set_xfer_time_table(xfer_time_table table);

/// The progress thread's own accounting, passed in by the engine at finalize.
void set_progress_stats(double busy_s, double idle_s, std::uint64_t polls, std::uint64_t completions) noexcept;

/// Ends the measured window now (the first call counts; later ones, and rank_profile_json() and stop(), keep it):
/// t_total_s and t_comp_s both cover start() to this instant, and regions still open count up to it. The runtime
/// calls it on entering finalize, the PMPI profiler on entering MPI_Finalize, so that the wait for the other ranks
/// there is neither computation nor run time. Without it the first rank_profile_json() or stop() ends the window.
/// Calls made after the window's end are still counted in their categories, but not against t_comp.
void end_window() noexcept;

/// Run description for the profile. mode: "off" | "core" (docs/profile-schema.md; the PMPI profiler writes "off":
/// a plain MPI run is the model's no-progress calibration run); provider: libfabric provider or a description;
/// n_core >= 1: cores available to the rank (until this is called: the size of the process's CPU affinity mask).
/// t_total_s < 0 (the default) keeps the measured window (start() to end_window()), the one t_comp_s covers too;
/// another value replaces t_total_s only (tests). Throws std::invalid_argument for another mode or n_core < 1.
void set_run_info(std::string mode, std::string provider, int n_core, double t_total_s = -1.0);

/// The host's cores for the profile's "host" (docs/profile-schema.md), counted as the n_core given to
/// set_run_info() is counted (hwloc cores of the machine where n_core counts hwloc cores). Until this is called:
/// the online logical CPUs, as the default n_core counts the affinity mask's CPUs. Throws std::invalid_argument for
/// cores < 1.
void set_host_cores(int cores);

/// The application's command line, written to the profile's optional "command" field; bytes that are not UTF-8 (a
/// Latin-1 file name among the arguments) are written as U+FFFD, since JSON holds UTF-8 only.
void set_command_line(std::string command);

/// This rank's profile (schema "sidecore-profile", kind "rank"; docs/profile-schema.md), filled from the collection.
/// Folds every ring; the first call closes the measured window. Transfers still in flight with only one event known
/// count as case 3.
[[nodiscard]] profile rank_profile();
/// The same as JSON text (format_profile of common/): what the runtime and the PMPI profiler write and gather.
[[nodiscard]] std::string rank_profile_json();

/// Merges rank profiles (JSON texts, in any order) into a job profile (kind "job", with the rank profiles under
/// "ranks"), through the profile library's parse_profile and make_job_profile. Throws std::invalid_argument, naming
/// the input by its position ("input 2", "ranks[2]"), when a text is not a valid rank profile of this schema, two
/// texts hold the same rank, or they mix modes.
[[nodiscard]] std::string merge_job_profile(const std::vector<std::string>& rank_jsons);

/// Finishes the trace file: folds every ring, writes thread-name metadata and closes the JSON. Idempotent;
/// stop() calls it. Returns false when the file could not be written.
bool write_trace();

/// Number of trace events written so far (0 when not tracing).
[[nodiscard]] std::uint64_t trace_events_written() noexcept;

/// Stops collecting: finishes the trace, turns every hook off. The profile stays readable until the next start().
void stop();

/// Profile/trace path for a rank: every "%r" in `pattern` becomes the rank. Without "%r", ".<rank>" is inserted
/// before a ".json" suffix (or appended), so rank files never overwrite each other nor the job profile.
[[nodiscard]] std::string path_for_rank(const std::string& pattern, int rank);
/// The merged job profile's path: "%r" becomes "job"; without "%r", the pattern itself.
[[nodiscard]] std::string job_path(const std::string& pattern);
/// Checks, before a collection with `cfg` starts, every file it will write on this rank: its profile (and, on rank 0,
/// the job profile) and its trace can be written (common/'s output_path_problem: the directory exists and takes a
/// new file; the path is not a link, a directory or a protected file), and no two outputs are one file (this rank's
/// trace against its profile, the job profile and every rank's profile). Returns an empty string when all is well,
/// else a message naming the setting and its value, the path and the reason. Writes nothing.
[[nodiscard]] std::string check_outputs(const config& cfg, int rank, int nranks);
/// Writes `text` to `path` through a temporary file renamed over it (common/'s write_output_file); says so on stderr
/// when it replaces an existing file. When `path` cannot be written (its directory went away during the run, the
/// disk filled), the text is not dropped: it is written to the temporary directory ($TMPDIR, else /tmp) as
/// "sidecore-saved.<run id>.<file name>". Returns false then, with a message naming `setting` (the setting that
/// gave the path), the path, the reason, and where the text went or that it is lost (neither place took it).
bool write_text_file(const std::string& setting, const std::string& path, const std::string& text);

}  // namespace sidecore::instrument
