// Caller progress (mode core), and application threads waiting for their requests in both modes.
//
// Every message handed from an application thread to the progress thread crosses between cores twice (the
// submission, the completion): on our 2-vCPU VM 0.2-1 us per message, 2-8x raw libfabric's 8 B latency. So while
// the application posts and waits for eager-sized messages (a ping-pong), the calling thread does the work itself,
// as in mode off, and the progress thread steps aside ("parks"); once the application has made no call for
// caller_quiet_ns (it computes), or queues a rendezvous transfer (caller_handback), the progress thread takes the
// lock back and progresses in the background, which is what overlap needs. (MPICH's asynchronous progress thread
// also leaves its callers progressing in their blocking calls.) A parked progress thread keeps off the lock's cache
// line while callers use it (park_poll_*), so a caller's lock and unlock mostly find the line in its own cache.
// Which requests a caller may progress is decided once, when each starts (request.hpp, progressor).
#include <sched.h>

#include <cstdint>

#include <sidecore/common/common.hpp>

#include "completion.hpp"
#include "core_sharing.hpp"

namespace sidecore::progress {

namespace {
constexpr std::uint64_t caller_quiet_ns = 1000;  // no call for this long: the progress thread takes the lock back
// A parked progress thread looks at the lock's line after park_poll_min_ns, then, while the callers go on, at
// intervals doubling up to park_poll_max_ns: a caller's lock and unlock find the line in their own cache.
constexpr std::uint64_t park_poll_min_ns = 250, park_poll_max_ns = 8000;
constexpr std::uint64_t caller_ask_ns = 2000;    // a caller waits this long for the progress thread to step aside
// Once a waiter found its core shared (core_sharing.hpp), its next waits sleep at once until this time.
thread_local std::uint64_t tls_shared_until = 0;

// An application thread waits for r (engine::wait).
void wait_for(engine_core& e, req* r) {
  if (is_complete(r)) return;
  const engine_config& cfg = e.cfg;
  // The clock is read only once the wait has lasted a while (a clock read costs as much as a short wait).
  const std::uint64_t spin_ns = cfg.idle == idle_policy::spin    ? UINT64_MAX
                                : cfg.idle == idle_policy::block ? 0
                                                                 : std::uint64_t{cfg.spin_us} * 1000;
  std::uint64_t start = 0;
  std::uint32_t rounds = 0;
  const auto waited_enough = [&](std::uint64_t now) {
    if (start == 0) start = now;
    return now - start > spin_ns;
  };
  // hybrid: between yield_us and spin_us of waiting, the waiter yields its core now and then (a rank or progress
  // thread that shares it runs now, not after our time slice; alone on the core the call returns at once).
  const std::uint64_t yield_ns = cfg.idle == idle_policy::hybrid ? std::uint64_t{cfg.yield_us} * 1000 : UINT64_MAX;
  if (e.running.load(std::memory_order_acquire)) {
    e.pay_owed_wake();
    // Mode core: the progress thread moves the data; we only watch the request, and after the spin phase
    // sleep on its state word until complete() wakes us.
    // Past yield_us, yield every 256 rounds. Measured on 2 cores with 2 ranks in core mode (both application
    // threads fenced onto core 0): without it a waiter spinning its 5 ms took the core from the other rank's
    // computation, and apps/heat2d ran 4.9x slower than in mode off.
    constexpr auto pending = static_cast<std::uint32_t>(req_state::pending);
    // Found shared lately (by this thread's previous waits): sleep without spinning first.
    bool shared = tls_shared_until != 0 && now_ns() < tls_shared_until;
    // Caller progress for an eager message (latency-bound): as in mode off, until the spin phase ends (then sleep
    // below, the progress thread back). A rendezvous transfer (bandwidth-bound) is left to the progress thread, as
    // its data moves while the application computes: measured on 2 cores with the peer rank on the progress core,
    // a caller progressing its own 1 MiB transfers moved them 3x faster alone (the peer had core 1 to itself) but
    // then lost that speed as soon as it computed, and 1 MiB overlap fell from 99 % to 0-74 %.
    if (r->by == progressor::any) {
      if (progress_guard g = e.lock_caller_core()) {
        while (!is_complete(r)) {
          // The liveness check comes with the passes (progress_locked): the progress thread's does not run while
          // we hold the lock (with SIDECORE_IDLE=spin we never give it back while r is pending).
          if (e.progress_locked() || is_complete(r) || (++rounds & 63) != 0) continue;
          const std::uint64_t now = now_ns();
          if (waited_enough(now)) break;
          if (now - start >= yield_ns) {
            g.release();
            sched_yield();
            if (!g.try_relock()) break;
          }
        }
      }
    }
    while (!is_complete(r)) {
      cpu_relax();
      if ((++rounds & 255) != 0) continue;
      if (!shared && !waited_enough(now_ns())) {
        if (const std::uint64_t t0 = now_ns(); t0 - start >= yield_ns) {
          sched_yield();
          // A yield that took long may have run another thread: then our core is shared, and spinning on takes
          // it from that thread (on 2 cores: a peer rank doing the very transfer we wait for), so sleep until
          // complete() wakes us. The kernel says whether it did: a yield that hands the core over counts as an
          // involuntary switch (alone on its core, 2 in 100k yields; a slow yield alone, 0.15 %, is a VM exit).
          const std::uint64_t t1 = now_ns();
          if (t1 - t0 >= shared_yield_ns && core_shared()) {
            shared = true;
            tls_shared_until = t1 + shared_hold_ns;
          }
        }
        continue;
      }
      r->waiter.store(true, std::memory_order_seq_cst);
      if (r->state.load(std::memory_order_seq_cst) == pending) futex_wait(&r->state, pending, 0);
    }
    return;
  }
  // Mode off: past yield_us, yield every 64 unproductive passes.
  while (!is_complete(r)) {
    progress_guard g = e.lock_caller();
    if (!g) {  // another thread progresses for us
      cpu_relax();
      continue;
    }
    const bool did = e.progress_locked();
    bool yield_now = false;
    if (!did && !is_complete(r) && (++rounds & 63) == 0) {
      const std::uint64_t now = now_ns();
      if (waited_enough(now)) e.sleep_locked(g);
      else yield_now = now - start >= yield_ns;
    }
    g.release();
    if (yield_now) sched_yield();
  }
}

}  // namespace

bool engine::wait(std::uint64_t handle, completion& out) {
  engine_core& e = core_of(*this);
  req* r = e.pool.lookup_held(handle);
  if (!r) [[unlikely]]
    return false;
  wait_for(e, r);
  read_result(*r, out);
  e.release_read(r, out.result);
  return true;
}

bool progress_lock::take_caller_core() noexcept {
  if (take(caller)) return true;
  // Another application thread progresses: our work goes by the queue.
  if (word.load(std::memory_order_relaxed) == caller) return false;
  // The progress thread holds it: ask, and give it the rest of its pass to step aside.
  if (caller_want.load(std::memory_order_relaxed) == 0) caller_want.store(1, std::memory_order_relaxed);
  std::uint64_t deadline = 0;
  for (std::uint32_t i = 1;; ++i) {
    cpu_relax();
    if (take(caller)) return true;
    if (word.load(std::memory_order_relaxed) == caller) return false;
    if ((i & 15) == 0) {
      const std::uint64_t now = now_ns();
      if (deadline == 0) deadline = now + caller_ask_ns;
      else if (now > deadline) return false;  // a long pass (a large copy): the queue it is
    }
  }
}

// The progress thread, asked for the lock (caller_want): gives it up and waits until the application has made no
// call for caller_quiet_ns with the lock free, then takes it back. Looks at the lock's line once per park_poll_ns
// only; yields its core past yield_us as the idle loop does. Returns holding the lock.
void engine_core::park(progress_guard& g) {
  g.release();
  const std::uint64_t start = now_ns();
  const std::uint64_t yield_ns = cfg.idle == idle_policy::spin ? UINT64_MAX : std::uint64_t{cfg.yield_us} * 1000;
  std::uint32_t seen = lock.caller_calls.load(std::memory_order_relaxed);
  std::uint64_t quiet_since = start, interval = park_poll_min_ns, next_poll = start + interval;
  for (;;) {
    const std::uint64_t now = now_ns();
    if (lock.caller_handback.load(std::memory_order_relaxed) != 0) break;  // queued work for us: take over now
    if (lock.rings_pending.load(std::memory_order_relaxed) != 0) flush_rings();  // peers a caller woke (ring_peer)
    if (now < next_poll) {
      cpu_relax();
      continue;
    }
    if (stop.load(std::memory_order_acquire)) break;
    const std::uint32_t calls = lock.caller_calls.load(std::memory_order_relaxed);
    if (calls != seen || lock.word.load(std::memory_order_relaxed) != 0) {
      seen = calls;
      quiet_since = now;
      interval = interval * 2 < park_poll_max_ns ? interval * 2 : park_poll_max_ns;
      next_poll = now + interval;
    } else if (now - quiet_since >= caller_quiet_ns) {
      lock.caller_want.store(0, std::memory_order_relaxed);
      if (g.try_relock()) return;
      quiet_since = now;
      next_poll = now + park_poll_min_ns;
    } else {
      next_poll = quiet_since + caller_quiet_ns;  // quiet so far: look again when it has been quiet long enough
    }
    if (now - start >= yield_ns) {
      bump(yields);
      sched_yield();
    }
  }
  // Stopping, or handed back: whoever holds the lock is about to let go.
  lock.caller_want.store(0, std::memory_order_relaxed);
  lock.caller_handback.store(0, std::memory_order_relaxed);
  g.relock();
}

}  // namespace sidecore::progress
