// Request slots: allocated from a lock-free free list (Treiber stack with a tagged head against ABA),
// grown chunk by chunk under a mutex (the only allocation, off the steady-state path).
//
// A request handle given to the application is (generation << 32) | (index + 1), the generation on 30 bits. The
// generation of a slot changes each time it is released, so a handle that was already waited on is recognised as
// stale instead of aliasing whatever request reuses the slot. Handles with bit 63 set have no slot: a send that
// completed inside the call that started it (inline_handle, engine.hpp); handles with bit 62 set are the runtime's
// own (persistent requests, engine.hpp: runtime_bit); ~0 is the runtime's mark of a consumed handle.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>

#include "request.hpp"

namespace sidecore::progress {

class request_pool {
 public:
  static constexpr std::uint32_t gen_mask = 0x3fffffffU;  // bits 63 and 62 of a handle stay clear (engine.hpp)
  static constexpr std::uint32_t chunk_bits = 10;
  static constexpr std::uint32_t chunk_size = 1U << chunk_bits;
  static constexpr std::uint32_t max_chunks = 4096;  // 4M requests in flight at most

  /// Up to `max_requests` slots (rounded up to chunk_size; 0 or more than max_chunks chunks: the most).
  explicit request_pool(std::uint32_t max_requests = max_chunks * chunk_size)
      : limit_chunks_(max_requests == 0 || max_requests / chunk_size >= max_chunks
                          ? max_chunks
                          : (max_requests + chunk_size - 1) / chunk_size),
        id_(next_pool_id()) {
    for (auto& c : chunks_) c.store(nullptr, std::memory_order_relaxed);
    live_pool_id().store(id_, std::memory_order_release);
  }
  ~request_pool() {
    // Thread caches of this pool are not flushed into it any more (they are simply dropped).
    std::uint64_t mine = id_;
    live_pool_id().compare_exchange_strong(mine, 0, std::memory_order_acq_rel);
    if (cache().pool_id == id_) cache().count = 0;
    for (auto& c : chunks_) delete[] c.load(std::memory_order_relaxed);
  }
  request_pool(const request_pool&) = delete;
  request_pool& operator=(const request_pool&) = delete;

  /// A free slot in state pending, or nullptr when capacity() requests are in flight (or no memory for more).
  /// Fast path: the calling thread's cache of recently released slots (no atomic read-modify-write).
  [[nodiscard]] req* acquire() {
    thread_cache& c = cache();
    if (c.pool_id == id_ && c.count > 0) {
      req* r = at(c.slots[--c.count]);
      r->state.store(static_cast<std::uint32_t>(req_state::pending), std::memory_order_relaxed);
      return r;
    }
    for (;;) {
      std::uint64_t head = head_.load(std::memory_order_acquire);
      const auto idx1 = static_cast<std::uint32_t>(head);
      if (idx1 == 0) {
        if (!grow()) return nullptr;
        continue;
      }
      req* r = at(idx1 - 1);
      const std::uint64_t next = ((head >> 32) + 1) << 32 | r->next_free.load(std::memory_order_relaxed);
      if (head_.compare_exchange_weak(head, next, std::memory_order_acq_rel, std::memory_order_acquire)) {
        r->state.store(static_cast<std::uint32_t>(req_state::pending), std::memory_order_relaxed);
        return r;
      }
    }
  }

  /// Returns a slot (to the calling thread's cache, or the shared free list when the cache is full) and makes
  /// every handle to it stale. Only the thread that releases a slot writes its generation.
  void release(req* r) noexcept {
    r->gen.store((r->gen.load(std::memory_order_relaxed) + 1) & gen_mask, std::memory_order_relaxed);
    r->posted = false;
    r->credited = false;
    r->rdv = false;
    r->engines_own = false;
    r->act = req_act::none;
    r->stage.store(req_stage::none, std::memory_order_relaxed);
    r->parent = nullptr;
    r->waiter.store(false, std::memory_order_relaxed);
    r->state.store(static_cast<std::uint32_t>(req_state::free), std::memory_order_release);
    thread_cache& c = cache();
    if (c.pool_id != id_) {
      c.flush();
      c.pool_id = id_;
      c.pool = this;
      arm_exit_flush();
    }
    if (c.count < thread_cache::capacity) {
      c.slots[c.count++] = r->index;
      return;
    }
    push(r);
  }

  [[nodiscard]] req* at(std::uint32_t index) const noexcept {
    return chunks_[index >> chunk_bits].load(std::memory_order_acquire) + (index & (chunk_size - 1));
  }

  [[nodiscard]] static std::uint64_t handle_of(const req* r) noexcept {
    return static_cast<std::uint64_t>(r->gen.load(std::memory_order_relaxed)) << 32 | (r->index + 1);
  }

  /// The slot a handle names, or nullptr when the handle is 0, malformed or stale (already released).
  [[nodiscard]] req* lookup(std::uint64_t handle) const noexcept {
    const auto idx1 = static_cast<std::uint32_t>(handle);
    if (idx1 == 0 || idx1 > allocated_.load(std::memory_order_acquire)) return nullptr;
    req* r = at(idx1 - 1);
    if (r->gen.load(std::memory_order_relaxed) != static_cast<std::uint32_t>(handle >> 32)) return nullptr;
    if (r->state.load(std::memory_order_acquire) == static_cast<std::uint32_t>(req_state::free)) return nullptr;
    return r;
  }

  /// The slot a handle the application holds names: as lookup(), and nullptr for an orphan too (its holder gave it
  /// up, engine::orphan: a copy of that handle names nothing the application may wait on, test or cancel).
  [[nodiscard]] req* lookup_held(std::uint64_t handle) const noexcept {
    req* r = lookup(handle);
    if (r && r->state.load(std::memory_order_acquire) == static_cast<std::uint32_t>(req_state::orphan)) return nullptr;
    return r;
  }

