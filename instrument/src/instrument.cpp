// sidecore instrument — recording (per-thread rings), incremental folding, overlap and category accounting.
//
// Recording path (every hook, after a thread's first event): no allocation, no system call, no lock except the
// region-name interning lock. The owning thread appends fixed-size records to its ring; a fold turns records into
// accumulator updates and trace lines. Folds happen (a) at the high-water mark, (b) on entry to an outermost wait
// or blocking call when the ring is a quarter full — analysis while the thread would wait anyway (seed 002) —,
// (c) on fold_current_thread(), and (d) for every ring, at profile/trace/stop time.
#include "sidecore/instrument/instrument.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "internal.hpp"

namespace sidecore::instrument {

namespace detail {
std::atomic<bool> g_enabled{false};
}  // namespace detail

namespace {

using internal::category_acc;
using internal::overlap_acc;

enum class kind : std::uint8_t { call_enter, call_exit, xfer_begin, xfer_end, xfer_end_only, region_enter, region_exit };

/// One event: 48 bytes, native byte order (seed 002: minimal fixed-size binary records).
/// For transfer events the owner's state at `t` is captured (owner_in_call_ns, owner_seq, in_call bit, region),
/// so a transfer's bounds never need the owner's history (docs/instrument.md, threading rule).
struct record {
  std::uint64_t t;
  std::uint64_t id;     // transfer id; region path id for region events
  std::uint64_t bytes;  // transfer size
  std::uint64_t owner_in_call_ns;
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

struct thread_state {
  // ---- written by the owning thread only (hot) ----
  std::unique_ptr<record[]> storage;
  record* ring = nullptr;
  std::uint64_t cap = 0;
  std::uint64_t mask = 0;
  std::uint64_t high_water = 0;
  std::uint32_t id = no_thread;
  std::uint32_t depth = 0;
  category outer = category::other;
  std::uint64_t in_call_ns = 0;  // cumulative time inside outermost calls
  std::uint64_t last_t = 0;      // last outermost transition
  std::uint32_t seq = 0;         // outermost calls entered
  bool in_call = false;
  std::uint32_t region_depth = 0;  // may exceed max_region_depth: deeper regions are not tracked
  std::array<std::uint16_t, max_region_depth> region_stack{};
  std::atomic<std::uint64_t> head{0};

