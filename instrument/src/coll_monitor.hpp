// sidecore instrument — the fold side of collective monitoring: arrivals and departures paired per instance, per-kind
// statistics of every completed instance, and each communicator's deterministic sample of instances for the
// cross-rank analysis (coll_analysis.cpp). Under g_analysis_mu, like the rest of the analysis. Private to
// instrument/src.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "event_clock.hpp"
#include "record.hpp"
#include "sidecore/common/profile.hpp"
#include "sidecore/instrument/op_kind.hpp"

namespace sidecore::instrument::internal {

// GCC's 128-bit integer (an extension: __extension__ keeps -Wpedantic quiet): a sum of squared nanoseconds.
__extension__ using uint128 = unsigned __int128;

/// Running statistics of durations in nanoseconds: the count, the sum and the sum of squares in exact integers (no
/// division on the fold path; the variance is formed once, at the end), the exact minimum and maximum, and the
/// histogram of common/'s duration_bin (dense: 8 bins per octave up to 2^64 ns).
struct duration_acc {
  std::uint64_t count = 0;
  std::uint64_t sum = 0;
  uint128 sumsq = 0;
  std::uint64_t min = UINT64_MAX, max = 0;
  std::array<std::uint64_t, 8 * 64 + 1> hist{};

  void add(std::uint64_t ns) noexcept {
    ++count;
    sum += ns;
    sumsq += static_cast<uint128>(ns) * ns;
    if (ns < min) min = ns;
    if (ns > max) max = ns;
    ++hist[static_cast<std::size_t>(duration_bin(ns))];
  }
  /// In the profile's form (seconds, sparse histogram, median read from it).
  [[nodiscard]] duration_stats stats() const;
};

/// Completed instances of one kind on this rank.
struct coll_kind_acc {
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  duration_acc latency;
};

/// One sampled instance: its sequence number, kind and this rank's arrival and departure (event-clock ticks).
struct coll_sample {
  std::uint64_t seq = 0;
  std::uint64_t arrive = 0;
  std::uint64_t depart = 0;
  std::uint8_t kind = 0;
};

/// Whether a sample of stride `stride` (a power of two) keeps instance `seq`: the low log2(stride) bits of a hash of
/// seq are zero. Not the bits of seq itself: a loop of K collectives a step on one communicator would then keep, once
/// the stride passes the largest power of two dividing K, the instances of some of its steps' calls only (a barrier
/// and an allreduce a step: only barriers at stride 2). Nested: kept at 2 x stride implies kept at stride. About one
/// instance in `stride` is kept, spread over the run.
[[nodiscard]] inline bool sampled_at(std::uint64_t seq, std::uint64_t stride) noexcept {
  std::uint64_t x = seq;  // splitmix64's finaliser: a bijection that spreads every input bit over the low ones
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  x ^= x >> 31;
  return (x & (stride - 1)) == 0;
}

/// A communicator's sample: the completed instances that sampled_at(seq, stride) keeps; when it is full the stride
/// doubles and the instances it no longer keeps leave. The kept set depends only on the set of completed instances
/// (not on the order they completed in), so every member keeps the same instances.
struct comm_sample {
  std::uint64_t key = 0;
  std::uint32_t comm_size = 0;
  std::uint64_t stride = 1;
  std::vector<coll_sample> kept;
};

/// The bytes `comms` take in the analysis' message to rank 0: 8, and per communicator 32 and 32 a kept instance.
[[nodiscard]] std::uint64_t sample_wire_bytes(const std::vector<comm_sample>& comms);
/// Thins `comms` (a copy of the samples) to at most `max_bytes` in sample_wire_bytes(): the communicator keeping the
/// most instances doubles its stride, as a full sample does, until they fit or each keeps at most one. The kept sets
/// still depend on the sequence numbers only, so members thinned to different strides match on the coarsest.
void thin_samples(std::vector<comm_sample>& comms, std::uint64_t max_bytes);

/// Resets the monitor for a new collection keeping `capacity` instances per communicator (start()).
void reset_collectives(std::size_t capacity);
/// Folds one coll_arrive or coll_depart record (g_analysis_mu held). `f`: the fold's clock fit.
void on_coll_locked(const record& r, const clock_fit& f);
/// An arrival whose departure is the next record of the same ring (a blocking collective on one thread), with no
/// entry pending for the instance: completes it without the table, as on_coll_locked() would pair them. False
/// (nothing done) otherwise.
bool pair_adjacent_coll_locked(const record& arrival, const record& departure, const clock_fit& f);

/// The per-kind statistics (g_analysis_mu held); index = op_kind.
[[nodiscard]] const std::array<coll_kind_acc, op_kind_count>& collective_kinds_locked() noexcept;
/// The communicators' samples (g_analysis_mu held).
[[nodiscard]] const std::vector<comm_sample>& collective_samples_locked() noexcept;
/// Instances kept per communicator.
[[nodiscard]] std::size_t collective_sample_capacity_locked() noexcept;
/// Arrivals or departures recorded twice for one instance since the last call (a caller's error; those instances are
/// left out), for stop() to report once.
[[nodiscard]] std::uint64_t take_collective_duplicates_locked() noexcept;

}  // namespace sidecore::instrument::internal
