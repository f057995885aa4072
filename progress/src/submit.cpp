// Submission: starting sends and receives, the small-message fast path (a send completed inside the call), and
// handing started requests to whoever progresses: posted at once by a caller that gets the progress lock, else
// through the bounded lock-free submission queue (mpmc_queue.hpp) that every lock holder drains in order.
// Cancelling goes the same way.
#include <cstdio>
#include <new>

#include "completion.hpp"

namespace sidecore::progress {

std::uint64_t engine::start_send(const void* buf, std::size_t len, int dest, std::uint64_t tag, int peer,
                                 int sender_rank, std::uint32_t owner_thread, bool may_inline) {
  engine_core& e = core_of(*this);
  // An eager message that fits one inject completes here, without instrumentation (its XFER records name a slot).
  bool may_lock = true;
  // To this process every eager size completes here (matched or held, one copy, no provider).
  // To a peer with a node ring likewise (copied into the ring).
  if (may_inline && len <= eager_max_ && !e.on_xfer &&
      (hdr_size + len <= inject_size_ || static_cast<std::uint32_t>(dest) == e.self_index || e.fastpath.to(dest))) {
    const engine_core::inline_result res = e.send_inline(buf, len, dest, tag, sender_rank);
    if (res == engine_core::inline_result::sent) return inline_handle(len);
    may_lock = res != engine_core::inline_result::no_lock;  // asked once already (mode core: up to caller_ask_ns)
  }
  return e.start_send_slot(buf, len, dest, tag, peer, sender_rank, owner_thread, may_lock);
}

std::uint64_t engine_core::start_send_slot(const void* buf, std::size_t len, int dest, std::uint64_t tag, int peer,
                                           int sender_rank, std::uint32_t owner_thread, bool may_lock) {
  req* r = pool.acquire();
  if (!r) throw std::bad_alloc();
  r->op = req_kind::send;
  r->act = send_act(len, dest);
  r->by = progressor_for(len);
  r->buf = const_cast<void*>(buf);  // libfabric's send takes const; the slot is shared with receives
  r->len = len;
  r->peer_world = dest;
  r->data = static_cast<std::uint64_t>(static_cast<std::uint32_t>(sender_rank));
  r->tag = tag;
  r->ignore = 0;
  r->peer = peer;
  r->owner_thread = owner_thread;
  r->result = req_result::ok;
  r->bytes = len;
  const std::uint64_t h = request_pool::handle_of(r);
  submit(r->index, may_lock);
  return h;
}

std::uint64_t engine::start_recv(void* buf, std::size_t len, std::uint64_t tag, std::uint64_t ignore, int peer,
                                 int source_index, std::uint32_t owner_thread) {
  engine_core& e = core_of(*this);
  req* r = e.pool.acquire();
  if (!r) throw std::bad_alloc();
  r->op = req_kind::recv;
  r->act = req_act::none;
  r->by = e.progressor_for(len);
  r->buf = buf;
  r->len = len;
  r->peer_world = source_index;
  r->source = -1;
  r->tag = tag;
  r->ignore = ignore;
  r->peer = peer;
  r->owner_thread = owner_thread;
  r->result = req_result::ok;
  r->bytes = 0;
  const std::uint64_t h = request_pool::handle_of(r);
  e.submit(r->index);
  return h;
}

// The small-message fast path (a ping-pong's sends): header and data injected at once, under the lock as submit
// takes it, behind whatever is queued or backlogged; no slot, no completion. Else nothing was sent: no_lock (mode
// off: another thread progresses; mode core: it asked and the lock did not come), or refused (sends wait in the
// backlog, or the provider said EAGAIN, or an error that the slot path then reports, or the engine failed).
engine_core::inline_result engine_core::send_inline(const void* buf, std::size_t len, int dest, std::uint64_t tag,
                                                    int sender_rank) {
  const progress_guard g = lock_for_caller();
  if (!g) return inline_result::no_lock;
  drain_submissions();  // what other threads queued goes first
  if (backlog.send.head != 0 || failed()) return inline_result::refused;
  const wire_hdr h = eager_hdr(tag, len, static_cast<std::uint32_t>(sender_rank), my_index);
  if (static_cast<std::uint32_t>(dest) == self_index) [[unlikely]] {
    deliver_self_eager(h, static_cast<const char*>(buf));
    bump(completions);
    return inline_result::sent;
  }
  // Flow control (credits.cpp): one send and one eager credit of the peer, or the slot path decides.
  peer_credits& left = credits.left[static_cast<std::size_t>(dest)];
  if ((left.send == 0) | (left.eager == 0)) return inline_result::refused;
  if (send_msg(dest, h, buf, len) != 0) return inline_result::refused;
  --left.send;
  --left.eager;
  bump(completions);
  ring_peer(dest);
  return inline_result::sent;
}

// accept, once the engine failed or a peer died: true when it took r here. A failed engine fails every request; a
// send to a dead peer fails; a schedule whose communicator holds a dead peer gives up at its first advance. A receive
// goes on to matching, where one from a dead peer may still take a message kept from before its death.
bool engine_core::accept_refused(req* r) noexcept {
  if (failed()) {
    if (r->op == req_kind::schedule) {  // finishes with the failure in the advance step, and is retired there
      accept_schedule(r);
      return true;
    }
    r->stage.store(req_stage::taken, std::memory_order_relaxed);
    fail_request(r, failure::engine, 0);
    return true;
  }
  if (r->op == req_kind::recv) return false;
  if (r->op == req_kind::schedule) {
    accept_schedule(r);
    (void)refuse_dead(r);
    return true;
  }
  return refuse_dead(r);
}

// Hands an entry to whoever progresses. With the lock (mode off: free; mode core: given up by the progress thread,
// see caller_progress.cpp): post now, after what is queued (so one thread's operations keep their order).
// Otherwise queue it, and wake a blocked progress thread.
void engine_core::submit(std::uint32_t entry, bool may_lock) {
  const bool threaded = running.load(std::memory_order_acquire);
  // Mode core: only a request that a caller may progress (progressor::any) is posted by the caller.
  if ((entry & cancel_bit) == 0 && may_lock) {
    const progress_guard g = threaded ? (pool.at(entry)->by == progressor::any ? lock_caller_core() : progress_guard{})
                                      : lock_caller();
    if (g) {
      drain_submissions();
      own = pool.at(entry);
      accept(own);
      own = nullptr;
      return;
    }
  }
  while (!queue.push(entry)) {
    // Overflow path: the queue is full. Make room by progressing ourselves (mode off) or let the progress
    // thread drain it (mode core). Warn once: a larger SIDECORE_SUBMIT_QUEUE avoids the stall.
    queue_full.fetch_add(1, std::memory_order_relaxed);
    if (!warned_full.exchange(true))
      std::fprintf(stderr, "sidecore: warning: submission queue full (%zu entries); raise SIDECORE_SUBMIT_QUEUE\n",
                   queue.capacity());
    if (!running.load(std::memory_order_acquire)) progress();
    else cpu_relax();
  }
  // A parked progress thread takes over at once for what we queued (a rendezvous transfer, to move while we compute).
  if (threaded && lock.caller_want.load(std::memory_order_relaxed) != 0 &&
      lock.caller_handback.load(std::memory_order_relaxed) == 0) {
    lock.caller_handback.store(1, std::memory_order_relaxed);
  }
  if (cfg.idle != idle_policy::spin) {
    // Pairs with the fence in sleep_locked: either the sleeper sees our entry, or we see it sleeping.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (bells.mine->sleepers.load(std::memory_order_relaxed)) wake();
  }
}

bool engine_core::drain_queue() {
  bool did = false;
  std::uint32_t entry;
  while (queue.pop(entry)) {
    did = true;
    if (entry & cancel_bit) do_cancel(pool.at(entry & ~cancel_bit));
    else accept(pool.at(entry));
  }
  return did;
}

bool engine::cancel(std::uint64_t handle) {
  engine_core& e = core_of(*this);
  req* r = e.pool.lookup(handle);
  if (!r) return false;
  if (!is_complete(r)) e.cancel_req(r);
  return true;
}

void engine_core::cancel_req(req* r) {
  r->cancel_ack.store(false, std::memory_order_relaxed);
  if (!running.load(std::memory_order_acquire)) {
    const progress_guard g = lock_caller_wait();
    progress_locked();  // the receive may still be queued: post it first (and let what arrived match)
    do_cancel(r);
    return;
  }
  submit(r->index | cancel_bit);
  while (!r->cancel_ack.load(std::memory_order_acquire)) cpu_relax();
}

}  // namespace sidecore::progress
