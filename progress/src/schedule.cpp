// Schedules: starting one behind a request, starting its children under the progress lock, handing a child's
// completion to its schedule, and the progress pass's advance step over the ready list.
#include <algorithm>
#include <new>

#include "completion.hpp"

namespace sidecore::progress {

std::uint64_t engine_core::start_schedule(schedule& s, std::uint32_t owner_thread, progressor by, req* slot) {
  req* r = slot ? slot : take_slot();
  r->op = req_kind::schedule;
  r->act = req_act::none;
  r->by = by;
  r->sched = &s;
  r->buf = nullptr;
  r->len = 0;
  r->peer = -1;
  r->peer_world = -1;
  r->owner_thread = owner_thread;
  r->result = req_result::ok;
  r->bytes = 0;
  r->rtag = 0;
  r->source = -1;
  const std::uint64_t h = request_pool::handle_of(r);
  submit(r->index);
  return h;
}

// The holder of the progress lock takes a schedule's request (accept): the schedule is ready to begin.
void engine_core::accept_schedule(req* r) {
  r->stage.store(req_stage::taken, std::memory_order_relaxed);
  schedule* s = r->sched;
  s->self_ = r;
  ++schedules_running;
  ready.push(s);
}

namespace {

// The fields every child sets (a child is never seen by the application: no instrumentation of its own thread,
// no caller progress).
req* child_slot(request_pool& pool, schedule& parent, std::uint64_t token) noexcept {
  req* r = pool.acquire();
  if (!r) return nullptr;
  r->by = progressor::thread;
  r->parent = &parent;
  r->token = token;
  r->result = req_result::ok;
  return r;
}

}  // namespace

std::uint64_t engine_core::start_child_send(schedule& parent, std::uint64_t token, const void* buf, std::size_t len,
                                            int dest, std::uint64_t tag, int sender_rank, std::uint64_t sig,
                                            std::uint64_t cookie) {
  req* r = child_slot(pool, parent, token);
  if (!r) return 0;
  r->op = req_kind::send;
  r->act = send_act(len, dest);
  r->buf = const_cast<void*>(buf);  // libfabric's send takes const; the slot is shared with receives
  r->len = len;
  r->peer_world = dest;
  r->peer = dest;
  r->owner_thread = parent.self_ ? parent.self_->owner_thread : 0;
  r->data = static_cast<std::uint64_t>(static_cast<std::uint32_t>(sender_rank));
  r->tag = tag;
  r->ignore = 0;
  r->bytes = len;
  r->sig = sig;
  r->cookie = cookie;
  if (caller_starting) [[unlikely]] note_caller_child(dest);
  // The handle is taken before accept: an injected message completes (and frees the slot) inside it.
  const std::uint64_t h = request_pool::handle_of(r);
  accept(r);
  return h;
}

std::uint64_t engine_core::start_child_recv(schedule& parent, std::uint64_t token, void* buf, std::size_t len,
                                            int source_index, std::uint64_t tag, std::uint64_t ignore) {
  req* r = child_slot(pool, parent, token);
  if (!r) return 0;
  r->op = req_kind::recv;
  r->act = req_act::none;
  r->buf = buf;
  r->len = len;
  r->peer_world = source_index;
  r->peer = source_index;
  r->owner_thread = parent.self_ ? parent.self_->owner_thread : 0;
  r->source = -1;
  r->tag = tag;
  r->ignore = ignore;
  r->bytes = 0;
  r->sig = 0;
  if (caller_starting) [[unlikely]] note_caller_child(source_index);
  const std::uint64_t h = request_pool::handle_of(r);
  accept(r);
  return h;
}

engine_core::child_fate engine_core::cancel_child(schedule& parent, std::uint64_t handle,
                                                  std::span<const failed_send> failed,
                                                  std::uint64_t notice_sig) noexcept {
  req* r = pool.lookup(handle);
  if (!r || r->parent != &parent) return child_fate::completes;  // completed already
  if (r->op == req_kind::recv) {
    const bool data_never_comes =
        r->stage.load(std::memory_order_relaxed) == req_stage::matched &&
        std::any_of(failed.begin(), failed.end(),
                    [r](const failed_send& f) { return f.peer == r->peer_world && f.handle == r->cookie; });
    if (data_never_comes) abandon_recv(r);
    else do_cancel(r);  // completes it as canceled if no message matched it yet
    return child_fate::completes;
  }
  // A rendezvous send whose data has not gone to the provider: its ready-to-send waits for a clear-to-send (or
  // still for the provider or for credits), or its data waits in the backlog. An eager send not sent yet (it waits
  // for credits, or in the backlog) goes as a bare ready-to-send instead: without an eager credit it would have
  // become one, whose clear-to-send the peer that gave up never sends. An eager send the provider has completes
  // by itself.
  if (r->act == req_act::eager && !r->posted) {
    if (r->credited) ++credits.left[static_cast<std::size_t>(r->peer_world)].eager;  // it took one: not needed now
    r->act = req_act::rts;
  }
  const bool waits = (r->len > eager_max_ || r->rdv || r->act == req_act::rts) && !r->posted &&
                     (r->act == req_act::none || r->act == req_act::rts || r->act == req_act::data_send);
  if (!waits) return child_fate::completes;
  r->buf = nullptr;
  r->parent = nullptr;
  r->sig = notice_sig;  // its message's signature went with its ready-to-send; a notice of its failure carries this
  r->state.store(static_cast<std::uint32_t>(req_state::orphan), std::memory_order_release);  // freed at completion
  return child_fate::detached;
}

void engine_core::complete_child(req* r) noexcept {
  schedule* s = r->parent;
  completion c{};
  read_result(*r, c);
  c.sig = r->sig;
  const std::uint64_t token = r->token;
  pool.release(r);  // the application never sees a child: freed at once
  s->on_child_complete(c, token);
  ready.push(s);
}

// The progress pass's schedule-advance step: every schedule that was ready when it began advances once.
bool engine_core::run_ready() {
  schedule* s = ready.take_all();
  if (!s) return false;
  while (s) {
    schedule* next = ready_list::next(s);
    s->ready_ = false;
    if (failed()) [[unlikely]] {
      // The engine failed in this pass, before the completion queue's next read (which fails what is in flight):
      // fail the children first, so that none reports to a schedule retired here.
      if (!in_flight_failed) fail_in_flight();
      finish(s, req_result::transport, failure::engine);
    } else if (s->advance(*this) == schedule::step::done) finish(s, s->result(), failure::none);
    s = next;
  }
  return true;
}

std::uint64_t schedule::request_handle() const noexcept { return self_ ? request_pool::handle_of(self_) : 0; }

void engine_core::finish(schedule* s, req_result result, failure what) noexcept {
  req* r = s->self_;
  --schedules_running;
  ready.remove(s);
  r->sched = nullptr;
  r->result = result;
  r->what = what;
  r->fi_err = 0;
  s->retire();  // request_handle() still names r in there; s may be freed or started again from here on
  complete(r);
}

}  // namespace sidecore::progress
