// sidecore instrument — the per-thread state and its registry: each recording thread's ring, call counters, region
// stack and name caches, and the state it publishes for threads that record transfers on its behalf (a seqlock).
// Private to instrument/src; threads.cpp holds the registry.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "record.hpp"
#include "sidecore/common/common.hpp"
#include "sidecore/instrument/instrument.hpp"

namespace sidecore::instrument::internal {

inline constexpr auto relaxed = std::memory_order_relaxed;

// The seqlock's orders. ThreadSanitizer does not model standalone fences (GCC refuses to compile them with
// -fsanitize=thread): under it every seqlock access is seq_cst instead, which is correct without fences.
#if defined(__SANITIZE_THREAD__)
#define SIDECORE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SIDECORE_TSAN 1
#endif
#endif
#if defined(SIDECORE_TSAN)
inline constexpr auto seq_data = std::memory_order_seq_cst;
inline constexpr auto seq_acquire = std::memory_order_seq_cst;
inline constexpr auto seq_release = std::memory_order_seq_cst;
inline void seq_fence(std::memory_order) noexcept {}
#else
inline constexpr auto seq_data = std::memory_order_relaxed;
inline constexpr auto seq_acquire = std::memory_order_acquire;
inline constexpr auto seq_release = std::memory_order_release;
inline void seq_fence(std::memory_order o) noexcept { std::atomic_thread_fence(o); }
#endif

inline constexpr std::uint32_t max_region_depth = 64;
inline constexpr std::uint32_t region_track_offset = 100000;  // trace tid of a thread's region track
inline constexpr std::size_t max_region_paths = 65536;        // ids are 16-bit; 0 = no region
inline constexpr std::size_t region_chunk = 256;              // region call counters are allocated per 256 paths
inline constexpr std::size_t name_cache_size = 64;            // per-thread region-name cache (direct-mapped)
inline constexpr std::size_t ptr_cache_size = 16;             // per-thread (parent, name pointer) cache in front of it
// The owner folds at most this many records at once (or at ¾ of a smaller ring): 24 KiB of records, still in the L1
// cache when the fold reads them back. Folding ¾ of the default 4096-record ring (144 KiB) read them from L2 and
// cost ~2 ns more per event; a fold's fixed cost (two locks, one clock-fit check) over 512 records is < 0.3 ns.
inline constexpr std::uint64_t fold_batch = 512;
// So a ring never holds more than fold_batch records: a larger ring would only cost memory, and make each record a
// write to a cache line not touched for a long time (a 4M-record ring per thread made a run 100x slower).
inline constexpr std::uint64_t max_ring_events = 2 * fold_batch;

/// Single-writer counter update: a relaxed load and a relaxed store (plain moves), never a locked instruction.
inline void bump(std::atomic<std::uint64_t>& a, std::uint64_t d) noexcept { a.store(a.load(relaxed) + d, relaxed); }

/// Outermost calls of one category on one thread, in ticks (written by the thread, read by the profile).
struct cat_counter {
  std::atomic<std::uint64_t> time{0};
  std::atomic<std::uint64_t> count{0};
  std::atomic<std::uint64_t> min{UINT64_MAX};
};

/// Outermost calls made while one region path was the innermost, per category, in ticks (exclusive of sub-regions:
/// the profile adds every path's calls to its ancestors).
struct region_calls {
  std::array<std::atomic<std::uint64_t>, category_count> time{};
  std::array<std::atomic<std::uint64_t>, category_count> count{};
};

struct region_path;       // regions.hpp
struct overflow_regions;  // regions.hpp

struct thread_state {
  // ---- the owning thread's hot state: one cache line, written by the owner only ----
  alignas(64) record* ring = nullptr;
  std::uint64_t mask = 0;
  std::atomic<std::uint64_t> head{0};
  std::uint64_t fold_at = 0;  // head at which the owner folds: its last own fold's head + high water
  std::uint64_t enter_t = 0;  // entry of the current outermost call
  std::uint32_t depth = 0;    // call nesting
  std::uint32_t region_depth = 0;  // may exceed max_region_depth: deeper regions are not tracked
  std::uint32_t id = no_thread;
  std::uint16_t region = 0;       // innermost tracked region path
  std::uint16_t call_region = 0;  // region path at the current outermost call's entry
  category outer = category::other;

