// alltoall and alltoallv, pairwise exchange (Thakur, Rabenseifner & Gropp 2005; MPICH's
// MPIR_Alltoall_intra_pairwise).
//
// Buffers: as linear (alltoall_linear.cpp). p - 1 steps; in step k a rank exchanges with rank ^ k when p is a power
// of two (every step is then a perfect matching), else it sends to r + k and receives from r - k. A step starts when
// the previous one is done (both its send and its receive, all segments), so one exchange is in flight per rank:
// the algorithm for large blocks, where many concurrent transfers only contend.
// Rounds: p - 1. Cost: (p - 1) (L + 2o + n G). choose(): alltoall blocks above 32 KiB (MPICH's
// MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE); alltoallv beyond 32 ranks.
#include "algorithms.hpp"
#include "arith.hpp"
#include "blocks.hpp"

namespace sidecore::coll::detail {

void build_alltoall_pairwise(builder& b) {
  const alltoall_blocks blocks(b);
  const int p = b.size;
  const int r = b.rank;
  const bool matching = pof2_floor(p) == p;
  b.largest_message(blocks.largest());
  blocks.stage(b);
  for (int k = 1; k < p; ++k) {
    const int to = matching ? r ^ k : (r + k) % p;
    const int from = matching ? r ^ k : (r - k + p) % p;
    const std::uint32_t step = b.mark();
    b.send(to, 0, blocks.to(to));
    b.recv(from, 0, blocks.from(from));
    b.gate(step, b.mark());
  }
}

}  // namespace sidecore::coll::detail
