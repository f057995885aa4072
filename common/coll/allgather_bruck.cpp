// allgather, Bruck (Bruck, Ho, Kipnis, Upfal & Weathersby 1997, "Efficient algorithms for all-to-all
// communications in multiport message-passing systems"; Thakur, Rabenseifner & Gropp 2005; MPICH's
// MPIR_Allgather_intra_brucks).
//
// Buffers: send (one block) is the input (its block of recv when in_place); recv holds p blocks; scratch holds p
// blocks in rotated order (scratch block i = rank (r + i)'s). Step k (distance d = 2^k < p): send scratch blocks
// [0, c) to r - d and receive c blocks from r + d into scratch [d, d + c), c = min(d, p - d). At the end the rotation
// is undone into recv in two copies.
// Rounds: ceil(log2 p), any p. Cost: ceil(log2 p) (L + 2o) + (p - 1) n G + 2 p n copy: latency-optimal for any p.
// choose(): p n below 80 KiB when p is not a power of two (MPICH's MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE).
#include <algorithm>

#include "algorithms.hpp"

namespace sidecore::coll::detail {

void build_allgather_bruck(builder& b) {
  const spec& s = b.s;
  const std::uint64_t n = b.bytes(s.count);
  const int p = b.size;
  const int r = b.rank;
  if (n == 0) return;
  const region input = s.in_place ? blocks(buffer::recv, r, 1, n) : region{buffer::send, 0, n};
  if (!s.in_place) b.copy(input, blocks(buffer::recv, r, 1, n));
  if (p == 1) return;
  b.largest_message(static_cast<std::uint64_t>(p / 2) * n);
  b.copy(input, blocks(buffer::tmp, 0, 1, n));
  std::uint32_t step = 0;
  for (long d = 1; d < p; d *= 2, ++step) {
    const long c = std::min(d, p - d);
    b.send(static_cast<int>((r - d + p) % p), step, blocks(buffer::tmp, 0, c, n));
    b.recv(static_cast<int>((r + d) % p), step, blocks(buffer::tmp, d, c, n));
  }
  // scratch block i is rank (r + i)'s: blocks 1 .. p-r-1 go to r+1 .. p-1, blocks p-r .. p-1 to 0 .. r-1
  b.copy(blocks(buffer::tmp, 1, p - r - 1, n), blocks(buffer::recv, r + 1, p - r - 1, n));
  b.copy(blocks(buffer::tmp, p - r, r, n), blocks(buffer::recv, 0, r, n));
}

}  // namespace sidecore::coll::detail