  // ---- published owner state (seqlock), read by threads recording transfers for this owner; the owner reads its
  //      own copies with relaxed loads (the only copy of these values) ----
  alignas(64) std::atomic<std::uint32_t> version{0};
  std::atomic<std::uint32_t> pub_seq{0};      // outermost calls entered
  std::atomic<std::uint32_t> pub_flags{0};    // bit 0: in call; bits 16..31: region path id
  std::atomic<std::uint64_t> pub_in_call{0};  // cumulative ticks inside outermost calls, up to pub_last_t
  std::atomic<std::uint64_t> pub_last_t{0};   // last outermost transition

  // ---- call counters (owner writes, profile reads) ----
  alignas(64) std::array<cat_counter, category_count> cats{};

  // ---- cold owner state ----
  alignas(64) std::unique_ptr<record[]> storage;
  std::uint64_t cap = 0;
  std::uint64_t high_water = 0;
  std::array<std::uint16_t, max_region_depth> region_stack{};
  std::uint64_t region_untracked = 0;  // bit d: the entry at depth d has no path of its own (interning failed)
  std::array<std::atomic<region_calls*>, max_region_paths / region_chunk> region_chunks{};
  struct cached_name {
    const region_path* info = nullptr;
    std::uint16_t id = 0;
  };
  std::array<cached_name, name_cache_size> name_cache{};  // by a hash of (parent, name contents)
  struct cached_ptr {
    const char* ptr = nullptr;  // the caller's name pointer last seen in this slot (contents checked on use)
    const region_path* info = nullptr;
    std::uint16_t id = 0;
  };
  std::array<cached_ptr, ptr_cache_size> ptr_cache{};  // by (parent, name pointer): no hash of the contents

  // ---- consumer side, under fold_mu ----
  alignas(64) std::atomic<std::uint64_t> tail{0};
  std::mutex fold_mu;
  std::uint64_t f_enter_t = 0;
  const char* f_enter_name = nullptr;
  std::uint64_t f_last_exit_t = 0;
  bool f_open = false;
  bool f_had_call = false;
  bool f_had_region = false;
  std::uint32_t f_region_depth = 0;
  std::array<std::uint64_t, max_region_depth> f_region_t{};
  std::array<std::uint16_t, max_region_depth> f_region_id{};
  char name[32] = {};
  bool progress = false;

  // ---- reuse after the thread's exit (under g_registry_mu): a state whose thread has exited is handed to a new
  //      thread once the table is full, so calls of short-lived threads keep counting past max_threads threads ----
  std::uint64_t calls_at_takeover = 0;  // the counters' total calls when the current thread took the state over
  std::uint32_t earlier_callers = 0;    // threads that made calls with this state before the current one

