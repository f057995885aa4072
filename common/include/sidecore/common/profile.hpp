// sidecore profile — the per-rank and per-job measurement record: instrument/ writes it, model/ reads it.
// The schema is documented in docs/profile-schema.md (schema "sidecore-profile", version 1). This header and
// common/src/profile.cpp (library sidecore_profile) depend only on nlohmann_json and sidecore_common, so that
// both the instrumentation and the model (which must build with no MPI or libfabric) link the one definition.
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

/// The "overlap" section: where xfer_time comes from, the total, and two breakdowns.
struct overlap_section {
  std::string xfer_time_source;  ///< "microbenchmark" (a-priori table, seed 000) or "measured" (XFER_BEGIN..END)
  overlap_bounds total;
  std::vector<overlap_size_bin> by_size;
  std::vector<overlap_region> by_region;
  bool operator==(const overlap_section&) const = default;
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

/// One rank's measurements ("rank"), or a whole job ("job") whose per-rank records are in ranks.
enum class profile_kind : std::uint8_t { rank, job };
/// The SIDECORE_PROGRESS mode of the run: "off" is the model's calibration run, "core" a run with
/// the dedicated progress core.
enum class progress_mode : std::uint8_t { off, core };

/// A sidecore profile (docs/profile-schema.md). Plain data: fill it, then to_json / write_profile_file.
struct profile {
  profile_kind kind = profile_kind::rank;
  int rank = 0;                  ///< rank in the job (rank kind); ignored for the job kind
  int nranks = 1;                ///< number of ranks in the job
  progress_mode mode = progress_mode::off;
  std::string provider;          ///< libfabric provider ("shm", "tcp;ofi_rxm", ...) or "mpip"
  int n_core = 0;                ///< cores per node available to the rank, including a reserved progress core
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
  std::optional<progress_thread_stats> progress_thread;
  /// SIDECORE_PROGRESS=auto: what was decided and why (mode is the mode the run ended in).
  std::optional<auto_section> auto_mode;
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

/// Builds a job profile from per-rank profiles (rank kind, same mode): the job's own totals are
/// the merge (t_total_s and t_comp_s: maximum over ranks; categories: times and counts summed,
/// minimum of minima; overlap totals and bins summed; progress thread summed; the auto section: the first rank's, the
/// verdicts being collective) and ranks holds the
/// inputs sorted by rank. Throws input_error when the list is empty, holds a job profile, mixes
/// modes or repeats a rank.
[[nodiscard]] profile make_job_profile(std::vector<profile> ranks);

/// Serialises p (schema fields first). Optional sections are written only when present.
void to_json(nlohmann::json& j, const profile& p);
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
/// Writes p as indented JSON; throws input_error naming the path when it cannot be written.
void write_profile_file(const std::string& path, const profile& p);

}  // namespace sidecore
