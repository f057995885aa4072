// alltoall, Bruck (Bruck, Ho, Kipnis, Upfal & Weathersby 1997; Thakur, Rabenseifner & Gropp 2005;
// MPICH's MPIR_Alltoall_intra_brucks).
//
// Buffers: send (p blocks) is the input (recv when in_place); recv (p blocks); scratch holds p blocks in rotated
// order plus a pack and an unpack area of up to p/2 blocks each. First scratch block i = the block for rank r + i.
// Step k (d = 2^k < p): the blocks at positions with bit k set move to rank r + d, staying at their position: they
// are packed (runs of d consecutive positions, one copy each) into one message, and what arrives from r - d is
// unpacked into the same positions. A block at position i thus travels i ranks in ceil(log2 p) steps; at the end
// position i holds the block from rank r - i, copied to its place in recv.
// Rounds: ceil(log2 p), any p. Cost: ceil(log2 p) (L + 2o) + ceil(log2 p) (p/2) n G + the packing copies: fewer
// messages at the price of log2(p)/2 times the bytes. choose(): alltoall blocks up to 256 B on 8 ranks or more (MPICH's
// MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE).
#include <algorithm>

#include "algorithms.hpp"

namespace sidecore::coll::detail {

void build_alltoall_bruck(builder& b) {
  const spec& s = b.s;
  const std::uint64_t n = b.bytes(s.count);
  const long p = b.size;
  const long r = b.rank;
  if (n == 0) return;
  const buffer in_buf = s.in_place ? buffer::recv : buffer::send;
  if (!s.in_place) b.copy(blocks(in_buf, r, 1, n), blocks(buffer::recv, r, 1, n));
  if (p == 1) return;
  // scratch blocks: [0, p) the positions, then the pack and the unpack areas (at most half the positions move)
  const long half = (p + 1) / 2;
  const long pack = p;
  const long unpack = p + half;
  b.largest_message(static_cast<std::uint64_t>(half) * n);

  // rotate: position i (1 .. p-1) gets the block for rank r + i; position 0 (this rank's own) never moves
  b.copy(blocks(in_buf, r + 1, p - r - 1, n), blocks(buffer::tmp, 1, p - r - 1, n));
  b.copy(blocks(in_buf, 0, r, n), blocks(buffer::tmp, p - r, r, n));
  std::uint32_t step = 0;
  for (long d = 1; d < p; d *= 2, ++step) {
    // the positions with bit k set are the runs [d, 2d), [3d, 4d), ... clipped to p: copied into `area` or out of it
    auto for_each_run = [&](long area, bool into_area) {
      long at = 0;
      for (long lo = d; lo < p; lo += 2 * d) {
        const long k = std::min(d, p - lo);
        if (into_area) b.copy(blocks(buffer::tmp, lo, k, n), blocks(buffer::tmp, area + at, k, n));
        else b.copy(blocks(buffer::tmp, area + at, k, n), blocks(buffer::tmp, lo, k, n));
        at += k;
      }
      return at;
    };
    long moved = 0;
    long runs = 0;
    for (long lo = d; lo < p; lo += 2 * d, ++runs) moved += std::min(d, p - lo);
    const auto to = static_cast<int>((r + d) % p);
    const auto from = static_cast<int>((r - d + p) % p);
    if (runs == 1) {
      b.send(to, step, blocks(buffer::tmp, d, moved, n));  // one run: sent as it is
    } else {
      for_each_run(pack, true);
      b.send(to, step, blocks(buffer::tmp, pack, moved, n));
    }
    b.recv(from, step, blocks(buffer::tmp, unpack, moved, n));
    for_each_run(unpack, false);
  }
  for (long i = 1; i < p; ++i) b.copy(blocks(buffer::tmp, i, 1, n), blocks(buffer::recv, (r - i + p) % p, 1, n));
}

}  // namespace sidecore::coll::detail
