// allgather and allgatherv, linear: every rank sends its block to every other rank at once, and receives each
// rank's block straight into place.
//
// Buffers: as the ring (allgather_ring.cpp). Messages go to r + 1, r + 2, ... and come from r - 1, r - 2, ..., so
// that at any moment each rank is the target of different senders.
// Rounds: 1. Cost: L + 2o + (p - 1) max(o + n G, g) at each rank's link: one latency instead of p - 1, which wins
// while the total is small. choose(): allgatherv below 80 KiB in total (MPICH's MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE,
// where MPICH uses Bruck); allgather never (Bruck and recursive doubling take the small sizes).
#include "algorithms.hpp"
#include "blocks.hpp"

namespace sidecore::coll::detail {

void build_allgather_linear(builder& b) {
  const allgather_blocks blocks(b);
  const int p = b.size;
  const int r = b.rank;
  b.largest_message(blocks.largest());
  blocks.keep_own(b);
  for (int i = 1; i < p; ++i) {
    b.send((r + i) % p, 0, blocks.input());
    const int from = (r - i + p) % p;
    b.recv(from, 0, blocks.block(from));
  }
}

}  // namespace sidecore::coll::detail
