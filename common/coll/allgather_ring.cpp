// allgather and allgatherv, ring (Thakur, Rabenseifner & Gropp 2005; MPICH's
// MPIR_Allgather_intra_ring and MPIR_Allgatherv_intra_ring).
//
// Buffers: send (this rank's block) is the input (its block of recv when in_place); recv holds every rank's block
// (allgatherv: at recv_displs, recv_counts elements). Step s (s = 0 .. p-2): send block (r - s) to r + 1 (at step 0
// straight from the input), receive block (r - s - 1) from r - 1 into place. Empty blocks are not sent (both ends
// know the counts). Segmented: a step forwards each segment of a block as soon as it has arrived, so a large block
// streams around the ring.
// Rounds: p - 1. Cost: (p - 1) (L + 2o) + (p - 1) n G, neighbour traffic only; bandwidth-optimal.
// choose(): allgather when p n >= 512 KiB, or >= 80 KiB and p is not a power of two; allgatherv at 80 KiB total and
// more (MPICH's MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE and _SHORT_MSG_SIZE).
#include "algorithms.hpp"
#include "blocks.hpp"

namespace sidecore::coll::detail {

void build_allgather_ring(builder& b) {
  const allgather_blocks blocks(b);
  const int p = b.size;
  const int r = b.rank;
  b.largest_message(blocks.largest());
  blocks.keep_own(b);
  for (int step = 0; step < p - 1; ++step) {
    const auto msg = static_cast<std::uint32_t>(step);
    const int out = (r - step + p) % p;
    const int in = (r - step - 1 + p) % p;
    b.send((r + 1) % p, msg, step == 0 ? blocks.input() : blocks.block(out));
    b.recv((r - 1 + p) % p, msg, blocks.block(in));
  }
}

}  // namespace sidecore::coll::detail
