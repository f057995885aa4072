// Rabenseifner's reduce-scatter half (halving.hpp).
#include "halving.hpp"

namespace sidecore::coll::detail {

positions rabenseifner_reduce_scatter(builder& b, const fold& f, region input, region work, region mirror,
                                      positions* before) {
  const int r = b.rank;
  if (input.buf != work.buf || input.off != work.off) b.copy(input, work);
  if (f.absorbs(r)) {
    b.recv(r - 1, 0, mirror);
    b.reduce(mirror, work, operands::src_left);
  }
  // Step 0 sends straight from the input where the work vector is a plain copy of it, without waiting for the copy.
  const region first_src = f.absorbs(r) ? work : input;
  return halving_reduce_scatter(b, f, f.newrank(r), first_src, work, mirror,
                                even_parts{b, static_cast<std::uint64_t>(f.pof2)}, 1, before);
}

}  // namespace sidecore::coll::detail
