// Backlogs (backlog.cpp): operations the provider refused for now (EAGAIN, or ENOMEM when its receive queue is
// full), one FIFO per direction: order is kept among sends and among receives, and a full receive queue never
// holds sends back (a rank that pre-posts many receives and then sends would otherwise deadlock with its peer).
// Intrusive (req::backlog_next): no allocation.
#pragma once

#include <cstdint>

namespace sidecore::progress {

struct backlog_fifo {
  std::uint32_t head = 0, tail = 0;  // index + 1, 0 = empty
};

struct backlogs {
  backlog_fifo send;  // eager messages, ready-to-send, clear-to-send, rendezvous data
  backlog_fifo recv;  // rendezvous data receives
  std::uint32_t moved = 0;  // steps posted out of a backlog (wraps): a backlog that stands still does not count up
  [[nodiscard]] bool any() const noexcept { return (send.head | recv.head) != 0; }
};

}  // namespace sidecore::progress
