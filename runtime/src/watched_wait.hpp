// Completing an MPI request of the runtime's own (an agreement, a barrier, a piece of the profiles' exchange) while
// the engine progresses and watches the peers. Internal.
#pragma once

#include <mpi.h>

#include <sidecore/progress/engine.hpp>

namespace sidecore::detail {

/// Completes r while `e` progresses (this thread progresses it when its progress thread is not running), so that a
/// peer whose transfer needs our progress (rendezvous in mode off) is not left waiting for a rank that waits for
/// it. Returns true once r completed; false as soon as `e` has found a peer dead (checked before each test), r then
/// left incomplete: a collective a dead rank never joins never completes, and the request is left to the end of the
/// process, as finalize leaves MPI's objects once a rank died. Which peers are watched is e's setting
/// (engine::watch_all_peers).
[[nodiscard]] bool complete_unless_peer_died(progress::engine& e, MPI_Request& r);

}  // namespace sidecore::detail
