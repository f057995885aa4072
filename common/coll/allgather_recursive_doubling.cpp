// allgather, recursive doubling (Thakur, Rabenseifner & Gropp 2005; MPICH's
// MPIR_Allgather_intra_recursive_doubling), with a fold for p not a power of two.
//
// Buffers: send (one block) is the input (its block of recv when in_place); recv holds p blocks; no scratch.
// pof2 = the largest power of two <= p. Ranks pof2 .. p-1 first send their block to rank - pof2 and at the end
// receive everything else from it. In step k each rank r < pof2 exchanges with r ^ 2^k everything its group
// [g, g + 2^k) holds: the group's blocks, and the blocks g + pof2 .. of the ranks folded into it (two messages, the
// second empty when no folded rank belongs to the group). Every block lands straight in its place in recv.
// Rounds: log2(pof2), + 2 when p is not a power of two. Cost: log2(p) (L + 2o) + (p - 1) n G for p a power of two.
// choose(): p n below 512 KiB when p is a power of two (MPICH's MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE).
#include <algorithm>

#include "algorithms.hpp"
#include "arith.hpp"

namespace sidecore::coll::detail {

void build_allgather_recursive_doubling(builder& b) {
  const spec& s = b.s;
  const std::uint64_t n = b.bytes(s.count);
  const int p = b.size;
  const int r = b.rank;
  if (n == 0) return;
  const int pof2 = pof2_floor(p);
  const int steps = log2_exact(pof2);
  // blocks [first, last) of recv, clipped to [0, p)
  auto blocks = [&](int first, int last) {
    first = std::clamp(first, 0, p);
    last = std::clamp(last, first, p);
    return region{buffer::recv, static_cast<std::uint64_t>(first) * n, static_cast<std::uint64_t>(last - first) * n};
  };
  const region input = s.in_place ? blocks(r, r + 1) : region{buffer::send, 0, n};
  const auto unfold = static_cast<std::uint32_t>(1 + 2 * steps);
  b.largest_message(static_cast<std::uint64_t>(std::max(pof2 / 2, p == pof2 ? 1 : p - 1)) * n);  // the unfold's
  if (!s.in_place) b.copy(input, blocks(r, r + 1));

  if (r >= pof2) {
    b.send(r - pof2, 0, input);
    b.recv(r - pof2, unfold, blocks(0, r));
    b.recv(r - pof2, unfold + 1, blocks(r + 1, p));
    return;
  }
  if (r + pof2 < p) b.recv(r + pof2, 0, blocks(r + pof2, r + pof2 + 1));
  for (int k = 0; k < steps; ++k) {
    const int m = 1 << k;
    const int peer = r ^ m;
    const int mine = r & ~(m - 1);
    const int theirs = peer & ~(m - 1);
    const auto msg = static_cast<std::uint32_t>(1 + 2 * k);
    b.send(peer, msg, k == 0 ? input : blocks(mine, mine + m));
    b.send(peer, msg + 1, blocks(mine + pof2, mine + m + pof2));
    b.recv(peer, msg, blocks(theirs, theirs + m));
    b.recv(peer, msg + 1, blocks(theirs + pof2, theirs + m + pof2));
  }
  if (r + pof2 < p) {
    b.send(r + pof2, unfold, blocks(0, r + pof2));
    b.send(r + pof2, unfold + 1, blocks(r + pof2 + 1, p));
  }
}

}  // namespace sidecore::coll::detail
