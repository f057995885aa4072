// Peer liveness (liveness.cpp): which peers were found dead, and when to look next. A peer on this node is checked
// through the process id it published beside its doorbell (kill(pid, 0)); one on another node through the
// provider's errors on it and, with SIDECORE_PEER_TIMEOUT, its silence. State under the progress lock, except the
// count and the list that failed_peers() reads.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace sidecore::progress {

struct peer_liveness {
  // Between two checks, at most this long while a request involving a peer is pending (the check scans the
  // request slots and makes one kill() per peer involved: a few microseconds, 50 times a second at most).
  static constexpr std::uint64_t check_interval_ns = 20'000'000;

  std::vector<std::uint8_t> dead;    // by address index (sized by add_addresses)
  bool any = false;                  // a peer was found dead (the lock holder's copy of count != 0)
  std::atomic<std::size_t> count{0};
  std::atomic<bool> watch_all{false};  // finalize: check every peer, not only those a pending request involves
  std::uint64_t next_check_ns = 0;
  std::uint64_t timeout_ns = 0;      // SIDECORE_PEER_TIMEOUT; 0: a peer on another node is never declared dead by time
  // The timeout (only when timeout_ns != 0): messages from each address (on_message counts them), the count seen
  // at the last check, and since when it has not moved while we waited on that peer.
  std::vector<std::uint32_t> heard, heard_seen;
  std::vector<std::uint64_t> silent_since;
  std::vector<std::uint8_t> involved;  // scratch of a check: the peers a pending request involves
  mutable std::mutex order_mutex;      // guards order and reasons (read from any thread)
  std::vector<int> order;              // addresses found dead, in that order
  std::vector<std::string> reasons;    // by address: how it was found dead (engine::describe)
  std::vector<std::uint8_t> ended;     // by address: dead because it finalized and ended, not failed (not in order)
};

}  // namespace sidecore::progress
