// sidecore instrument — the analysis side: a fold turns a thread's records into accumulator updates (overlap bounds
// of seed 000, Section 2.2, by size bin and region; region entries and times) and trace lines. Folds happen (a) at the
// high-water mark (512 records, or ¾ of a smaller ring), (b) on entry to an outermost wait or blocking call once a
// quarter of the high-water mark is held — analysis while the thread would wait anyway (seed 002) —, (c) on
// fold_current_thread(), and (d) for every ring, at profile/trace/stop time.
#include "fold.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "coll_monitor.hpp"
#include "regions.hpp"
#include "trace_writer.hpp"

namespace sidecore::instrument::internal {

std::mutex g_analysis_mu;
xfer_time_table g_table;
std::optional<size_bins> g_bins;
pending_table g_pending;
overlap_acc g_total;
std::vector<overlap_acc> g_by_size;
std::vector<overlap_acc> g_by_region;
std::array<overlap_acc, low_bits + 1> g_by_op;
std::vector<region_stat> g_region_stats;
std::uint64_t g_orphan_ends = 0;

void reset_analysis(size_bins bins) {
  std::lock_guard la(g_analysis_mu);
  g_pending.reset(64);  // grows (doubling) past half full; small stays in L1
  g_total = {};
  g_by_size.assign(bins.count(), overlap_acc{});
  g_by_region.assign(16, overlap_acc{});
  g_by_op.fill(overlap_acc{});
  g_region_stats.assign(16, region_stat{});
  g_bins.emplace(std::move(bins));
  g_orphan_ends = 0;
  g_table = xfer_time_table{};
}

namespace {

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
/// (without), to its operation kind, and to its region. Takes the bound by value, always inlined, with
/// bound_paired() inline too: the bound stays in registers. (Passed through memory, the bound's fields, stored one by
/// one, were read back with a 16-byte load that could not be forwarded from those stores: 3 ns of a 25 ns event.)
[[gnu::always_inline]] inline void account_locked(const overlap_bound b, fold_ctx& cx, std::uint64_t bytes,
                                                  std::uint16_t region, std::uint8_t op) {
  const std::uint64_t mn = b.min_ns, mx = b.max_ns, xf = b.xfer_ns;
  auto add = [&](overlap_acc& a) {
    a.min_ns += mn;
    a.max_ns += mx;
    a.xfer_ns += xf;
    ++a.count;
  };
  cx.lookup(bytes);  // a compare: the caller just looked `bytes` up
  add(cx.memo_bin != SIZE_MAX ? g_by_size[cx.memo_bin] : g_total);
  add(g_by_op[op & low_bits]);
  if (region != 0) {
    // A vector by path id (an unordered_map here was a hash lookup, ~10 ns, per transfer made inside a region).
    if (region >= g_by_region.size()) g_by_region.resize(std::max<std::size_t>(region + 1, 2 * g_by_region.size()));
    add(g_by_region[region]);
  }
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
    account_locked(bound_one_known(cx.table_ticks(r.bytes)), cx, r.bytes, r.owner_region, r.bits & low_bits);
    return;
  }
  const bool is_begin = r.k == kind::xfer_begin;
  pending_xfer* p = g_pending.find(r.id);
  if (p != nullptr && p->is_begin == is_begin) {
    // The same event twice for one id: the earlier transfer's other half never came. Count it as case 3.
    if (p->is_begin) {
      account_locked(bound_one_known(cx.table_ticks(p->bytes)), cx, p->bytes, p->s.region, p->op);
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
    n.op = is_begin ? r.bits & low_bits : 0;
    return;
  }
  // Both events known (in either folding order).
  const owner_snapshot s = snapshot_of(r);
  const owner_snapshot& b = is_begin ? s : p->s;
  const owner_snapshot& e = is_begin ? p->s : s;
  const std::uint64_t bytes = is_begin ? r.bytes : p->bytes;
  const std::uint8_t op = is_begin ? r.bits & low_bits : p->op;
  const std::int64_t x = cx.table_ticks(bytes);
  account_locked(b.known && e.known ? bound_paired(b.p, e.p, x) : bound_one_known(x), cx, bytes, b.region, op);
  g_pending.erase(*p);
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
    account_locked(bound_paired(sb.p, se.p, x), cx, b.bytes, sb.region, b.bits & low_bits);
  } else {
    account_locked(bound_one_known(x), cx, b.bytes, sb.region, b.bits & low_bits);
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
    case kind::coll_arrive:
    case kind::coll_depart:
      on_coll_locked(r, cx.fit);
      break;
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

}  // namespace

overlap_acc total_locked() noexcept {
  overlap_acc t = g_total;
  for (const overlap_acc& a : g_by_size) t += a;
  return t;
}

std::int64_t table_ticks(std::uint64_t bytes, const clock_fit& f) noexcept {
  return f.ns_to_ticks(g_table.nanoseconds(static_cast<std::size_t>(bytes)));
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
      if (r.k == kind::coll_arrive && t + 1 != h &&
          pair_adjacent_coll_locked(r, st->ring[(t + 1) & st->mask], cx.fit)) {
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
  if (detail::g_hot.trace.load(relaxed) && !g_trace.accepting()) detail::g_hot.trace.store(false, relaxed);
}

void fold_all() noexcept {
  const std::uint32_t n = g_nthreads.load(std::memory_order_acquire);
  for (std::uint32_t i = 1; i <= n; ++i) {
    if (thread_state* st = g_threads[i].load(std::memory_order_acquire)) fold(st);
  }
}

void fold_own(thread_state* st) noexcept {
  fold(st);
  st->fold_at = st->head.load(relaxed) + st->high_water;
}

}  // namespace sidecore::instrument::internal
