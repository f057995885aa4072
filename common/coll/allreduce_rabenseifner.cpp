// allreduce, Rabenseifner: reduce-scatter by recursive halving, then allgather by recursive doubling (Rabenseifner
// 2004; Thakur, Rabenseifner & Gropp 2005; MPICH's MPIR_Allreduce_intra_reduce_scatter_allgather).
//
// Buffers: send (count elements) is the input (recv when in_place); recv (count) is the work vector and the result;
// scratch mirrors it for incoming halves. When p is not a power of two, the fold (arith.hpp) has each even rank
// below 2*rem send its input to the odd rank above it, which reduces it in (even first); the pof2 participants run
// the reduce-scatter of halving.hpp (rank order kept), then exchange their reduced parts back up the same pairs in
// reverse order (each step doubles what a rank holds), and the odd ranks send the result to their even partner.
// Every message and reduction is segmented, so each step's first segments leave before its last ones are reduced.
// Rounds: 2 log2(pof2) (+ 2 for the fold). Cost: 2 log2(pof2) (L + 2o) + 2 (pof2 - 1)/pof2 n G +
// (pof2 - 1)/pof2 n gamma (+ 2 (L + 2o + n G) + n gamma for the fold). Safe for non-commutative ops.
// choose(): above 2 KiB when count >= pof2 (MPICH's MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE), except the ring's case.
#include "algorithms.hpp"
#include "halving.hpp"

namespace sidecore::coll::detail {

void build_allreduce_rabenseifner(builder& b) {
  const spec& s = b.s;
  const std::uint64_t n = b.bytes(s.count);
  if (n == 0) return;
  const int r = b.rank;
  const fold f(b.size);
  const region work{buffer::recv, 0, n};
  const region input = s.in_place ? work : region{buffer::send, 0, n};
  const region mirror{buffer::tmp, 0, n};
  const auto unfold = static_cast<std::uint32_t>(1 + 2 * f.steps);
  b.largest_message(n);

  if (f.sits_out(r)) {
    b.send(r + 1, 0, input);
    b.recv(r + 1, unfold, work);
    return;
  }
  positions before[32];
  positions held = rabenseifner_reduce_scatter(b, f, input, work, mirror, before);
  const int nr = f.newrank(r);
  const even_parts offset{b, static_cast<std::uint64_t>(f.pof2)};
  for (int k = f.steps - 1; k >= 0; --k) {
    const int peer = f.oldrank(nr ^ (1 << k));
    const auto msg = static_cast<std::uint32_t>(1 + f.steps + k);
    b.send(peer, msg, at(work, held, offset));
    b.recv(peer, msg, at(work, complement(held, before[k]), offset));
    held = before[k];
  }
  if (f.absorbs(r)) b.send(r - 1, unfold, work);
}

}  // namespace sidecore::coll::detail
