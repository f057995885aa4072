// reduce_scatter_block, pairwise exchange (Thakur, Rabenseifner & Gropp 2005; MPICH's
// MPIR_Reduce_scatter_block_intra_pairwise).
//
// Buffers: send (p blocks of count elements) is the input (recv when in_place); recv gets block r of the result
// (its first count elements when in_place); scratch holds two receive slots (and the accumulator when in_place). The
// accumulator starts as this rank's own block r; in step k (k = 1 .. p-1) a rank sends its block r + k to rank r + k,
// receives rank (r - k)'s block r into a slot and reduces it into the accumulator. A step starts when the previous
// one's send and receive are done (one exchange in flight, as MPICH's blocking sendrecv), while the previous
// reduction may still run.
// Rounds: p - 1. Cost: (p - 1) (L + 2o + n G + n gamma); each byte sent once. NOT safe for non-commutative ops (the
// operands arrive in the order r - 1, r - 2, ...). choose(): commutative ops with p n at and above 512 KiB (MPICH's
// MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE).
#include "algorithms.hpp"

namespace sidecore::coll::detail {

void build_reduce_scatter_block_pairwise(builder& b) {
  const spec& s = b.s;
  const std::uint64_t n = b.bytes(s.count);
  const int p = b.size;
  const int r = b.rank;
  if (n == 0) return;
  const buffer in_buf = s.in_place ? buffer::recv : buffer::send;
  auto input = [&](int i) { return region{in_buf, static_cast<std::uint64_t>(i) * n, n}; };
  const region result{buffer::recv, 0, n};
  // In place, block 0 of the input is where the result goes: accumulate in scratch until block 0 has been sent,
  // except on rank 0, whose block 0 is its own.
  const region acc = !s.in_place || r == 0 ? result : region{buffer::tmp, 0, n};
  const std::uint64_t slots = acc.buf == buffer::tmp ? n : 0;
  b.largest_message(n);
  if (!(s.in_place && r == 0)) b.copy(input(r), acc);
  for (int k = 1; k < p; ++k) {
    const int to = (r + k) % p;
    const int from = (r - k + p) % p;
    const region slot{buffer::tmp, slots + static_cast<std::uint64_t>(k % 2) * n, n};
    const std::uint32_t step = b.mark();
    b.send(to, 0, input(to));
    b.recv(from, 0, slot);
    const std::uint32_t exchanged = b.mark();
    b.reduce(slot, acc, operands::src_left);
    b.gate(step, exchanged);
  }
  if (acc.buf == buffer::tmp) b.copy(acc, result);
}

}  // namespace sidecore::coll::detail
