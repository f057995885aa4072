// sidecore profile — the per-rank and per-job measurement record: instrument/ writes it, model/ reads it.
// The schema is documented in docs/profile-schema.md (schema "sidecore-profile", version 1). This header and the
// library sidecore_profile (common/src/profile_read.cpp, profile_write.cpp, profile_merge.cpp) depend only on
// nlohmann_json and sidecore_common, so that both the instrumentation and the model (which must build with no MPI or
// libfabric) link the one definition.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sidecore/common/common.hpp"

namespace sidecore {

/// Value of the "schema" field of every profile.
inline constexpr std::string_view profile_schema_name = "sidecore-profile";
/// The only schema version this build reads and writes.
inline constexpr int profile_schema_version = 1;

/// Totals of one call category on the rank's communicating thread (seed 004, Section III-C1).
struct category_totals {
  double time_s = 0.0;      ///< total time inside calls of this category, seconds
  std::uint64_t count = 0;  ///< number of calls
  double min_s = 0.0;       ///< shortest single call, seconds (0 when count == 0)
  bool operator==(const category_totals&) const = default;
};

/// Overlap bounds of seed 000, Section 2.2, summed over a set of transfers.
struct overlap_bounds {
  double min_s = 0.0;        ///< minimum overlapped transfer time (lower bound)
  double max_s = 0.0;        ///< maximum overlapped transfer time (upper bound)
  double xfer_time_s = 0.0;  ///< data transfer time (sum of xfer_time of the transfers)
  std::uint64_t count = 0;   ///< number of transfers
  bool operator==(const overlap_bounds&) const = default;
};

/// Overlap bounds of the transfers whose size lies in [lo_bytes, hi_bytes] (both inclusive).
struct overlap_size_bin {
  std::uint64_t lo_bytes = 0;
  std::uint64_t hi_bytes = 0;
  overlap_bounds bounds;
  bool operator==(const overlap_size_bin&) const = default;
};

/// Overlap bounds of the transfers begun inside a monitored code region.
struct overlap_region {
  std::string name;
  overlap_bounds bounds;
  bool operator==(const overlap_region&) const = default;
};

/// Overlap bounds of the transfers of one operation kind: "p2p" (point-to-point) or a collective ("allreduce", ...).
struct overlap_op {
  std::string op;
  overlap_bounds bounds;
  bool operator==(const overlap_op&) const = default;
};

/// The "overlap" section: where xfer_time comes from, the total, and three breakdowns.
struct overlap_section {
  std::string xfer_time_source;  ///< "microbenchmark" (a-priori table, seed 000) or "measured" (XFER_BEGIN..END)
  overlap_bounds total;
  std::vector<overlap_size_bin> by_size;
  std::vector<overlap_region> by_region;
  std::vector<overlap_op> by_op;  ///< by operation kind, "p2p" first, then the collectives in kind order
  bool operator==(const overlap_section&) const = default;
};

/// Histogram bins of durations (duration_stats): bin 0 holds durations below 1 ns; a duration of d >= 1 ns with
/// 2^o <= d < 2^(o+1) is in bin 1 + 8 o + floor(8 (d / 2^o - 1)): eight equal bins per octave, so a bin is at most
/// 12.5 % wide and the median read from it (the bin's middle) is within 6.25 % of the true one.
[[nodiscard]] constexpr int duration_bin(std::uint64_t ns) noexcept {
  if (ns == 0) return 0;
  const int o = 63 - __builtin_clzll(ns);
  const std::uint64_t f = o >= 3 ? (ns >> (o - 3)) & 7u : (ns << (3 - o)) & 7u;
  return 1 + 8 * o + static_cast<int>(f);
}
/// The lower edge of bin b, in nanoseconds (0 for bin 0).
[[nodiscard]] double duration_bin_lower_ns(int b) noexcept;

/// Statistics of a set of durations: count, min, max, mean and standard deviation exact (merged with Chan's
/// formula); the median read from a histogram (duration_bin), which merges exactly, so job medians are as good as
/// rank medians.
struct duration_stats {
  std::uint64_t count = 0;
  double min_s = 0.0, max_s = 0.0, mean_s = 0.0;
  double stddev_s = 0.0;  ///< population standard deviation
  double median_s = 0.0;  ///< from the histogram, within 6.25 % (and within [min_s, max_s])
  std::vector<std::pair<int, std::uint64_t>> histogram;  ///< (bin, count), ascending bins, counts summing to count
  bool operator==(const duration_stats&) const = default;
};
/// Merges `from` into `into` (the statistics of the union of both sets); the median is read again from the histogram.
void merge_duration_stats(duration_stats& into, const duration_stats& from);
/// The median of a histogram (the middle of the bin holding it), clamped to [min_s, max_s]; 0 when empty.
[[nodiscard]] double histogram_median_s(const duration_stats& s) noexcept;

/// One rank's place in the arrival and departure orders of the collective instances sampled on it (those every
/// member's record was found for). The full order distribution is n^2 numbers for n ranks; these are its ends and
/// its mean.
struct collective_rank_order {
  int rank = 0;
  std::uint64_t last_arrivals = 0;    ///< instances this rank arrived at last (the others waited for it)
  std::uint64_t first_arrivals = 0;   ///< instances it arrived at first (it waited longest)
  std::uint64_t last_departures = 0;  ///< instances it departed from last
  std::uint64_t first_departures = 0; ///< instances it departed from first
  double mean_arrival_position = 0.0;    ///< mean of (arrival position) / (members - 1): 0 always first, 1 always last
  double mean_departure_position = 0.0;  ///< the same for departures
  double arrival_wait_s = 0.0;           ///< its arrival waits summed: the time it lost waiting for the last to arrive
  bool operator==(const collective_rank_order&) const = default;
};

/// Monitoring of one collective kind (seed 002, EventSpace): per instance, the rank's arrival (the call's entry, or the
/// nonblocking initiation) and departure (its part complete); latency = departure - arrival on every instance; the
/// arrival wait (last member's arrival - this rank's) and departure wait (this rank's departure - the first member's)
/// on the sampled instances, with the ranks' clocks brought to rank 0's.
struct collective_kind_stats {
  std::string kind;           ///< "barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather", ...
  std::uint64_t count = 0;    ///< instances completed (job: summed over ranks)
  std::uint64_t bytes = 0;    ///< bytes the rank contributed, summed over instances
  duration_stats latency;     ///< every completed instance
  std::uint64_t sampled = 0;  ///< instances matched across every member (job: summed over ranks): the figures below
  duration_stats arrival_wait;
  duration_stats departure_wait;
  std::vector<collective_rank_order> ranks;  ///< rank profile: this rank; job profile: every rank, by rank
  bool operator==(const collective_kind_stats&) const = default;
};

/// How a rank's clock was brought to rank 0's for the cross-rank figures (Cristian's method, minimum round trip).
struct clock_offset_info {
  double offset_s = 0.0;  ///< rank 0's clock minus this rank's (job: of the rank with the largest bound)
  double bound_s = 0.0;   ///< |error| of the offset at most this: half the minimum round trip; 0 on rank 0's host
  double rtt_s = 0.0;     ///< the minimum round trip measured (0: not measured)
  std::string method;     ///< how: "rank 0", "same host as rank 0: one CLOCK_MONOTONIC", "ping-pong with rank 0, ..."
  bool operator==(const clock_offset_info&) const = default;
};

/// The "collectives" section: monitoring of every collective instance, per kind (docs/instrument.md, "Collective
/// monitoring").
struct collectives_section {
  clock_offset_info clock;
  std::uint64_t sample_capacity = 0;  ///< instances kept per communicator for the cross-rank figures
  std::uint64_t unmatched = 0;        ///< sampled instances some member's record was missing for (left out)
  std::vector<collective_kind_stats> by_kind;  ///< kinds with instances, in kind order
  bool operator==(const collectives_section&) const = default;
};

/// Time and count of the outermost calls of one category made inside a region (sub-regions included).
struct region_category {
  double time_s = 0.0;
  std::uint64_t count = 0;
  bool operator==(const region_category&) const = default;
};

/// One monitored region path ("solve/halo" is halo entered inside solve): entries, wall time and calls, summed over
/// the rank's threads, sub-regions included.
struct region_profile {
  std::string name;           ///< the path, enclosing regions first
  std::uint64_t entries = 0;  ///< times the path was entered
  double time_s = 0.0;        ///< wall time inside it, summed over entries
  std::array<region_category, category_count> categories{};  ///< indexed by sidecore::category
  bool operator==(const region_profile&) const = default;
};

/// The clock that time-stamped the events (informational; docs/instrument.md, "Event clock").
struct event_clock_info {
  std::string source;   ///< "tsc" or "monotonic"
  double tsc_hz = 0.0;  ///< the fitted TSC rate with "tsc"; 0 otherwise (not written)
  std::string note;     ///< why not the TSC, when it was wanted and could not serve (empty: not written)
  bool operator==(const event_clock_info&) const = default;
};

/// The progress thread's time split (core mode only).
struct progress_thread_stats {
  double busy_s = 0.0;           ///< time the loop found work (submissions, completions, schedules)
  double idle_s = 0.0;           ///< time spent spinning without work, backing off or blocked
  std::uint64_t polls = 0;       ///< passes through the progress loop
  std::uint64_t completions = 0; ///< requests completed by the thread
  bool operator==(const progress_thread_stats&) const = default;
};

/// One decision of SIDECORE_PROGRESS=auto (docs/runtime.md, "Mode auto"): the window the runtime profiled in mode
/// off, what the dedicated-core formula predicted for this rank and for the job, and the verdict all ranks agreed.
struct auto_decision {
  std::string trigger;            ///< what closed the window: "steps", "time" or "finalize"
  std::uint64_t steps = 0;        ///< sidecore::step() calls in the window (iterations measured)
  double start_s = 0.0;           ///< window start, seconds since init
  double window_s = 0.0;          ///< window length on this rank: its t_noprogress
  double t_comp_s = 0.0;          ///< this rank's computation in the window (outside calls, communicating thread)
  double t_mpi_s = 0.0;           ///< this rank's time in calls in the window
  double t_dedicated_s = 0.0;     ///< this rank's predicted time with a dedicated core
  int n_core = 0;                 ///< the model's N_core for this rank
  double job_t_noprogress_s = 0.0;  ///< the job's: maximum of the ranks' windows
  double job_t_dedicated_s = 0.0;   ///< the job's: maximum of the ranks' predictions
  int slowest_rank_off = 0;       ///< the rank whose window is longest
  int slowest_rank_core = 0;      ///< the rank predicted slowest with a dedicated core
  double speedup = 0.0;           ///< job_t_noprogress_s / job_t_dedicated_s
  std::string verdict;            ///< "core" (switch on, or stay on) or "off"
  std::string reason;             ///< the sentence saying why
  bool forced = false;            ///< SIDECORE_AUTO_FORCE decided (tests), not the model
  std::optional<double> switch_s; ///< when this rank switched mode, seconds since init; absent: no switch
  bool operator==(const auto_decision&) const = default;
};

/// The "auto" section: every decision of the run in order (the first window, then each re-check).
struct auto_section {
  std::vector<auto_decision> decisions;
  bool operator==(const auto_section&) const = default;
};

/// One of the instrumentation's limits that was reached (docs/profile-schema.md, "limits"): the figures it names miss
/// what went past it, so a reader can say the profile is incomplete instead of presenting it as whole.
struct limit_hit {
  /// What was reached: "thread_table", "region_paths", "region_depth", "trace_events"; a later writer may add kinds
  /// (readers show their `detail`).
  std::string limit;
  std::uint64_t capacity = 0;  ///< the limit's size: thread slots, region paths, nesting levels, trace events
  std::uint64_t count = 0;     ///< what went past it, >= 1: threads, region entries, trace events refused
  std::string detail;          ///< one sentence for people: what went past and what the figures miss
  std::vector<int> ranks;      ///< job profile: the ranks that reached it, ascending; empty in a rank profile
  bool operator==(const limit_hit&) const = default;
};

/// A limit of a kind this build knows, with its sentence (make_limit_detail).
[[nodiscard]] limit_hit make_limit_hit(std::string limit, std::uint64_t capacity, std::uint64_t count);
/// The sentence for a known kind ("76 threads found the 1024-slot thread table full: ..."); empty for another kind.
[[nodiscard]] std::string make_limit_detail(std::string_view limit, std::uint64_t capacity, std::uint64_t count);
/// Adds rank `rank`'s limits to `into` (a job's, or a reader's summary of several ranks): entries of one kind and
/// capacity are summed, the rank added to `ranks` and the sentence made again for the sum (a kind this build does
/// not know keeps the first rank's sentence).
void merge_limits(std::vector<limit_hit>& into, const std::vector<limit_hit>& from, int rank);

/// One rank's measurements ("rank"), or a whole job ("job") whose per-rank records are in ranks.
enum class profile_kind : std::uint8_t { rank, job };

/// The host a rank ran on. Ranks with the same id ran on one operating-system instance and shared its cores: the
/// model counts their n_core against `cores` (the "oversubscribed" hypothesis, docs/model.md).
struct host_info {
  /// 16 hex digits: the fingerprint of the kernel's boot id (/proc/sys/kernel/random/boot_id; of the host name where
  /// it cannot be read) and of the cpuset cgroup's CPUs: the same for the processes of one kernel and cgroup cpuset,
  /// different for containers of one machine given CPUs of their own.
  std::string id;
  /// The host's cores, >= 1, counted as n_core counts them: hwloc's cores of the machine where sidecore's runtime
  /// (or the PMPI profiler in mode core) counted n_core in cores, else the online logical CPUs.
  int cores = 0;
  bool operator==(const host_info&) const = default;
};

/// The SIDECORE_PROGRESS mode of the run: "off" is the model's calibration run, "core" a run with
/// the dedicated progress core.
enum class progress_mode : std::uint8_t { off, core };

/// A sidecore profile (docs/profile-schema.md). Plain data: fill it, then to_json / write_profile_file.
struct profile {
  profile_kind kind = profile_kind::rank;
  int rank = 0;                  ///< rank in the job (rank kind); ignored for the job kind
  int nranks = 1;                ///< number of ranks in the job
  /// The run's id, the same on every rank of one run (instrument::agree_run_id); "" when not recorded (mpiP, older
  /// writers). Rank profiles whose ids differ come from different runs: nothing combines them.
  std::string run;
  progress_mode mode = progress_mode::off;
  std::string provider;          ///< libfabric provider ("shm", "tcp;ofi_rxm", ...) or "mpip"
  int n_core = 0;                ///< cores per node available to the rank, including a reserved progress core
  /// The host the rank ran on; absent from mpiP conversions and older writers. A job profile has it when every
  /// rank ran on the same host.
  std::optional<host_info> host;
  double t_total_s = 0.0;        ///< wall time of the run on this rank (t_noprogress in off mode)
  double t_comp_s = 0.0;         ///< time outside sidecore calls on the communicating thread
  /// Per category, the outermost calls of every thread of the rank (counts are exact in multi-threaded ranks;
  /// times of concurrent calls add up, so they can exceed t_total_s when several threads communicate).
  std::array<category_totals, category_count> categories{};  ///< indexed by sidecore::category
  /// Threads of the rank that made at least one outermost call; 0 when not recorded (older writers).
  int calling_threads = 0;
  /// The communicating thread's own totals (the thread t_comp_s is measured on): never above t_total_s. Absent
  /// when not recorded. The model uses these when several threads communicate (calling_threads > 1).
  std::optional<std::array<category_totals, category_count>> thread_categories;
  std::optional<overlap_section> overlap;
  /// Per region path, sorted by name (empty: the application named no region, or the writer does not record them).
  std::vector<region_profile> regions;
  std::optional<event_clock_info> event_clock;  ///< rank profiles of sidecore's instrumentation
  std::optional<progress_thread_stats> progress_thread;
  std::optional<collectives_section> collectives;  ///< written when collectives were monitored
  /// SIDECORE_PROGRESS=auto: what was decided and why (mode is the mode the run ended in).
  std::optional<auto_section> auto_mode;
  /// The instrumentation's limits this rank reached (job: summed by kind, the ranks named); empty: none, or an older
  /// writer.
  std::vector<limit_hit> limits;
  std::string command;           ///< optional: the application's command line
  std::vector<profile> ranks;    ///< job kind: one rank-kind profile per rank

