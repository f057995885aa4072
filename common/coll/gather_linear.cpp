// gather, linear: every rank sends its block to the root, which receives each straight into place (Open MPI's
// basic_linear; its tuned component switches to a linear gather for large blocks).
//
// Buffers: send (count elements) is the input (the root's block is already in recv when in_place); recv (p blocks)
// at the root. Rounds: 1. Cost: (p - 1) (o + n G) + L + o at the root's link, no scratch, no forwarding copies.
// choose(): blocks of 32 KiB and more, where the tree's log2 p latency saving is small next to its forwarding copies
// and scratch.
#include "algorithms.hpp"

namespace sidecore::coll::detail {

void build_gather_linear(builder& b) {
  const spec& s = b.s;
  const std::uint64_t n = b.bytes(s.count);
  const int p = b.size;
  const int r = b.rank;
  const int root = s.root;
  if (n == 0) return;
  b.largest_message(n);
  if (r != root) {
    b.send(root, 0, {buffer::send, 0, n});
    return;
  }
  if (!s.in_place) b.copy({buffer::send, 0, n}, {buffer::recv, static_cast<std::uint64_t>(root) * n, n});
  for (int j = 1; j < p; ++j) {
    const int from = (root + j) % p;
    b.recv(from, 0, {buffer::recv, static_cast<std::uint64_t>(from) * n, n});
  }
}

}  // namespace sidecore::coll::detail
