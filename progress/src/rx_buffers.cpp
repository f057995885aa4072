// Receive buffers: set up with the engine, given back to the provider after each message is read out of one, and
// the flow control that keeps rendezvous data receives from crowding them out of the provider's receive queue.
#include <rdma/fi_tagged.h>

#include <string>

#include "engine_core.hpp"

namespace sidecore::progress {

void engine_core::setup_rx_buffers() {
  // Receive buffers for eager and control messages, posted now (no traffic can arrive before connect()).
  const std::size_t nb = cfg.recv_buffers ? cfg.recv_buffers : 1;
  // The buffers stay posted in the provider's receive queue: a rendezvous data receive needs a place beside them,
  // or the first rendezvous message waits for ever. A provider that reports no queue size is taken at its word.
  if (ep.rx_size > 0 && nb >= ep.rx_size)
    throw config_error("recv_buffers", nb,
                       "does not fit provider '" + ep.provider + "', whose receive queue holds " +
                           std::to_string(ep.rx_size) + " receives: the receive buffers stay posted there and "
                           "rendezvous data receives need room beside them; give at most " +
                           std::to_string(ep.rx_size - 1),
                       ep.rx_size - 1);
  // Flow control of rendezvous data receives. Measured with shm (libfabric 1.17, receive queue 1024): when data
  // receives filled the queue, no receive buffer could be posted; the control messages then waiting in shm's
  // inbound queue held up the data behind them, and 3 ranks with 1500 rendezvous messages each in flight
  // deadlocked. Data receives beyond the limit wait in the receive backlog until one completes.
  rdv_recv_limit = ep.rx_size > 0 ? ep.rx_size - nb : 1;
  rx.size = eager_max_ + hdr_size;
  rx.mem.resize(nb * rx.size);
  rx.bufs.resize(nb);
  rx.unposted.reserve(nb);  // on_message appends without allocating
  for (std::size_t i = 0; i < nb; ++i) {
    rx.bufs[i].buf = rx.mem.data() + i * rx.size;
    const ssize_t rc = post_rx(&rx.bufs[i]);
    const op_status st = classify(rc);
    if (st == op_status::retry) rx.unposted.push_back(&rx.bufs[i]);
    else if (st == op_status::fatal) throw_fi("fi_trecv (receive buffer)", static_cast<int>(rc), ep.provider);
  }
}

ssize_t engine_core::post_rx(rx_buffer* b) noexcept {
  return fi_trecv(ep.ep, b->buf, rx.size, nullptr, FI_ADDR_UNSPEC, ctrl_tag, 0, &b->ctx);
}

bool engine_core::repost_rx() {
  bool did = false;
  while (!rx.unposted.empty()) {
    const ssize_t rc = post_rx(rx.unposted.back());
    const op_status st = classify(rc);
    if (st == op_status::retry) break;
    if (st == op_status::fatal) {
      fail_engine("fi_trecv (receive buffer)", static_cast<int>(-rc));
      rx.unposted.clear();  // the engine receives no more
      break;
    }
    rx.unposted.pop_back();
    did = true;
  }
  return did;
}

}  // namespace sidecore::progress
