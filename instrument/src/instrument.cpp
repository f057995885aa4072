// sidecore instrument — recording (per-thread rings and counters), incremental folding, overlap, category and
// region accounting, and the event clock's fit.
//
// Recording path (every hook, after a thread's first event): no allocation, no system call, no lock and no atomic
// read-modify-write; only region_enter, on a name the thread has not used yet, takes the interning lock. Two kinds
// of work:
//  * calls (CALL_ENTER/EXIT) are counted where they happen: the thread adds the outermost call's duration to its own
//    category and region counters (single-writer relaxed atomics: plain loads and stores) — a call needs no analysis
//    across threads, so it never goes through the ring unless a trace is being written;
//  * transfers and regions are appended as fixed-size records to the thread's ring, and a fold turns records into
//    accumulator updates (overlap bounds, region entries and times) and trace lines.
// Folds happen (a) at the high-water mark (512 records, or ¾ of a smaller ring), (b) on entry to an outermost wait
// or blocking call once a quarter of the high-water mark is held — analysis while the thread would wait anyway (seed
// 002) —, (c) on fold_current_thread(), and (d) for every ring, at profile/trace/stop time. Times are event-clock ticks everywhere until a profile or trace line is
// written (docs/instrument.md, "Event clock").
#include "sidecore/instrument/instrument.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "internal.hpp"

namespace sidecore::instrument {

namespace detail {
hot_state g_hot;
}  // namespace detail

namespace {

using detail::g_hot;
using internal::category_acc;
using internal::clock_fit;
using internal::overlap_acc;

constexpr auto relaxed = std::memory_order_relaxed;

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
constexpr auto seq_data = std::memory_order_seq_cst;
constexpr auto seq_acquire = std::memory_order_seq_cst;
constexpr auto seq_release = std::memory_order_seq_cst;
inline void seq_fence(std::memory_order) noexcept {}
#else
constexpr auto seq_data = std::memory_order_relaxed;
constexpr auto seq_acquire = std::memory_order_acquire;
constexpr auto seq_release = std::memory_order_release;
inline void seq_fence(std::memory_order o) noexcept { std::atomic_thread_fence(o); }
#endif

enum class kind : std::uint8_t { call_enter, call_exit, xfer_begin, xfer_end, xfer_end_only, region_enter, region_exit };

/// One event: 48 bytes, native byte order (seed 002: minimal fixed-size binary records). Times are event-clock ticks.
/// For transfer events the owner's state at `t` is captured (owner_in_call, owner_seq, in_call bit, region), so a
/// transfer's bounds never need the owner's history (docs/instrument.md, threading rule).
struct record {
  std::uint64_t t;
  std::uint64_t id;     // transfer id; region path id for region events; static call name for call events
  std::uint64_t bytes;  // transfer size
  std::uint64_t owner_in_call;  // owner's cumulative in-call ticks at t
  std::uint32_t owner;
  std::int32_t peer;
  std::uint32_t owner_seq;
  std::uint16_t owner_region;
  kind k;
  std::uint8_t bits;  // low 4 bits: category; bit 7: owner inside a call; bit 6: owner known
};
static_assert(sizeof(record) == 48, "records are fixed-size");
constexpr std::uint8_t bit_in_call = 0x80;
constexpr std::uint8_t bit_owner_known = 0x40;
constexpr std::uint32_t max_region_depth = 64;
constexpr std::uint32_t region_track_offset = 100000;  // trace tid of a thread's region track
constexpr std::size_t max_region_paths = 65536;        // ids are 16-bit; 0 = no region
constexpr std::size_t region_chunk = 256;              // region call counters are allocated per 256 paths
constexpr std::size_t name_cache_size = 64;            // per-thread region-name cache (direct-mapped)
constexpr std::size_t ptr_cache_size = 16;             // per-thread (parent, name pointer) cache in front of it
// The owner folds at most this many records at once (or at ¾ of a smaller ring): 24 KiB of records, still in the L1
// cache when the fold reads them back. Folding ¾ of the default 4096-record ring (144 KiB) read them from L2 and
// cost ~2 ns more per event; a fold's fixed cost (two locks, one clock-fit check) over 512 records is < 0.3 ns.
constexpr std::uint64_t fold_batch = 512;

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

/// An interned region path. Elements never move (a deque), so threads keep pointers to them in their name caches.
struct region_path {
  std::string path;  // "solve/halo"
  std::string leaf;  // "halo"
  std::uint16_t parent = 0;
};

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

  thread_state() = default;
  thread_state(const thread_state&) = delete;
  thread_state& operator=(const thread_state&) = delete;
  ~thread_state() {
    for (auto& c : region_chunks) delete[] c.load(relaxed);
  }
};

struct owner_snapshot {
  owner_point p;  // in ticks
  std::uint16_t region = 0;
  bool known = false;
};

/// A transfer of which one event has been folded, waiting for the other (open addressing, no allocation per entry).
struct pending_xfer {
  std::uint64_t id = 0;
  std::uint64_t bytes = 0;  // known from the begin
  owner_snapshot s;          // the folded event's owner state
  bool used = false;
  bool is_begin = false;  // which event `s` belongs to
};

class pending_table {
 public:
  void reset(std::size_t capacity) {
    slots_.assign(capacity, pending_xfer{});
    mask_ = capacity - 1;
    size_ = 0;
  }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] pending_xfer* find(std::uint64_t id) noexcept {
    for (std::size_t i = slot_of(id);; i = (i + 1) & mask_) {
      if (!slots_[i].used) return nullptr;
      if (slots_[i].id == id) return &slots_[i];
    }
  }
  /// A fresh entry for `id` (not present). May throw std::bad_alloc when growing.
  pending_xfer& insert(std::uint64_t id) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = slot_of(id);
    while (slots_[i].used) i = (i + 1) & mask_;
    ++size_;
    slots_[i] = pending_xfer{};
    slots_[i].used = true;
    slots_[i].id = id;
    return slots_[i];
  }
  /// Removes an entry (linear probing with backward shift: no tombstones).
  void erase(pending_xfer& e) noexcept {
    std::size_t i = static_cast<std::size_t>(&e - slots_.data());
    for (std::size_t j = i;;) {
      j = (j + 1) & mask_;
      if (!slots_[j].used) break;
      const std::size_t home = slot_of(slots_[j].id);
      // Slot j may move back to i unless its home lies cyclically in (i, j].
      const bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
      if (!stays) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i].used = false;
    --size_;
  }
  template <class F>
  void for_each(F&& f) const {
    for (const auto& e : slots_)
      if (e.used) f(e);
  }

 private:
  [[nodiscard]] std::size_t slot_of(std::uint64_t id) const noexcept {
    const std::uint64_t h = id * 0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(h ^ (h >> 32)) & mask_;
  }
  void grow() {
    std::vector<pending_xfer> old;
    old.swap(slots_);
    reset(old.size() * 2);
    for (const auto& e : old) {
      if (!e.used) continue;
      pending_xfer& n = insert(e.id);
      n = e;
    }
  }
  std::vector<pending_xfer> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

