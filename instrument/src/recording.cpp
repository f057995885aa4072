// sidecore instrument — the recording hooks of calls and transfers (the inline hooks of instrument.hpp call these).
// No allocation, no system call, no lock and no atomic read-modify-write after a thread's first event:
//  * calls (CALL_ENTER/EXIT) are counted where they happen: the thread adds the outermost call's duration to its own
//    category and region counters (single-writer relaxed atomics: plain loads and stores) — a call needs no analysis
//    across threads, so it never goes through the ring unless a trace is being written;
//  * transfers are appended as fixed-size records to the recording thread's ring, with the owner's state at that
//    instant (docs/instrument.md, threading rule); a fold (fold.cpp) bounds them;
//  * a collective instance's arrival and departure are appended the same way; a fold pairs them (coll_monitor.cpp).
#include "ring.hpp"
#include "sidecore/instrument/collectives.hpp"
#include "threads.hpp"

namespace sidecore::instrument::detail {

using namespace internal;

// Defined beside the hooks that read it on every event.
hot_state g_hot;

void call_enter_at(category c, std::uint64_t t, const char* name) noexcept {
  thread_state* st = self();
  if (st == nullptr) [[unlikely]] {
    if (t_slot.table_full) overflow_call_enter(c, t);
    return;
  }
  if (st->depth++ != 0) return;  // nested: only the outermost call counts
  if (t == 0) t = ticks();
  st->outer = c;
  st->enter_t = t;
  st->call_region = st->region;
  publish(st, st->pub_in_call.load(relaxed), t, st->pub_seq.load(relaxed) + 1, flags_of(true, st->region));
  if (detail::g_hot.trace.load(relaxed)) {
    // id: a static string, only read by the trace
    push(st, t, reinterpret_cast<std::uintptr_t>(name), kind::call_enter, static_cast<std::uint8_t>(c));
  }
  if (detail::g_hot.main_thread.load(relaxed) == no_thread) [[unlikely]] {
    std::uint32_t expected = no_thread;  // once per collection
    detail::g_hot.main_thread.compare_exchange_strong(expected, st->id, relaxed);
  }
  // Analysis while the thread would wait anyway (seed 002): fold early on entering a wait or blocking call.
  if ((c == category::wait || c == category::blocking) &&
      st->head.load(relaxed) + st->high_water - st->fold_at >= st->high_water / 4) {
    fold_own(st);
  }
}

void call_exit_at(category /*c*/, std::uint64_t t) noexcept {
  thread_state* st = self();
  if (st == nullptr) [[unlikely]] {
    if (t_slot.table_full) overflow_call_exit(t);
    return;
  }
  if (st->depth == 0) return;
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
  if (detail::g_hot.trace.load(relaxed)) {
    push(st, t, 0, kind::call_exit, static_cast<std::uint8_t>(st->outer));  // the outermost call's category
  }
}

namespace {
// Always inlined into its three callers: with seven arguments GCC called it, ~9 instructions more per event.
[[gnu::always_inline]] inline void push_xfer(kind k, std::uint64_t id, std::uint64_t bytes, int peer,
                                             std::uint32_t owner, std::uint64_t t, op_kind op) noexcept {
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
    r.bits = static_cast<std::uint8_t>((in_call ? bit_in_call : 0) | bit_owner_known | static_cast<std::uint8_t>(op));
  } else {
    const owner_snapshot s = snapshot_owner(st, owner, t);
    r.owner_in_call = s.p.in_call_ns;
    r.owner_seq = s.p.call_seq;
    r.owner_region = s.region;
    r.bits = static_cast<std::uint8_t>((s.p.in_call ? bit_in_call : 0) | (s.known ? bit_owner_known : 0) |
                                       static_cast<std::uint8_t>(op));
  }
  commit(st, h);
}
}  // namespace

void xfer_begin_at(std::uint64_t xfer_id, std::size_t bytes, int peer, std::uint32_t owner, std::uint64_t t,
                   op_kind op) noexcept {
  push_xfer(kind::xfer_begin, xfer_id, bytes, peer, owner, t, op);
}

void xfer_end_at(std::uint64_t xfer_id, std::uint32_t owner, std::uint64_t t) noexcept {
  push_xfer(kind::xfer_end, xfer_id, 0, -1, owner, t, op_kind::p2p);  // the begin carries the kind
}

void xfer_end_only_at(std::uint64_t xfer_id, std::size_t bytes, int peer, std::uint32_t owner, std::uint64_t t,
                      op_kind op) noexcept {
  push_xfer(kind::xfer_end_only, xfer_id, bytes, peer, owner, t, op);
}

namespace {
// A collective instance's event: id = the communicator key, owner_in_call = the sequence number, owner = the
// communicator's size, bits = the kind (record.hpp).
inline void push_coll(kind k, op_kind op, std::uint64_t comm_key, std::uint64_t seq, std::uint64_t bytes,
                      std::uint32_t comm_size, std::uint64_t t) noexcept {
  thread_state* st = self();
  if (st == nullptr) return;
  const std::uint64_t h = st->head.load(relaxed);
  record& r = st->ring[h & st->mask];
  r.t = t;
  r.id = comm_key;
  r.bytes = bytes;
  r.owner_in_call = seq;
  r.owner = comm_size;
  r.peer = 0;
  r.owner_seq = 0;
  r.owner_region = 0;
  r.k = k;
  r.bits = static_cast<std::uint8_t>(op) & low_bits;
  commit(st, h);
}
}  // namespace

void coll_arrive_at(op_kind op, std::uint64_t comm_key, std::uint64_t seq, std::uint64_t bytes,
                    std::uint32_t comm_size, std::uint64_t t) noexcept {
  push_coll(kind::coll_arrive, op, comm_key, seq, bytes, comm_size, t);
}

void coll_depart_at(std::uint64_t comm_key, std::uint64_t seq, std::uint64_t t) noexcept {
  push_coll(kind::coll_depart, op_kind::p2p, comm_key, seq, 0, 0, t);  // the arrival carries kind, bytes and size
}

std::uint32_t register_current_thread() noexcept {
  thread_state* st = self();
  return st == nullptr ? no_thread : st->id;
}

}  // namespace sidecore::instrument::detail
