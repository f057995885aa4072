// The reference executor of the schedule tests: runs every rank's schedule of one collective in one process, over
// an in-memory network that matches a receive to the send with the same (source, destination, tag), in a random
// legal order (any operation whose dependencies are done; a seeded generator picks). It checks what a real
// executor would trip over, and reports the first violation:
//   structure  dependencies point backwards (the DAG is topologically ordered, hence acyclic); peers, tags,
//              element alignment and every region within its buffer (send/recv sizes from coll::buffer_bytes,
//              scratch from schedule::tmp_bytes); nothing writes the send buffer; copies and reductions do not
//              overlap themselves; (peer, tag) unique per direction;
//   races      two operations that touch the same bytes, one of them writing, must be ordered by the DAG;
//   undefined  no operation reads a byte that holds no value yet (scratch at the start, output areas);
//   matching   every send meets exactly one receive of the same size; nothing is left posted (a deadlock).
// Messages move at match time (rendezvous: the strictest order a transport can impose), so a schedule that only
// works if sends are buffered deadlocks here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "reduction.hpp"
#include "sidecore/common/schedule.hpp"

namespace sctest {

/// One rank's buffers, and which of their bytes hold a value.
struct rank_buffers {
  std::vector<std::byte> data[3];      // indexed by coll::buffer
  std::vector<std::uint8_t> defined[3];
};

struct run_stats {
  std::uint64_t messages = 0;
  std::uint64_t message_bytes = 0;
  std::uint64_t ops = 0;
  /// Per rank: whether every rank's start happens before this rank's completion (what a barrier promises).
  std::vector<bool> heard_from_all;
};

/// Executes `scheds[r]` on `bufs[r]` for every rank r. Scratch buffers are created here (filled with garbage).
/// Returns an empty string on success, else the first violation found.
std::string execute(const std::vector<sidecore::coll::schedule>& scheds, std::vector<rank_buffers>& bufs,
                    user_op user, std::uint64_t seed, run_stats* stats = nullptr);

}  // namespace sctest
