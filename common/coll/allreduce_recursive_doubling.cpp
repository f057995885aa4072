// allreduce, recursive doubling (Thakur, Rabenseifner & Gropp 2005; MPICH's
// MPIR_Allreduce_intra_recursive_doubling).
//
// Buffers: send (count elements) is the input (recv when in_place); recv (count) is the accumulator and the
// result; scratch (count) receives the partner's vector. When p is not a power of two, the fold (arith.hpp) has each
// even rank below 2*rem send its input to the odd rank above it and wait for the result. In step k, newrank nr
// exchanges its whole accumulator with nr ^ 2^k and reduces, the lower group's operand first (so rank order is kept
// and both partners compute the same value). Segmented like everything else: segment i of step k+1 waits only for
// segment i of step k.
// Rounds: log2(pof2) (+ 2 for the fold). Cost: log2(pof2) (L + 2o + n G + n gamma) (+ 2 (L + 2o + n G) + n gamma for
// the fold): latency-optimal, n G per step. Safe for non-commutative ops.
// choose(): up to 2 KiB, or when count < pof2 (MPICH's MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE).
#include "algorithms.hpp"
#include "arith.hpp"

namespace sidecore::coll::detail {

void build_allreduce_recursive_doubling(builder& b) {
  const spec& s = b.s;
  const std::uint64_t n = b.bytes(s.count);
  if (n == 0) return;
  const int r = b.rank;
  const fold f(b.size);
  const region acc{buffer::recv, 0, n};
  const region input = s.in_place ? acc : region{buffer::send, 0, n};
  const region incoming{buffer::tmp, 0, n};
  const auto unfold = static_cast<std::uint32_t>(1 + f.steps);
  b.largest_message(n);

  if (f.sits_out(r)) {
    b.send(r + 1, 0, input);
    b.recv(r + 1, unfold, acc);
    return;
  }
  if (!s.in_place) b.copy(input, acc);
  if (f.absorbs(r)) {
    b.recv(r - 1, 0, incoming);
    b.reduce(incoming, acc, operands::src_left);
  }
  const int nr = f.newrank(r);
  for (int k = 0; k < f.steps; ++k) {
    const int m = 1 << k;
    const int peer = f.oldrank(nr ^ m);
    const auto msg = static_cast<std::uint32_t>(1 + k);
    b.send(peer, msg, k == 0 && !f.absorbs(r) ? input : acc);
    b.recv(peer, msg, incoming);
    b.reduce(incoming, acc, (nr & m) == 0 ? operands::dst_left : operands::src_left);
  }
  if (f.absorbs(r)) b.send(r - 1, unfold, acc);
}

}  // namespace sidecore::coll::detail
