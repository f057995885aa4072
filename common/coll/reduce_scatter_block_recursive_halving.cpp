// reduce_scatter_block, recursive halving (Thakur, Rabenseifner & Gropp 2005; MPICH's
// MPIR_Reduce_scatter_block_intra_recursive_halving for commutative operators and _noncommutative for the block
// permutation that keeps rank order).
//
// Buffers: send (p blocks of count elements) is the input (recv when in_place); recv gets block r of the result
// (its first count elements when in_place); scratch holds the work vector and a mirror of it (2 p n). When p is not
// a power of two the fold (arith.hpp) has each even rank below 2*rem send its whole input to the odd rank above it
// and receive its result block from it at the end; each participant newrank then stands for one or two consecutive
// blocks. The work vector holds those newrank-blocks in bit-reversed order, so that the recursive-halving
// reduce-scatter of halving.hpp (distance doubling, rank order kept) leaves newrank nr with newrank-block nr.
// Rounds: log2(pof2) (+ 2 for the fold). Cost: log2(pof2) (L + 2o) + (pof2 - 1)/pof2 p n (G + gamma) + the
// permutation copy (p n) (+ L + 2o + p n (G + gamma) for the fold). Safe for non-commutative ops.
// choose(): p n below 512 KiB, or any size for a non-commutative op (MPICH's
// MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE).
#include <vector>

#include "algorithms.hpp"
#include "halving.hpp"

namespace sidecore::coll::detail {

void build_reduce_scatter_block_recursive_halving(builder& b) {
  const spec& s = b.s;
  const std::uint64_t n = b.bytes(s.count);
  const int p = b.size;
  const int r = b.rank;
  if (n == 0) return;
  const std::uint64_t total = static_cast<std::uint64_t>(p) * n;
  const region input{s.in_place ? buffer::recv : buffer::send, 0, total};
  const region result{buffer::recv, 0, n};
  if (p == 1) {
    if (!s.in_place) b.copy(input, result);
    return;
  }
  const fold f(p);
  const auto last = static_cast<std::uint32_t>(1 + f.steps);
  b.largest_message(total);
  if (f.sits_out(r)) {
    b.send(r + 1, 0, input);
    b.recv(r + 1, last, result);
    return;
  }
  // newrank-block q: blocks [first(q), first(q + 1)) (two for the folded pairs, one after)
  auto first = [&](int q) { return q < f.rem ? 2 * q : q + f.rem; };
  auto original = [&](int q) {
    return input.sub(static_cast<std::uint64_t>(first(q)) * n, static_cast<std::uint64_t>(first(q + 1) - first(q)) * n);
  };
  // position i of the work vector holds newrank-block bit_reverse(i)
  std::vector<std::uint64_t> offset(static_cast<std::size_t>(f.pof2) + 1, 0);
  for (int i = 0; i < f.pof2; ++i)
    offset[static_cast<std::size_t>(i) + 1] =
        offset[static_cast<std::size_t>(i)] + original(bit_reverse(i, f.steps)).bytes;
  auto offset_of = [&](int i) { return offset[static_cast<std::size_t>(i)]; };
  const region work{buffer::tmp, 0, total};
  const region mirror{buffer::tmp, total, total};
  for (int i = 0; i < f.pof2; ++i) b.copy(original(bit_reverse(i, f.steps)), at(work, {i, i + 1}, offset_of));
  if (f.absorbs(r)) {
    b.recv(r - 1, 0, mirror);  // the partner's input, in rank order
    for (int i = 0; i < f.pof2; ++i) {
      const region theirs = original(bit_reverse(i, f.steps));
      b.reduce(mirror.sub(theirs.off - input.off, theirs.bytes), at(work, {i, i + 1}, offset_of), operands::src_left);
    }
  }
  const int nr = f.newrank(r);
  positions before[32];
  const positions held = halving_reduce_scatter(b, f, nr, work, work, mirror, offset_of, 1, before);
  const region reduced = at(work, held, offset_of);  // newrank-block nr
  if (f.absorbs(r)) {
    b.send(r - 1, last, reduced.sub(0, n));
    b.copy(reduced.sub(n, n), result);
  } else {
    b.copy(reduced, result);
  }
}

}  // namespace sidecore::coll::detail