  /// The totals of category c.
  [[nodiscard]] category_totals& operator[](category c) noexcept { return categories[static_cast<std::size_t>(c)]; }
  [[nodiscard]] const category_totals& operator[](category c) const noexcept {
    return categories[static_cast<std::size_t>(c)];
  }
  bool operator==(const profile&) const = default;
};

/// "rank" / "job".
[[nodiscard]] std::string_view profile_kind_name(profile_kind k) noexcept;
/// "off" / "core".
[[nodiscard]] std::string_view progress_mode_name(progress_mode m) noexcept;

/// Builds a job profile from per-rank profiles (rank kind, same mode, in any order): the job's own totals are
/// the merge (run: the ranks' id; t_total_s, t_comp_s, n_core, nranks, calling_threads: maximum over ranks; categories:
/// times and counts summed, minimum of minima; overlap totals, size bins (by lo/hi_bytes) and regions (by name) summed,
/// the distinct xfer_time_sources joined by "; ", by_op summed by op; regions summed by name; progress thread summed;
/// collectives by kind: counts, bytes and sampled summed, statistics merged, every rank's order entry kept, the clock
/// of the rank with the largest bound, unmatched summed; limits by merge_limits; no event_clock; the auto section:
/// the first rank's, the verdicts being collective) and ranks holds the inputs sorted by rank. Throws input_error
/// when the list is empty, or an input (named "ranks[i]" by its position in the argument) is not a rank profile,
/// differs in mode, nranks or run id (both recorded) from the first, or repeats a rank. The job's run is the ranks'
/// (the first recorded one).
[[nodiscard]] profile make_job_profile(std::vector<profile> ranks);

/// Serialises p. Optional sections are written only when present; "regions" always (an empty array when none).
void to_json(nlohmann::json& j, const profile& p);
/// The same into an ordered_json, which keeps the schema's field order (schema fields first, as documented).
void to_json(nlohmann::ordered_json& j, const profile& p);
/// p as indented JSON text in the schema's field order, ending with a newline: what write_profile_file writes.
[[nodiscard]] std::string format_profile(const profile& p);
/// Serialises the "auto" section alone (the runtime adds it to the profile the instrumentation wrote).
void to_json(nlohmann::json& j, const auto_section& a);

/// Parses and validates a profile; throws input_error naming the field (JSON path) and the accepted
/// values on a wrong schema, unknown schema_version, unknown kind or mode, a missing or mistyped
/// field, a negative or non-finite time, min_s > time_s, or a job whose ranks are inconsistent.
void from_json(const nlohmann::json& j, profile& p);

/// Parses JSON text; `source` names the origin in error messages. Throws input_error on malformed
/// JSON (with the byte offset) or an invalid profile.
[[nodiscard]] profile parse_profile(std::string_view text, const std::string& source = "<string>");
/// Reads a profile file; throws input_error naming the path when it cannot be opened or is invalid.
[[nodiscard]] profile read_profile_file(const std::string& path);
/// Writes p as indented JSON (format_profile) through write_output_file (output_file.hpp: a temporary file renamed
/// over the path, never through a symbolic link); throws input_error naming the path and the reason when it cannot.
void write_profile_file(const std::string& path, const profile& p);

}  // namespace sidecore
