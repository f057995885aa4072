// The progress lock: its holder is the one thread that calls libfabric (the domain is FI_THREAD_DOMAIN) and
// touches the engine's lists. 0 free, thread: the progress thread, caller: an application thread. Mode off: a caller
// takes it around each pass (engine_core::lock_caller); below MPI_THREAD_MULTIPLE the thread that opened the engine
// takes it without a locked instruction (the bias, below). Mode core: the progress thread holds it while it
// progresses; with caller progress, it lets an application thread that asks (caller_want) take it
// (caller_progress.cpp). Every holder holds it through a progress_guard, so that no return path leaves it held.
#pragma once

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace sidecore::progress {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

struct progress_lock {
  static constexpr std::uint32_t thread = 1, caller = 2;

  // One line, written by application threads, read by the progress thread (while parked: once per poll period).
  alignas(64) std::atomic<std::uint32_t> word{0};
  std::atomic<std::uint32_t> caller_want{0};   // an application thread asks the progress thread for the lock
  std::atomic<std::uint32_t> caller_calls{0};  // bumped by every release_caller (racy increments: a change is all)
  // Its own line, written only when a caller queues work for the progress thread while it is parked (a
  // rendezvous transfer): the parked thread reads it on every spin (an L1 hit until written) and takes over at once.
  alignas(64) std::atomic<std::uint32_t> caller_handback{0};
  // Same line: an application thread progressing for itself (caller progress) sets bits in the doorbells' ring
  // words (one per peer) and this flag, and leaves the peers' wake-up syscalls to the progress thread (doorbell.cpp).
  std::atomic<std::uint32_t> rings_pending{0};

  // The bias, below MPI_THREAD_MULTIPLE in mode off (the application promised one calling thread at a time): the
  // thread that opened the engine, its owner, holds the lock by owner_busy, a plain store, then finds the bias
  // still there (take_owner). Any other thread takes `word` (locked) and, the first to do so, ends the bias for
  // good (end_bias), as does the start of the progress thread; from then on every holder takes `word`. The two
  // exclude each other as in Dekker's algorithm with the owner's fence moved to the other side (membarrier, which
  // runs a full barrier on every thread of the process): either the owner's store is seen by end_bias, which
  // waits it out, or the owner sees the bias gone and takes `word`. A locked take instead costs the owner 15-19 ns
  // per 8-byte round trip, 8 % through the provider and 26 % on the self path (docs/results.md). A plain load
  // and store of `word` in its place let two threads that read it at the same moment both take the lock.
  std::atomic<const void*> biased_to{nullptr};  // the owner's thread pointer while the bias lasts, else nullptr
  std::atomic<std::uint32_t> owner_busy{0};

  static const void* this_thread() noexcept { return __builtin_thread_pointer(); }
  [[nodiscard]] bool biased() const noexcept { return biased_to.load(std::memory_order_relaxed) != nullptr; }
  // Starts the bias for the calling thread; none where the kernel lacks membarrier's expedited barrier.
  void start_bias() noexcept {
    if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
      biased_to.store(this_thread(), std::memory_order_relaxed);
  }
  enum class owner_take : std::uint8_t { taken, held, not_owner };
  // The owner's take. held: it holds the lock already (a second guard on its own thread); not_owner: another thread,
  // or the bias is gone: take `word`.
  owner_take take_owner() noexcept {
    const void* me = this_thread();
    if (biased_to.load(std::memory_order_relaxed) != me) return owner_take::not_owner;
    if (owner_busy.load(std::memory_order_relaxed) != 0) return owner_take::held;
    owner_busy.store(1, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // end_bias's membarrier is the fence between the two
    if (biased_to.load(std::memory_order_relaxed) == me) [[likely]]
      return owner_take::taken;
    owner_busy.store(0, std::memory_order_release);
    return owner_take::not_owner;
  }
  void release_owner() noexcept { owner_busy.store(0, std::memory_order_release); }
  // Ends the bias (a thread holding `word`, or starting the progress thread) and waits until the owner holds the
  // lock no more. True: the owner held it at that moment (two threads called at once).
  bool end_bias() noexcept {
    biased_to.store(nullptr, std::memory_order_relaxed);
    syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
    bool held = false;
    while (owner_busy.load(std::memory_order_acquire) != 0) {
      held = true;
      cpu_relax();
    }
    return held;
  }

  // Takes the lock for `who` if it is free (a load first: a failing attempt does not take the line).
  bool take(std::uint32_t who) noexcept {
    std::uint32_t expected = 0;
    return word.load(std::memory_order_relaxed) == 0 &&
           word.compare_exchange_strong(expected, who, std::memory_order_acquire, std::memory_order_relaxed);
  }
  void release() noexcept { word.store(0, std::memory_order_release); }
  // Mode core, caller progress: takes the lock from an idle progress thread (asks it, and gives it the rest of its
  // pass to step aside); false when another application thread holds it or the progress thread does not let go.
  bool take_caller_core() noexcept;  // caller_progress.cpp
  // And gives it back, marking the call (the progress thread's quiet clock).
  void release_caller_core() noexcept {
    caller_calls.store(caller_calls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    word.store(0, std::memory_order_release);
  }
};

/// How the holder of a progress_guard took the lock, and so how it gives it back.
enum class holder : std::uint8_t {
  none,         // not held
  owner,        // mode off, below MPI_THREAD_MULTIPLE: the engine's owner, while the bias lasts (owner_busy)
  caller,       // mode off: an application thread
  caller_core,  // mode core: an application thread the progress thread stepped aside for (caller progress)
  thread,       // the progress thread
};

/// Holds the progress lock for a scope: gives it back on every path out (a return, an exception). Made by
/// engine_core's lock_* functions; an empty guard (the lock was not available) converts to false.
class progress_guard {
 public:
  progress_guard() noexcept = default;
  progress_guard(progress_lock& lock, holder how) noexcept : lock_(&lock), how_(how), held_(how != holder::none) {}
  ~progress_guard() { release(); }
  progress_guard(const progress_guard&) = delete;
  progress_guard& operator=(const progress_guard&) = delete;
  progress_guard(progress_guard&& o) noexcept : lock_(o.lock_), how_(o.how_), held_(o.held_) { o.held_ = false; }
  progress_guard& operator=(progress_guard&&) = delete;
  /// A guard for `how` that does not hold the lock yet (relock() takes it).
  [[nodiscard]] static progress_guard unheld(progress_lock& lock, holder how) noexcept {
    progress_guard g(lock, how);
    g.held_ = false;
    return g;
  }

  explicit operator bool() const noexcept { return held_; }

  /// Gives the lock back now (no effect if not held).
  void release() noexcept {
    if (!held_) return;
    held_ = false;
    switch (how_) {
      case holder::owner: lock_->release_owner(); break;
      case holder::caller:
      case holder::thread: lock_->release(); break;
      case holder::caller_core: lock_->release_caller_core(); break;
      case holder::none: break;
    }
  }
  /// Takes the lock again as the same holder, once; caller_core asks the progress thread again. False: not held.
  bool try_relock() noexcept {
    if (held_ || how_ == holder::none) return held_;
    switch (how_) {
      case holder::owner:  // the bias ended meanwhile: `word`, as any caller (no bias to end)
        if (const auto t = lock_->take_owner(); t != progress_lock::owner_take::not_owner) {
          held_ = t == progress_lock::owner_take::taken;
        } else if (lock_->take(progress_lock::caller)) {
          how_ = holder::caller;
          held_ = true;
        }
        break;
      case holder::caller: held_ = lock_->take(progress_lock::caller); break;
      case holder::thread: held_ = lock_->take(progress_lock::thread); break;
      case holder::caller_core: held_ = lock_->take_caller_core(); break;
      case holder::none: break;
    }
    return held_;
  }
  /// Takes the lock again as the same holder, spinning until it comes (not for caller_core, which may be refused).
  void relock() noexcept {
    while (!try_relock()) cpu_relax();
  }

 private:
  progress_lock* lock_ = nullptr;
  holder how_ = holder::none;
  bool held_ = false;
};

}  // namespace sidecore::progress
