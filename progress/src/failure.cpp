// Failures on the progress path. One request's: a step the provider failed, or an error completion for it, or a
// first message the provider refused for 2 s while the file descriptors were used up (liveness.cpp, check_fds): the
// request completes with req_result::transport and a record of what failed (engine::describe makes the sentence).
// The engine's: its completion queue (or its receive buffers, or the memory to keep a message) failed: it is
// reported once, every request the engine has taken completes with a transport error, later ones fail as they
// come, and no libfabric call is made any more. Nothing here throws: the progress thread goes on (idle).
#include <rdma/fi_errno.h>

#include <cstdio>
#include <mutex>
#include <string>

#include <sidecore/progress/tag.hpp>

#include "../coll/sentence.hpp"
#include "completion.hpp"
#include "fd_room.hpp"

namespace sidecore::progress {

void engine_core::fail_request(req* r, failure what, int fi_err) noexcept {
  if (r->op == req_kind::send && r->rdv && r->parent == nullptr && tag::is_coll(r->tag)) [[unlikely]]
    name_failed_send(*r);  // a send its run detached: the run cannot name it any more
  r->act = req_act::none;
  r->result = req_result::transport;
  r->what = what;
  r->fi_err = fi_err;
  complete(r);
}

void engine_core::name_failed_send(const req& r) noexcept {
  const auto p = static_cast<std::size_t>(r.peer_world);
  if (failed() || r.peer_world < 0 || p >= credits.left.size() || credits.left[p].send == 0 || peer_dead(r.peer_world))
    return;
  wire_hdr h = eager_hdr((r.tag & ~tag::coll_msg_bits) | tag::coll_fail_msg, 0, static_cast<std::uint32_t>(r.data),
                         my_index);
  set_sig(h, r.sig);
  h.cookie = request_pool::handle_of(&r);
  if (send_msg(r.peer_world, h, nullptr, 0) != 0) return;
  --credits.left[p].send;  // the receiver gives it back as for any message it reads (a notice takes no eager credit)
  ring_peer(r.peer_world);
}

void engine_core::fail_engine(const char* what, int fi_err) noexcept {
  if (failed()) return;
  // The provider's name and error text have no bound: a sentence too long is cut visibly, on a whole character.
  write_sentence(fatal_text, sizeof(fatal_text), "%s failed on provider '%s': %s (%d)", what, provider_.c_str(),
                 fi_strerror(fi_err), fi_err);
  engine_failed.store(true, std::memory_order_release);
  refusing = true;
  cq_read_max = 0;  // poll_cq reads no more, and fails what is in flight (fail_in_flight) at its next call
  std::fprintf(stderr,
               "sidecore: error: %s; the progression engine stopped: requests in flight and every later one "
               "complete with errc::transport\n",
               fatal_text);
}

// Called from poll_cq once the engine failed, outside the handling of any completion entry (the entries of the
// batch that was being handled when the engine failed are real completions: they complete as they are).
void engine_core::fail_in_flight() noexcept {
  if (in_flight_failed) return;
  in_flight_failed = true;
  matching.posted_head = matching.posted_tail = 0;
  backlog = {};
  for (std::uint32_t p = 0; p < credits.waiting.size(); ++p) forget_credits(p);
  credits.granted.clear();
  credits.unsent.clear();
  rx.unposted.clear();
  rdv_recvs_posted = 0;
  const std::uint32_t n = pool.slots();
  for (std::uint32_t i = 0; i < n; ++i) {
    req* r = pool.at(i);
    if (!taken_in_flight(*r)) continue;  // one not taken yet fails when it is drained (accept)
    // A schedule's request completes through its schedule: made ready, it finishes with the failure (run_ready),
    // after its children, failed here, have reported to it.
    if (r->op == req_kind::schedule) ready.push(r->sched);
    else fail_request(r, failure::engine, 0);
  }
  // The provider may still hold receives into the application's buffers: it lets go of them now. No libfabric call
  // is made after this (submissions fail in accept, the queue is read no more, the backlogs stay empty).
  ep.close();
}

std::string engine::describe(const completion& c) const {
  const auto& e = static_cast<const engine_core&>(*this);
  if (c.result == req_result::peer_failed) return e.peer_failure_text(c.peer_index);
  if (c.result != req_result::transport) return {};
  const std::string peer = c.peer_index >= 0 ? "address " + std::to_string(c.peer_index) : "any address";
  std::string code = std::string(fi_strerror(c.fi_err)) + " (" + std::to_string(c.fi_err) + ")";
  if (c.fi_err == FI_EMFILE) {  // a connection the provider could not open: the remedy is the limit
    if (const std::string fds = fd_limit_note(); !fds.empty()) code += "; " + fds;
  }
  switch (c.what) {
    case failure::engine: return std::string(e.fatal_text) + "; the engine stopped while the request was in flight";
    case failure::none: return "an operation of the schedule failed in the transport";
    case failure::error_completion:
      return "provider '" + provider_ + "' completed the " + (c.kind == req_kind::recv ? "receive from " : "send to ") +
             peer + " with an error: " + code;
    case failure::fi_trecv: return "fi_trecv from " + peer + " failed on provider '" + provider_ + "': " + code;
    case failure::fi_tsend:
    case failure::fi_tsendv:
    case failure::fi_tinject:
      return std::string(failure_name(c.what)) + " to " + peer + " failed on provider '" + provider_ + "': " + code;
    case failure::fds_used_up: {
      const std::lock_guard<std::mutex> g(e.fd_stalls.text_mutex);
      return "no exchange with peer rank " + std::to_string(c.peer_index) + " completed within " +
             std::to_string(e.fd_stalls.stall_s) + " s on provider '" + provider_ + "', and " + e.fd_stalls.note;
    }
  }
  return "unknown transport failure";
}

}  // namespace sidecore::progress
