// reduce, linear: every rank sends its input to the root, which reduces them in rank order.
//
// Buffers: send (count elements) is the input (recv at an in_place root); recv (count) at the root gets the result.
// The root receives rank i's input into scratch slot i, then computes x_{p-1}, x_{p-2} op that, ... down to x_0
// (each reduction puts the lower rank's operand first).
// Rounds: 1. Cost: (p - 1) messages into the root, serialized at its link: (p - 1) (o + n G) + L + o, then
// (p - 1) n gamma of reductions on the root alone; scratch (p - 1) n at the root. Safe for non-commutative ops.
// choose(): never; here to be forced and compared.
#include "algorithms.hpp"

namespace sidecore::coll::detail {

void build_reduce_linear(builder& b) {
  const spec& s = b.s;
  const std::uint64_t n = b.bytes(s.count);
  if (n == 0) return;
  const int p = b.size;
  const int r = b.rank;
  const int root = s.root;
  const region result{buffer::recv, 0, n};
  const region input = s.in_place && r == root ? result : region{buffer::send, 0, n};
  b.largest_message(n);
  if (r != root) {
    b.send(root, 0, input);
    return;
  }
  auto slot = [&](int i) { return region{buffer::tmp, static_cast<std::uint64_t>(i) * n, n}; };
  // In place, the root's input is in `result`, which is overwritten first unless the root is the last rank.
  const bool input_stays = s.in_place && root == p - 1;
  region mine = input;
  if (s.in_place && !input_stays) {
    b.copy(input, slot(root));
    mine = slot(root);
  }
  for (int i = 0; i < p; ++i)
    if (i != root) b.recv(i, 0, slot(i));
  auto operand = [&](int i) { return i == root ? mine : slot(i); };
  if (!input_stays) b.copy(operand(p - 1), result);
  for (int i = p - 2; i >= 0; --i) b.reduce(operand(i), result, operands::src_left);
}

}  // namespace sidecore::coll::detail
