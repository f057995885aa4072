// The engine's watch for the file descriptors used up after init (fd_watch.hpp): a first message to a peer that
// the provider refuses for fd_stall_ns fails, and receives that wait meanwhile are warned about once. Run from the
// liveness check (liveness.cpp, check_peers), under the progress lock.
#include <rdma/fi_errno.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <utility>

#include "completion.hpp"
#include "fd_watch.hpp"

namespace sidecore::progress {

// File descriptors used up (fd_room.hpp, fd_watch). tcp;ofi_rxm makes a connection at the first message to a peer;
// with no descriptor left for it, or for the peer's accept() (also ours when the peer is in this process), the
// provider refuses that message (EAGAIN) for ever and says nothing else. The signs looked at cost the liveness
// check a few loads: whether the send backlog stood still, whether anything completed; /proc/self/fd is read only
// once one has lasted fd_stall_ns. Only a refusal fails anything: a receive that waits may wait for a peer that
// has not sent yet, so about that the engine only warns.
void engine_core::check_fds(std::uint64_t now) noexcept {
  fd_watch& w = fd_stalls;
  const std::uint64_t head = backlog.send.head ? request_pool::handle_of(pool.at(backlog.send.head - 1)) : 0;
  if (head == 0 || head != w.head || backlog.moved != w.moves) {
    w.head = head;
    w.moves = backlog.moved;
    w.head_since = now;
  } else if (now - w.head_since >= fd_stall_ns && now >= w.send_look) {
    // A first message: an eager one or a ready-to-send (a clear-to-send or rendezvous data answers a peer already
    // connected), to a peer reached through the provider (not a node ring, which takes no descriptor).
    const req* r = pool.at(backlog.send.head - 1);
    if ((r->act == req_act::eager || r->act == req_act::rts) && r->peer_world >= 0 && !fastpath.to(r->peer_world) &&
        static_cast<std::uint32_t>(r->peer_world) != self_index) {
      w.send_look = now + fd_stall_ns / 4;
      if (std::string note = fd_room_note(fd_stall_margin); !note.empty()) {
        fail_fd_stall(r->peer_world, now - w.head_since, std::move(note));
        w.head = 0;
      }
    }
  }
  // Receives that wait while nothing at all completes: said once, where connections take descriptors (not shm).
  if (w.warned_recv || !w.recv_watched || matching.posted_head == 0) {
    w.recv_since = 0;
    return;
  }
  const std::uint64_t done = completions.load(std::memory_order_relaxed);
  if (w.recv_since == 0 || done != w.done) {
    w.recv_since = now;
    w.done = done;
    return;
  }
  if (now - w.recv_since < fd_stall_ns || now < w.recv_look) return;
  w.recv_look = now + fd_stall_ns;
  const std::string note = fd_room_note(fd_stall_margin);
  if (note.empty()) return;
  w.warned_recv = true;
  std::fprintf(stderr,
               "sidecore: warning: address %u: receives have waited %llu s while nothing completed, and %s. On "
               "provider '%s' a rank that connects to this one now cannot be accepted, and its messages never arrive "
               "(said once)\n",
               my_index, static_cast<unsigned long long>((now - w.recv_since) / 1000000000), note.c_str(),
               provider_.c_str());
}

// Peer `peer`'s first message was refused for `stalled_ns` with the descriptors used up (check_fds): every send to
// it that has given the provider nothing yet fails (the backlogged eager messages and ready-to-sends, and the sends
// waiting for its credits), each giving back the credits it took, since the peer never reads it. The peer is not
// taken for dead: a later send to it is tried again.
void engine_core::fail_fd_stall(int peer, std::uint64_t stalled_ns, std::string note) noexcept {
  {
    const std::lock_guard<std::mutex> g(fd_stalls.text_mutex);
    fd_stalls.stall_s = stalled_ns / 1000000000;
    fd_stalls.note = std::move(note);
  }
  std::uint32_t head = 0, tail = 0;  // the failed ones, linked through backlog_next (index + 1)
  const auto take = [&](req& r) {
    r.backlog_next = 0;
    if (tail) pool.at(tail - 1)->backlog_next = r.index + 1;
    else head = r.index + 1;
    tail = r.index + 1;
  };
  drop_backlogged([&](req& r) {
    if (r.peer_world != peer || (r.act != req_act::eager && r.act != req_act::rts)) return false;
    take(r);
    return true;
  });
  for (std::uint32_t i = unlink_waiting(static_cast<std::uint32_t>(peer)); i;) {
    req* r = pool.at(i - 1);
    i = r->backlog_next;
    take(*r);
  }
  while (head) {
    req* r = pool.at(head - 1);
    head = r->backlog_next;
    return_credit(r);
    fail_request(r, failure::fds_used_up, FI_EAGAIN);
  }
}

}  // namespace sidecore::progress
