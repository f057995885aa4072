// sidecore simulator — discrete-event LogGOPS simulation of a schedule (seed 001; the rules of
// LogGOPSim, spcl/LogGOPSim, which docs/simulate.md spells out). No MPI, no libfabric.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sidecore/model/sim/schedule.hpp"

namespace sidecore::model::sim {

/// LogGOPS parameters in nanoseconds (G and O per byte). The defaults are LogGOPSim's.
struct loggops_params {
  double L = 2500;  ///< latency: first byte leaves the sender o + L after the send starts
  double o = 1500;  ///< CPU overhead per message, at the sender and at the receiver
  double g = 1000;  ///< NIC gap per message (minimum interval between two sends, two receives)
  double G = 6;     ///< NIC gap per byte after the first
  double O = 0;     ///< CPU overhead per byte after the first
  std::uint64_t S = 65535;  ///< largest eager message; larger ones wait for the matching receive
  /// Not LogGOPSim's rule (off by default): an operation that becomes ready is queued no earlier than the moment
  /// its dependencies ended (a calc at its end, a send once its o is paid or, rendezvous, at the match, a receive
  /// once its message is taken in), not only at its own CPU's clock. LogGOPSim queues it at the CPU's clock, which
  /// is right when every dependency runs on the same CPU and lets an operation on another CPU start before what it
  /// waits for has ended; the trace replay (whatif.hpp) puts computation and transfers on two CPUs and sets it.
  bool causal = false;
};

/// The largest L, o, g, G, O accepted (1e15 ns, 11.6 days per message or byte): with at most 2^32 operations of at
/// most 2^64 bytes each, the finish times stay below 1e44 ns, far from a double's overflow to infinity, which a
/// parameter near 1e308 reaches at once (and inf - inf gives NaN finish times).
inline constexpr double max_param_ns = 1e15;

/// Throws sidecore::input_error naming the parameter ("-G") when one is negative, not finite or above
/// max_param_ns.
void validate(const loggops_params& p);

/// CPU time the simulator charges at the sender of a `size`-byte message, o + (s-1) O, and at its receiver when
/// it is taken in, o + (s-1) max(O, G) (LogGOPSim's rules, its 0-byte case included: the byte term of a 0-byte
/// message is minus O, or minus the smaller nonzero of O and G at the receiver).
[[nodiscard]] double send_cpu_ns(const loggops_params& p, std::uint64_t size);
[[nodiscard]] double recv_cpu_ns(const loggops_params& p, std::uint64_t size);

/// What a CPU is busy with: a calc, the o (+ bytes x O) of a send, or that of taking in a message.
enum class cpu_work : std::uint8_t { calc, send, reception };

/// What the simulator reports as it goes, for timelines (optional; every call is in simulated ns).
class sim_observer {
 public:
  sim_observer() = default;
  sim_observer(const sim_observer&) = default;
  sim_observer& operator=(const sim_observer&) = default;
  virtual ~sim_observer() = default;
  /// The rank's CPU `cpu` is busy with operation `id` over [begin, end) (for a reception, `id` is the send).
  virtual void cpu_busy(std::uint32_t rank, unsigned cpu, cpu_work what, op_id id, double begin, double end) = 0;
  /// The message of send `id` left its rank at `sent` (after o) and was received (matched and its
  /// bytes taken in, or parked unexpected) at `received` by rank `to`.
  virtual void message(op_id id, std::uint32_t to, double sent, double received) = 0;
};

/// Result of a simulation.
struct sim_result {
  /// Per rank, when its last CPU becomes free: LogGOPSim's "Host N: T" (the largest next-free
  /// time over the rank's CPUs; NIC times do not count).
  std::vector<double> finish_ns;
  /// Events taken from the queue, re-insertions of a delayed operation included.
  std::uint64_t events = 0;
  /// Operations and messages put in the queue (LogGOPSim's "Events" count).
  std::uint64_t insertions = 0;
  /// Messages sent.
  std::uint64_t messages = 0;
  /// Receives matched with a message whose size differs (LogGOPSim then picks the protocol by the
  /// receive's size if the message came first, by the message's otherwise).
  std::uint64_t size_mismatches = 0;
  /// False when operations were left that could never run (a deadlocked schedule), or an eager send
  /// was matched from the unexpected queue by a receive larger than S (LogGOPSim would complete it
  /// twice); `problems` then names them: unmatched receives, messages nobody received, operations
  /// waiting for those, those sends.
  bool complete = true;
  std::vector<std::string> problems;
  /// Operations that never completed (problems lists at most a few of them).
  std::uint64_t unfinished = 0;
  /// Messages that arrived and that no receive matched (left in the unexpected queues).
  std::uint64_t unreceived = 0;
  /// Eager sends matched from the unexpected queue by a receive larger than S (see `complete`).
  std::uint64_t eager_matched_as_rendezvous = 0;

  [[nodiscard]] double makespan_ns() const;
  /// Why an incomplete simulation is incomplete, in one line of counts for a header above `problems`:
  /// "the schedule cannot finish (a deadlock): 4 operation(s) never completed, 1 message(s) arrived that
  /// no receive matched", or "every operation completed, but ..." where none is left undone.
  [[nodiscard]] std::string failure_summary() const;
};

/// Simulates `s` under `p`, LogGOPSim's rules exactly: for the same schedule and integer parameters
/// the finish times equal LogGOPSim's. Never hangs: a schedule that cannot finish ends with
/// complete = false and its problems named. Its time is quadratic in the operations ready at once on
/// one CPU or NIC (each is put back whenever another runs, as in LogGOPSim; docs/simulate.md). Throws
/// input_error for invalid parameters.
[[nodiscard]] sim_result simulate(const schedule& s, const loggops_params& p, sim_observer* observer = nullptr);

}  // namespace sidecore::model::sim
