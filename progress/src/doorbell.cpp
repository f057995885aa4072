// Doorbells: waking a sleeping progressor, ours (a submission) or a peer's on the same node (we gave it something
// to react to), and the wake-ups an application thread leaves to the progress thread.
#include "engine_core.hpp"
#include "futex.hpp"

namespace sidecore::progress {

void engine::set_doorbells(doorbell* mine, std::vector<doorbell*> peers) {
  doorbells& b = core_of(*this).bells;
  b.mine = mine ? mine : &b.own;
  b.peers = std::move(peers);
  // Before the progress thread starts (it reads them): one bit per peer for the rings callers leave to it.
  b.ring_nwords = (b.peers.size() + 63) / 64;
  b.ring_words = b.ring_nwords ? std::make_unique<std::atomic<std::uint64_t>[]>(b.ring_nwords) : nullptr;
}

void engine_core::wake() const noexcept {
  bells.mine->seq.fetch_add(1, std::memory_order_release);
  futex_wake_shared(&bells.mine->seq);
}

// The wake-up a caller that started a schedule itself did not make (start_while_asleep, submit.cpp): an application
// thread now waits for or tests a request that is not complete, so its schedule may wait for a step of ours that no
// peer's reply will ring for. Unconditional: the thread reads the sequence word before it announces its sleep, so a
// bump between the two keeps it awake.
void engine_core::pay_owed_wake() const noexcept {
  if (wake_owed.load(std::memory_order_relaxed) == 0 || wake_owed.exchange(0, std::memory_order_relaxed) == 0) return;
  wake();
}

// After we gave a peer something to react to (a message; the end of its large send), wake it if it sleeps.
// The fence orders the provider's writes into the peer's queue before our read of its sleepers count; it
// pairs with the fence in the peer's sleep_locked (either it sees the message when it re-polls, or we see it
// asleep).
//
// Caller progress (mode core): an application thread holding the lock bumps the peer's sequence word (a sleeper
// about to wait sees it changed) but leaves the wake-up syscall to the progress thread. Waking a thread that
// sleeps on another core costs the waker an inter-processor interrupt, in a VM an exit: measured on our 2-vCPU
// VM, a 0-byte blocking send that woke the idle peer took 9.9 us (median) with the caller ringing and 3.0 us with
// the progress thread ringing (it shares the peer's core there; on a larger machine the cost moves to the dedicated
// core, which is what it is for), and 1 MiB receiver-side overlap lost ~7 points to it (median 90 % against 97 %).
void engine_core::ring_peer(int index) noexcept {
  if (index < 0 || static_cast<std::size_t>(index) >= bells.peers.size()) return;
  doorbell* b = bells.peers[static_cast<std::size_t>(index)];
  if (!b || b == bells.mine) return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (b->sleepers.load(std::memory_order_relaxed) == 0) return;
  b->seq.fetch_add(1, std::memory_order_release);
  // A caller leaves the syscall to our progress thread, unless that sleeps (the caller started a collective
  // itself, start_while_asleep, submit.cpp): then it rings the peer itself.
  if (bells.ring_words && lock.word.load(std::memory_order_relaxed) == progress_lock::caller &&
      running.load(std::memory_order_relaxed) && bells.mine->sleepers.load(std::memory_order_relaxed) == 0) {
    const auto i = static_cast<std::size_t>(index);
    bells.ring_words[i / 64].fetch_or(std::uint64_t{1} << (i % 64), std::memory_order_relaxed);
    lock.rings_pending.store(1, std::memory_order_release);
    // Pairs with the fence in sleep_locked: either the progress thread sees rings_pending before it sleeps, or
    // we see it asleep and ring ourselves (it may ring again: a wake-up with nobody waiting is harmless).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (bells.mine->sleepers.load(std::memory_order_relaxed) == 0) return;
  }
  futex_wake_shared(&b->seq);
}

void engine_core::flush_rings() noexcept {
  if (lock.rings_pending.exchange(0, std::memory_order_acquire) == 0) return;
  for (std::size_t w = 0; w < bells.ring_nwords; ++w) {
    if (bells.ring_words[w].load(std::memory_order_relaxed) == 0) continue;
    for (std::uint64_t bits = bells.ring_words[w].exchange(0, std::memory_order_acquire); bits != 0;
         bits &= bits - 1) {
      const std::size_t i = w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
      if (doorbell* b = bells.peers[i]) futex_wake_shared(&b->seq);
    }
  }
}

}  // namespace sidecore::progress
