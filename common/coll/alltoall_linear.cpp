// alltoall and alltoallv, linear: every send and receive posted at once (Thakur, Rabenseifner & Gropp 2005, the
// medium-message algorithm; MPICH's MPIR_Alltoall_intra_scattered
// without its throttle, and MPIR_Alltoallv_intra_scattered).
//
// Buffers: send (p blocks; alltoallv: at send_displs, send_counts elements) is the input (recv when in_place, whose
// outgoing blocks are first copied to scratch); recv (p blocks; alltoallv: at recv_displs). Messages go to r + 1,
// r + 2, ... and come from r - 1, r - 2, ..., so each rank's targets are spread; empty blocks are not sent.
// Rounds: 1. Cost: L + 2o + (p - 1) max(o + n G, g) per rank's link; all p - 1 transfers in flight.
// choose(): alltoall blocks from 256 B (or with fewer than 8 ranks) up to 32 KiB (MPICH's
// MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE and _MEDIUM_MSG_SIZE); alltoallv up to 32 ranks (MPICH's throttle of 32).
#include "algorithms.hpp"
#include "blocks.hpp"

namespace sidecore::coll::detail {

void build_alltoall_linear(builder& b) {
  const alltoall_blocks blocks(b);
  const int p = b.size;
  const int r = b.rank;
  b.largest_message(blocks.largest());
  blocks.stage(b);
  for (int i = 1; i < p; ++i) {
    b.send((r + i) % p, 0, blocks.to((r + i) % p));
    const int from = (r - i + p) % p;
    b.recv(from, 0, blocks.from(from));
  }
}

}  // namespace sidecore::coll::detail
