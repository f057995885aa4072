// Completion: polling the completion queue, handing each entry to the request or receive buffer it names, error
// entries, the orphan half of the two-party exchange, and the application's reads of completed requests (test;
// wait is in caller_progress.cpp, where waiting is).
#include "completion.hpp"

#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include <cstdio>

namespace sidecore::progress {

void engine_core::xfer(const req* r, bool begin) const noexcept {
  if (r->engines_own) return;
  const std::uint8_t op = r->parent ? r->parent->xfer_op_ : std::uint8_t{0};
  on_xfer(xfer_event{request_pool::handle_of(r), r->len, r->peer, r->owner_thread, op}, begin);
}

void engine_core::orphan_req(req* r) noexcept {
  const auto prev = r->state.exchange(static_cast<std::uint32_t>(req_state::orphan), std::memory_order_acq_rel);
  if (prev != static_cast<std::uint32_t>(req_state::complete)) return;  // complete() frees it
  // One the provider still holds (complete_held) is freed by the provider's completion, unless that came first.
  if (r->provider_holds.load(std::memory_order_relaxed) && r->provider_holds.exchange(false, std::memory_order_acq_rel))
    return;
  pool.release(r);
}

void engine_core::handle_entries(const fi_cq_tagged_entry* e, int n) {
  for (int i = 0; i < n; ++i) {
    if (rx.owns(e[i].op_context)) {
      on_message(static_cast<rx_buffer*>(e[i].op_context), e[i].len);
      continue;
    }
    req* r = static_cast<req*>(e[i].op_context);  // ctx is the first member of req
    if (r->op != req_kind::recv && sends_in_provider != 0) --sends_in_provider;  // every send entry is one of them
    if (r->provider_late) [[unlikely]] {  // completed already: its peer died
      if (r->op == req_kind::recv) --rdv_recvs_posted;
      late_completion(r);
      continue;
    }
    // A send's eager message or rendezvous data went out, or a receive's rendezvous data arrived (its result
    // and byte count were set when it matched).
    if (r->op == req_kind::recv) {  // only rendezvous data receives complete through the CQ
      --rdv_recvs_posted;
      // Fewer bytes than asked for: a sender whose schedule let go of it (detach_child) sends none.
      if (e[i].len < r->bytes) [[unlikely]] r->bytes = e[i].len;
      const int peer = r->peer_world;
      complete(r);  // first: the peer we wake may take the core we share with it
      ring_peer(peer);  // the sender's rendezvous send completes now
      continue;
    }
    complete(r);
  }
}

void engine_core::handle_error() {
  fi_cq_err_entry err{};
  const ssize_t got = fi_cq_readerr(ep.cq, &err, 0);
  if (got < 1) {
    // The queue said an error entry was there and then gave none: it is broken.
    if (got < 0 && got != -FI_EAGAIN) fail_engine("fi_cq_readerr", static_cast<int>(-got));
    return;
  }
  if (!err.op_context) return;
  const int code = err.err < 0 ? -err.err : err.err;
  if (rx.owns(err.op_context)) {
    // A receive buffer failed (a message larger than a buffer: not from a sidecore peer). Report, repost.
    std::fprintf(stderr, "sidecore: warning: receive buffer error: %s (%d); message dropped\n", fi_strerror(code),
                 err.err);
    bump(dropped);
    auto* b = static_cast<rx_buffer*>(err.op_context);
    const ssize_t rc = post_rx(b);
    if (classify(rc) == op_status::retry) rx.unposted.push_back(b);
    else if (rc != 0) fail_engine("fi_trecv (receive buffer)", static_cast<int>(-rc));
    return;
  }
  req* r = static_cast<req*>(err.op_context);
  if (r->op == req_kind::recv) --rdv_recvs_posted;  // a rendezvous data receive (the only receives posted)
  else if (sends_in_provider != 0) --sends_in_provider;
  if (r->provider_late) {  // completed already: its peer died
    late_completion(r);
    return;
  }
  if (code == FI_ECANCELED && (r->result == req_result::transport || r->result == req_result::peer_failed ||
                               r->result == req_result::canceled)) {
    // A receive we cancelled after its clear-to-send failed or its sender's collective run failed (protocol.cpp), or
    // its peer died (liveness.cpp).
    complete(r);
    return;
  }
  // sidecore never cancels a provider's operation otherwise (a user's cancel unlinks a posted receive): the
  // provider dropped it by itself, as tcp;ofi_rxm does with a transfer whose connection broke. Like a reset
  // connection, that is the peer's failure, not this request's.
  if ((code == FI_ECANCELED || peer_gone(code)) && r->peer_world >= 0) {
    const int peer = r->peer_world;
    const bool recv = r->op == req_kind::recv;
    fail_with_peer(r);  // r may be freed from here on
    char why[160];
    std::snprintf(why, sizeof why, "provider '%s' completed a %s it with an error: %s (%d)", provider_.c_str(),
                  recv ? "receive from" : "send to", fi_strerror(code), code);
    fail_peer(peer, why);
    return;
  }
  // shm copies a message from its sender's memory (or into its receiver's): when that process was killed the copy
  // fails (Input/output error). A peer on this node whose process is gone died; the error is its death.
  if (r->peer_world >= 0 && !live.dead.empty()) {
    if (const int pid = gone_local_peer(r->peer_world)) {
      const int peer = r->peer_world;
      const bool recv = r->op == req_kind::recv;
      fail_with_peer(r);  // r may be freed from here on
      char why[200];
      std::snprintf(why, sizeof why, "provider '%s' completed a %s it with an error: %s (%d); its process (pid %d, "
                    "on this node) is gone", provider_.c_str(), recv ? "receive from" : "send to", fi_strerror(code),
                    code, pid);
      fail_peer(peer, why);
      return;
    }
  }
  fail_request(r, failure::error_completion, code);
}

int engine_core::poll_cq() {
  fi_cq_tagged_entry entries[64];
  int total = 0;
  for (;;) {
    const std::size_t batch = cq_read_max;
    if (batch == 0) [[unlikely]] {  // the engine failed: the queue is read no more
      fail_in_flight();
      return total;
    }
    const ssize_t n = fi_cq_read(ep.cq, entries, batch);
    if (n > 0) {
      handle_entries(entries, static_cast<int>(n));
      total += static_cast<int>(n);
      if (static_cast<std::size_t>(n) < batch) break;
    } else if (n == -FI_EAVAIL) {
      handle_error();
      ++total;
    } else if (n == -FI_EAGAIN) [[likely]] {
      break;  // nothing more now
    } else {
      fail_engine("fi_cq_read", static_cast<int>(-n));
    }
  }
  return total;
}

test_result engine::test(std::uint64_t handle, completion& out) noexcept {
  engine_core& e = core_of(*this);
  req* r = e.pool.lookup_held(handle);
  if (!r) return test_result::stale;
  if (!is_complete(r)) {
    e.pay_owed_wake();
    return test_result::pending;
  }
  read_result(*r, out);
  e.release_read(r, out.result);
  return test_result::done;
}

bool engine::pending(std::uint64_t handle) const noexcept {
  const engine_core& e = static_cast<const engine_core&>(*this);
  const req* r = e.pool.lookup_held(handle);
  if (!r || is_complete(r)) return false;
  e.pay_owed_wake();
  return true;
}

bool engine::active(std::uint64_t handle) const noexcept {
  return static_cast<const engine_core&>(*this).pool.lookup_held(handle) != nullptr;
}

std::optional<req_kind> engine::kind(std::uint64_t handle) const noexcept {
  const req* r = static_cast<const engine_core&>(*this).pool.lookup_held(handle);
  if (!r) return std::nullopt;
  return r->op;
}

void engine::orphan(std::uint64_t handle) noexcept {
  engine_core& e = core_of(*this);
  if (req* r = e.pool.lookup_held(handle)) e.orphan_req(r);
}

}  // namespace sidecore::progress
