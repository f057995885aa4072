// sidecore instrument — private declarations shared by the instrument sources (not installed, not for callers).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sidecore/common/common.hpp"

namespace sidecore::instrument::internal {

/// Totals for one category of calls.
struct category_acc {
  std::uint64_t time_ns = 0;
  std::uint64_t count = 0;
  std::uint64_t min_ns = UINT64_MAX;
  void add(std::uint64_t d) noexcept {
    time_ns += d;
    ++count;
    if (d < min_ns) min_ns = d;
  }
  void merge(const category_acc& o) noexcept {
    time_ns += o.time_ns;
    count += o.count;
    if (o.min_ns < min_ns) min_ns = o.min_ns;
  }
};

/// Time and count of calls of one category (inside a region).
struct call_sum {
  std::uint64_t time = 0;
  std::uint64_t count = 0;
};

/// Sums of overlap bounds for a set of transfers.
struct overlap_acc {
  std::uint64_t min_ns = 0;
  std::uint64_t max_ns = 0;
  std::uint64_t xfer_ns = 0;
  std::uint64_t count = 0;

  overlap_acc& operator+=(const overlap_acc& o) noexcept {
    min_ns += o.min_ns;
    max_ns += o.max_ns;
    xfer_ns += o.xfer_ns;
    count += o.count;
    return *this;
  }
};

/// Everything a rank profile holds, in nanoseconds (converted from event-clock ticks); turned into JSON by profile.cpp.
struct profile_data {
  int rank = 0;
  int nranks = 1;
  std::string mode = "off";
  std::string provider = "unknown";
  int n_core = 0;
  double t_total_s = 0;
  double t_comp_s = 0;
  std::string command;  ///< optional command line
  std::array<category_acc, category_count> categories{};
  std::string xfer_time_source = "none";
  overlap_acc total;
  struct bin {
    std::uint64_t lo = 0;
    std::uint64_t hi = 0;
    bool bounded = true;
    overlap_acc acc;
  };
  std::vector<bin> by_size;  ///< non-empty bins only, ascending
  struct region {
    std::string name;
    overlap_acc acc;
  };
  std::vector<region> by_region;  ///< regions with transfers, by name
  struct region_time {
    std::string name;
    std::uint64_t entries = 0;
    std::uint64_t time_ns = 0;  ///< wall time per entry, summed (sub-regions included)
    std::array<call_sum, category_count> cats{};  ///< outermost calls made inside the region (ns), sub-regions included
  };
  std::vector<region_time> regions;  ///< every region path entered, by name
  std::string clock_source = "monotonic";  ///< the event clock: "tsc" or "monotonic"
  double tsc_hz = 0;                       ///< the fitted TSC rate (tsc only)
  std::string clock_note;                  ///< why not the TSC, when it was wanted and could not serve
  bool has_progress = false;  ///< a progress thread ran (set_progress_stats was called)
  double progress_busy_s = 0;
  double progress_idle_s = 0;
  std::uint64_t progress_polls = 0;
  std::uint64_t progress_completions = 0;
};

/// One calibration point of the TSC against CLOCK_MONOTONIC (clock.cpp): the best (narrowest) of a few
/// rdtsc / now_ns() / rdtsc brackets; `ticks` is the middle of the bracket, `spread` its width in ticks.
struct clock_point {
  std::uint64_t ticks = 0;
  std::uint64_t ns = 0;
  std::uint64_t spread = 0;
};
[[nodiscard]] clock_point sample_clock_point() noexcept;

/// The ticks -> nanoseconds line of a collection (instrument.cpp keeps one, under its clock lock): through the
/// start point and the end (or latest) point; the identity for the monotonic clock.
struct clock_fit {
  bool tsc = false;
  bool final_fit = false;
  double ns_per_tick = 1.0;
  clock_point p0, p1;

