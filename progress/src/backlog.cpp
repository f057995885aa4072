// Backlogs: steps the provider refused for now wait here, in order, and are retried at the start and the end of
// every progress pass (and receive buffers taken back are given to the provider again first).
#include "engine_core.hpp"

namespace sidecore::progress {

void engine_core::post_or_backlog(req* r) {
  backlog_fifo& b = r->act == req_act::data_recv ? backlog.recv : backlog.send;
  if (b.head == 0 && post(r) != op_status::retry) return;
  // Keep order: once something of this direction waits in the backlog, everything after it waits too.
  r->backlog_next = 0;
  if (b.tail) pool.at(b.tail - 1)->backlog_next = r->index + 1;
  else b.head = r->index + 1;
  b.tail = r->index + 1;
  bump(eagain);
}

bool engine_core::retry_backlog(backlog_fifo& b) {
  bool did = false;
  while (b.head) {
    // Unlink r before posting it: a step that succeeds may queue r's next step in the other backlog (a
    // rendezvous receive, once posted, queues its clear-to-send), which rewrites r->backlog_next.
    req* r = pool.at(b.head - 1);
    b.head = r->backlog_next;
    if (!b.head) b.tail = 0;
    if (post(r) == op_status::retry) {  // refused again: back at the front
      r->backlog_next = b.head;
      b.head = r->index + 1;
      if (!b.tail) b.tail = b.head;
      break;
    }
    did = true;
    ++backlog.moved;
  }
  return did;
}

bool engine_core::retry_backlog() {
  bool did = false;
  if (!rx.unposted.empty()) did |= repost_rx();
  if (credits_pending()) did |= retry_credits();  // before the sends: a send waiting for credits came first
  if (backlog.send.head) did |= retry_backlog(backlog.send);
  if (backlog.recv.head) did |= retry_backlog(backlog.recv);
  return did;
}

}  // namespace sidecore::progress
