// sidecore instrument — monitoring of collective operations (seed 002, EventSpace; issue 14, section 3): per collective
// *instance*, each rank records its arrival and its departure; the records are fixed-size, go to the recording
// thread's ring like every event, and are folded incrementally into per-kind statistics (latency) and a bounded,
// deterministic sample of instances per communicator. At the end, analyze_collectives() brings every rank's sample to
// rank 0 through a caller-provided exchange (instrument/ does not depend on MPI), matches the instances across the
// members of each communicator, and gives every rank its arrival and departure waits and its place in the arrival
// order: the load-imbalance signal. Ranks on different hosts are brought to rank 0's clock by an offset estimated by
// ping-pong (Cristian's method, minimum round trip), whose error bound the profile reports. docs/instrument.md,
// "Collective monitoring", says what is exact and what is sampled.
//
// Callers: the collectives executor (departure: when the engine completes the rank's schedule) and the PMPI profiler
// (departure: the return of the blocking call, or of the wait/test that reported a nonblocking one complete).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sidecore/instrument/instrument.hpp"
#include "sidecore/instrument/op_kind.hpp"

namespace sidecore::instrument {

/// A monitored collective instance: what coll_arrive() returns and coll_depart() takes. Trivially copyable; the
/// executor keeps it in its schedule. An instance is identified by its communicator and sequence number alone, so
/// the handle needs no state of the monitor (and costs nothing while collection is off).
struct coll_instance {
  std::uint64_t comm_key = 0;  ///< the communicator's key, as given to coll_arrive()
  std::uint64_t seq = 0;       ///< the instance's sequence number on it
};

namespace detail {
// Out-of-line recording with an explicit event-clock time (tests pass synthetic ones); only while enabled().
void coll_arrive_at(op_kind kind, std::uint64_t comm_key, std::uint64_t seq, std::uint64_t bytes,
                    std::uint32_t comm_size, std::uint64_t t) noexcept;
void coll_depart_at(std::uint64_t comm_key, std::uint64_t seq, std::uint64_t t) noexcept;
}  // namespace detail

/// A communicator key with this bit set names a communicator whose key this rank could not agree with its other
/// members (the PMPI profiler's MPI_Comm_idup results): its instances count in the latency figures, and are not
/// sampled for the cross-rank ones, where no other member's record could ever match them.
inline constexpr std::uint64_t local_comm_key_bit = std::uint64_t{1} << 63;

/// ARRIVAL: this rank enters collective instance `seq` of communicator `comm_key` — the entry of a blocking call, or
/// the initiation of a nonblocking one — from any thread.
///  * kind: the collective's kind (not op_kind::p2p);
///  * comm_key: identifies the communicator, the same on every member and different for every communicator of the
///    run (a communicator id reused after a free needs a new key: fold in a generation counter); with
///    local_comm_key_bit set, known to this rank alone;
///  * seq: the instance's sequence number on that communicator, counted by every member alike (0, 1, 2, ... in the
///    order the members start their collectives on it, which MPI and sidecore require to be the same): this is how
///    the members' records of one instance are matched;
///  * bytes: this rank's contribution (its send buffer; 0 for a barrier);
///  * comm_size: the communicator's size.
/// An instance whose arrival is recorded twice, or whose departure never comes, is left out of every figure.
/// Returns the instance's handle, to pass to coll_depart() (it is just (comm_key, seq): keeping it is optional).
inline coll_instance coll_arrive(op_kind kind, std::uint64_t comm_key, std::uint64_t seq, std::uint64_t bytes,
                                 std::uint32_t comm_size) noexcept {
  if (enabled()) detail::coll_arrive_at(kind, comm_key, seq, bytes, comm_size, detail::ticks());
  return {comm_key, seq};
}

/// DEPARTURE: this rank's part of instance `seq` of `comm_key` is complete — every send and receive of its schedule
/// done and its output buffer final. The collectives executor records it when the engine completes the rank's
/// schedule (whichever thread sees that: it does not wait for the application's wait/test, so that the departure wait
/// measures the protocol, not where the application put its wait); the PMPI profiler, which cannot see inside MPI,
/// at the return of the blocking call, or of the MPI_Wait/Test that reported a nonblocking one complete (later than
/// the true completion by the time the application took to ask). Any thread.
inline void coll_depart(std::uint64_t comm_key, std::uint64_t seq) noexcept {
  if (enabled()) detail::coll_depart_at(comm_key, seq, detail::ticks());
}
/// The same, with the handle coll_arrive() returned.
inline void coll_depart(coll_instance instance) noexcept { coll_depart(instance.comm_key, instance.seq); }

/// A blocking exchange of bytes between the ranks of the job, provided by the caller (the runtime and the PMPI
/// profiler implement it with MPI point-to-point on a private communicator). Both functions block until done.
struct exchange {
  int rank = 0;    ///< this rank in the job
  int nranks = 1;  ///< ranks in the job
  /// Sends `bytes` bytes at `data` to rank `to`.
  std::function<void(int to, const void* data, std::size_t bytes)> send;
  /// Receives exactly `bytes` bytes from rank `from` into `data`.
  std::function<void(int from, void* data, std::size_t bytes)> recv;
};

/// This rank's clock offset to rank 0's (CLOCK_MONOTONIC, the now_ns() time base of every profile time).
struct clock_offset {
  double offset_ns = 0.0;  ///< rank 0's clock minus this rank's
  double bound_ns = 0.0;   ///< the offset's error is at most this (half the round trip it was taken from)
  double rtt_ns = 0.0;     ///< the minimum round trip measured (0 on rank 0)
  std::string method;      ///< how it was obtained, for the profile
};

/// Estimates this rank's clock offset to rank 0's; collective over `ex` (every rank calls it). Ranks of one host (the
/// same kernel boot id) share one CLOCK_MONOTONIC, so one measurement serves them all: ranks on rank 0's host get
/// offset 0, bound 0; on each other host the lowest rank measures with Cristian's method and gives its result to the
/// host's other ranks. Cristian's method: `rounds` ping-pongs with rank 0 (which serves one host after another); of
/// each, rank 0's clock T at the pong and this rank's t1, t2 around it give offset T - (t1 + t2) / 2 with error at
/// most (t2 - t1) / 2; the round with the smallest round trip is kept. rounds is clamped to 1..1000.
/// `measure_same_host` (tests) makes every rank a host of its own: each measures. A rank whose boot id cannot be read
/// measures too.
[[nodiscard]] clock_offset estimate_clock_offset(const exchange& ex, int rounds = 16, bool measure_same_host = false);

/// Estimates the offset (estimate_clock_offset) and keeps it as the collection's offset at this instant: call it once
/// at the start of a run, after start(). analyze_collectives() takes a second one at the end and interpolates between
/// the two, so that a drift between the hosts' clocks over the run is followed. Collective over `ex`.
void synchronize_clock(const exchange& ex);

/// Gives rank 0's `bytes` bytes at `data` to every rank's `data` (the same count on every rank), along a binomial
/// tree: rank 0 sends ceil(log2 P) messages and every rank has them after at most ceil(log2 P) steps. Collective
/// over `ex`; at one rank it does nothing.
void broadcast_from_rank0(const exchange& ex, void* data, std::size_t bytes);

/// Gives rank 0 every rank's `mine`, in rank order (an empty one stays empty), along a binomial tree: each rank
/// sends once (its subtree's texts, lengths in 64 bits: a job's profiles may pass 2 GiB together), and rank 0 has
/// them after ceil(log2 P) steps. Returns them on rank 0, nothing on the others. Collective over `ex`.
[[nodiscard]] std::vector<std::string> gather_to_rank0(const exchange& ex, const std::string& mine);

/// The ranks whose text is empty in gather_to_rank0's result, as "1, 3" (the ranks that have no profile to give);
/// empty when every rank gave one.
[[nodiscard]] std::string ranks_without_text(const std::vector<std::string>& texts);

/// Gives the run an id, written to every rank's profile ("run"): rank 0 makes it (16 hex digits from the wall clock,
/// its process id, host and random device) and gives it to every rank over `ex` (broadcast_from_rank0), so that
/// readers can refuse to combine profiles of different runs. Call once after start(); collective over `ex`. No
/// effect when not collecting.
void agree_run_id(const exchange& ex);

/// The cross-rank analysis, at the end of the run (finalize: off the application's critical path); collective over
/// `ex`, after every rank's last collective. Folds every ring, brings each rank's sampled instances (in rank 0's time
/// base) to rank 0, matches each instance across its communicator's members, and sends every rank its figures, which
/// the next rank_profile() writes in its "collectives" section. Bounded memory: rank 0 holds the samples of every
/// rank at once, at most collective_samples_budget bytes in all (32 bytes a kept instance): a rank whose samples
/// pass its share (the budget / ranks) keeps every other instance of its fullest communicator, as a full sample does,
/// until they fit (at least one instance a communicator stays).
void analyze_collectives(const exchange& ex);

/// What rank 0 receives at most in analyze_collectives() (every rank's share: this / ranks): 256 MiB, which the
/// default sample capacity of 1024 instances fills at 4096 ranks with two communicators each.
inline constexpr std::uint64_t collective_samples_budget = std::uint64_t{256} << 20;

}  // namespace sidecore::instrument
