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
  req* r = take_slot();
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
  req* r = e.take_slot();
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
  // An entry left in the queue (one being pushed stops the drain) may hold this thread's earlier send: this one goes
  // behind it, by the slot path, rather than overtaking it.
  if (backlog.send.head != 0 || failed() || !queue.empty_hint()) return inline_result::refused;
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
  if (threaded && may_lock && cfg.caller_progress && (entry & cancel_bit) == 0 && start_while_asleep(entry)) return;
  // Mode core: only a request that a caller may progress (progressor::any) is posted by the caller.
  if ((entry & cancel_bit) == 0 && may_lock) {
    const progress_guard g = threaded ? (pool.at(entry)->by == progressor::any ? lock_caller_core() : progress_guard{})
                                      : lock_caller();
    if (g && accept_after_queue(pool.at(entry))) return;
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

// Mode core, a schedule (a collective) started while the progress thread sleeps, as it does between collectives
// while the application computes: waking it on its core costs the caller an inter-processor interrupt, in a VM an
// exit (3-5 us on our 2-vCPU VM, about a tenth of a 64 KiB broadcast: the root's overlap was 85-89 % for it). So the
// caller takes the free lock and starts the schedule itself, posting what its first round can post now, unless that
// round holds a long local step (schedule::caller_may_start: a copy the application would do instead of computing).
// The thread stays asleep if all that is left waits for peers of this node (a clear-to-send, a message): their
// replies wake it (ring_peer), on its own core where a peer rank shares it. Whatever only a progress pass here would
// finish wakes it now: a send's completion, a data receive, a backlog, a schedule ready again (a local step above
// caller_step_max left to it), a child with another node's rank (whose messages ring nobody) or with this process.
// A waiter or tester of a request that is still pending wakes it too (pay_owed_wake): what a schedule waits for may
// be a step of ours after all; block_us bounds the rest.
bool engine_core::start_while_asleep(std::uint32_t entry) {
  req* r = pool.at(entry);
  if (r->op != req_kind::schedule || bells.mine->sleepers.load(std::memory_order_relaxed) == 0 ||
      !r->sched->caller_may_start())
    return false;
  const progress_guard g = lock_caller();
  if (!g) return false;
  caller_starting = true;
  caller_start_needs_thread = false;
  if (!accept_after_queue(r)) {  // behind an entry still being pushed: queued, for the progress thread
    caller_starting = false;
    return false;
  }
  // Schedules that a child completing at once (an injected send) made ready again advance here too, a few times.
  for (int pass = 0; pass < 4 && ready.head && !caller_start_needs_thread; ++pass) run_ready();
  caller_starting = false;
  if (caller_start_needs_thread || thread_needed()) wake();
  else wake_owed.store(1, std::memory_order_relaxed);
  return true;
}

bool engine_core::thread_needed() const noexcept {
  return sends_in_provider != 0 || rdv_recvs_posted != 0 || ready.head != nullptr || backlog.any() ||
         credits_pending() || !rx.unposted.empty() || !queue.empty_hint();
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
  // An orphan too (its holder gave it up: the runtime refuses a copy of its handle by kind()): cancelled, it
  // completes and is freed.
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
