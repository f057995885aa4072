// Is the calling thread's core shared with another runnable thread? Both of our spinners ask: an application
// thread waiting for its request (caller_progress.cpp) and the progress thread with nothing to do
// (progress_loop.cpp). A spinner that shares its core takes it from the very thread it waits for (on 2 cores: the
// peer rank doing the other half of the transfer), and sched_yield does not reliably hand the core over: on
// Linux's EEVDF scheduler (6.6 and later) a yield that returns at once leaves the woken peer waiting for the next
// scheduler tick (4 ms at HZ=250). A spinner that finds its core shared sleeps instead, on what wakes it (the
// request's state word, the doorbell), for a while (below), then spins and looks again.
#pragma once

#include <sys/resource.h>

#include <cstdint>

namespace sidecore::progress {

// A pass or a sched_yield that took longer than this may have run another thread (alone on its core a yield takes
// ~0.7 us on our VM, 99.9 % under 2.1 us): then the spinner asks the kernel (core_shared).
inline constexpr std::uint64_t shared_yield_ns = 1500;

// Once an application thread waiting for its request found its core shared, its waits sleep at once for this long
// (a waitall over a window of transfers is many waits), then it spins and looks again.
inline constexpr std::uint64_t shared_hold_ns = 10'000'000;

// The progress thread sleeps so only while collectives run (progress_loop.cpp). Measured on 2 cores with the idle
// peer on the progress core: for point-to-point transfers a sleeping progress thread answered each protocol step
// a wake-up later (1 MiB receiver-side overlap fell from 100 % to 75-78 % with a 10 ms hold, to 75-96 % with 1 ms;
// bench/run-overlap.sh --quick); for collectives a spinning one made every step of 32 KiB and more wait 4 ms
// (bench/run-coll.sh: allreduce and bcast of 32 KiB-4 MiB took 4-8 ms; 120-1300 us with a 10 ms hold).
inline constexpr std::uint64_t progress_shared_hold_ns = 10'000'000;

// True when the calling thread was switched out involuntarily (preempted, or a yield ran another thread) since
// its previous call (its first call: since the thread started): its core is shared with another runnable thread.
inline bool core_shared() noexcept {
  static thread_local long seen = 0;
  rusage u{};
  if (getrusage(RUSAGE_THREAD, &u) != 0) return false;
  const bool more = u.ru_nivcsw != seen;
  seen = u.ru_nivcsw;
  return more;
}

}  // namespace sidecore::progress
