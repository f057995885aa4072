// sidecore instrument — the Chrome trace-event writer (trace.cpp) and the collection's one instance. Private to
// instrument/src.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sidecore/common/output_file.hpp"

namespace sidecore::instrument::internal {

/// Chrome trace-event JSON writer, streaming to a temporary file beside its path that close() renames to the path
/// (output_file.hpp: never half a trace under the final name). Thread-safe (one mutex); bounded by max_events.
class trace_writer {
 public:
  trace_writer() = default;
  trace_writer(const trace_writer&) = delete;
  trace_writer& operator=(const trace_writer&) = delete;
  ~trace_writer();

  /// Opens (the temporary file of) `path` and writes the JSON header. False, with a message on stderr naming the path
  /// and the reason, when it cannot.
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

  /// Writes metadata (names, never counted against the bound), closes the file and renames it to its path (saying so
  /// when it replaces an existing file). `other_data`: more JSON members (without braces) for the "otherData" object,
  /// after the bound, the cut flag and the origin. False, with a message naming SIDECORE_TRACE, on a write error;
  /// when only the rename failed (the directory went away during the run), the trace is copied to `fallback` first
  /// (when not empty) and the message says so.
  bool close(const std::vector<std::pair<std::uint32_t, std::string>>& thread_names, std::string_view process_name,
             std::string_view other_data = {}, const std::string& fallback = {});
  [[nodiscard]] std::uint64_t written() const noexcept;
  /// The bound (max_events) and the events it refused since open(), for the profile's "limits"; refused stays 0
  /// while the bound was not reached. Still answers after close().
  [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> bound_and_refused() const noexcept;
  /// The trace's final path (empty before open()).
  [[nodiscard]] std::string path() const {
    std::lock_guard lk(mu_);
    return path_;
  }

 private:
  // Counts an event that needs `slots` of the bound (2 for the first half of a transfer: its other half is reserved);
  // false, with one warning, when they do not fit beside what is written and reserved.
  bool admit_locked(std::uint64_t slots);
  // The async half of transfer `id` (begin or end): written when its other half already was (its slot is reserved),
  // else admitted as a first half reserving a slot for the other; a half whose first half was dropped is dropped.
  bool admit_half_locked(std::uint64_t id, bool begin);
  void emit_locked(const std::string& line);

  mutable std::mutex mu_;
  std::unique_ptr<output_file> out_;  // under mu_
  std::FILE* file_ = nullptr;         // out_'s stream, under mu_
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
  std::uint64_t refused_ = 0;  // events admit_locked turned away (recording stops soon after the first)
  int pid_ = 0;
  std::uint64_t t0_ = 0;
  std::vector<char> buffer_;
};

/// The collection's trace (open between start() and write_trace()).
extern trace_writer g_trace;

}  // namespace sidecore::instrument::internal
