// Completing an MPI request of the runtime's own (an agreement, a barrier, a piece of the profiles' exchange) while
// the engine progresses and watches the peers. Internal.
#pragma once

#include <mpi.h>

#include <span>

#include <sidecore/progress/engine.hpp>

namespace sidecore::detail {

/// Completes r while `e` progresses (this thread progresses it when its progress thread is not running), so that a
/// peer whose transfer needs our progress (rendezvous in mode off) is not left waiting for a rank that waits for
/// it. Returns true once r completed; false as soon as `e` has found a peer dead (checked before each test), r then
/// left incomplete: a collective a dead rank never joins never completes, and the request is left to the end of the
/// process, as finalize leaves MPI's objects once a rank died. Which peers are watched is e's setting
/// (engine::watch_all_peers).
[[nodiscard]] bool complete_unless_peer_died(progress::engine& e, MPI_Request& r);

/// The first of `members` (ranks of the init communicator, as comm_entry::to_world holds them) that `e` has found
/// dead; -1 when none has died.
[[nodiscard]] int dead_member(const progress::engine& e, std::span<const int> members);

/// Completes r, an MPI collective over the ranks `members` (as dead_member takes them), as complete_unless_peer_died
/// does, watching every peer meanwhile (no request of the engine involves a rank that never joins): -1 once r
/// completed; the rank of `members` found dead otherwise, r then left incomplete. A rank outside `members` found
/// dead does not stop the wait: the collective does not need it.
[[nodiscard]] int complete_unless_member_died(progress::engine& e, MPI_Request& r, std::span<const int> members);

}  // namespace sidecore::detail
