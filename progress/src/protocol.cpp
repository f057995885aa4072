// Protocol: the eager and rendezvous steps a request goes through (post), and what an arriving message does:
// eager data is matched and copied out, a ready-to-send starts a rendezvous at the receiver, a clear-to-send lets
// the sender send its data. The wire format is in wire.hpp, the matching in matching.cpp.
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <sys/uio.h>

#include <cstdio>
#include <cstring>

#include <sidecore/progress/tag.hpp>

#include "completion.hpp"

namespace sidecore::progress {

// Posts the request's next step (r->act). retry when the provider refused it for now (EAGAIN, or ENOMEM when its
// receive queue is full: shm holds 1024); the caller keeps it in the backlog. A step that completes the request at
// once (an injected eager message, an empty rendezvous) completes it here, and so does a step the provider fails
// (fatal; req_result::transport, naming the call).
op_status engine_core::post(req* r) {
  ssize_t rc = 0;
  failure call = failure::none;
  const fi_addr_t peer_addr = r->peer_world >= 0 ? ep.addr(r->peer_world) : FI_ADDR_UNSPEC;
  // A message on the control tag takes a credit of its peer (credits.cpp): none left, it waits for the peer to
  // give some back; no eager credit left, an eager message goes as a ready-to-send.
  if ((r->act == req_act::eager || r->act == req_act::rts) && !r->credited && !take_credit(r)) return op_status::ok;
  switch (r->act) {
    case req_act::eager: {
      wire_hdr h = eager_hdr(r->tag, r->len, static_cast<std::uint32_t>(r->data), my_index);
      // A schedule's child, or a notice the engine sends for a run that ended (tell_run_ended): the signature (a
      // notice's run) and the cookie go too.
      if (r->parent || tag::is_coll_notice(r->tag)) [[unlikely]] {
        set_sig(h, r->sig);
        h.cookie = r->cookie;
      }
      if (fastpath.to(r->peer_world) || hdr_size + r->len <= inject_size_) {
        // Header and data copied into the peer's node ring, or in one inject: the buffer is reusable at once and no
        // completion entry will come. A full ring answers -FI_EAGAIN, as the provider does: the send backlog.
        rc = send_msg(r->peer_world, h, r->buf, r->len);
        call = failure::fi_tinject;
        if (rc == 0) {
          begin_xfer(r);
          // Complete first: on a core shared with the peer, the peer we wake may run before we go on. (r may
          // be released and reused from complete() on.)
          const int peer = r->peer_world;
          complete(r);
          ring_peer(peer);
          return op_status::ok;
        }
      } else {
        r->hdr = h;  // alive until the send completes
        iovec iov[2] = {{&r->hdr, hdr_size}, {r->buf, r->len}};
        rc = fi_tsendv(ep.ep, iov, nullptr, 2, peer_addr, ctrl_tag, &r->ctx);
        call = failure::fi_tsendv;
        if (rc == 0) {
          ++sends_in_provider;
          r->act = req_act::none;
          begin_xfer(r);
          ring_peer(r->peer_world);
          return op_status::ok;
        }
      }
      break;
    }
    case req_act::rts: {
      wire_hdr h = rts_hdr(r->tag, r->len, request_pool::handle_of(r), static_cast<std::uint32_t>(r->data), my_index);
      if (r->parent) [[unlikely]] set_sig(h, r->sig);
      rc = send_msg(r->peer_world, h, nullptr, 0);
      call = failure::fi_tinject;
      if (rc == 0) {
        r->rdv = true;
        bump(rendezvous);
        r->act = req_act::none;  // waits for the clear-to-send; the transfer begins with the data (below)
        ring_peer(r->peer_world);
        return op_status::ok;
      }
      break;
    }
    case req_act::data_send:
      if (r->rdv_n == 0) {  // the receiver takes nothing (a 0-byte receive, or it truncates to 0)
        complete(r);
        return op_status::ok;
      }
      // A send its schedule let go of (detach_child: no buffer any more) answers with an empty message: the
      // receiver's data receive completes with 0 bytes, which its own schedule sees as a mismatch.
      rc = fi_tsend(ep.ep, r->buf, r->buf ? r->rdv_n : 0, nullptr, peer_addr, rdv_tag_of(my_index, r->index), &r->ctx);
      call = failure::fi_tsend;
      if (rc == 0) {
        ++sends_in_provider;
        r->act = req_act::none;
        begin_xfer(r);  // the data moves from here (by whoever progresses: the progress thread in core mode)
        ring_peer(r->peer_world);
        return op_status::ok;
      }
      break;
    case req_act::data_recv:
      if (rdv_recvs_posted >= rdv_recv_limit) return op_status::retry;  // flow control: waits for one to complete
      rc = fi_trecv(ep.ep, r->buf, r->rdv_n, nullptr, FI_ADDR_UNSPEC, r->rdv_tag, 0, &r->ctx);
      call = failure::fi_trecv;
      if (rc == 0) {
        ++rdv_recvs_posted;
        begin_xfer(r);
        // Posted before the clear-to-send leaves: the data can never arrive unexpected.
        r->act = req_act::cts;
        post_or_backlog(r);
        return op_status::ok;
      }
      break;
    case req_act::cts: {
      rc = send_msg(r->peer_world, cts_hdr(r->rdv_n, r->cookie, my_index), nullptr, 0);
      call = failure::fi_tinject;
      if (rc == 0) {
        r->act = req_act::none;
        const int peer = r->peer_world;
        if (r->rdv_n == 0) complete(r);  // nothing to receive: done (r may be released from here on)
        ring_peer(peer);
        return op_status::ok;
      }
      if (r->rdv_n != 0 && classify(rc) == op_status::fatal) {
        // Its data receive is posted: completed now, r would leave the provider a receive into the application's
        // buffer on a slot that is reused. Cancelled, it completes through its cancellation (handle_error), as the
        // failure recorded here.
        r->act = req_act::none;
        r->result = req_result::transport;
        r->what = call;
        r->fi_err = static_cast<int>(-rc);
        if (fi_cancel(&ep.ep->fid, &r->ctx) == 0) return op_status::fatal;
      }
      break;
    }
    case req_act::self:
      return post_self(r);
    case req_act::none:
      return op_status::ok;
  }
  const op_status st = classify(rc);
  if (st == op_status::fatal) [[unlikely]] {
    const int peer = r->peer_world;
    if (peer_gone(static_cast<int>(-rc)) && peer >= 0) {  // the peer's connection is gone: its failure (liveness.cpp)
      fail_with_peer(r);
      char why[160];
      std::snprintf(why, sizeof why, "%s to it failed on provider '%s': %s (%d)", failure_name(call), provider_.c_str(),
                    fi_strerror(static_cast<int>(-rc)), static_cast<int>(-rc));
      fail_peer(peer, why);
    } else {
      fail_request(r, call, static_cast<int>(-rc));
    }
  }
  return st;
}

void engine_core::deliver_eager(req* r, const wire_hdr& h, const char* data) {
  begin_xfer(r);  // no-op when it began at posting
  const std::size_t n = h.size < r->len ? h.size : r->len;
  copy_bytes(r->buf, data, n);
  r->result = h.size > r->len ? req_result::truncated : req_result::ok;
  r->bytes = n;
  r->rtag = h.tag;
  r->source = static_cast<int>(h.src_rank);
  r->peer_world = static_cast<int>(h.src_index);
  if (r->parent) [[unlikely]] r->sig = sig_of(h);
  complete(r);
}

// An eager message to this process, as if it had arrived: the first posted receive it matches takes it, else it is
// held (copied) for the receives to come. Caller holds the lock.
void engine_core::deliver_self_eager(const wire_hdr& h, const char* data) {
  if (req* r = match_posted(h)) deliver_eager(r, h, data);
  else hold_unexpected(h, data);
}

// A send to this process: one copy, no provider. An eager one completes now (its data matched or held); a larger
// one completes when a receive takes it, copying straight from its buffer: the sender's buffer is in use until
// then, as in a rendezvous. In mode core that copy runs on the progress thread (such a send and a receive that
// size are progressor::thread), so it overlaps the application's computation.
op_status engine_core::post_self(req* s) {
  begin_xfer(s);
  s->act = req_act::none;
  const auto rank = static_cast<std::uint32_t>(s->data);
  if (s->len <= eager_max_) {
    deliver_self_eager(eager_hdr(s->tag, s->len, rank, my_index), static_cast<const char*>(s->buf));
    complete(s);
    return op_status::ok;
  }
  wire_hdr h = rts_hdr(s->tag, s->len, request_pool::handle_of(s), rank, my_index);
  h.type = wire_self_rts;
  if (req* r = match_posted(h)) take_self_send(r, h);
  else hold_unexpected(h, nullptr);
  return op_status::ok;
}

// Receive r takes the held send to this process that h names: the data is copied from the send's buffer, and both
// complete.
void engine_core::take_self_send(req* r, const wire_hdr& h) {
  req* s = pool.lookup(h.cookie);
  if (!s) [[unlikely]] {  // a send waits for its receive and cannot be cancelled; only the engine's failure ends it
    fail_request(r, failure::engine, 0);
    return;
  }
  deliver_eager(r, h, static_cast<const char*>(s->buf));
  complete(s);
}

// A ready-to-send matched receive r: post a receive for what r takes, then (post()) clear the sender to send it.
void engine_core::start_rendezvous(req* r, const wire_hdr& h) {
  if (peer_dead(static_cast<int>(h.src_index))) [[unlikely]] {  // its data will never come
    r->peer_world = static_cast<int>(h.src_index);
    fail_with_peer(r);
    return;
  }
  const std::size_t n = h.size < r->len ? h.size : r->len;
  r->result = h.size > r->len ? req_result::truncated : req_result::ok;
  r->bytes = n;
  r->rtag = h.tag;
  r->source = static_cast<int>(h.src_rank);
  r->peer_world = static_cast<int>(h.src_index);
  r->cookie = h.cookie;
  if (r->parent) [[unlikely]] r->sig = sig_of(h);
  r->rdv_n = n;
  r->rdv_tag = rdv_tag_of(h.src_index, static_cast<std::uint32_t>(h.cookie) - 1);
  r->act = n ? req_act::data_recv : req_act::cts;
  post_or_backlog(r);
}

// A matched rendezvous receive whose send failed at its sender (a collective's failure notice named it): its data
// will never come. Its step leaves the backlog; a data receive the provider has is cancelled, and the receive
// completes as canceled through that cancellation (handle_error); one the provider never had completes now. One the
// provider would not cancel is left to its own completion: completed now, it would leave a receive posted on the
// sender's rendezvous tag, which the sender's next rendezvous from that slot would fill.
void engine_core::abandon_recv(req* r) noexcept {
  const req_act step = r->act;
  const bool data_posted = r->rdv_n != 0 && (step == req_act::cts || step == req_act::none);
  if (step == req_act::data_recv || step == req_act::cts) drop_backlogged([r](const req& q) { return &q == r; });
  r->act = req_act::none;
  r->result = req_result::canceled;
  r->bytes = 0;
  if (!data_posted) {
    complete(r);
    return;
  }
  (void)fi_cancel(&ep.ep->fid, &r->ctx);
}

// A message in receive buffer b: read it, then give the buffer back to the provider.
void engine_core::on_message(rx_buffer* b, std::size_t len) {
  on_wire(b->buf, len, false);
  // Given back to the provider at the start of the next progress pass, not now: the fi_trecv would sit between
  // this message's arrival and the return of the wait that waits for it (measured on shm, self ping-pong).
  // The other buffers stay posted meanwhile.
  rx.unposted.push_back(b);
}

// A message: match it (eager data, ready-to-send) or act on it (clear-to-send).
void engine_core::on_wire(const char* msg, std::size_t len, bool from_ring) {
  wire_hdr h;
  if (len >= hdr_size) {
    std::memcpy(&h, msg, hdr_size);
    const char* data = msg + hdr_size;
    if (live.timeout_ns != 0) [[unlikely]] heard_from(h.src_index);
    if (h.type == wire_eager && h.version == wire_version && h.size == len - hdr_size) {
      if (tag::is_coll_notice(h.tag)) [[unlikely]] {
        if (coll_msgs.notice) coll_msgs.notice(coll_msgs.ctx, h, data);
        owe_credit(h.src_index, false);  // a notice takes no eager credit (spend_eager)
      } else if (req* r = match_posted(h)) {
        deliver_eager(r, h, data);
        owe_credit(h.src_index, true);
      } else {
        hold_unexpected(h, data);
        owe_credit(h.src_index, false);  // its eager credit comes back when a receive takes it (accept_recv)
      }
      // An eager message that was not injected completes at the sender once we took it.
      if (!from_ring && len > inject_size_) ring_peer(static_cast<int>(h.src_index));
    } else if (h.version != wire_version) {
      drop_message("is of another wire version", &h, len);
    } else if (h.type == wire_rts) {
      if (req* r = match_posted(h)) start_rendezvous(r, h);
      else hold_unexpected(h, nullptr);
      owe_credit(h.src_index, false);
    } else if (h.type == wire_credit) {
      on_credit(h);
    } else if (h.type == wire_cts) {
      req* r = pool.lookup(h.cookie);
      // A send that already failed (its peer found dead, then heard from after all) sends nothing: its owner was
      // told it ended, and may reuse the buffer.
      if (r && r->op == req_kind::send && r->act == req_act::none && r->rdv && r->result == req_result::ok) {
        r->rdv_n = h.size;
        r->act = req_act::data_send;
        post_or_backlog(r);
      } else {
        drop_message("is a clear-to-send for no pending send", &h, len);
      }
    } else if (h.type == wire_ping) {
      // Refused for now: the peer asks again (liveness.cpp).
      if (h.src_index < live.dead.size())
        (void)inject_hdr(ping_hdr(my_index, wire_pong), ep.addr(static_cast<int>(h.src_index)));
    } else if (h.type != wire_pong) {  // an answer only counts as heard (above)
      drop_message("is malformed", &h, len);
    }
  } else {
    drop_message("is shorter than a sidecore header", nullptr, len);
  }
}

// A message that is not one of ours, or not for anything we have: counted and reported. One of another wire version
// is reported once (a peer built from another sidecore sends many): reading it as ours would take its fields for
// what they are not.
void engine_core::drop_message(const char* why, const wire_hdr* h, std::size_t len) noexcept {
  bump(dropped);
  if (!h) {
    std::fprintf(stderr, "sidecore: warning: a %zu-byte message %s (dropped)\n", len, why);
  } else if (h->version != wire_version) {
    if (warned_version) return;
    warned_version = true;
    std::fprintf(stderr,
                 "sidecore: warning: a message from address %u has wire version %u; this sidecore speaks version %u "
                 "(is that rank running another sidecore build?): dropped, and so will be any other (warned once)\n",
                 h->src_index, static_cast<unsigned>(h->version), static_cast<unsigned>(wire_version));
  } else {
    std::fprintf(stderr, "sidecore: warning: a %zu-byte message of type %u from address %u %s (dropped)\n", len,
                 static_cast<unsigned>(h->type), h->src_index, why);
  }
}

}  // namespace sidecore::progress
