// gather, binomial tree (Thakur, Rabenseifner & Gropp 2005; MPICH's MPIR_Gather_intra_binomial).
//
// Buffers: send (count elements, one block) is the input (the root's block is already in recv when in_place);
// recv (p blocks, block i from rank i) at the root. Relative rank v (numbered from the root) collects the blocks of
// its subtree [v, v + subtree(v)), which are contiguous in relative order, in scratch (its own first), then sends
// them to its parent as one message; a leaf sends its send buffer directly. The root receives each child's blocks
// straight into recv, except the one subtree that wraps past rank p-1 (root != 0), which lands in scratch and is
// copied in two pieces. Segmented: a rank forwards the first segments of its subtree's data before the last arrive.
// Rounds: ceil(log2 p). Cost: ceil(log2 p) (L + 2o) + (p - 1)/p * p n G at the root (each byte crosses up to log2 p
// links, but the root's link carries (p - 1) n once); scratch up to p/2 blocks at inner ranks.
// choose(): blocks below 32 KiB (MPICH uses it at every size).
#include "algorithms.hpp"
#include "arith.hpp"

namespace sidecore::coll::detail {

void build_gather_binomial(builder& b) {
  const spec& s = b.s;
  const std::uint64_t n = b.bytes(s.count);
  const int p = b.size;
  const int r = b.rank;
  const int root = s.root;
  if (n == 0) return;
  const binomial_tree tree{p, root};
  const int v = tree.relative(r);
  b.largest_message(static_cast<std::uint64_t>(tree.largest_child_subtree()) * n);

  if (v == 0) {
    if (!s.in_place) b.copy({buffer::send, 0, n}, blocks(buffer::recv, root, 1, n));
    tree.children_ascending(v, [&](int child) {
      const int first = tree.rank_of(child);
      const int k = tree.subtree(child);
      if (first + k <= p) {
        b.recv(first, 0, blocks(buffer::recv, first, k, n));
        return;
      }
      const int wrapped = k - (p - first);  // only one subtree wraps past rank p-1: it lands in scratch
      b.recv(first, 0, blocks(buffer::tmp, 0, k, n));
      b.copy(blocks(buffer::tmp, 0, p - first, n), blocks(buffer::recv, first, p - first, n));
      b.copy(blocks(buffer::tmp, p - first, wrapped, n), blocks(buffer::recv, 0, wrapped, n));
    });
    return;
  }
  const int parent = tree.rank_of(tree.parent(v));
  const region input{buffer::send, 0, n};
  if (tree.subtree(v) == 1) {
    b.send(parent, 0, input);
    return;
  }
  const region collected = blocks(buffer::tmp, 0, tree.subtree(v), n);
  b.copy(input, collected.sub(0, n));
  tree.children_ascending(v, [&](int child) {
    b.recv(tree.rank_of(child), 0, blocks(buffer::tmp, child - v, tree.subtree(child), n));
  });
  b.send(parent, 0, collected);
}

}  // namespace sidecore::coll::detail
