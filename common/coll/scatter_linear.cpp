// scatter, linear: the root sends each rank its block straight from send (Open MPI's basic_linear).
//
// Buffers: send (p blocks) at the root; recv (one block) everywhere except at an in_place root.
// Rounds: 1. Cost: (p - 1) (o + n G) + L + o at the root's link, no scratch. choose(): blocks of 32 KiB and more.
#include "algorithms.hpp"

namespace sidecore::coll::detail {

void build_scatter_linear(builder& b) {
  const spec& s = b.s;
  const std::uint64_t n = b.bytes(s.count);
  const int p = b.size;
  const int r = b.rank;
  const int root = s.root;
  if (n == 0) return;
  const region mine{buffer::recv, 0, n};
  b.largest_message(n);
  if (r != root) {
    b.recv(root, 0, mine);
    return;
  }
  for (int j = 1; j < p; ++j) {
    const int to = (root + j) % p;
    b.send(to, 0, {buffer::send, static_cast<std::uint64_t>(to) * n, n});
  }
  if (!s.in_place) b.copy({buffer::send, static_cast<std::uint64_t>(root) * n, n}, mine);
}

}  // namespace sidecore::coll::detail
