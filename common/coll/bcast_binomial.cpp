// bcast, binomial tree, pipelined by segments (Thakur, Rabenseifner & Gropp 2005; MPICH's
// MPIR_Bcast_intra_binomial; the segmented form is Open MPI's "pipelined binomial").
//
// Buffer: recv (count elements) on every rank; the root's holds the data. Ranks are numbered relative to the root;
// relative rank v receives each segment from v - lowbit(v) and passes it on to v + m for the powers of two
// m < lowbit(v), largest subtree first. Segments are interleaved (segment i goes to every child before segment i+1),
// so a child forwards segment i while its parent still sends segment i+1.
// Rounds: ceil(log2 p) per segment; with s segments of n/s bytes the critical path is about
// (ceil(log2 p) + s - 1) * (L + 2o + (n/s) G) with one child per round, against ceil(log2 p) * (L + 2o + n G)
// unsegmented. choose(): below 12 KiB or below 8 ranks (MPICH's MPIR_CVAR_BCAST_SHORT_MSG_SIZE, _MIN_PROCS).
#include "algorithms.hpp"
#include "arith.hpp"

namespace sidecore::coll::detail {

void build_bcast_binomial(builder& b) {
  const std::uint64_t n = b.bytes(b.s.count);
  const int p = b.size;
  if (n == 0 || p == 1) return;
  const int root = b.s.root;
  const binomial_tree tree{p, root};
  const int v = tree.relative(b.rank);
  const region data{buffer::recv, 0, n};
  b.largest_message(n);
  for (std::uint64_t i = 0, segments = b.segments(n); i < segments; ++i) {
    if (v != 0) b.recv_segment(tree.rank_of(tree.parent(v)), 0, data, i);
    tree.children_descending(v, [&](int child) { b.send_segment(tree.rank_of(child), 0, data, i); });
  }
}

}  // namespace sidecore::coll::detail
