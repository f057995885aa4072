// reduce, Rabenseifner: reduce-scatter by recursive halving, then a binomial gather to the root (Rabenseifner 2004;
// Thakur, Rabenseifner & Gropp 2005; MPICH's MPIR_Reduce_intra_reduce_scatter_gather).
//
// Buffers: send (count elements) is the input (recv at an in_place root); recv (count) at the root gets the result;
// the work vector is recv at the root, scratch elsewhere, with a scratch mirror of it for incoming halves. When p
// is not a power of two, the fold (arith.hpp) first has each even rank below 2*rem send its input to the odd rank
// above it. The pof2 participants then run the recursive-halving reduce-scatter of halving.hpp (rank order kept),
// and reverse it as a binomial gather: in step k (k from log2(pof2) - 1 down to 0) the half of each pair that does
// not lead to the root's participant sends everything it holds to the other. If the root sat out in the fold, its
// odd partner gathers and sends it the result.
// Rounds: 2 log2(pof2) (+ 1 or 2 for the fold). Cost: 2 log2(pof2) (L + 2o) + 2 (pof2 - 1)/pof2 n G +
// (pof2 - 1)/pof2 n gamma (+ L + 2o + n G + n gamma for the fold), against the binomial tree's log2(p) (n G + n gamma).
// Safe for non-commutative ops. choose(): above 2 KiB when count >= pof2 (MPICH's MPIR_CVAR_REDUCE_SHORT_MSG_SIZE).
#include "algorithms.hpp"
#include "halving.hpp"

namespace sidecore::coll::detail {

void build_reduce_rabenseifner(builder& b) {
  const spec& s = b.s;
  const std::uint64_t n = b.bytes(s.count);
  if (n == 0) return;
  const int r = b.rank;
  const int root = s.root;
  const fold f(b.size);
  const bool at_root = r == root;
  const region result{buffer::recv, 0, n};
  const region input = s.in_place && at_root ? result : region{buffer::send, 0, n};
  const region work = at_root ? result : region{buffer::tmp, 0, n};
  const region mirror{buffer::tmp, at_root ? 0 : n, n};
  const auto last = static_cast<std::uint32_t>(1 + 2 * f.steps);
  // The participant that ends with the result: the root, or the odd rank a sitting-out root folded into.
  const int holder = f.sits_out(root) ? root + 1 : root;
  const int target = f.newrank(holder);
  b.largest_message(n);

  if (f.sits_out(r)) {
    b.send(r + 1, 0, input);
    if (at_root) b.recv(holder, last, result);
    return;
  }
  positions before[32];
  positions held = rabenseifner_reduce_scatter(b, f, input, work, mirror, before);
  const int nr = f.newrank(r);
  const even_parts offset{b, static_cast<std::uint64_t>(f.pof2)};
  for (int k = f.steps - 1; k >= 0; --k) {
    const int m = 1 << k;
    const int peer = f.oldrank(nr ^ m);
    const auto msg = static_cast<std::uint32_t>(1 + f.steps + k);
    if ((nr & m) != (target & m)) {
      b.send(peer, msg, at(work, held, offset));
      return;
    }
    b.recv(peer, msg, at(work, complement(held, before[k]), offset));
    held = before[k];
  }
  if (!at_root) b.send(root, last, work);
}

}  // namespace sidecore::coll::detail
