#include "watched_wait.hpp"

#include <sched.h>

#include <algorithm>
#include <vector>

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

int dead_member(const progress::engine& e, std::span<const int> members) {
  if (e.failed_peer_count() == 0) return -1;
  for (const int p : e.failed_peers())
    if (std::find(members.begin(), members.end(), p) != members.end()) return p;
  return -1;
}

int complete_unless_member_died(progress::engine& e, MPI_Request& r, std::span<const int> members) {
  const bool watching = e.watching_all_peers();
  e.watch_all_peers(true);
  int dead = -1;
  std::size_t seen = 0;  // deaths already looked at: the members are compared again only when one more is found
  for (int done = 0; !done;) {
    if (const std::size_t n = e.failed_peer_count(); n != seen) {
      seen = n;
      if ((dead = dead_member(e, members)) >= 0) break;
    }
    MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    if (done) break;
    if (!e.thread_running()) e.progress();
    else sched_yield();  // the progress thread progresses and watches the peers
  }
  if (!watching) e.watch_all_peers(false);
  return dead;
}

}  // namespace sidecore::detail
