// Entering and leaving mode core while the engine runs: at init (SIDECORE_PROGRESS=core) and when mode auto switches
// (auto_mode.hpp). Internal.
#pragma once

namespace sidecore::detail {

struct runtime_state;

/// Fences OpenMP off the reserved core (fence_openmp: N_core − 1 threads from the next parallel region on, each bound
/// to an application core) and starts the progress thread pinned to the reserved core. Call from the thread that runs
/// the parallel regions, outside any. Requests in flight stay valid: the progress thread takes over whatever the
/// application threads had started (the engine decides who progresses by whether its thread runs).
void enter_core_mode(runtime_state& s);

/// Stops the progress thread (its last pass first) and gives OpenMP back the thread count and the binding of mode off.
/// Call from the thread that runs the parallel regions, outside any, while no other application thread is inside
/// sidecore (a waiter of mode core would wait for a progress thread that is gone).
void leave_core_mode(runtime_state& s);

}  // namespace sidecore::detail
