// The recursive-halving reduce-scatter that Rabenseifner's allreduce and reduce and the recursive-halving
// reduce_scatter_block share (Thakur, Rabenseifner & Gropp 2005).
//
// The pof2 participants of a fold (arith.hpp) hold a vector cut into pof2 "positions"; in step k (k = 0, 1, ...)
// newrank nr and its partner nr ^ 2^k split their current range of positions in two, each sends the half it gives
// up and receives the partner's copy of the half it keeps into `mirror` (the same offsets as `work`), and reduces it
// into `work`. The distance doubles (1, 2, 4, ...), so a newrank's group is always an aligned interval of newranks,
// hence of ranks, and the partner's group is the adjacent one: putting the lower group's operand first keeps rank
// order, which makes the scheme correct for non-commutative operators (MPICH halves the distance instead, which is
// not). After log2(pof2) steps newrank nr holds the fully reduced position bit_reverse(nr).
#pragma once

#include <cstdint>

#include "arith.hpp"
#include "builder.hpp"

namespace sidecore::coll::detail {

/// Positions [lo, hi).
struct positions {
  int lo = 0;
  int hi = 0;
};

/// The rest of `whole` once `part` (its lower or upper half) is taken out.
[[nodiscard]] inline positions complement(positions part, positions whole) noexcept {
  return part.lo == whole.lo ? positions{part.hi, whole.hi} : positions{whole.lo, part.lo};
}

/// Position offsets of the vector (b.s.count elements) cut into `parts` parts that differ by at most one element.
struct even_parts {
  const builder& b;
  std::uint64_t parts;
  [[nodiscard]] std::uint64_t operator()(int q) const noexcept {
    return b.bytes(part_start(b.s.count, parts, static_cast<std::uint64_t>(q)));
  }
};

/// The bytes of positions q of `r`, where offset(i) is the byte offset of position i (offset(pof2) = the end).
template <class Offset>
region at(region r, positions q, const Offset& offset) {
  const std::uint64_t lo = offset(q.lo);
  return r.sub(lo, offset(q.hi) - lo);
}

/// Emits the reduce-scatter steps for newrank nr (messages first_msg + k). `first_src` is what step 0 sends from
/// (the input, when `work` still has to be filled from it by a copy already emitted). Records in before[k] the
/// range a step started from (for the allgather or gather that reverses it); returns the range held at the end.
template <class Offset>
positions halving_reduce_scatter(builder& b, const fold& f, int nr, region first_src, region work, region mirror,
                                 const Offset& offset, std::uint32_t first_msg, positions* before) {
  positions cur{0, f.pof2};
  for (int k = 0; k < f.steps; ++k) {
    const int m = 1 << k;
    const int peer = f.oldrank(nr ^ m);
    const int mid = (cur.lo + cur.hi) / 2;
    const bool lower = (nr & m) == 0;
    const positions keep = lower ? positions{cur.lo, mid} : positions{mid, cur.hi};
    const positions give = lower ? positions{mid, cur.hi} : positions{cur.lo, mid};
    const auto msg = first_msg + static_cast<std::uint32_t>(k);
    b.send(peer, msg, at(k == 0 ? first_src : work, give, offset));
    b.recv(peer, msg, at(mirror, keep, offset));
    b.reduce(at(mirror, keep, offset), at(work, keep, offset), lower ? operands::dst_left : operands::src_left);
    before[k] = cur;
    cur = keep;
  }
  return cur;
}

/// Rabenseifner's first half, for a participant of the fold (allreduce and reduce): fills `work` from `input`
/// (unless they are the same bytes; a participant that absorbs nothing copies only the half step 0 keeps),
/// reduces in the input of the rank that sat out (message 0, received into `mirror`, the lower rank's operand
/// first), then runs the reduce-scatter over pof2 even parts of the vector
/// (messages 1 .. log2(pof2)). Returns the positions held; before[k] as halving_reduce_scatter.
positions rabenseifner_reduce_scatter(builder& b, const fold& f, region input, region work, region mirror,
                                      positions* before);

}  // namespace sidecore::coll::detail