  /// The most requests in flight at once.
  [[nodiscard]] std::uint32_t capacity() const noexcept { return limit_chunks_ * chunk_size; }
  /// Slots allocated so far (at(i) is valid below it).
  [[nodiscard]] std::uint32_t slots() const noexcept { return allocated_.load(std::memory_order_acquire); }

  /// Requests acquired and not released (a scan: for reports at finalize, not for the hot path).
  [[nodiscard]] std::size_t in_use() const noexcept {
    return count_in_use([](const req&) { return true; });
  }
  /// The application's operations among them: neither a schedule's own transfers nor the engine's answers. Reads
  /// fields the progress thread writes: call it when no other thread progresses.
  [[nodiscard]] std::size_t in_use_by_application() const noexcept {
    return count_in_use([](const req& r) { return r.parent == nullptr && !r.engines_own; });
  }

 private:
  // Slots acquired and not released for which `counted(slot)` holds.
  template <class Pred>
  [[nodiscard]] std::size_t count_in_use(const Pred& counted) const noexcept {
    std::size_t n = 0;
    const std::uint32_t total = allocated_.load(std::memory_order_acquire);
    for (std::uint32_t i = 0; i < total; ++i) {
      const req& r = *at(i);
      n += r.state.load(std::memory_order_acquire) != static_cast<std::uint32_t>(req_state::free) && counted(r);
    }
    return n;
  }

  // Per-thread cache of free slots of one pool (identified by a process-unique id, so a cache never feeds a
  // pool slots of another). Flushed back to its pool when the thread exits, if that pool still lives.
  // Trivially destructible, so that the hot path reads it with one %fs access: a thread_local with a destructor
  // needs a guard and an init wrapper that go through __tls_get_addr on every use (measured: 2.5 % of a self
  // ping-pong). The flush at thread exit is registered once per thread, on the slow path (cache_exit_guard).
  struct thread_cache {
    static constexpr std::uint32_t capacity = 32;
    std::uint64_t pool_id;
    request_pool* pool;
    std::uint32_t count;
    std::uint32_t slots[capacity];
    void flush() noexcept {
      if (pool && pool_id && live_pool_id().load(std::memory_order_acquire) == pool_id)
        while (count) pool->push(pool->at(slots[--count]));
      count = 0;
    }
  };
  static thread_cache& cache() noexcept {
#ifdef __SANITIZE_ADDRESS__
    // The address through an empty asm in the ASan+UBSan build: there GCC 12 (-O1, -fsanitize=null) took the
    // folded address of the initial-exec tls_cache for null inside an inlined flush() and stopped the program, a
    // false report (the address is the thread pointer plus an offset), which depends on how the code around it is
    // inlined. Left out of the other builds, whose hot path reads the cache with one %fs access.
    thread_cache* c = &tls_cache;
    asm("" : "+r"(c));
    return *c;
#else
    return tls_cache;
#endif
  }
  // Flushes the calling thread's cache when the thread exits. Touched only when a thread first binds its cache
  // to a pool (release(), slow path).
  // The guard keeps the cache's address, taken when it is armed: under ASan+UBSan (GCC 12) the initial-exec
  // tls_cache named from inside a TLS destructor came out as a null `this` (UBSan stopped every thread exit).
  struct cache_exit_guard {
    thread_cache* cache = nullptr;
    ~cache_exit_guard() {
      if (cache) cache->flush();
    }
  };
  static void arm_exit_flush() noexcept {
    static thread_local cache_exit_guard guard;
    guard.cache = &tls_cache;
  }
  // initial-exec: a direct %fs access instead of a __tls_get_addr call on every acquire/release.
  static inline thread_local constinit thread_cache tls_cache __attribute__((tls_model("initial-exec"))) = {};
  static std::atomic<std::uint64_t>& live_pool_id() noexcept {
    static std::atomic<std::uint64_t> id{0};
    return id;
  }
  static std::uint64_t next_pool_id() noexcept {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }

  void push(req* r) noexcept {
    std::uint64_t head = head_.load(std::memory_order_relaxed);
    for (;;) {
      r->next_free.store(static_cast<std::uint32_t>(head), std::memory_order_relaxed);
      const std::uint64_t next = ((head >> 32) + 1) << 32 | (r->index + 1);
      if (head_.compare_exchange_weak(head, next, std::memory_order_release, std::memory_order_relaxed)) return;
    }
  }

  bool grow() {
    std::lock_guard<std::mutex> lock(grow_mutex_);
    if (static_cast<std::uint32_t>(head_.load(std::memory_order_acquire)) != 0) return true;  // another thread grew
    const std::uint32_t n = allocated_.load(std::memory_order_relaxed) / chunk_size;
    if (n >= limit_chunks_) return false;
    req* chunk = new (std::nothrow) req[chunk_size];
    if (!chunk) return false;
    for (std::uint32_t i = 0; i < chunk_size; ++i) chunk[i].index = n * chunk_size + i;
    chunks_[n].store(chunk, std::memory_order_release);
    allocated_.store((n + 1) * chunk_size, std::memory_order_release);
    for (std::uint32_t i = chunk_size; i-- > 0;) push(&chunk[i]);
    return true;
  }

  const std::uint32_t limit_chunks_;
  alignas(64) std::atomic<std::uint64_t> head_{0};
  alignas(64) std::atomic<std::uint32_t> allocated_{0};
  const std::uint64_t id_;
  std::mutex grow_mutex_;
  std::atomic<req*> chunks_[max_chunks];
};

}  // namespace sidecore::progress
