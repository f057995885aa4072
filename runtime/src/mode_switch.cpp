// Entering and leaving mode core while the engine runs (mode_switch.hpp).
#include "mode_switch.hpp"

#include <omp.h>

#include <cstdio>
#include <string>

#include <sidecore/instrument/instrument.hpp>

#include "state.hpp"

namespace sidecore::detail {

void enter_core_mode(runtime_state& s) {
  // libgomp starts a region's threads from its pool in team order, so binding each thread of a region of the new
  // size here binds the threads the application's next region gets; threads created later inherit the master's
  // binding, which excludes the reserved core too.
  s.fence = fence_openmp(*s.topo, s.reserved_core);
  const topology* topo = s.topo.get();
  const int core = s.reserved_core;
  s.eng->start_thread([topo, core] {
    if (instrument::enabled()) instrument::mark_progress_thread();
    std::string why;
    if (!topo->bind_thread_to_core(core, &why))
      std::fprintf(stderr, "sidecore: warning: progress thread: %s\n", why.c_str());
  });
  s.core_active = true;
}

void leave_core_mode(runtime_state& s) {
  s.eng->stop_thread();
  s.core_active = false;
  if (!s.fence.user_threads) omp_set_num_threads(s.off_threads);
  s.fence.threads = omp_get_max_threads();
  s.fence.notes.clear();
  if (s.fence.user_places) return;  // the user's places were respected: nothing of ours to undo
  std::string why;
  if (!s.topo->bind_thread_allowed(&why)) std::fprintf(stderr, "sidecore: warning: %s\n", why.c_str());
#pragma omp parallel num_threads(s.off_threads)
  (void)s.topo->bind_thread_allowed();
}

}  // namespace sidecore::detail