  /// An event-clock reading in the now_ns() time base.
  [[nodiscard]] std::uint64_t to_ns(std::uint64_t t) const noexcept {
    if (!tsc) return t;
    const double d = static_cast<double>(static_cast<std::int64_t>(t - p0.ticks)) * ns_per_tick;
    const double ns = static_cast<double>(p0.ns) + d;
    return ns <= 0 ? 0 : static_cast<std::uint64_t>(ns + 0.5);
  }
  /// A duration (or a sum of durations) in ticks, in nanoseconds.
  [[nodiscard]] std::uint64_t dur_ns(std::uint64_t d) const noexcept {
    return tsc ? static_cast<std::uint64_t>(static_cast<double>(d) * ns_per_tick + 0.5) : d;
  }
  /// A duration in nanoseconds, in ticks; negative values (no table) pass through.
  [[nodiscard]] std::int64_t ns_to_ticks(std::int64_t ns) const noexcept {
    if (!tsc || ns < 0) return ns;
    return static_cast<std::int64_t>(static_cast<double>(ns) / ns_per_tick + 0.5);
  }
  /// Moves the second point to `p` and refits the slope (when the points are apart in both clocks).
  void refit(const clock_point& p) noexcept {
    p1 = p;
    if (p1.ticks > p0.ticks && p1.ns > p0.ns) {
      ns_per_tick = static_cast<double>(p1.ns - p0.ns) / static_cast<double>(p1.ticks - p0.ticks);
    }
  }
};

/// Renders a rank profile (profile.cpp).
[[nodiscard]] std::string rank_profile_to_json(const profile_data& p);

/// Chrome trace-event JSON writer, streaming to a FILE. Thread-safe (one mutex); bounded by max_events.
class trace_writer {
 public:
  trace_writer() = default;
  trace_writer(const trace_writer&) = delete;
  trace_writer& operator=(const trace_writer&) = delete;
  ~trace_writer();

  /// Opens `path` and writes the JSON header. False, with a message on stderr, when it cannot.
  bool open(const std::string& path, std::uint64_t max_events, int pid, std::uint64_t t0_ns);
  /// Whether a trace file is open (between a successful open() and close()). Lock-free: folds ask it per batch.
  [[nodiscard]] bool active() const noexcept { return open_.load(std::memory_order_acquire); }
  /// Whether a further event would still be written (open, and max_events not reached).
  [[nodiscard]] bool accepting() const noexcept;

  // Events; each counts against max_events. Times are absolute now_ns() values (converted from event-clock ticks by
  // the caller). Callers hold no trace lock.
  void complete(std::uint32_t tid, std::string_view name, std::string_view cat, std::uint64_t t0, std::uint64_t t1);
  void async_begin(std::uint32_t tid, std::uint64_t id, std::uint64_t t, std::uint64_t bytes, int peer,
                   std::uint32_t owner);
  void async_end(std::uint32_t tid, std::uint64_t id, std::uint64_t t);
  void instant(std::uint32_t tid, std::string_view name, std::uint64_t t, std::uint64_t id);
  /// A communication operation (trace_post / trace_done): an instant event of category "op" whose args are the
  /// JSON members in `args` (without braces).
  void op(std::uint32_t tid, std::string_view name, std::uint64_t t, std::string_view args);

  /// Writes metadata (names, never counted against the bound) and closes the file. `other_data`: more JSON
  /// members (without braces) for the "otherData" object, after the bound, the cut flag and the origin. False on a
  /// write error.
  bool close(const std::vector<std::pair<std::uint32_t, std::string>>& thread_names, std::string_view process_name,
             std::string_view other_data = {});
  [[nodiscard]] std::uint64_t written() const noexcept;

 private:
  // Counts an event that needs `slots` of the bound (2 for the first half of a transfer: its other half is reserved);
  // false, with one warning, when they do not fit beside what is written and reserved.
  bool admit_locked(std::uint64_t slots);
  // The async half of transfer `id` (begin or end): written when its other half already was (its slot is reserved),
  // else admitted as a first half reserving a slot for the other; a half whose first half was dropped is dropped.
  bool admit_half_locked(std::uint64_t id, bool begin);
  void emit_locked(const std::string& line);

  mutable std::mutex mu_;
  std::FILE* file_ = nullptr;      // under mu_
  std::atomic<bool> open_{false};  // file_ != nullptr, for active() without the lock
  std::string path_;
  std::uint64_t max_events_ = 0;
  std::uint64_t written_ = 0;
  // Transfers of which one async half is written: id -> that half is the begin. Each holds one slot of the bound
  // for its other half, so a trace cut by max_events never leaves a 'b' without its 'e' (or the reverse) for a
  // transfer that completed before the trace was closed.
  std::unordered_map<std::uint64_t, bool> half_open_;
  bool first_ = true;
  bool warned_ = false;
  int pid_ = 0;
  std::uint64_t t0_ = 0;
  std::vector<char> buffer_;
};

}  // namespace sidecore::instrument::internal