  thread_state() = default;
  thread_state(const thread_state&) = delete;
  thread_state& operator=(const thread_state&) = delete;
  ~thread_state() {
    for (auto& c : region_chunks) delete[] c.load(relaxed);
  }
};

// ---- the registry (threads.cpp) ----
extern std::mutex g_registry_mu;  // registration, start/stop, run info
extern std::array<std::atomic<thread_state*>, max_threads + 1> g_threads;  // index = thread id; 0 unused
extern std::atomic<std::uint32_t> g_nthreads;
extern std::vector<std::unique_ptr<thread_state>> g_states;  // owned until the next start()

/// Empties the registry for a new collection whose rings hold `ring_cap` records (start(), g_registry_mu held).
void reset_registry(std::uint64_t ring_cap);

/// The outermost calls of threads that found the table full (more than max_threads alive at once, none exited whose
/// state they could take over: an OpenMP team of 1100 threads), so that the categories' counts and calling_threads
/// stay exact. Shared, with atomic read-modify-writes: only such threads pay for them. Their regions are counted the
/// same way (regions.hpp); their transfers and trace events are not recorded (said on stderr once).
struct overflow_counters {
  std::array<std::atomic<std::uint64_t>, category_count> time{};
  std::array<std::atomic<std::uint64_t>, category_count> count{};
  std::array<std::atomic<std::uint64_t>, category_count> min{};  // UINT64_MAX when none (reset_registry)
  std::atomic<std::uint32_t> callers{0};
};
extern overflow_counters g_overflow;
/// Threads of the current collection that found the table full and got no state (g_registry_mu): the profile's
/// "limits" says how many, since their transfers are missing from the overlap bounds.
extern std::uint64_t g_threads_past_table;
/// CALL_ENTER / CALL_EXIT of a thread without a state because the table was full (t_slot.table_full).
void overflow_call_enter(category c, std::uint64_t t) noexcept;
void overflow_call_exit(std::uint64_t t) noexcept;

/// The calls counted in a state's category counters, all threads that held it together.
inline std::uint64_t calls_counted(const thread_state& st) noexcept {
  std::uint64_t n = 0;
  for (const cat_counter& c : st.cats) n += c.count.load(relaxed);
  return n;
}
/// Threads that made calls with a state: the earlier holders that did, and the current one if it has.
inline std::uint32_t callers_of(const thread_state& st) noexcept {
  return st.earlier_callers + (calls_counted(st) > st.calls_at_takeover ? 1u : 0u);
}

/// A thread's slot for the current collection: its state, valid while `gen` is the collection's generation.
struct thread_slot {
  std::uint64_t gen = 0;
  thread_state* st = nullptr;
  overflow_regions* regions = nullptr;  // with table_full: the thread's open regions (null: memory was short)
  bool table_full = false;  // st is null because the table was full: calls go to g_overflow
};
// Initial-exec TLS: one %fs-relative load, no __tls_get_addr call from the shared library. constinit: no dynamic
// initialisation, so other translation units read it directly rather than through a TLS wrapper function.
extern constinit thread_local thread_slot t_slot __attribute__((tls_model("initial-exec")));

/// Registers the calling thread for the current collection (first event of a thread, or of a new collection).
thread_state* register_slow() noexcept;

/// The calling thread's state, or nullptr (collection off, or the thread table full).
inline thread_state* self() noexcept {
  if (t_slot.gen == detail::g_hot.generation.load(relaxed)) [[likely]]
    return t_slot.st;
  return register_slow();
}

// Seqlock writer (owner thread only): four relaxed stores between two version stores (plain moves on x86-64).
inline void publish(thread_state* st, std::uint64_t in_call, std::uint64_t last_t, std::uint32_t seq,
                    std::uint32_t flags) noexcept {
  const std::uint32_t v = st->version.load(relaxed);
  st->version.store(v + 1, seq_data);
  seq_fence(std::memory_order_release);
  st->pub_in_call.store(in_call, seq_data);
  st->pub_last_t.store(last_t, seq_data);
  st->pub_seq.store(seq, seq_data);
  st->pub_flags.store(flags, seq_data);
  st->version.store(v + 2, seq_release);
}

inline std::uint32_t flags_of(bool in_call, std::uint16_t region) noexcept {
  return (in_call ? 1u : 0u) | (static_cast<std::uint32_t>(region) << 16);
}

struct owner_snapshot {
  owner_point p;  // in ticks
  std::uint16_t region = 0;
  bool known = false;
};

// The owner's state at time t. The owner itself reads its own fields; others read the seqlock.
inline owner_snapshot snapshot_owner(thread_state* me, std::uint32_t owner, std::uint64_t t) noexcept {
  owner_snapshot s;
  s.p.t_ns = t;
  if (owner == no_thread || owner > max_threads) return s;
  std::uint64_t cum, last;
  std::uint32_t seq, flags;
  if (me != nullptr && me->id == owner) {
    cum = me->pub_in_call.load(relaxed);
    last = me->pub_last_t.load(relaxed);
    seq = me->pub_seq.load(relaxed);
    flags = flags_of(me->depth != 0, me->region);
  } else {
    thread_state* o = g_threads[owner].load(std::memory_order_acquire);
    if (o == nullptr) return s;
    std::uint32_t v1, v2;
    do {
      v1 = o->version.load(seq_acquire);
      cum = o->pub_in_call.load(seq_data);
      last = o->pub_last_t.load(seq_data);
      seq = o->pub_seq.load(seq_data);
      flags = o->pub_flags.load(seq_data);
      seq_fence(std::memory_order_acquire);
      v2 = o->version.load(seq_data);
    } while ((v1 & 1u) != 0 || v1 != v2);
  }
  s.known = true;
  s.p.in_call = (flags & 1u) != 0;
  s.p.call_seq = seq;
  s.region = static_cast<std::uint16_t>(flags >> 16);
  // Inside a call, the time since the last transition is in-call time too. (A transition published after t was
  // time-stamped can make last > t: the error is the publication delay, nanoseconds.)
  s.p.in_call_ns = cum + (s.p.in_call && t > last ? t - last : 0);
  return s;
}

}  // namespace sidecore::instrument::internal
