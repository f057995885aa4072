#include "watched_wait.hpp"

#include <sched.h>

namespace sidecore::detail {

bool complete_unless_peer_died(progress::engine& e, MPI_Request& r) {
  for (int done = 0; !done;) {
    if (e.failed_peer_count() != 0) return false;
    MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    if (done) break;
    if (!e.thread_running()) e.progress();
    else sched_yield();  // the progress thread progresses and watches the peers
  }
  return true;
}

}  // namespace sidecore::detail