// ---- global collection state ----
std::mutex g_registry_mu;  // registration, start/stop, run info
std::array<std::atomic<thread_state*>, max_threads + 1> g_threads{};  // index = thread id; 0 unused
std::atomic<std::uint32_t> g_nthreads{0};
std::vector<std::unique_ptr<thread_state>> g_states;  // owned until the next start()
bool g_warned_threads = false;

struct collection {
  config cfg;
  int rank = 0;
  int nranks = 1;
  std::uint64_t ring_cap = 4096;
  std::uint64_t t_start = 0;  // ticks
  std::uint64_t t_end = 0;    // ticks; 0 while the window is open
  bool closed = false;        // close_window() ran: t_end and main_in_call are final
  std::uint64_t main_in_call = 0;  // ticks the communicating thread spent in outermost calls up to t_end
  std::string mode = "off";
  std::string provider = "unknown";
  int n_core = 0;
  double t_total_override = -1.0;
  std::string command;
  std::string clock_note;
  bool has_progress = false;
  double progress_busy_s = 0, progress_idle_s = 0;
  std::uint64_t progress_polls = 0, progress_completions = 0;
  std::size_t eager_max = 0, inject_size = 0;  // set_trace_info: the trace's metadata for the replay
  int omp_threads = 0;
};
collection g_col;

// The event clock's fit (g_clock_mu: a leaf lock, taken briefly by folds, the profile and ticks_to_ns).
std::mutex g_clock_mu;
clock_fit g_fit;
constexpr double refit_every_ns = 1e6;         // a fold refreshes the provisional fit at most once a millisecond
constexpr std::uint64_t initial_fit_ns = 100'000;  // start() spans its two first points over 0.1 ms

// Analysis state: pending transfers, overlap sums and region entries/times, in ticks (g_analysis_mu).
std::mutex g_analysis_mu;
xfer_time_table g_table;
std::optional<size_bins> g_bins;
pending_table g_pending;
overlap_acc g_total;
std::vector<overlap_acc> g_by_size;
std::vector<overlap_acc> g_by_region;  // index = region path id (innermost at the transfer); grows by doubling
struct region_stat {
  std::uint64_t entries = 0;
  std::uint64_t time = 0;  // ticks, closed entries
};
std::vector<region_stat> g_region_stats;  // index = region path id
std::uint64_t g_orphan_ends = 0;  // xfer_end whose begin never came (usage error, reported at stop)

// Region paths ("a/b/c") interned to 16-bit ids (g_region_mu). 0 = no region.
std::mutex g_region_mu;
std::deque<region_path> g_region_info(1);
std::unordered_map<std::string, std::uint16_t> g_region_ids;  // key: 2 bytes of parent id + name
bool g_warned_regions = false;

internal::trace_writer g_trace;

// Initial-exec TLS: one %fs-relative load, no __tls_get_addr call from the shared library.
thread_local struct {
  std::uint64_t gen = 0;
  thread_state* st = nullptr;
} t_slot __attribute__((tls_model("initial-exec")));

// ------------------------------------------------------------------------------------------------------------
thread_state* register_slow() noexcept {
  std::lock_guard lk(g_registry_mu);
  const std::uint64_t gen = g_hot.generation.load(relaxed);
  if (!g_hot.enabled.load(relaxed)) return nullptr;
  thread_state* st = nullptr;
  const std::uint32_t id = g_nthreads.load(relaxed) + 1;
  if (id <= max_threads) {
    try {
      auto owned = std::make_unique<thread_state>();
      owned->storage = std::make_unique<record[]>(g_col.ring_cap);
      owned->ring = owned->storage.get();
      owned->cap = g_col.ring_cap;
      owned->mask = g_col.ring_cap - 1;
      owned->high_water = std::min<std::uint64_t>(g_col.ring_cap - g_col.ring_cap / 4, fold_batch);
      owned->fold_at = owned->high_water;
      owned->id = id;
      st = owned.get();
      g_states.push_back(std::move(owned));
      g_threads[id].store(st, std::memory_order_release);
      g_nthreads.store(id, std::memory_order_release);
    } catch (...) {
      st = nullptr;
    }
  }
  if (st == nullptr && !g_warned_threads) {
    g_warned_threads = true;
    std::fprintf(stderr, "sidecore: instrument: more than %u threads recorded events (or out of memory); events of "
                 "the further threads are not recorded\n", max_threads);
  }
  t_slot.gen = gen;
  t_slot.st = st;
  return st;
}

