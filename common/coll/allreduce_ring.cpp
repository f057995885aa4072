// allreduce, ring: reduce-scatter around a ring, then allgather around it (Patarasuk & Yuan 2009, "Bandwidth
// optimal all-reduce algorithms for clusters of workstations"; MPICH's MPIR_Allreduce_intra_ring).
//
// Buffers: send (count elements) is the input (recv when in_place); recv (count) gets the result; scratch holds two
// slots of one part, alternating by step. The vector is cut into p parts. Reduce-scatter step s (s = 0 .. p-2):
// send the partial sum of part (r - s) to r + 1 (at step 0 straight from the input), receive the partial sum of
// part (r - s - 1) from r - 1 into a slot and reduce this rank's input into it; after p - 1 steps the slot holds part
// r + 1 complete. Allgather step s: send part (r + 1 - s), receive part (r - s) into recv. Messages are segmented and a
// step forwards each segment as soon as it is reduced, so the ring runs as a pipeline.
// Rounds: 2 (p - 1). Cost: 2 (p - 1) (L + 2o) + 2 (p - 1)/p n G + (p - 1)/p n gamma, no fold for any p, neighbour
// traffic only. NOT safe for non-commutative ops (part b is combined in ring order b, b+1, ..., b-1).
// choose(): commutative ops at and above 512 KiB, p not a power of two (where Rabenseifner's fold, 2 n G extra,
// costs more than the ring's extra p - 1 - 2 log2 p latencies) or p = 2 (the same rounds and bytes; measured faster).
#include "algorithms.hpp"
#include "arith.hpp"

namespace sidecore::coll::detail {

void build_allreduce_ring(builder& b) {
  const spec& s = b.s;
  const std::uint64_t n = b.bytes(s.count);
  if (n == 0) return;
  const int p = b.size;
  const int r = b.rank;
  const region result{buffer::recv, 0, n};
  const region input = s.in_place ? result : region{buffer::send, 0, n};
  if (p == 1) {
    if (!s.in_place) b.copy(input, result);
    return;
  }
  const auto parts = static_cast<std::uint64_t>(p);
  auto part = [&](region base, int i) {
    const std::uint64_t lo = b.bytes(part_start(s.count, parts, static_cast<std::uint64_t>(i)));
    return base.sub(lo, b.bytes(part_start(s.count, parts, static_cast<std::uint64_t>(i) + 1)) - lo);
  };
  const std::uint64_t largest = part(result, 0).bytes;  // the first parts get the remainder
  auto slot = [&](int step, int i) {
    return region{buffer::tmp, static_cast<std::uint64_t>(step % 2) * largest, part(result, i).bytes};
  };
  auto ring = [&](int i) { return ((i % p) + p) % p; };
  const int right = ring(r + 1);
  const int left = ring(r - 1);
  b.largest_message(largest);

  for (int step = 0; step < p - 1; ++step) {
    const auto msg = static_cast<std::uint32_t>(step);
    const int out = ring(r - step);
    const int in = ring(r - step - 1);
    b.send(right, msg, step == 0 ? part(input, out) : slot(step - 1, out));
    b.recv(left, msg, slot(step, in));
    b.reduce(part(input, in), slot(step, in), operands::dst_left);
  }
  const int mine = ring(r + 1);
  const region reduced = slot(p - 2, mine);
  b.copy(reduced, part(result, mine));
  for (int step = 0; step < p - 1; ++step) {
    const auto msg = static_cast<std::uint32_t>(p - 1 + step);
    const int out = ring(r + 1 - step);
    const int in = ring(r - step);
    b.send(right, msg, step == 0 ? reduced : part(result, out));
    b.recv(left, msg, part(result, in));
  }
}

}  // namespace sidecore::coll::detail
