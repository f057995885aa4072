// Credits (credits.cpp): sidecore's flow control of the control tag, per peer, so that what a sender can make its
// receiver hold is bounded by the receiver's settings, not by the number of messages sent.
//
// Two kinds, counted per peer by the sender and given back by the receiver in a credit message (wire_credit):
//  * send credits (SIDECORE_SEND_CREDITS): eager messages and ready-to-sends to a peer that it has not read out of a
//    receive buffer yet. Without them a provider reads ahead of the receive buffers: tcp;ofi_rxm keeps every such
//    message in a 16 KiB bounce buffer of a pool that never shrinks (issue 17: 1.9 GB for 200,000 x 64 B). A send
//    with none waits here, in order, until the peer's progress gives some back: never on matching, so a receive
//    posted for a later message still matches (MPI's progress rule).
//  * eager credits (SIDECORE_EAGER_CREDITS): eager messages to a peer that no receive has taken yet (held in its
//    unexpected list with their data). A send with none goes by rendezvous instead: a ready-to-send header only,
//    the data staying in the sender's buffer until a receive takes it.
// Clear-to-sends, credit messages and liveness pings answer what the peer did, so they are bounded by the peer's
// own sends and take no credit. Under the progress lock, like the rest of the wire protocol.
#pragma once

#include <cstdint>
#include <vector>

#include "backlog.hpp"

namespace sidecore::progress {

struct peer_credits {
  std::uint32_t send = 0;   // control-tag messages we may still send to the peer
  std::uint32_t eager = 0;  // eager messages we may still send to it
};

struct credit_state {
  std::uint32_t send_window = 0, eager_window = 0;  // the settings: credits a peer starts with
  // Given back once this many are owed (half the window: the sender still has the other half to send meanwhile).
  std::uint32_t send_return = 1, eager_return = 1;
  std::vector<peer_credits> left;  // by address: ours to spend
  std::vector<peer_credits> owed;  // by address: read (send) or taken by a receive (eager), not given back yet
  // By address: sends waiting for a send credit, in order (req::backlog_next). While one waits, left[p].send is 0:
  // credits that come back go to the waiting sends first (spare), so a later send never overtakes them.
  std::vector<backlog_fifo> waiting;
  std::vector<std::uint32_t> spare;  // by address: credits come back while sends waited, for those sends
  std::vector<std::uint32_t> granted;  // addresses with spare credits and waiting sends (grant_credits)
  std::vector<std::uint32_t> unsent;   // addresses whose credit message the provider refused for now
  std::vector<std::uint8_t> listed;    // by address: bit 0 in granted, bit 1 in unsent
};

}  // namespace sidecore::progress