  // ---- published owner state (seqlock), read by threads recording transfers for this owner ----
  alignas(64) std::atomic<std::uint32_t> version{0};
  std::atomic<std::uint64_t> pub_in_call_ns{0};
  std::atomic<std::uint64_t> pub_last_t{0};
  std::atomic<std::uint32_t> pub_seq{0};
  std::atomic<std::uint32_t> pub_flags{0};  // bit 0: in call; bits 16..31: region path id

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
  std::array<category_acc, category_count> cats{};
  char name[32] = {};
  bool progress = false;
};

struct owner_snapshot {
  owner_point p;
  std::uint16_t region = 0;
  bool known = false;
};

struct half {
  owner_snapshot s;
  std::uint32_t recorder = no_thread;
};
struct pending_xfer {
  bool has_begin = false;
  bool has_end = false;
  half b;
  half e;
  std::uint64_t bytes = 0;
};

// ---- global collection state ----
std::mutex g_registry_mu;  // registration, start/stop
std::atomic<std::uint64_t> g_generation{0};
std::array<std::atomic<thread_state*>, max_threads + 1> g_threads{};  // index = thread id; 0 unused
std::atomic<std::uint32_t> g_nthreads{0};
std::vector<std::unique_ptr<thread_state>> g_states;  // owned until the next start()
std::atomic<std::uint32_t> g_main_thread{no_thread};
bool g_warned_threads = false;

struct collection {
  config cfg;
  int rank = 0;
  int nranks = 1;
  std::uint64_t ring_cap = 4096;
  std::uint64_t t_start = 0;
  std::uint64_t t_end = 0;
  std::string mode = "off";
  std::string provider = "unknown";
  int n_core = 0;
  double t_total_override = -1.0;
  std::string command;
  bool has_progress = false;
  double progress_busy_s = 0, progress_idle_s = 0;
  std::uint64_t progress_polls = 0, progress_completions = 0;
};
collection g_col;

// Analysis state: pending transfers and overlap sums (g_analysis_mu).
std::mutex g_analysis_mu;
xfer_time_table g_table;
std::optional<size_bins> g_bins;
std::unordered_map<std::uint64_t, pending_xfer> g_pending;
overlap_acc g_total;
std::vector<overlap_acc> g_by_size;
std::unordered_map<std::uint16_t, overlap_acc> g_by_region;
std::uint64_t g_orphan_ends = 0;  // xfer_end whose begin never came (usage error, reported at stop)

// Region paths ("a/b/c") interned to 16-bit ids (g_region_mu). 0 = no region.
std::mutex g_region_mu;
std::vector<std::string> g_region_paths{""};
std::unordered_map<std::string, std::uint16_t> g_region_ids;  // key: parent id + '\x1f' + name
bool g_warned_regions = false;

internal::trace_writer g_trace;

thread_local struct {
  std::uint64_t gen = 0;
  thread_state* st = nullptr;
} t_slot;

// ------------------------------------------------------------------------------------------------------------
thread_state* register_slow() noexcept {
  std::lock_guard lk(g_registry_mu);
  const std::uint64_t gen = g_generation.load(std::memory_order_relaxed);
  if (!detail::g_enabled.load(std::memory_order_relaxed)) return nullptr;
  thread_state* st = nullptr;
  const std::uint32_t id = g_nthreads.load(std::memory_order_relaxed) + 1;
  if (id <= max_threads) {
    try {
      auto owned = std::make_unique<thread_state>();
      owned->storage = std::make_unique<record[]>(g_col.ring_cap);
      owned->ring = owned->storage.get();
      owned->cap = g_col.ring_cap;
      owned->mask = g_col.ring_cap - 1;
      owned->high_water = g_col.ring_cap - g_col.ring_cap / 4;
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
  if (t_slot.gen == g_generation.load(std::memory_order_relaxed)) [[likely]]
    return t_slot.st;
  return register_slow();
}

// Seqlock writer (owner thread only).
inline void publish(thread_state* st) noexcept {
  const std::uint32_t v = st->version.load(std::memory_order_relaxed);
  st->version.store(v + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  st->pub_in_call_ns.store(st->in_call_ns, std::memory_order_relaxed);
  st->pub_last_t.store(st->last_t, std::memory_order_relaxed);
  st->pub_seq.store(st->seq, std::memory_order_relaxed);
  const std::uint32_t region = st->region_depth == 0 ? 0u
                               : st->region_stack[std::min(st->region_depth, max_region_depth) - 1];
  st->pub_flags.store((st->in_call ? 1u : 0u) | (region << 16), std::memory_order_relaxed);
  st->version.store(v + 2, std::memory_order_release);
}

inline std::uint16_t current_region(const thread_state* st) noexcept {
  return st->region_depth == 0 ? 0 : st->region_stack[std::min(st->region_depth, max_region_depth) - 1];
}

// The owner's state at time t. The owner itself reads its own fields; others read the seqlock.
owner_snapshot snapshot_owner(thread_state* me, std::uint32_t owner, std::uint64_t t) noexcept {
  owner_snapshot s;
  s.p.t_ns = t;
  if (owner == no_thread || owner > max_threads) return s;
  std::uint64_t cum, last;
  std::uint32_t seq, flags;
  if (me != nullptr && me->id == owner) {
    cum = me->in_call_ns;
    last = me->last_t;
    seq = me->seq;
    flags = (me->in_call ? 1u : 0u) | (static_cast<std::uint32_t>(current_region(me)) << 16);
  } else {
    thread_state* o = g_threads[owner].load(std::memory_order_acquire);
    if (o == nullptr) return s;
    std::uint32_t v1, v2;
    do {
      v1 = o->version.load(std::memory_order_acquire);
      cum = o->pub_in_call_ns.load(std::memory_order_relaxed);
      last = o->pub_last_t.load(std::memory_order_relaxed);
      seq = o->pub_seq.load(std::memory_order_relaxed);
      flags = o->pub_flags.load(std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_acquire);
      v2 = o->version.load(std::memory_order_relaxed);
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

inline void push(thread_state* st, const record& r) noexcept {
  const std::uint64_t h = st->head.load(std::memory_order_relaxed);
  if (h - st->tail.load(std::memory_order_acquire) >= st->cap) [[unlikely]]
    fold(st);  // never drop an event: make room first
  st->ring[h & st->mask] = r;
  st->head.store(h + 1, std::memory_order_release);
  if (h + 1 - st->tail.load(std::memory_order_relaxed) >= st->high_water) [[unlikely]]
    fold(st);
}

// ---- analysis (fold side) -----------------------------------------------------------------------------------
void account_locked(const overlap_bound& b, std::uint64_t bytes, std::uint16_t region) {
  auto add = [&](overlap_acc& a) {
    a.min_ns += b.min_ns;
    a.max_ns += b.max_ns;
    a.xfer_ns += b.xfer_ns;
    ++a.count;
  };
  add(g_total);
  if (g_bins) add(g_by_size[g_bins->index(static_cast<std::size_t>(bytes))]);
  if (region != 0) add(g_by_region[region]);
}

overlap_bound bound_of(const pending_xfer& p) {
  const std::int64_t x = g_table.nanoseconds(static_cast<std::size_t>(p.bytes));
  if (p.has_begin && p.has_end && p.b.s.known && p.e.s.known) return bound_paired(p.b.s.p, p.e.s.p, x);
  return bound_one_known(x);
}

std::uint16_t region_of(const pending_xfer& p) { return p.has_begin ? p.b.s.region : p.e.s.region; }

void on_xfer_locked(const record& r, thread_state* recorder) {
  half h;
  h.recorder = recorder->id;
  h.s.p.t_ns = r.t;
  h.s.p.in_call_ns = r.owner_in_call_ns;
  h.s.p.call_seq = r.owner_seq;
  h.s.p.in_call = (r.bits & bit_in_call) != 0;
  h.s.known = (r.bits & bit_owner_known) != 0;
  h.s.region = r.owner_region;
  if (r.k == kind::xfer_end_only) {
    account_locked(bound_one_known(g_table.nanoseconds(static_cast<std::size_t>(r.bytes))), r.bytes, h.s.region);
    return;
  }
  auto [it, fresh] = g_pending.try_emplace(r.id);
  pending_xfer& p = it->second;
  const bool is_begin = r.k == kind::xfer_begin;
  if (!fresh && ((is_begin && p.has_begin) || (!is_begin && p.has_end))) {
    // The same id twice in a row: the earlier transfer's other half never came. Count it as case 3.
    if (p.has_begin) {
      account_locked(bound_of(p), p.bytes, region_of(p));
    } else {
      ++g_orphan_ends;
    }
    p = pending_xfer{};
  }
  if (is_begin) {
    p.has_begin = true;
    p.b = h;
    p.bytes = r.bytes;
  } else {
    p.has_end = true;
    p.e = h;
  }
  if (p.has_begin && p.has_end) {
    account_locked(bound_of(p), p.bytes, region_of(p));
    g_pending.erase(it);
  }
}

std::string region_leaf(std::uint16_t id) {
  std::lock_guard lk(g_region_mu);
  if (id >= g_region_paths.size()) return "?";
  const std::string& p = g_region_paths[id];
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

void process(thread_state* st, const record& r) {
  const bool tracing = g_trace.active();
  switch (r.k) {
    case kind::call_enter:
      if (tracing && st->f_had_call && r.t > st->f_last_exit_t) {
        g_trace.complete(st->id, "compute", "compute", st->f_last_exit_t, r.t);
      }
      st->f_enter_t = r.t;
      st->f_enter_name = reinterpret_cast<const char*>(static_cast<std::uintptr_t>(r.id));
      st->f_open = true;
      break;
    case kind::call_exit: {
      const auto c = static_cast<category>(r.bits & 0x0f);
      const std::uint64_t d = r.t > st->f_enter_t ? r.t - st->f_enter_t : 0;
      if (st->f_open) st->cats[static_cast<std::size_t>(c)].add(d);
      if (tracing) {
        g_trace.complete(st->id, st->f_enter_name != nullptr ? std::string_view(st->f_enter_name) : category_name(c),
                         category_name(c), st->f_enter_t, r.t);
      }
      st->f_open = false;
      st->f_had_call = true;
      st->f_last_exit_t = r.t;
      break;
    }
    case kind::xfer_begin:
    case kind::xfer_end:
    case kind::xfer_end_only: {
      on_xfer_locked(r, st);  // fold() holds g_analysis_mu
      if (tracing) {
        const std::uint32_t track = r.owner != no_thread ? r.owner : st->id;
        if (r.k != kind::xfer_end) g_trace.async_begin(track, r.id, r.t, r.bytes, r.peer, r.owner);
        if (r.k != kind::xfer_begin) g_trace.async_end(track, r.id, r.t);
        if (st->id != r.owner) {
          g_trace.instant(st->id, r.k == kind::xfer_begin ? "post" : "complete", r.t, r.id);
        }
      }
      break;
    }
    case kind::region_enter:
      st->f_had_region = true;
      if (st->f_region_depth < max_region_depth) {
        st->f_region_t[st->f_region_depth] = r.t;
        st->f_region_id[st->f_region_depth] = static_cast<std::uint16_t>(r.id);
      }
      ++st->f_region_depth;
      break;
    case kind::region_exit:
      if (st->f_region_depth > 0) {
        --st->f_region_depth;
        if (tracing && st->f_region_depth < max_region_depth) {
          g_trace.complete(st->id + region_track_offset, region_leaf(st->f_region_id[st->f_region_depth]), "region",
                           st->f_region_t[st->f_region_depth], r.t);
        }
      }
      break;
  }
}

void fold(thread_state* st) noexcept {
  std::lock_guard lk(st->fold_mu);
  std::lock_guard la(g_analysis_mu);  // once per batch, not per transfer
  const std::uint64_t h = st->head.load(std::memory_order_acquire);
  std::uint64_t t = st->tail.load(std::memory_order_relaxed);
  try {
    for (; t != h; ++t) process(st, st->ring[t & st->mask]);
  } catch (...) {
    // Out of memory in the analysis: the remaining records are skipped rather than crashing the application.
    std::fprintf(stderr, "sidecore: instrument: out of memory while folding events; %llu events skipped\n",
                 static_cast<unsigned long long>(h - t));
  }
  st->tail.store(h, std::memory_order_release);
}

void fold_all() noexcept {
  const std::uint32_t n = g_nthreads.load(std::memory_order_acquire);
  for (std::uint32_t i = 1; i <= n; ++i) {
    if (thread_state* st = g_threads[i].load(std::memory_order_acquire)) fold(st);
  }
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

}  // namespace

// ---- recording entry points -----------------------------------------------------------------------------------
namespace detail {

void call_enter_at(category c, std::uint64_t t, const char* name) noexcept {
  thread_state* st = self();
  if (st == nullptr) return;
  if (st->depth++ != 0) return;  // nested: only the outermost call counts
  if (t == 0) t = now_ns();
  st->outer = c;
  st->in_call = true;
  st->last_t = t;
  ++st->seq;
  publish(st);
  record r{};
  r.t = t;
  r.id = reinterpret_cast<std::uintptr_t>(name);  // a static string, only read by the trace
  r.k = kind::call_enter;
  r.bits = static_cast<std::uint8_t>(c);
  push(st, r);
  if (g_main_thread.load(std::memory_order_relaxed) == no_thread) [[unlikely]] {
    std::uint32_t expected = no_thread;
    g_main_thread.compare_exchange_strong(expected, st->id, std::memory_order_relaxed);
  }
  // Analysis while the thread would wait anyway (seed 002): fold early on entering a wait or blocking call.
  if ((c == category::wait || c == category::blocking) &&
      st->head.load(std::memory_order_relaxed) - st->tail.load(std::memory_order_relaxed) >= st->cap / 4) {
    fold(st);
  }
}

void call_exit_at(category /*c*/, std::uint64_t t) noexcept {
  thread_state* st = self();
  if (st == nullptr || st->depth == 0) return;
  if (--st->depth != 0) return;
  if (t == 0) t = now_ns();
  st->in_call_ns += t > st->last_t ? t - st->last_t : 0;
  st->in_call = false;
  st->last_t = t;
  publish(st);
  record r{};
  r.t = t;
  r.k = kind::call_exit;
  r.bits = static_cast<std::uint8_t>(st->outer);  // the outermost call's category
  push(st, r);
}

namespace {
inline void push_xfer(kind k, std::uint64_t id, std::uint64_t bytes, int peer, std::uint32_t owner,
                      std::uint64_t t) noexcept {
  thread_state* st = self();
  if (st == nullptr) return;
  const owner_snapshot s = snapshot_owner(st, owner, t);
  record r{};
  r.t = t;
  r.id = id;
  r.bytes = bytes;
  r.owner_in_call_ns = s.p.in_call_ns;
  r.owner = owner;
  r.peer = peer;
  r.owner_seq = s.p.call_seq;
  r.owner_region = s.region;
  r.k = k;
  r.bits = static_cast<std::uint8_t>((s.p.in_call ? bit_in_call : 0) | (s.known ? bit_owner_known : 0));
  push(st, r);
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
  const std::uint16_t parent = current_region(st);
  std::uint16_t id = 0;
  try {
    std::string key = std::to_string(parent);
    key += '\x1f';
    key += name;
    std::lock_guard lk(g_region_mu);
    if (auto it = g_region_ids.find(key); it != g_region_ids.end()) {
      id = it->second;
    } else if (g_region_paths.size() <= UINT16_MAX) {
      id = static_cast<std::uint16_t>(g_region_paths.size());
      std::string path = parent == 0 ? std::string(name) : g_region_paths[parent] + "/" + std::string(name);
      g_region_paths.push_back(std::move(path));
      g_region_ids.emplace(std::move(key), id);
    } else if (!g_warned_regions) {
      g_warned_regions = true;
      std::fprintf(stderr, "sidecore: instrument: more than 65535 distinct region paths; further ones are "
                   "attributed to their parent\n");
    }
  } catch (...) {
    id = 0;
  }
  if (id == 0) id = parent;
  st->region_stack[st->region_depth++] = id;
  publish(st);
  record r{};
  r.t = t;
  r.id = id;
  r.k = kind::region_enter;
  push(st, r);
}

void region_exit_at(std::uint64_t t) noexcept {
  thread_state* st = self();
  if (st == nullptr || st->region_depth == 0) return;
  const bool tracked = st->region_depth <= max_region_depth;
  const std::uint16_t id = current_region(st);
  --st->region_depth;
  if (!tracked) return;
  publish(st);
  record r{};
  r.t = t;
  r.id = id;
  r.k = kind::region_exit;
  push(st, r);
}

std::uint32_t register_current_thread() noexcept {
  thread_state* st = self();
  return st == nullptr ? no_thread : st->id;
}

void set_window_end(std::uint64_t t) noexcept { g_col.t_end = t; }
void set_window_start(std::uint64_t t) noexcept { g_col.t_start = t; }

}  // namespace detail

// ---- control ----------------------------------------------------------------------------------------------------
void start(const config& cfg, int rank, int nranks) {
  size_bins bins(cfg.size_bin_edges);  // validates before anything changes
  std::lock_guard lk(g_registry_mu);
  detail::g_enabled.store(false, std::memory_order_relaxed);
  {
    std::lock_guard la(g_analysis_mu);
    g_pending.clear();
  g_pending.reserve(4096);
    g_total = {};
    g_by_size.assign(bins.count(), overlap_acc{});
    g_by_region.clear();
    g_bins.emplace(std::move(bins));
    g_orphan_ends = 0;
    g_table = xfer_time_table{};
  }
  {
    std::lock_guard lr(g_region_mu);
    g_region_paths.assign(1, std::string{});
    g_region_ids.clear();
  }
  for (auto& slot : g_threads) slot.store(nullptr, std::memory_order_relaxed);
  g_states.clear();
  g_nthreads.store(0, std::memory_order_relaxed);
  g_main_thread.store(no_thread, std::memory_order_relaxed);
  g_warned_threads = false;
  g_warned_regions = false;
  g_col = collection{};
  g_col.cfg = cfg;
  g_col.rank = rank;
  g_col.nranks = nranks;
  g_col.ring_cap = round_pow2(std::max<std::uint64_t>(cfg.ring_events, 16));
  g_col.t_start = now_ns();
  if (cfg.trace) g_trace.open(path_for_rank(cfg.trace_path, rank), cfg.trace_max_events, rank, g_col.t_start);
  g_generation.fetch_add(1, std::memory_order_relaxed);
  detail::g_enabled.store(cfg.profile || g_trace.active(), std::memory_order_release);
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

void fold_current_thread() noexcept {
  if (!enabled()) return;
  if (thread_state* st = self()) fold(st);
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

std::string rank_profile_json() {
  fold_all();
  internal::profile_data p;
  {
    std::lock_guard lk(g_registry_mu);
    if (g_col.t_end == 0) g_col.t_end = now_ns();
    p.rank = g_col.rank;
    p.nranks = g_col.nranks;
    p.mode = g_col.mode;
    p.provider = g_col.provider;
    p.n_core = g_col.n_core;
    const std::uint64_t window = g_col.t_end > g_col.t_start ? g_col.t_end - g_col.t_start : 0;
    p.t_total_s = g_col.t_total_override >= 0 ? g_col.t_total_override : static_cast<double>(window) * 1e-9;
    // t_comp: time outside sidecore calls on the thread that communicates (the first thread that made a call).
    std::uint64_t in_calls = 0;
    if (const std::uint32_t main = g_main_thread.load(std::memory_order_relaxed); main != no_thread) {
      in_calls = std::min(snapshot_owner(nullptr, main, g_col.t_end).p.in_call_ns, window);
    }
    p.t_comp_s = static_cast<double>(window - in_calls) * 1e-9;
    p.command = g_col.command;
    p.has_progress = g_col.has_progress;
    p.progress_busy_s = g_col.progress_busy_s;
    p.progress_idle_s = g_col.progress_idle_s;
    p.progress_polls = g_col.progress_polls;
    p.progress_completions = g_col.progress_completions;
    for (const auto& st : g_states) {
      std::lock_guard lf(st->fold_mu);
      for (std::size_t c = 0; c < category_count; ++c) p.categories[c].merge(st->cats[c]);
    }
  }
  {
    std::lock_guard la(g_analysis_mu);
    overlap_acc total = g_total;
    std::vector<overlap_acc> by_size = g_by_size;
    auto by_region = g_by_region;
    // Transfers with only one event so far count as case 3 (not consumed: a later profile may pair them).
    for (const auto& [id, px] : g_pending) {
      if (!px.has_begin) continue;  // an end whose begin never came carries no size: see g_orphan_ends
      const overlap_bound b = bound_of(px);
      for (overlap_acc* a : {&total, g_bins ? &by_size[g_bins->index(static_cast<std::size_t>(px.bytes))] : nullptr,
                             region_of(px) != 0 ? &by_region[region_of(px)] : nullptr}) {
        if (a == nullptr) continue;
        a->min_ns += b.min_ns;
        a->max_ns += b.max_ns;
        a->xfer_ns += b.xfer_ns;
        ++a->count;
      }
    }
    p.total = total;
    p.xfer_time_source = !g_table.empty() ? g_table.source() : total.count != 0 ? "measured" : "none";
    if (g_bins) {
      for (std::size_t i = 0; i < by_size.size(); ++i) {
        if (by_size[i].count == 0) continue;
        p.by_size.push_back({g_bins->lo(i), g_bins->hi(i), g_bins->bounded(i), by_size[i]});
      }
    }
    std::lock_guard lr(g_region_mu);
    for (const auto& [rid, acc] : by_region) p.by_region.push_back({g_region_paths[rid], acc});
    std::sort(p.by_region.begin(), p.by_region.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
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
  return g_trace.close(names, "rank " + std::to_string(g_col.rank));
}

std::uint64_t trace_events_written() noexcept { return g_trace.written(); }

void stop() {
  write_trace();
  detail::g_enabled.store(false, std::memory_order_relaxed);
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
