// bcast, scatter + ring allgather (van de Geijn: Barnett, Shuler, van de Geijn et al. 1994; Thakur, Rabenseifner
// & Gropp 2005; MPICH's MPIR_Bcast_intra_scatter_ring_allgather).
//
// Buffer: recv (count elements) on every rank; the root's holds the data. The message is cut into p parts (sizes
// differ by at most one element); relative rank v (numbered from the root) owns part v. A binomial scatter gives
// each rank the parts of its subtree [v, v + subtree(v)) in ceil(log2 p) rounds; then a ring allgather of p - 1 steps
// passes part (v - s) to v + 1 in step s. A rank that already holds a part from the scatter is not sent it again
// (both ends know the tree), so each rank receives exactly the parts it lacks. Messages larger than the segment
// size are cut into segments, and a ring step forwards each segment as soon as it has arrived.
// Cost: (ceil(log2 p) + p - 1) * (L + 2o) + 2 (p - 1)/p n G against the binomial tree's ceil(log2 p) n G.
// choose(): at and above 12 KiB with 8 ranks or more (MPICH's thresholds).
#include "algorithms.hpp"
#include "arith.hpp"

namespace sidecore::coll::detail {

void build_bcast_scatter_allgather(builder& b) {
  const std::uint64_t count = b.s.count;
  const std::uint64_t n = b.bytes(count);
  const int p = b.size;
  if (n == 0 || p == 1) return;
  const int root = b.s.root;
  const binomial_tree tree{p, root};
  const int v = tree.relative(b.rank);
  const region data{buffer::recv, 0, n};
  // Parts [w0, w1) of the message, in relative-rank order (contiguous bytes).
  auto parts = [&](int w0, int w1) {
    const std::uint64_t lo = b.bytes(part_start(count, static_cast<std::uint64_t>(p), static_cast<std::uint64_t>(w0)));
    const std::uint64_t hi = b.bytes(part_start(count, static_cast<std::uint64_t>(p), static_cast<std::uint64_t>(w1)));
    return data.sub(lo, hi - lo);
  };
  auto holds = [&](int w, int part) { return part >= w && part < w + tree.subtree(w); };
  const std::uint64_t largest_part = parts(0, 1).bytes;  // the first parts get the remainder
  b.largest_message(static_cast<std::uint64_t>(tree.largest_child_subtree()) * largest_part);

  if (v != 0) b.recv(tree.rank_of(tree.parent(v)), 0, parts(v, v + tree.subtree(v)));
  tree.children_descending(
      v, [&](int child) { b.send(tree.rank_of(child), 0, parts(child, child + tree.subtree(child))); });

  const int right = (v + 1) % p;
  const int left = (v - 1 + p) % p;
  for (int step = 0; step < p - 1; ++step) {
    const auto msg = static_cast<std::uint32_t>(1 + step);
    const int out = (v - step + p) % p;
    if (!holds(right, out)) b.send(tree.rank_of(right), msg, parts(out, out + 1));
    const int in = (v - step - 1 + p) % p;
    if (!holds(v, in)) b.recv(tree.rank_of(left), msg, parts(in, in + 1));
  }
}

}  // namespace sidecore::coll::detail
