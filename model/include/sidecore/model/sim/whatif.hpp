// sidecore simulator — the trace-driven what-if (seed 003; docs/simulate.md "Trace-driven what-if"): the
// traces of a run (trace.hpp) become, per rank, computation bursts (the time between two calls) and the
// communication operations, sends are linked to the receives that matched them, and the whole is replayed by
// the LogGOPS simulator in three scenarios:
//   in_calls        progress only inside calls (off mode, plain MPI): one CPU per rank does the computation, the
//                   overheads of sends and receptions, and the rendezvous waits of its sends;
//   dedicated_core  a progress core: sends and receptions are handled by a second CPU of the rank, the
//                   computation is slowed by the loss of a core (N/(N-1), or a measured scaling table);
//   ideal_overlap   seed 003's automatic overlap: every message is cut into chunks, each sent as soon as its
//                   share of the computation before the send has run and received before its share of the
//                   computation after the completing wait needs it; transfers are handled as in
//                   dedicated_core but without slowing the computation (the ideal).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sidecore/model/sim/loggops.hpp"
#include "sidecore/model/sim/schedule.hpp"
#include "sidecore/model/sim/trace.hpp"

namespace sidecore::model::sim {

enum class scenario : std::uint8_t { in_calls = 0, dedicated_core = 1, ideal_overlap = 2 };
inline constexpr std::array<scenario, 3> all_scenarios{scenario::in_calls, scenario::dedicated_core,
                                                       scenario::ideal_overlap};
/// "progress in calls", "dedicated core", "ideal overlap".
[[nodiscard]] const char* scenario_name(scenario s) noexcept;

/// One message: the send of rank `from` (its `send_post`-th post) matched with the receive of rank `to`.
struct traced_message {
  std::uint32_t from = 0, to = 0;
  std::uint64_t bytes = 0;  ///< the bytes sent
  int comm = 0, tag = 0;
};

/// The traces of one run, checked and linked. Sends and receives are matched by MPI's non-overtaking rule:
/// the k-th send from A to B on (communicator, tag) matches the k-th receive posted at B whose *matched* source
/// (as the trace recorded it at completion) is A and whose matched tag is that tag.
struct linked_traces {
  std::vector<rank_trace> ranks;  ///< index = rank
  std::string run;                ///< the run's id where the traces carry one (they agree), else empty
  /// Per rank, per call, per post of that call: the message index, or -1 for a post left out (a receive that
  /// never completed, a send never matched and never completed).
  std::vector<std::vector<std::vector<std::int64_t>>> message_of_post;
  /// Per rank, per call, per done of that call: the rank's call and post index it completed ({call, post}).
  std::vector<std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>>> post_of_done;
  std::vector<traced_message> messages;
  /// Per rank, ns by which its trace origin follows the earliest rank's (CLOCK_MONOTONIC of the same host).
  std::vector<double> origin_offset_ns;
  /// What was left out or assumed, in sentences.
  std::vector<std::string> warnings;
};

/// Checks and links the traces of one run (one per rank, in any order). Throws sidecore::input_error naming the
/// file: a trace cut at SIDECORE_TRACE_MAX_EVENTS (the replay would simulate a shorter run), ranks missing or
/// repeated, traces of different runs (nranks, or run ids), a "done" for a request never posted (in the trace of a
/// rank that called sidecore's collectives, such a done is the collective's: taken out, its call marked untraced,
/// with a warning), every completed send or receive that has no partner (up to 10 named, by rank, call, time, peer,
/// communicator and tag), and a matched pair no run could have made: a receive that received another size than its
/// send sent, or (traces that name one host, whose clocks are one clock) that completed more than 2 µs before the
/// call that sent its message began.
/// Receives that never completed, and sends that never completed and were never received, are left out with a
/// warning.
[[nodiscard]] linked_traces link_traces(std::vector<rank_trace> traces);

struct whatif_options {
  loggops_params params;
  /// Computation time in dedicated_core over that in the trace (N/(N-1) for N cores and linear scaling).
  double dedicated_comp_factor = 1.0;
  /// Chunks per message in ideal_overlap (a message of fewer bytes gets one chunk per byte, at least one).
  unsigned chunks = 16;
};

/// The replay schedule of one scenario. Operation labels name the call they come from ("c12_send", ...).
/// Throws sidecore::input_error when there are too many messages × chunks for the simulator's 32-bit tags.
[[nodiscard]] schedule build_scenario(const linked_traces& lt, scenario sc, const whatif_options& o);

/// The three scenarios simulated.
struct whatif_result {
  std::array<sim_result, 3> sims;   ///< by scenario
  std::vector<double> traced_ns;    ///< per rank: its traced span (origin offset + end of its last call)
  [[nodiscard]] double makespan(scenario s) const { return sims[static_cast<std::size_t>(s)].makespan_ns(); }
  /// Speedup of a scenario against in_calls (in_calls time / its time).
  [[nodiscard]] double speedup(scenario s) const;
};
/// Simulates the three scenarios; `observers` (optional, one per scenario, may be null) see each simulation.
[[nodiscard]] whatif_result run_whatif(const linked_traces& lt, const whatif_options& o,
                                       const std::array<sim_observer*, 3>& observers = {});

/// One point of a bandwidth sweep: G scaled by 1/bandwidth_factor.
struct sweep_point {
  double bandwidth_factor = 1;        ///< bandwidth relative to the parameters' (1/G)
  std::array<double, 3> makespan_ns{};  ///< by scenario
};
/// Makespans of the three scenarios at every factor (seed 003's figure: speedup against bandwidth).
[[nodiscard]] std::vector<sweep_point> bandwidth_sweep(const linked_traces& lt, const whatif_options& o,
                                                       const std::vector<double>& factors);

/// The bandwidth factor (relative to o.params) at which scenario `s` reaches `target_ns`, found by bisection in
/// log space between `lo` and `hi`; negative when even `hi` (the fastest) does not reach it, 0 when even `lo`
/// does. A makespan is assumed not to grow with bandwidth.
[[nodiscard]] double bandwidth_to_reach(const linked_traces& lt, const whatif_options& o, scenario s,
                                        double target_ns, double lo, double hi);

/// How much computation the traced program put between starting its transfers and waiting for them: what a
/// progress core can overlap (seed 004 Section V: BT-MZ's Isend/Irecv/Waitall with nothing in between).
struct overlap_room {
  std::uint64_t nonblocking_bytes = 0;  ///< sent or received by operations started and completed in different calls
  std::uint64_t blocking_bytes = 0;     ///< by blocking calls (started and completed in one call)
  std::uint64_t bytes_without_room = 0; ///< nonblocking bytes with less than 1 µs of computation before their wait
  /// The computation that lies between some operation's start and its completion (each stretch once, however many
  /// operations are in flight over it), summed over the ranks: what a progress core could overlap at most.
  double comp_overlappable_ns = 0;
};
[[nodiscard]] overlap_room measure_overlap_room(const linked_traces& lt);

}  // namespace sidecore::model::sim
