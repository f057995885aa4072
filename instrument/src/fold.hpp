// sidecore instrument — the analysis side: folding a thread's ring into the accumulators (overlap bounds by size bin
// and region, region entries and times) and trace lines, and the state the folds share (fold.cpp). Private to
// instrument/src.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "accumulators.hpp"
#include "event_clock.hpp"
#include "open_table.hpp"
#include "record.hpp"
#include "sidecore/instrument/bounds.hpp"
#include "sidecore/instrument/op_kind.hpp"
#include "threads.hpp"

namespace sidecore::instrument::internal {

/// Entries and closed time of one region path, in ticks.
struct region_stat {
  std::uint64_t entries = 0;
  std::uint64_t time = 0;
};

// Analysis state: pending transfers, overlap sums and region entries/times, in ticks (g_analysis_mu).
extern std::mutex g_analysis_mu;
extern xfer_time_table g_table;
extern std::optional<size_bins> g_bins;
extern pending_table g_pending;
extern overlap_acc g_total;
extern std::vector<overlap_acc> g_by_size;
extern std::vector<overlap_acc> g_by_region;  // index = region path id (innermost at the transfer); grows by doubling
// Index = op_kind: a record's four low bits, so 16 entries and no range check on the fold path.
extern std::array<overlap_acc, low_bits + 1> g_by_op;
extern std::vector<region_stat> g_region_stats;  // index = region path id
extern std::uint64_t g_orphan_ends;  // xfer_end whose begin never came (usage error, reported at stop)

/// Resets the analysis state for a new collection with these size bins (start()).
void reset_analysis(size_bins bins);

/// Folds the records of `st` not yet folded (under its fold lock and g_analysis_mu, taken once per batch).
void fold(thread_state* st) noexcept;
/// The owner folds its own ring; afterwards its ring is empty (no other thread appends to it).
void fold_own(thread_state* st) noexcept;
/// Folds every thread's ring (profile, trace and stop time).
void fold_all() noexcept;

/// All transfers' bounds: g_total, plus the size bins (a folded transfer is added to one of the two). g_analysis_mu.
[[nodiscard]] overlap_acc total_locked() noexcept;
/// The table's transfer time for `bytes`, in ticks of fit `f` (-1 without a table). g_analysis_mu.
[[nodiscard]] std::int64_t table_ticks(std::uint64_t bytes, const clock_fit& f) noexcept;

}  // namespace sidecore::instrument::internal