inline thread_state* self() noexcept {
  if (t_slot.gen == g_hot.generation.load(relaxed)) [[likely]]
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

void fold(thread_state* st) noexcept;

// Equal names, compared inline for short ones (region names are; memcmp through the PLT was 7 % of a region event).
inline bool same_name(const std::string& a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  if (b.size() > 16) return std::memcmp(a.data(), b.data(), b.size()) == 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// The owner folds its own ring; afterwards its ring is empty (no other thread appends to it).
void fold_own(thread_state* st) noexcept {
  fold(st);
  st->fold_at = st->head.load(relaxed) + st->high_water;
}

// Records are written in place in the ring at head h, then published by commit(): a record built on the stack and
// copied was read back with 16-byte loads that could not be forwarded from its 8-byte stores (measured: a region
// enter + exit cost 33 ns per event instead of ~20). Room is guaranteed: the owner folds when head reaches fold_at,
// and fold_at - high_water (the head at its last own fold) <= tail, with high_water < cap. No event is ever dropped.
inline void commit(thread_state* st, std::uint64_t h) noexcept {
  st->head.store(h + 1, std::memory_order_release);
  if (h + 1 >= st->fold_at) [[unlikely]]
    fold_own(st);
}

// Appends a record with the given time, id, kind and bits (the other fields zero).
inline void push(thread_state* st, std::uint64_t t, std::uint64_t id, kind k, std::uint8_t bits) noexcept {
  const std::uint64_t h = st->head.load(relaxed);
  record& r = st->ring[h & st->mask];
  r.t = t;
  r.id = id;
  r.bytes = 0;
  r.owner_in_call = 0;
  r.owner = 0;
  r.peer = 0;
  r.owner_seq = 0;
  r.owner_region = 0;
  r.k = k;
  r.bits = bits;
  commit(st, h);
}

// The current fit, for a fold: refreshed (a new second point) when the latest point is older than a millisecond and
// the window is still open, so trace times and table conversions interpolate between measured points.
clock_fit fit_for_fold() noexcept {
  std::lock_guard lk(g_clock_mu);
  if (g_fit.tsc && !g_fit.final_fit &&
      static_cast<double>(detail::read_tsc() - g_fit.p1.ticks) * g_fit.ns_per_tick > refit_every_ns) {
    g_fit.refit(internal::sample_clock_point());
  }
  return g_fit;
}

clock_fit current_fit() noexcept {
  std::lock_guard lk(g_clock_mu);
  return g_fit;
}

// ---- analysis (fold side, under g_analysis_mu) --------------------------------------------------------------------
/// What one fold needs besides the records: the clock fit, whether a trace is written (read once per batch), and the
/// last size looked up (transfers repeat sizes): its table time and its size bin.
struct fold_ctx {
  clock_fit fit;
  bool tracing = false;
  std::uint64_t memo_bytes = UINT64_MAX;
  std::int64_t memo_ticks = -1;
  std::size_t memo_bin = SIZE_MAX;  // SIZE_MAX: no size bins

  void lookup(std::uint64_t bytes) noexcept {
    if (bytes != memo_bytes) [[unlikely]] {
      memo_bytes = bytes;
      memo_ticks = fit.ns_to_ticks(g_table.nanoseconds(static_cast<std::size_t>(bytes)));
      memo_bin = g_bins ? g_bins->index(static_cast<std::size_t>(bytes)) : SIZE_MAX;
    }
  }
  /// The table's transfer time for `bytes`, in ticks (-1 without a table).
  std::int64_t table_ticks(std::uint64_t bytes) noexcept {
    lookup(bytes);
    return memo_ticks;
  }
};

/// Adds a transfer's bound to its size bin (with size bins, the total is their sum: total_locked()) or to the total
/// (without), and to its region. Takes the bound by value, always inlined, with
/// bound_paired() inline too: the bound stays in registers. (Passed through memory, the bound's fields, stored one by
/// one, were read back with a 16-byte load that could not be forwarded from those stores: 3 ns of a 25 ns event.)
[[gnu::always_inline]] inline void account_locked(const overlap_bound b, fold_ctx& cx, std::uint64_t bytes,
                                                  std::uint16_t region) {
  const std::uint64_t mn = b.min_ns, mx = b.max_ns, xf = b.xfer_ns;
  auto add = [&](overlap_acc& a) {
    a.min_ns += mn;
    a.max_ns += mx;
    a.xfer_ns += xf;
    ++a.count;
  };
  cx.lookup(bytes);  // a compare: the caller just looked `bytes` up
  add(cx.memo_bin != SIZE_MAX ? g_by_size[cx.memo_bin] : g_total);
  if (region != 0) {
    // A vector by path id (an unordered_map here was a hash lookup, ~10 ns, per transfer made inside a region).
    if (region >= g_by_region.size()) g_by_region.resize(std::max<std::size_t>(region + 1, 2 * g_by_region.size()));
    add(g_by_region[region]);
  }
}

/// All transfers' bounds: g_total, plus the size bins (account_locked() adds a transfer to one of the two).
overlap_acc total_locked() noexcept {
  overlap_acc t = g_total;
  for (const overlap_acc& a : g_by_size) t += a;
  return t;
}

std::int64_t table_ticks(std::uint64_t bytes, const clock_fit& f) noexcept {
  return f.ns_to_ticks(g_table.nanoseconds(static_cast<std::size_t>(bytes)));
}

owner_snapshot snapshot_of(const record& r) noexcept {
  owner_snapshot s;
  s.p.t_ns = r.t;
  s.p.in_call_ns = r.owner_in_call;
  s.p.call_seq = r.owner_seq;
  s.p.in_call = (r.bits & bit_in_call) != 0;
  s.known = (r.bits & bit_owner_known) != 0;
  s.region = r.owner_region;
  return s;
}

void on_xfer_locked(const record& r, fold_ctx& cx) {
  if (r.k == kind::xfer_end_only) {
    account_locked(bound_one_known(cx.table_ticks(r.bytes)), cx, r.bytes, r.owner_region);
    return;
  }
  const bool is_begin = r.k == kind::xfer_begin;
  pending_xfer* p = g_pending.find(r.id);
  if (p != nullptr && p->is_begin == is_begin) {
    // The same event twice for one id: the earlier transfer's other half never came. Count it as case 3.
    if (p->is_begin) {
      account_locked(bound_one_known(cx.table_ticks(p->bytes)), cx, p->bytes, p->s.region);
    } else {
      ++g_orphan_ends;
    }
    g_pending.erase(*p);
    p = nullptr;
  }
  if (p == nullptr) {
    pending_xfer& n = g_pending.insert(r.id);
    n.is_begin = is_begin;
    n.s = snapshot_of(r);
    n.bytes = is_begin ? r.bytes : 0;
    return;
  }
  // Both events known (in either folding order).
  const owner_snapshot s = snapshot_of(r);
  const owner_snapshot& b = is_begin ? s : p->s;
  const owner_snapshot& e = is_begin ? p->s : s;
  const std::uint64_t bytes = is_begin ? r.bytes : p->bytes;
  const std::int64_t x = cx.table_ticks(bytes);
  account_locked(b.known && e.known ? bound_paired(b.p, e.p, x) : bound_one_known(x), cx, bytes, b.region);
  g_pending.erase(*p);
}

std::string region_leaf(std::uint16_t id) {
  std::lock_guard lk(g_region_mu);
  return id < g_region_info.size() ? g_region_info[id].leaf : std::string("?");
}

// A transfer's trace lines: its async half on the owner's track, and an instant on the recording thread's.
void trace_xfer(const thread_state* st, const record& r, const clock_fit& f) {
  const std::uint32_t track = r.owner != no_thread ? r.owner : st->id;
  const std::uint64_t t = f.to_ns(r.t);
  if (r.k != kind::xfer_end) g_trace.async_begin(track, r.id, t, r.bytes, r.peer, r.owner);
  if (r.k != kind::xfer_begin) g_trace.async_end(track, r.id, t);
  if (st->id != r.owner) g_trace.instant(st->id, r.k == kind::xfer_begin ? "post" : "complete", t, r.id);
}

// An XFER_BEGIN whose XFER_END is the next record of the same ring (a transfer that completed before its thread
// recorded anything else), with no pending entry for its id: bounded at once, as on_xfer_locked() would pair them,
// without a pending entry. False (nothing done) otherwise.
inline bool pair_adjacent_locked(const record& b, const record& e, fold_ctx& cx) {
  if (b.k != kind::xfer_begin || e.k != kind::xfer_end || e.id != b.id ||
      (!g_pending.empty() && g_pending.find(b.id) != nullptr)) {
    return false;
  }
  const owner_snapshot sb = snapshot_of(b);
  const owner_snapshot se = snapshot_of(e);
  const std::int64_t x = cx.table_ticks(b.bytes);
  // Two calls, not one on `known ? bound_paired() : bound_one_known()`: GCC merged the two bounds through a stack
  // slot and reloaded it with a 16-byte load that could not be forwarded from the 8-byte stores.
  if (sb.known && se.known) {
    account_locked(bound_paired(sb.p, se.p, x), cx, b.bytes, sb.region);
  } else {
    account_locked(bound_one_known(x), cx, b.bytes, sb.region);
  }
  return true;
}

// A region entry of `id` closed: its wall time, and its span in the trace (inline: on the region-pair fold path).
[[gnu::always_inline]] inline void close_region_locked(thread_state* st, std::uint16_t id, std::uint64_t t0,
                                                       std::uint64_t t1, const fold_ctx& cx) {
  if (id < g_region_stats.size()) g_region_stats[id].time += t1 > t0 ? t1 - t0 : 0;
  if (cx.tracing) {
    g_trace.complete(st->id + region_track_offset, region_leaf(id), "region", cx.fit.to_ns(t0), cx.fit.to_ns(t1));
  }
}

void process(thread_state* st, const record& r, fold_ctx& cx) {
  const bool tracing = cx.tracing;
  const clock_fit& f = cx.fit;
  switch (r.k) {
    case kind::call_enter:  // only recorded while tracing
      if (tracing && st->f_had_call && r.t > st->f_last_exit_t) {
        g_trace.complete(st->id, "compute", "compute", f.to_ns(st->f_last_exit_t), f.to_ns(r.t));
      }
      st->f_enter_t = r.t;
      st->f_enter_name = reinterpret_cast<const char*>(static_cast<std::uintptr_t>(r.id));
      st->f_open = true;
      break;
    case kind::call_exit: {
      const auto c = static_cast<category>(r.bits & 0x0f);
      if (tracing && st->f_open) {
        g_trace.complete(st->id, st->f_enter_name != nullptr ? std::string_view(st->f_enter_name) : category_name(c),
                         category_name(c), f.to_ns(st->f_enter_t), f.to_ns(r.t));
      }
      st->f_open = false;
      st->f_had_call = true;
      st->f_last_exit_t = r.t;
      break;
    }
    case kind::xfer_begin:
    case kind::xfer_end:
    case kind::xfer_end_only: {
      on_xfer_locked(r, cx);
      if (tracing) trace_xfer(st, r, f);
      break;
    }
    case kind::region_enter: {
      st->f_had_region = true;
      const auto id = static_cast<std::uint16_t>(r.id);
      if (id >= g_region_stats.size()) g_region_stats.resize(std::max<std::size_t>(id + 1, 2 * g_region_stats.size()));
      ++g_region_stats[id].entries;
      if (st->f_region_depth < max_region_depth) {
        st->f_region_t[st->f_region_depth] = r.t;
        st->f_region_id[st->f_region_depth] = id;
      }
      ++st->f_region_depth;
      break;
    }
    case kind::region_exit:
      if (st->f_region_depth > 0) {
        --st->f_region_depth;
        if (st->f_region_depth < max_region_depth) {
          close_region_locked(st, st->f_region_id[st->f_region_depth], st->f_region_t[st->f_region_depth], r.t, cx);
        }
      }
      break;
  }
}

// A region entered and left with nothing recorded in between (the records are adjacent): both at once, as
// process() would do them one by one.
inline bool fold_region_pair(thread_state* st, const record& b, const record& e, fold_ctx& cx) {
  const auto id = static_cast<std::uint16_t>(b.id);
  if (e.k != kind::region_exit || e.id != b.id || id >= g_region_stats.size()) return false;
  ++g_region_stats[id].entries;
  st->f_had_region = true;
  close_region_locked(st, id, b.t, e.t, cx);
  return true;
}

void fold(thread_state* st) noexcept {
  std::lock_guard lk(st->fold_mu);
  const std::uint64_t h = st->head.load(std::memory_order_acquire);
  std::uint64_t t = st->tail.load(relaxed);
  if (t == h) return;
  std::lock_guard la(g_analysis_mu);  // once per batch, not per record
  fold_ctx cx{fit_for_fold(), g_trace.active()};
  try {
    for (; t != h; ++t) {
      const record& r = st->ring[t & st->mask];
      if (r.k == kind::xfer_begin && t + 1 != h && pair_adjacent_locked(r, st->ring[(t + 1) & st->mask], cx)) {
        if (cx.tracing) {
          trace_xfer(st, r, cx.fit);
          trace_xfer(st, st->ring[(t + 1) & st->mask], cx.fit);
        }
        ++t;
        continue;
      }
      if (r.k == kind::region_enter && t + 1 != h && st->f_region_depth < max_region_depth &&
          fold_region_pair(st, r, st->ring[(t + 1) & st->mask], cx)) {
        ++t;
        continue;
      }
      process(st, r, cx);
    }
  } catch (...) {
    // Out of memory in the analysis: the remaining records are skipped rather than crashing the application.
    std::fprintf(stderr, "sidecore: instrument: out of memory while folding events; %llu events skipped\n",
                 static_cast<unsigned long long>(h - t));
  }
  st->tail.store(h, std::memory_order_release);
  // The trace bound reached: stop sending call events to the ring (the profile counts calls without it).
  if (g_hot.trace.load(relaxed) && !g_trace.accepting()) g_hot.trace.store(false, relaxed);
}

void fold_all() noexcept {
  const std::uint32_t n = g_nthreads.load(std::memory_order_acquire);
  for (std::uint32_t i = 1; i <= n; ++i) {
    if (thread_state* st = g_threads[i].load(std::memory_order_acquire)) fold(st);
  }
}

/// Closes the measured window (once; g_registry_mu held): its end in ticks, the communicating thread's in-call time
/// up to it (calls made after the window's end do not count against t_comp) and, for the TSC, the fit's final point.
void close_window() noexcept {
  if (!g_col.closed) {
    if (g_col.t_end == 0) g_col.t_end = detail::ticks();
    g_col.closed = true;
    if (const std::uint32_t main = g_hot.main_thread.load(relaxed); main != no_thread) {
      g_col.main_in_call = snapshot_owner(nullptr, main, g_col.t_end).p.in_call_ns;
    }
  }
  std::lock_guard lk(g_clock_mu);
  if (g_fit.tsc && !g_fit.final_fit) g_fit.refit(internal::sample_clock_point());
  g_fit.final_fit = true;
}

std::uint64_t round_pow2(std::uint64_t v) {
  std::uint64_t c = 16;
  while (c < v) c <<= 1;
  return c;
}

std::string substitute_rank(const std::string& pattern, const std::string& what) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'r') {
      out += what;
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

/// Interns the path `parent`/`name`; 0 when the table is full or memory is short (the caller uses the parent).
std::uint16_t intern_region(std::uint16_t parent, std::string_view name, const region_path** info) noexcept {
  try {
    std::string key(2, '\0');
    key[0] = static_cast<char>(parent & 0xff);
    key[1] = static_cast<char>(parent >> 8);
    key += name;
    std::lock_guard lk(g_region_mu);
    if (auto it = g_region_ids.find(key); it != g_region_ids.end()) {
      *info = &g_region_info[it->second];
      return it->second;
    }
    if (g_region_info.size() >= max_region_paths) {
      if (!g_warned_regions) {
        g_warned_regions = true;
        std::fprintf(stderr, "sidecore: instrument: more than %zu distinct region paths; further ones are "
                     "attributed to their parent\n", max_region_paths - 1);
      }
      return 0;
    }
    const auto id = static_cast<std::uint16_t>(g_region_info.size());
    region_path p;
    p.leaf = std::string(name);
    p.path = parent == 0 ? p.leaf : g_region_info[parent].path + "/" + p.leaf;
    p.parent = parent;
    g_region_info.push_back(std::move(p));
    g_region_ids.emplace(std::move(key), id);
    *info = &g_region_info[id];
    return id;
  } catch (...) {
    return 0;
  }
}

}  // namespace

// ---- recording entry points -----------------------------------------------------------------------------------
namespace detail {

void call_enter_at(category c, std::uint64_t t, const char* name) noexcept {
  thread_state* st = self();
  if (st == nullptr) return;
  if (st->depth++ != 0) return;  // nested: only the outermost call counts
  if (t == 0) t = ticks();
  st->outer = c;
  st->enter_t = t;
  st->call_region = st->region;
  publish(st, st->pub_in_call.load(relaxed), t, st->pub_seq.load(relaxed) + 1, flags_of(true, st->region));
  if (g_hot.trace.load(relaxed)) {
    // id: a static string, only read by the trace
    push(st, t, reinterpret_cast<std::uintptr_t>(name), kind::call_enter, static_cast<std::uint8_t>(c));
  }
  if (g_hot.main_thread.load(relaxed) == no_thread) [[unlikely]] {
    std::uint32_t expected = no_thread;  // once per collection
    g_hot.main_thread.compare_exchange_strong(expected, st->id, relaxed);
  }
  // Analysis while the thread would wait anyway (seed 002): fold early on entering a wait or blocking call.
  if ((c == category::wait || c == category::blocking) &&
      st->head.load(relaxed) + st->high_water - st->fold_at >= st->high_water / 4) {
    fold_own(st);
  }
}

void call_exit_at(category /*c*/, std::uint64_t t) noexcept {
  thread_state* st = self();
  if (st == nullptr || st->depth == 0) return;
  if (--st->depth != 0) return;
  if (t == 0) t = ticks();
  const std::uint64_t d = t > st->enter_t ? t - st->enter_t : 0;
  const auto ci = static_cast<std::size_t>(st->outer);
  cat_counter& a = st->cats[ci];
  bump(a.time, d);
  bump(a.count, 1);
  if (d < a.min.load(relaxed)) a.min.store(d, relaxed);
  if (const std::uint16_t reg = st->call_region; reg != 0) {
    if (region_calls* chunk = st->region_chunks[reg / region_chunk].load(relaxed)) {
      region_calls& rc = chunk[reg % region_chunk];
      bump(rc.time[ci], d);
      bump(rc.count[ci], 1);
    }
  }
  publish(st, st->pub_in_call.load(relaxed) + d, t, st->pub_seq.load(relaxed), flags_of(false, st->region));
  if (g_hot.trace.load(relaxed)) {
    push(st, t, 0, kind::call_exit, static_cast<std::uint8_t>(st->outer));  // the outermost call's category
  }
}

namespace {
inline void push_xfer(kind k, std::uint64_t id, std::uint64_t bytes, int peer, std::uint32_t owner,
                      std::uint64_t t) noexcept {
  thread_state* st = self();
  if (st == nullptr) return;
  // Written in place, then committed (as push() does).
  const std::uint64_t h = st->head.load(relaxed);
  record& r = st->ring[h & st->mask];
  r.t = t;
  r.id = id;
  r.bytes = bytes;
  r.owner = owner;
  r.peer = peer;
  r.k = k;
  if (owner == st->id) [[likely]] {
    // The owner records for itself (off mode): its own fields, as snapshot_owner() reads them, without the call.
    const bool in_call = st->depth != 0;
    const std::uint64_t last = st->pub_last_t.load(relaxed);
    r.owner_in_call = st->pub_in_call.load(relaxed) + (in_call && t > last ? t - last : 0);
    r.owner_seq = st->pub_seq.load(relaxed);
    r.owner_region = st->region;
    r.bits = static_cast<std::uint8_t>((in_call ? bit_in_call : 0) | bit_owner_known);
  } else {
    const owner_snapshot s = snapshot_owner(st, owner, t);
    r.owner_in_call = s.p.in_call_ns;
    r.owner_seq = s.p.call_seq;
    r.owner_region = s.region;
    r.bits = static_cast<std::uint8_t>((s.p.in_call ? bit_in_call : 0) | (s.known ? bit_owner_known : 0));
  }
  commit(st, h);
}
}  // namespace

void xfer_begin_at(std::uint64_t xfer_id, std::size_t bytes, int peer, std::uint32_t owner, std::uint64_t t) noexcept {
  push_xfer(kind::xfer_begin, xfer_id, bytes, peer, owner, t);
}

void xfer_end_at(std::uint64_t xfer_id, std::uint32_t owner, std::uint64_t t) noexcept {
  push_xfer(kind::xfer_end, xfer_id, 0, -1, owner, t);
}

void xfer_end_only_at(std::uint64_t xfer_id, std::size_t bytes, int peer, std::uint32_t owner,
                      std::uint64_t t) noexcept {
  push_xfer(kind::xfer_end_only, xfer_id, bytes, peer, owner, t);
}

void region_enter_at(std::string_view name, std::uint64_t t) noexcept {
  thread_state* st = self();
  if (st == nullptr) return;
  if (st->region_depth >= max_region_depth) {
    ++st->region_depth;  // too deep: tracked as depth only, attributed to the enclosing region
    return;
  }
  const std::uint16_t parent = st->region;
  // Two per-thread caches in front of the global path table, both checked against the name's contents (callers may
  // reuse one buffer for different names). First by the name's pointer (a literal, or a buffer reused for the same
  // name: no pass over the contents but the compare); then by a hash of the contents (FNV-1a, inline: std::hash, an
  // out-of-line call, was 5 % of a region event; but its multiply chain is ~20 cycles for a 5-letter name).
  thread_state::cached_ptr& pc =
      st->ptr_cache[((reinterpret_cast<std::uintptr_t>(name.data()) >> 3) ^ (parent * 0x9E3779B1u)) % ptr_cache_size];
  std::uint16_t id = 0;
  if (pc.info != nullptr && pc.ptr == name.data() && pc.info->parent == parent && same_name(pc.info->leaf, name)) {
    id = pc.id;
  } else {
    std::uint32_t hv = 2166136261u ^ (parent * 0x9E3779B1u);
    for (const char ch : name) hv = (hv ^ static_cast<unsigned char>(ch)) * 16777619u;
    thread_state::cached_name& cached = st->name_cache[hv % name_cache_size];
    const region_path* info = nullptr;
    if (cached.info != nullptr && cached.info->parent == parent && same_name(cached.info->leaf, name)) {
      id = cached.id;
      info = cached.info;
    } else {
      id = intern_region(parent, name, &info);
      if (id != 0) cached = {info, id};
    }
    if (id != 0) pc = {name.data(), info, id};
  }
  if (id == 0) {
    // No path of its own (the path table is full, or memory is short): the time and calls stay with the parent,
    // which is not entered again (no record: its entries and time would count twice).
    st->region_untracked |= std::uint64_t{1} << st->region_depth;
    st->region_stack[st->region_depth++] = parent;
    return;
  }
  if (st->region_chunks[id / region_chunk].load(relaxed) == nullptr) {
    // First use of this block of 256 paths on this thread: its call counters (released to the profile reader).
    if (auto* chunk = new (std::nothrow) region_calls[region_chunk]()) {
      st->region_chunks[id / region_chunk].store(chunk, std::memory_order_release);
    }
  }
  st->region_stack[st->region_depth++] = id;
  st->region = id;
  publish(st, st->pub_in_call.load(relaxed), st->pub_last_t.load(relaxed), st->pub_seq.load(relaxed),
          flags_of(st->depth != 0, id));
  push(st, t, id, kind::region_enter, 0);
}

void region_exit_at(std::uint64_t t) noexcept {
  thread_state* st = self();
  if (st == nullptr || st->region_depth == 0) return;
  const bool tracked = st->region_depth <= max_region_depth;
  const std::uint16_t id = st->region;
  --st->region_depth;
  if (!tracked) return;
  if (const std::uint64_t bit = std::uint64_t{1} << st->region_depth; (st->region_untracked & bit) != 0) {
    st->region_untracked &= ~bit;  // an entry without a path of its own: nothing was recorded, the region is unchanged
    return;
  }
  st->region = st->region_depth == 0 ? 0 : st->region_stack[st->region_depth - 1];
  publish(st, st->pub_in_call.load(relaxed), st->pub_last_t.load(relaxed), st->pub_seq.load(relaxed),
          flags_of(st->depth != 0, st->region));
  push(st, t, id, kind::region_exit, 0);
}

std::uint32_t register_current_thread() noexcept {
  thread_state* st = self();
  return st == nullptr ? no_thread : st->id;
}

void set_window_end(std::uint64_t t) noexcept { g_col.t_end = t; }
void set_window_start(std::uint64_t t) noexcept { g_col.t_start = t; }

}  // namespace detail

// ---- the event clock ------------------------------------------------------------------------------------------------
event_clock active_clock() noexcept {
  return g_hot.tsc.load(relaxed) ? event_clock::tsc : event_clock::monotonic;
}

clock_calibration calibration() noexcept {
  const clock_fit f = current_fit();
  clock_calibration c;
  c.tsc = f.tsc;
  c.final_fit = f.final_fit;
  c.ns_per_tick = f.ns_per_tick;
  c.tick0 = f.p0.ticks;
  c.ns0 = f.p0.ns;
  c.tick1 = f.p1.ticks;
  c.ns1 = f.p1.ns;
  c.spread0 = f.p0.spread;
  c.spread1 = f.p1.spread;
  return c;
}

std::uint64_t ticks_to_ns(std::uint64_t ticks) noexcept { return current_fit().to_ns(ticks); }

// ---- control ----------------------------------------------------------------------------------------------------
void start(const config& cfg, int rank, int nranks) {
  size_bins bins(cfg.size_bin_edges);  // validates before anything changes
  std::lock_guard lk(g_registry_mu);
  g_hot.enabled.store(false, relaxed);
  g_hot.trace.store(false, relaxed);
  // The event clock: the TSC where it is usable (and not declined), first calibration point now.
  std::string why;
  const bool tsc = cfg.clock != event_clock::monotonic && tsc_usable(&why);
  clock_fit fit;
  fit.tsc = tsc;
  if (tsc) fit.p0 = fit.p1 = internal::sample_clock_point();
  {
    std::lock_guard la(g_analysis_mu);
    g_pending.reset(64);  // grows (doubling) past half full; small stays in L1
    g_total = {};
    g_by_size.assign(bins.count(), overlap_acc{});
    g_by_region.assign(16, overlap_acc{});
    g_region_stats.assign(16, region_stat{});
    g_bins.emplace(std::move(bins));
    g_orphan_ends = 0;
    g_table = xfer_time_table{};
  }
  {
    std::lock_guard lr(g_region_mu);
    g_region_info.clear();
    g_region_info.emplace_back();
    g_region_ids.clear();
  }
  for (auto& slot : g_threads) slot.store(nullptr, relaxed);
  g_states.clear();
  g_nthreads.store(0, relaxed);
  g_hot.main_thread.store(no_thread, relaxed);
  g_warned_threads = false;
  g_warned_regions = false;
  g_col = collection{};
  g_col.cfg = cfg;
  g_col.rank = rank;
  g_col.nranks = nranks;
  g_col.ring_cap = round_pow2(std::max<std::uint64_t>(cfg.ring_events, 16));
  if (!tsc && cfg.clock != event_clock::monotonic) g_col.clock_note = why;
  if (tsc) {
    // A provisional slope for the folds before the first refresh: a second point 0.1 ms after the first.
    while (now_ns() - fit.p0.ns < initial_fit_ns) {
    }
    fit.refit(internal::sample_clock_point());
  }
  {
    std::lock_guard lc(g_clock_mu);
    g_fit = fit;
  }
  g_hot.tsc.store(tsc, relaxed);
  g_col.t_start = detail::ticks();
  if (cfg.trace) g_trace.open(path_for_rank(cfg.trace_path, rank), cfg.trace_max_events, rank, fit.to_ns(g_col.t_start));
  g_hot.trace.store(g_trace.active(), relaxed);
  g_hot.generation.fetch_add(1, relaxed);
  g_hot.enabled.store(cfg.profile || g_trace.active(), std::memory_order_release);
}

void name_current_thread(std::string_view name) noexcept {
  if (!enabled()) return;
  thread_state* st = self();
  if (st == nullptr) return;
  std::lock_guard lk(st->fold_mu);
  const std::size_t n = std::min(name.size(), sizeof(st->name) - 1);
  std::memcpy(st->name, name.data(), n);
  st->name[n] = '\0';
}

void mark_progress_thread() noexcept {
  if (!enabled()) return;
  name_current_thread("progress");
  if (thread_state* st = self()) {
    std::lock_guard lk(st->fold_mu);
    st->progress = true;
  }
}

void fold_current_thread(std::size_t min_records) noexcept {
  if (!enabled()) return;
  thread_state* st = self();
  if (st == nullptr) return;
  // Records since the owner's last own fold (an upper bound on what the ring holds): private fields only.
  const std::uint64_t held = st->head.load(relaxed) + st->high_water - st->fold_at;
  if (held == 0 || held < std::min<std::uint64_t>(min_records, st->high_water / 4)) return;
  fold_own(st);
}

void set_xfer_time_table(std::vector<std::pair<std::size_t, double>> bytes_to_seconds, std::string source) {
  set_xfer_time_table(xfer_time_table(std::move(bytes_to_seconds), std::move(source)));
}

void set_xfer_time_table(xfer_time_table table) {
  std::lock_guard la(g_analysis_mu);
  g_table = std::move(table);
}

void set_progress_stats(double busy_s, double idle_s, std::uint64_t polls, std::uint64_t completions) noexcept {
  std::lock_guard lk(g_registry_mu);
  g_col.has_progress = true;
  g_col.progress_busy_s = busy_s;
  g_col.progress_idle_s = idle_s;
  g_col.progress_polls = polls;
  g_col.progress_completions = completions;
}

void end_window() noexcept {
  if (!enabled()) return;
  std::lock_guard lk(g_registry_mu);
  if (g_hot.enabled.load(relaxed)) close_window();
}

void set_run_info(std::string mode, std::string provider, int n_core, double t_total_s) {
  std::lock_guard lk(g_registry_mu);
  g_col.mode = std::move(mode);
  g_col.provider = std::move(provider);
  g_col.n_core = n_core;
  g_col.t_total_override = t_total_s;
}

void set_command_line(std::string command) {
  std::lock_guard lk(g_registry_mu);
  g_col.command = std::move(command);
}

namespace {
overlap_acc to_ns(const overlap_acc& a, const clock_fit& f) {
  return {f.dur_ns(a.min_ns), f.dur_ns(a.max_ns), f.dur_ns(a.xfer_ns), a.count};
}
}  // namespace

std::string rank_profile_json() {
  fold_all();
  internal::profile_data p;
  std::uint64_t t_end = 0;
  // Per region path, calls made while it was the innermost path (ticks), summed over threads.
  std::vector<std::array<internal::call_sum, category_count>> region_calls_excl;
  // Open regions (still entered at the window's end): path id and entry time.
  std::vector<std::pair<std::uint16_t, std::uint64_t>> open_regions;
  clock_fit f;
  {
    std::lock_guard lk(g_registry_mu);
    close_window();
    f = current_fit();
    t_end = g_col.t_end;
    p.rank = g_col.rank;
    p.nranks = g_col.nranks;
    p.mode = g_col.mode;
    p.provider = g_col.provider;
    p.n_core = g_col.n_core;
    const std::uint64_t window = t_end > g_col.t_start ? t_end - g_col.t_start : 0;
    p.t_total_s = g_col.t_total_override >= 0 ? g_col.t_total_override : static_cast<double>(f.dur_ns(window)) * 1e-9;
    // t_comp: time outside sidecore calls on the thread that communicates (the first thread that made a call),
    // over the same window as t_total.
    const std::uint64_t in_calls = std::min(g_col.main_in_call, window);
    p.t_comp_s = static_cast<double>(f.dur_ns(window - in_calls)) * 1e-9;
    p.command = g_col.command;
    p.clock_source = f.tsc ? "tsc" : "monotonic";
    p.tsc_hz = f.tsc ? 1e9 / f.ns_per_tick : 0.0;
    p.clock_note = g_col.clock_note;
    p.has_progress = g_col.has_progress;
    p.progress_busy_s = g_col.progress_busy_s;
    p.progress_idle_s = g_col.progress_idle_s;
    p.progress_polls = g_col.progress_polls;
    p.progress_completions = g_col.progress_completions;
    for (const auto& st : g_states) {
      for (std::size_t c = 0; c < category_count; ++c) {
        const cat_counter& a = st->cats[c];
        category_acc acc;
        acc.time_ns = a.time.load(relaxed);
        acc.count = a.count.load(relaxed);
        acc.min_ns = a.min.load(relaxed);
        p.categories[c].merge(acc);
      }
      for (std::size_t k = 0; k < st->region_chunks.size(); ++k) {
        const region_calls* chunk = st->region_chunks[k].load(std::memory_order_acquire);
        if (chunk == nullptr) continue;
        for (std::size_t i = 0; i < region_chunk; ++i) {
          const std::size_t id = k * region_chunk + i;
          for (std::size_t c = 0; c < category_count; ++c) {
            const std::uint64_t n = chunk[i].count[c].load(relaxed);
            if (n == 0) continue;
            if (region_calls_excl.size() <= id) region_calls_excl.resize(id + 1);
            region_calls_excl[id][c].count += n;
            region_calls_excl[id][c].time += chunk[i].time[c].load(relaxed);
          }
        }
      }
      std::lock_guard lf(st->fold_mu);
      for (std::uint32_t d = 0; d < std::min(st->f_region_depth, max_region_depth); ++d) {
        open_regions.emplace_back(st->f_region_id[d], st->f_region_t[d]);
      }
    }
  }
  for (auto& c : p.categories) {
    c.time_ns = f.dur_ns(c.time_ns);
    if (c.count != 0) c.min_ns = f.dur_ns(c.min_ns);
  }
  {
    std::lock_guard la(g_analysis_mu);
    overlap_acc total = total_locked();
    std::vector<overlap_acc> by_size = g_by_size;
    std::vector<overlap_acc> by_region = g_by_region;
    // Transfers with only one event so far count as case 3 (not consumed: a later profile may pair them).
    g_pending.for_each([&](const pending_xfer& px) {
      if (!px.is_begin) return;  // an end whose begin never came carries no size: see g_orphan_ends
      const overlap_bound b = bound_one_known(table_ticks(px.bytes, f));
      const overlap_acc one{b.min_ns, b.max_ns, b.xfer_ns, 1};
      total += one;
      if (g_bins) by_size[g_bins->index(static_cast<std::size_t>(px.bytes))] += one;
      if (px.s.region != 0) {
        if (px.s.region >= by_region.size()) by_region.resize(px.s.region + 1u);
        by_region[px.s.region] += one;
      }
    });
    p.total = to_ns(total, f);
    p.xfer_time_source = !g_table.empty() ? g_table.source() : total.count != 0 ? "measured" : "none";
    if (g_bins) {
      for (std::size_t i = 0; i < by_size.size(); ++i) {
        if (by_size[i].count == 0) continue;
        p.by_size.push_back({g_bins->lo(i), g_bins->hi(i), g_bins->bounded(i), to_ns(by_size[i], f)});
      }
    }
    // Regions: entries and wall time per path (open entries run to the window's end), and calls with sub-regions
    // included (each path's own calls added to every ancestor).
    std::vector<region_stat> stats = g_region_stats;
    std::lock_guard lr(g_region_mu);
    // Overlap by region: each transfer was counted in its innermost path; add it to every ancestor too, so that a
    // region's bounds include its sub-regions' as its time and calls do.
    std::unordered_map<std::uint16_t, overlap_acc> incl_overlap;
    for (std::size_t rid = 1; rid < by_region.size(); ++rid) {
      if (by_region[rid].count == 0) continue;
      for (std::size_t a = rid; a != 0 && a < g_region_info.size(); a = g_region_info[a].parent) {
        incl_overlap[static_cast<std::uint16_t>(a)] += by_region[rid];
      }
    }
    for (const auto& [rid, acc] : incl_overlap) p.by_region.push_back({g_region_info[rid].path, to_ns(acc, f)});
    std::sort(p.by_region.begin(), p.by_region.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    const std::size_t npaths = g_region_info.size();
    stats.resize(std::max(stats.size(), npaths));
    for (const auto& [id, t0] : open_regions) {
      if (id < stats.size()) stats[id].time += t_end > t0 ? t_end - t0 : 0;
    }
    std::vector<std::array<internal::call_sum, category_count>> incl(npaths);
    for (std::size_t id = 1; id < std::min(npaths, region_calls_excl.size()); ++id) {
      for (std::size_t a = id; a != 0; a = g_region_info[a].parent) {
        for (std::size_t c = 0; c < category_count; ++c) {
          incl[a][c].time += region_calls_excl[id][c].time;
          incl[a][c].count += region_calls_excl[id][c].count;
        }
      }
    }
    for (std::size_t id = 1; id < npaths; ++id) {
      if (stats[id].entries == 0) continue;
      internal::profile_data::region_time r;
      r.name = g_region_info[id].path;
      r.entries = stats[id].entries;
      r.time_ns = f.dur_ns(stats[id].time);
      for (std::size_t c = 0; c < category_count; ++c) r.cats[c] = {f.dur_ns(incl[id][c].time), incl[id][c].count};
      p.regions.push_back(std::move(r));
    }
    std::sort(p.regions.begin(), p.regions.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  }
  return internal::rank_profile_to_json(p);
}

bool write_trace() {
  if (!g_trace.active()) return true;
  fold_all();
  std::vector<std::pair<std::uint32_t, std::string>> names;
  {
    std::lock_guard lk(g_registry_mu);
    for (const auto& st : g_states) {
      std::lock_guard lf(st->fold_mu);
      std::string n = st->name[0] != '\0' ? std::string(st->name) : "thread " + std::to_string(st->id);
      if (st->f_had_region) names.emplace_back(st->id + region_track_offset, n + " regions");
      names.emplace_back(st->id, std::move(n));
    }
  }
  const std::string meta = fmt::format(
      R"("rank":{},"nranks":{},"mode":{},"provider":{},"eager_max":{},"inject_size":{},"omp_threads":{},)"
      R"("ops":"sidecore-trace-ops/1")",
      g_col.rank, g_col.nranks, nlohmann::json(g_col.mode).dump(), nlohmann::json(g_col.provider).dump(),
      g_col.eager_max, g_col.inject_size, g_col.omp_threads);
  return g_trace.close(names, "rank " + std::to_string(g_col.rank), meta);
}

void set_trace_info(std::size_t eager_max, std::size_t inject_size, int omp_threads) noexcept {
  g_col.eager_max = eager_max;
  g_col.inject_size = inject_size;
  g_col.omp_threads = omp_threads;
}

void detail::trace_post_at(bool send, std::uint64_t req, int peer, int world_peer, int tag, int comm,
                           std::size_t bytes, const char* proto, std::uint64_t t_ns) noexcept {
  try {
    g_trace.op(register_current_thread(), send ? "post_send" : "post_recv", t_ns,
               fmt::format(R"("req":"0x{:x}","peer":{},"world_peer":{},"tag":{},"comm":{},"bytes":{},"proto":"{}")",
                           req, peer, world_peer, tag, comm, bytes, proto));
  } catch (...) {  // formatting failed (out of memory): the trace misses this event, the run goes on
  }
}

void detail::trace_done_at(std::uint64_t req, int source, int world_source, int tag, std::size_t bytes,
                           std::uint64_t t_ns) noexcept {
  try {
    g_trace.op(register_current_thread(), "done", t_ns,
               fmt::format(R"("req":"0x{:x}","source":{},"world_source":{},"tag":{},"bytes":{})", req, source,
                           world_source, tag, bytes));
  } catch (...) {  // as above
  }
}

std::uint64_t trace_events_written() noexcept { return g_trace.written(); }

void stop() {
  {
    std::lock_guard lk(g_registry_mu);
    if (g_hot.enabled.load(relaxed)) close_window();
  }
  write_trace();
  g_hot.enabled.store(false, relaxed);
  g_hot.trace.store(false, relaxed);
  std::lock_guard la(g_analysis_mu);
  if (g_orphan_ends != 0) {
    std::fprintf(stderr, "sidecore: instrument: %llu xfer_end without a matching xfer_begin were ignored\n",
                 static_cast<unsigned long long>(g_orphan_ends));
    g_orphan_ends = 0;
  }
}

std::string path_for_rank(const std::string& pattern, int rank) {
  if (pattern.find("%r") != std::string::npos) return substitute_rank(pattern, std::to_string(rank));
  const std::string suffix = ".json";
  if (pattern.size() > suffix.size() && pattern.compare(pattern.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return pattern.substr(0, pattern.size() - suffix.size()) + "." + std::to_string(rank) + suffix;
  }
  return pattern + "." + std::to_string(rank);
}

std::string job_path(const std::string& pattern) { return substitute_rank(pattern, "job"); }

bool write_text_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "sidecore: cannot open '%s' for writing\n", path.c_str());
    return false;
  }
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) std::fprintf(stderr, "sidecore: error writing '%s'\n", path.c_str());
  return ok && closed;
}

}  // namespace sidecore::instrument
