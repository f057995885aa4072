// bcast, linear: the root sends the whole buffer to every other rank, segment by segment (segment i to every rank
// before segment i+1).
//
// Buffer: recv (count elements) on every rank; the root's holds the data.
// Rounds: 1 (p - 1 messages from the root). Cost: (p - 1) * max(o + n G, g) + L + o at the root's link: the root
// serializes everything, so this only competes at p <= 3. choose(): never; here to be forced and compared (and as
// the baseline the tree algorithms are measured against).
#include "algorithms.hpp"

namespace sidecore::coll::detail {

void build_bcast_linear(builder& b) {
  const std::uint64_t n = b.bytes(b.s.count);
  const int p = b.size;
  const int root = b.s.root;
  if (n == 0 || p == 1) return;
  const region data{buffer::recv, 0, n};
  b.largest_message(n);
  if (b.rank != root) {
    b.recv(root, 0, data);
    return;
  }
  for (std::uint64_t i = 0, segments = b.segments(n); i < segments; ++i)
    for (int j = 1; j < p; ++j) b.send_segment((root + j) % p, 0, data, i);
}

}  // namespace sidecore::coll::detail
