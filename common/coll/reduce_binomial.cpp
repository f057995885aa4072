// reduce, binomial tree (Thakur, Rabenseifner & Gropp 2005; MPICH's MPIR_Reduce_intra_binomial).
//
// Buffers: send (count elements) is the input (recv at an in_place root); recv (count) at the root gets the result;
// non-roots accumulate in scratch. Relative rank v receives the partial results of its children v + 1, v + 2, v + 4,
// ... (each covers the ranks right above what v has so far) and reduces each into its accumulator as the right
// operand, then sends the accumulator to its parent. For a commutative operator the tree is rooted at the root; for a
// non-commutative one it is rooted at rank 0, so that every subtree is an interval of ranks combined in rank order,
// and rank 0 sends the result to the root (one more message). Two receive slots alternate, so a child's data can
// arrive while the previous child's is being reduced; every message, slot and reduction is segmented, so a rank
// passes on the first segment of its partial result before the last one is reduced.
// Rounds: ceil(log2 p) (+ 1 for a non-commutative op and root != 0). Cost: ceil(log2 p) * (L + 2o + n G + n gamma)
// (gamma: reduction time per byte), with segments the n terms overlap along the tree. Safe for non-commutative ops.
// choose(): up to 2 KiB, or when count < pof2 (MPICH's MPIR_CVAR_REDUCE_SHORT_MSG_SIZE).
#include "algorithms.hpp"
#include "arith.hpp"

namespace sidecore::coll::detail {

void build_reduce_binomial(builder& b) {
  const spec& s = b.s;
  const std::uint64_t n = b.bytes(s.count);
  if (n == 0) return;
  const int p = b.size;
  const int r = b.rank;
  const int root = s.root;
  const int tree_root = b.commutative() ? root : 0;
  const binomial_tree tree{p, tree_root};
  const int v = tree.relative(r);
  const region result{buffer::recv, 0, n};
  const region input = s.in_place && r == root ? result : region{buffer::send, 0, n};
  b.largest_message(n);

  int children = 0;
  tree.children_ascending(v, [&](int) { ++children; });
  region acc = input;
  if (children > 0) {
    const bool acc_is_result = r == root && v == 0;
    acc = acc_is_result ? result : region{buffer::tmp, 0, n};
    if (acc.buf != input.buf) b.copy(input, acc);
    const std::uint64_t slots = acc_is_result ? 0 : n;
    int i = 0;
    tree.children_ascending(v, [&](int child) {
      const region slot{buffer::tmp, slots + static_cast<std::uint64_t>(i++ % 2) * n, n};
      b.recv(tree.rank_of(child), 0, slot);
      b.reduce(slot, acc, operands::dst_left);
    });
  } else if (p == 1 && !s.in_place) {
    b.copy(input, result);
  }
  if (v != 0) b.send(tree.rank_of(tree.parent(v)), 0, acc);
  if (tree_root != root) {
    if (r == tree_root) b.send(root, 1, acc);
    if (r == root) b.recv(tree_root, 1, result);
  }
}

}  // namespace sidecore::coll::detail
