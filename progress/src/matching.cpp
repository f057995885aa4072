// Matching: sidecore's own, under the progress lock. A receive handed to the engine takes the first unexpected
// message it matches (arrival order), else joins the posted list; an arriving message takes the first posted
// receive it matches (posting order). Cancelling unlinks a receive still in the posted list (no fi_cancel).
#include <cstdlib>
#include <cstring>
#include <new>

#include <sidecore/progress/tag.hpp>

#include "completion.hpp"

namespace sidecore::progress {

// A receive handed to the engine: the first unexpected message it matches (arrival order), else the end of
// the posted list.
void engine_core::accept_recv(req* r) {
  // A receive that only an eager message can fill begins its transfer when posted (eager data may arrive
  // without our progress); a larger one when its rendezvous data receive is posted, or when an eager message
  // matches it (deliver_eager). So in mode off, data that moved inside a wait counts as not overlapped.
  if (r->len <= eager_max_) begin_xfer(r);
  unexpected_msg* prev = nullptr;
  for (unexpected_msg* m = matching.unexp_head; m; prev = m, m = m->next) {
    const wire_hdr& h = m->hdr;
    if (!matches(*r, h)) continue;
    matching.unhold(m, prev);
    r->stage.store(req_stage::matched, std::memory_order_relaxed);
    if (h.type == wire_eager) {
      deliver_eager(r, h, m->data);
      // Its sender's eager credit (a message to this process through the self path took none).
      if (h.src_index != self_index) owe_eager_credit(h.src_index);
    } else if (h.type == wire_self_rts) take_self_send(r, h);
    else start_rendezvous(r, h);
    std::free(m->data);
    delete m;
    return;
  }
  // From a peer found dead, with no message of it kept from before its death: nothing will come.
  if (peer_dead(r->peer_world)) [[unlikely]] {
    r->stage.store(req_stage::taken, std::memory_order_relaxed);
    fail_with_peer(r);
    return;
  }
  r->stage.store(req_stage::posted, std::memory_order_relaxed);
  r->mnext = 0;
  r->mprev = matching.posted_tail;
  if (matching.posted_tail) pool.at(matching.posted_tail - 1)->mnext = r->index + 1;
  else matching.posted_head = r->index + 1;
  matching.posted_tail = r->index + 1;
}

// The first posted receive that an arriving message matches (posting order), unlinked; nullptr if none.
req* engine_core::match_posted(const wire_hdr& h) noexcept {
  for (std::uint32_t i = matching.posted_head; i;) {
    req* r = pool.at(i - 1);
    if (matches(*r, h)) {
      if (r->mprev) pool.at(r->mprev - 1)->mnext = r->mnext;
      else matching.posted_head = r->mnext;
      if (r->mnext) pool.at(r->mnext - 1)->mprev = r->mprev;
      else matching.posted_tail = r->mprev;
      r->stage.store(req_stage::matched, std::memory_order_relaxed);
      return r;
    }
    i = r->mnext;
  }
  return nullptr;
}

// A message no posted receive matched, kept for the receives to come: its header, and an eager message's data
// copied out of the receive buffer (data is null for a ready-to-send). Out of memory, the message cannot be kept
// and cannot be dropped without losing it: the engine fails (failure.cpp).
void engine_core::hold_unexpected(const wire_hdr& h, const char* data) {
  if (tag::is_coll(h.tag) && coll_msgs.unexpected) [[unlikely]] {
    const held_verdict v = coll_msgs.unexpected(coll_msgs.ctx, h.tag, h.src_index, sig_of(h));
    if (v != held_verdict::hold && refuse_message(h)) {
      if (v == held_verdict::refuse_and_tell) tell_run_ended(h);
      return;
    }
  }
  auto* m = new (std::nothrow) unexpected_msg{h, nullptr, nullptr};
  if (m && data && h.size) {
    m->data = static_cast<char*>(std::malloc(h.size));
    if (m->data) {
      copy_bytes(m->data, data, h.size);
    } else {
      delete m;
      m = nullptr;
    }
  }
  if (!m) {
    fail_engine("no memory to keep an unexpected message (malloc)", ENOMEM);
    return;
  }
  matching.hold(m);
  bump(unexpected);
}

bool engine_core::refuse_message(const wire_hdr& h) noexcept {
  if (h.src_index == self_index) return false;  // this process's own: a send to itself, never refused
  if (h.type == wire_eager) {
    owe_eager_credit(h.src_index);  // as if a receive had taken it
    return true;
  }
  if (h.type != wire_rts) return false;
  if (peer_dead(static_cast<int>(h.src_index))) return true;  // its send failed with its peer's death already
  // The answer goes as a receive would send it (post(), req_act::cts), by a request nobody reads: it frees itself
  // once the clear-to-send went, and waits in the backlog while the provider refuses it for now.
  req* r = orphan_request(req_kind::recv, static_cast<int>(h.src_index), h.tag, h.cookie);
  if (!r) return false;
  r->act = req_act::cts;
  r->buf = nullptr;
  r->len = 0;
  r->peer = -1;
  r->rdv_n = 0;
  r->bytes = 0;
  post_orphan(r);
  return true;
}

void engine_core::tell_run_ended(const wire_hdr& h) noexcept {
  const std::uint32_t dest = h.src_index;
  if (dest == self_index || peer_dead(static_cast<int>(dest))) return;
  // A send by a request nobody reads (the text is larger than some providers' inject size, 64 bytes on
  // tcp;ofi_rxm): it frees itself once sent, and waits for a send credit or in the backlog like any send. Its header
  // carries the cookie and the run as a run's notices do (post(): tag::is_coll_notice).
  req* r = orphan_request(req_kind::send, static_cast<int>(dest), (h.tag & ~tag::coll_msg_bits) | tag::coll_abort_msg,
                          notice_pass_on);
  if (!r) return;
  // Eager (a notice is never a ready-to-send: spend_eager). A text that an eager message cannot take goes not at
  // all, which its receiver says, rather than cut where nothing shows it.
  r->len = sizeof run_ended_text - 1 <= eager_max_ ? sizeof run_ended_text - 1 : 0;
  r->act = send_act(r->len, static_cast<int>(dest));
  r->buf = const_cast<char*>(run_ended_text);  // libfabric's send takes const; the slot is shared with receives
  r->peer = static_cast<int>(dest);
  r->owner_thread = 0;
  r->data = 0;
  r->ignore = 0;
  r->bytes = r->len;
  r->sig = 0;  // the run of a collective that is not persistent
  post_orphan(r);
}

req* engine_core::orphan_request(req_kind op, int peer_world, std::uint64_t tag, std::uint64_t cookie) noexcept {
  req* r = pool.acquire();
  if (!r) return nullptr;
  r->by = progressor::thread;
  r->engines_own = true;  // not the application's transfer: the instrumentation does not see it (xfer)
  r->op = op;
  r->peer_world = peer_world;
  r->tag = tag;
  r->cookie = cookie;
  r->result = req_result::ok;
  return r;
}

void engine_core::post_orphan(req* r) noexcept {
  r->stage.store(req_stage::taken, std::memory_order_relaxed);
  r->state.store(static_cast<std::uint32_t>(req_state::orphan), std::memory_order_release);
  post_or_backlog(r);
}

void engine_core::refuse_unexpected(std::uint64_t tag, std::uint64_t ignore, bool tell) noexcept {
  if (tag::is_coll(tag) && matching.unexp_coll == 0) return;  // every collective run's retire comes here
  if (failed()) return;  // the endpoint is closed: no clear-to-send or notice can go out
  unexpected_msg* prev = nullptr;
  for (unexpected_msg* m = matching.unexp_head; m;) {
    unexpected_msg* next = m->next;
    if (((m->hdr.tag ^ tag) & ~ignore) == 0 && refuse_message(m->hdr)) {
      if (tell && !tag::is_coll_notice(m->hdr.tag)) tell_run_ended(m->hdr);
      matching.unhold(m, prev);
      std::free(m->data);
      delete m;
    } else {
      prev = m;
    }
    m = next;
  }
}

void engine_core::unlink_posted(req* r) noexcept {
  const std::uint32_t prev = r->mprev, next = r->mnext;
  if (prev) pool.at(prev - 1)->mnext = next;
  else matching.posted_head = next;
  if (next) pool.at(next - 1)->mprev = prev;
  else matching.posted_tail = prev;
  r->stage.store(req_stage::taken, std::memory_order_relaxed);
}

// A receive still in the posted list completes as canceled; a matched one goes on (MPI's rule).
void engine_core::do_cancel(req* r) {
  if (r->stage.load(std::memory_order_relaxed) == req_stage::posted) {
    unlink_posted(r);
    r->result = req_result::canceled;
    r->bytes = 0;
    complete(r);
  }
  r->cancel_ack.store(true, std::memory_order_release);
}

}  // namespace sidecore::progress
