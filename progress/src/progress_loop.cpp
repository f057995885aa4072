// The progress pass (backlogs, submissions, the completion queue, the schedules that are ready), the progress
// thread's loop (mode core) and the idle policy: when a pass finds nothing, spin, then (block/hybrid) sleep on the
// doorbell until a submission or a peer rings it, or block_us passes; hybrid sleeps at once while collectives run
// and the core is found shared (core_sharing.hpp).
#include <sched.h>

#include <cstdio>
#include <exception>

#include <sidecore/common/common.hpp>

#include "core_sharing.hpp"
#include "engine_core.hpp"
#include "futex.hpp"

namespace sidecore::progress {

bool engine_core::progress_locked() {
  bump(polls);
  bool did = false;
  if (!rx.unposted.empty() || backlog.any() || credits_pending()) did = retry_backlog();
  did |= drain_submissions();
  if (fastpath.on) did |= poll_rings();
  did |= poll_cq() > 0;
  if (backlog.any() || credits_pending()) did |= retry_backlog();
  if (ready.head) [[unlikely]] did |= run_ready();
  if ((++passes & 63) == 0) [[unlikely]] watch_peers(now_ns());
  return did;
}

bool engine::progress() {
  engine_core& e = core_of(*this);
  const progress_guard g = e.lock_caller();
  if (!g) return false;
  return e.progress_locked();
}

void engine_core::sleep_locked(progress_guard& g) {
  bump(blocks);
  if (!rx.unposted.empty()) repost_rx();  // sleep with every receive buffer the provider takes
  const std::uint32_t seq = bells.mine->seq.load(std::memory_order_acquire);
  bells.mine->sleepers.fetch_add(1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with the fences in submit() and ring_peer()
  // Re-check after announcing ourselves: a submission queued, or a message that arrived before a peer could
  // see us asleep.
  const bool quiet = queue.empty_hint() && !stop.load(std::memory_order_acquire) &&
                     lock.rings_pending.load(std::memory_order_relaxed) == 0 && poll_cq() == 0 && !fastpath.pending();
  g.release();
  if (quiet) futex_wait_shared(&bells.mine->seq, seq, cfg.block_us);
  // Awake: what a waiter would have woken us for gets done. Written only when set (waiters read the line).
  if (wake_owed.load(std::memory_order_relaxed) != 0) wake_owed.store(0, std::memory_order_relaxed);
  bells.mine->sleepers.fetch_sub(1, std::memory_order_relaxed);
  g.relock();
}

void engine::start_thread(std::function<void()> on_start) {
  engine_core& e = core_of(*this);
  e.stop.store(false);
  if (e.lock.biased()) e.lock.end_bias();  // the thread takes `word`
  e.running.store(true, std::memory_order_release);
  e.thread = std::thread([&e, f = std::move(on_start)]() mutable { e.thread_main(std::move(f)); });
}

void engine::stop_thread() {
  engine_core& e = core_of(*this);
  if (!e.thread.joinable()) return;
  e.stop.store(true, std::memory_order_release);
  e.wake();
  e.thread.join();
  e.running.store(false, std::memory_order_release);
}

// The progress loop (mode core): drain the backlog and submissions, poll the CQ, advance ready schedules; when a
// pass finds nothing, spin, then (block/hybrid) sleep on the doorbell until a submission or a peer rings it, or
// block_us passes. Nothing below throws: the thread runs until stop_thread(), whatever the provider does.
void engine_core::thread_main(std::function<void()> on_start) {
  if (on_start) {
    try {
      on_start();
    } catch (const std::exception& ex) {
      std::fprintf(stderr, "sidecore: warning: progress thread start-up: %s\n", ex.what());
    }
  }
  progress_guard g = progress_guard::unheld(lock, holder::thread);
  g.relock();
  // The clock is read once per pass, busy or idle. Measured on our KVM guests: a loop that polls without it
  // (accounting at busy/idle transitions only) made the core-mode hand-off 3-5x slower (1.2-2.0 us per self
  // round trip instead of 0.4 us); a clock read per pass is also the busy/idle accounting.
  std::uint64_t idle_since = 0;
  std::uint64_t shared_until = 0;  // hybrid: until then, an idle pass sleeps at once (our core is shared)
  (void)core_shared();             // involuntary switches count from here, not from the thread's start-up
  std::uint64_t t = now_ns();
  const std::uint64_t spin_ns = std::uint64_t{cfg.spin_us} * 1000;
  const std::uint64_t yield_ns = std::uint64_t{cfg.yield_us} * 1000;
  while (!stop.load(std::memory_order_acquire)) {
    if (lock.caller_want.load(std::memory_order_relaxed) != 0) [[unlikely]] {
      park(g);  // application threads progress meanwhile ("caller progress")
      const std::uint64_t after = now_ns();
      bump(idle_ns, after - t);
      t = after;
      idle_since = 0;
      continue;
    }
    const bool did = progress_locked();
    if (lock.rings_pending.load(std::memory_order_relaxed) != 0) flush_rings();
    const std::uint64_t now = now_ns();
    if (did) {
      bump(busy_ns, now - t);
      idle_since = 0;
      t = now;
      continue;
    }
    // An idle pass that took long was, most likely, preempted: by a thread that shares our core (core_sharing.hpp).
    // Only while collectives run: each of their steps waits for a peer, and one on our core waited a scheduler tick
    // per step behind our spinning; a point-to-point transfer's peer fares better with us spinning (below).
    if (cfg.idle == idle_policy::hybrid && schedules_running != 0 && now - t >= shared_yield_ns && core_shared())
      shared_until = now + progress_shared_hold_ns;
    bump(idle_ns, now - t);
    t = now;
    watch_peers(now);
    if (idle_since == 0) {
      idle_since = now;
      if (on_idle) on_idle();
    }
    if (cfg.idle == idle_policy::spin) {
      cpu_relax();
      continue;
    }
    if (cfg.idle == idle_policy::hybrid && now - idle_since < spin_ns && now >= shared_until) {
      // Past yield_us, give the core to whoever else wants it. Measured on a 2-core VM with a peer rank on the
      // progress core: without it, the peer (woken by our doorbell) often waited for the scheduler to end our
      // time slice, 0.2-1.5 ms, and 1 MiB receiver-side overlap fell to 79 %. Alone on its core, a yield is a
      // syscall that returns at once.
      if (now - idle_since >= yield_ns) {
        bump(yields);
        sched_yield();
        if (const std::uint64_t after = now_ns();
            schedules_running != 0 && after - now >= shared_yield_ns && core_shared())
          shared_until = after + progress_shared_hold_ns;
      } else {
        cpu_relax();
      }
      continue;
    }
    sleep_locked(g);
    const std::uint64_t after = now_ns();
    bump(idle_ns, after - t);
    t = after;
  }
  progress_locked();
  flush_rings();
}

engine_stats engine::stats() const noexcept {
  const auto& e = static_cast<const engine_core&>(*this);
  engine_stats s;
  s.polls = e.polls.load(std::memory_order_relaxed);
  s.completions = e.completions.load(std::memory_order_relaxed);
  s.busy_ns = e.busy_ns.load(std::memory_order_relaxed);
  s.idle_ns = e.idle_ns.load(std::memory_order_relaxed);
  s.blocks = e.blocks.load(std::memory_order_relaxed);
  s.yields = e.yields.load(std::memory_order_relaxed);
  s.eagain = e.eagain.load(std::memory_order_relaxed);
  s.queue_full = e.queue_full.load(std::memory_order_relaxed);
  s.unexpected = e.unexpected.load(std::memory_order_relaxed);
  s.rendezvous = e.rendezvous.load(std::memory_order_relaxed);
  s.dropped = e.dropped.load(std::memory_order_relaxed);
  return s;
}

}  // namespace sidecore::progress
