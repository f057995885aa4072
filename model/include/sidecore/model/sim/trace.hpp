// sidecore simulator — reading the traces that SIDECORE_TRACE writes (one Chrome trace-event file per rank,
// instrument/src/trace.cpp) back into what each rank did: its calls into sidecore, in time order, with the
// operations each call started (post_send, post_recv) and completed (done), and the process metadata.
// docs/simulate.md, "What the trace carries", lists the fields; whatif.hpp replays the result.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sidecore::model::sim {

/// A send or receive started inside a call (a trace "post_send" / "post_recv" event).
struct traced_post {
  bool send = false;
  std::uint64_t req = 0;      ///< the request's handle: what a later "done" names
  int world_peer = -1;        ///< destination, or source (-1: any source), in the init communicator
  int tag = 0;                ///< as given (-1 = any tag for a receive, sidecore::any_tag)
  int comm = 0;               ///< the communicator's id (0: the init communicator)
  std::uint64_t bytes = 0;    ///< the posted size
  std::string proto;          ///< sends: "inject", "eager" or "rndv"; receives: "posted"
  double ts_ns = 0;           ///< when it was recorded, ns from the rank's trace origin
};

/// A request completed inside a call (a trace "done" event). For a receive, the matched source and tag.
struct traced_done {
  std::uint64_t req = 0;
  int world_source = -1;      ///< receives: the matched source in the init communicator; sends: -1
  int tag = -1;               ///< receives: the matched tag; sends: -1
  std::uint64_t bytes = 0;    ///< bytes sent or received
  double ts_ns = 0;
};

/// One outermost call into sidecore on the communicating thread (an "X" event of a call category).
struct traced_call {
  std::string name;      ///< "sidecore::isend", ...
  std::string category;  ///< blocking, init, test, wait, other
  double t0_ns = 0, t1_ns = 0;  ///< from the rank's trace origin
  std::vector<traced_post> posts;
  std::vector<traced_done> dones;
  /// The call completed a request the trace does not show starting: a collective's (sidecore's collectives record
  /// their completion, not their messages). Set by link_traces, which takes those dones out; the replay keeps the
  /// call's measured time.
  bool untraced = false;
};

/// What one rank's trace file holds for the replay.
struct rank_trace {
  std::string source;  ///< the file
  int rank = -1;
  int nranks = 0;
  std::string run;     ///< the run's id (otherData.run, as in the run's profiles); empty: the trace has none
  std::string host;    ///< the host's id (otherData.host, the profiles' host.id: one clock); empty: none
  std::string mode, provider;
  std::uint64_t eager_max = 0, inject_size = 0;
  int omp_threads = 0;
  std::uint64_t origin_monotonic_ns = 0;  ///< CLOCK_MONOTONIC of the trace's time 0 (same host: a common origin)
  bool truncated = false;                 ///< cut at SIDECORE_TRACE_MAX_EVENTS
  std::uint64_t max_events = 0;
  std::vector<traced_call> calls;  ///< the communicating thread's calls, in time order, not overlapping
  double end_ns = 0;               ///< the end of its last call (the replayed span is [0, end_ns])
};

/// Parses one rank's trace. `source` names it in errors. Throws sidecore::input_error (source, field, message):
/// malformed JSON gives "byte N" and what the parser expected; a missing or bad member gives
/// "traceEvents[i].args.peer" and what is accepted; a trace without the operation records (recorded before they
/// existed, or by the PMPI profiler) is refused saying so; operations on more than one thread are refused (the
/// replay knows one communicating thread per rank); an operation outside every call span is named.
/// A trace cut at SIDECORE_TRACE_MAX_EVENTS is read (truncated = true): the replay refuses it.
[[nodiscard]] rank_trace parse_trace(std::string_view text, const std::string& source);

/// Reads a trace file (a regular file of at most max_trace_bytes) and parses it.
[[nodiscard]] rank_trace read_trace_file(const std::string& path);

/// Largest trace file read (4 GiB: 10^7 events of ~200 bytes and more).
inline constexpr std::uint64_t max_trace_bytes = 4ULL << 30;

}  // namespace sidecore::model::sim
