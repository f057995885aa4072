// Rabenseifner's reduce-scatter half (halving.hpp).
#include "halving.hpp"

namespace sidecore::coll::detail {

positions rabenseifner_reduce_scatter(builder& b, const fold& f, region input, region work, region mirror,
                                      positions* before) {
  const int r = b.rank;
  const even_parts offset{b, static_cast<std::uint64_t>(f.pof2)};
  if (input.buf != work.buf || input.off != work.off) {
    if (f.absorbs(r) || f.steps == 0) {
      b.copy(input, work);  // the partner's input is reduced into all of it
    } else {
      // Only the half that step 0 keeps: the half it gives is sent from the input, and its bytes in `work` are
      // received (allgather or gather) before anything reads them. Half the copy, half its memory traffic.
      const int mid = f.pof2 / 2;
      const positions keep = (f.newrank(r) & 1) == 0 ? positions{0, mid} : positions{mid, f.pof2};
      b.copy(at(input, keep, offset), at(work, keep, offset));
    }
  }
  if (f.absorbs(r)) {
    b.recv(r - 1, 0, mirror);
    b.reduce(mirror, work, operands::src_left);
  }
  // Step 0 sends straight from the input where the work vector is a plain copy of it, without waiting for the copy.
  const region first_src = f.absorbs(r) ? work : input;
  return halving_reduce_scatter(b, f, f.newrank(r), first_src, work, mirror, offset, 1, before);
}

}  // namespace sidecore::coll::detail
