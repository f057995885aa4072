// scatter, binomial tree (Thakur, Rabenseifner & Gropp 2005; MPICH's MPIR_Scatter_intra_binomial).
//
// Buffers: send (p blocks of count elements, block i for rank i) at the root; recv (one block) everywhere except
// at an in_place root, whose block stays in send. The reverse of the binomial gather: the root sends each child the
// blocks of its subtree [c, c + subtree(c)) (relative order) as one message, straight from send, except the one
// subtree that wraps past rank p-1 (root != 0), which it first copies into scratch; an inner rank receives its
// subtree's blocks into scratch, keeps its own and passes the rest on, largest subtree first; a leaf receives into
// recv. Segmented: a rank forwards a segment as soon as it has arrived.
// Rounds: ceil(log2 p). Cost: ceil(log2 p) (L + 2o) + (p - 1) n G at the root. choose(): blocks below 32 KiB.
#include "algorithms.hpp"
#include "arith.hpp"

namespace sidecore::coll::detail {

void build_scatter_binomial(builder& b) {
  const spec& s = b.s;
  const std::uint64_t n = b.bytes(s.count);
  const int p = b.size;
  const int r = b.rank;
  const int root = s.root;
  if (n == 0) return;
  const binomial_tree tree{p, root};
  const int v = tree.relative(r);
  const region mine{buffer::recv, 0, n};
  b.largest_message(static_cast<std::uint64_t>(tree.largest_child_subtree()) * n);

  if (v == 0) {
    tree.children_descending(v, [&](int child) {
      const int first = tree.rank_of(child);
      const int k = tree.subtree(child);
      if (first + k <= p) {
        b.send(first, 0, blocks(buffer::send, first, k, n));
        return;
      }
      const int wrapped = k - (p - first);  // only one subtree wraps past rank p-1: staged in scratch
      b.copy(blocks(buffer::send, first, p - first, n), blocks(buffer::tmp, 0, p - first, n));
      b.copy(blocks(buffer::send, 0, wrapped, n), blocks(buffer::tmp, p - first, wrapped, n));
      b.send(first, 0, blocks(buffer::tmp, 0, k, n));
    });
    if (!s.in_place) b.copy(blocks(buffer::send, root, 1, n), mine);
    return;
  }
  const int parent = tree.rank_of(tree.parent(v));
  if (tree.subtree(v) == 1) {
    b.recv(parent, 0, mine);
    return;
  }
  b.recv(parent, 0, blocks(buffer::tmp, 0, tree.subtree(v), n));
  b.copy(blocks(buffer::tmp, 0, 1, n), mine);
  tree.children_descending(v, [&](int child) {
    b.send(tree.rank_of(child), 0, blocks(buffer::tmp, child - v, tree.subtree(child), n));
  });
}

}  // namespace sidecore::coll::detail
