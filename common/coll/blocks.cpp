// Block layouts of the all-to-all family (blocks.hpp).
#include "blocks.hpp"

#include <algorithm>

namespace sidecore::coll::detail {

allgather_blocks::allgather_blocks(const builder& b) : b_(b), v_(b.s.k == kind::allgatherv) {
  if (!v_) {
    largest_ = b.bytes(b.s.count);
    return;
  }
  for (std::uint64_t c : b.s.recv_counts) largest_ = std::max(largest_, b.bytes(c));
}

region allgather_blocks::block(int i) const {
  const auto j = static_cast<std::size_t>(i);
  if (!v_) return {buffer::recv, b_.bytes(b_.s.count) * j, b_.bytes(b_.s.count)};
  return {buffer::recv, b_.bytes(b_.s.recv_displs[j]), b_.bytes(b_.s.recv_counts[j])};
}

region allgather_blocks::input() const {
  if (b_.s.in_place) return block(b_.rank);
  return {buffer::send, 0, block(b_.rank).bytes};
}

void allgather_blocks::keep_own(builder& b) const {
  if (!b.s.in_place) b.copy(input(), block(b.rank));
}

alltoall_blocks::alltoall_blocks(const builder& b) : b_(b), v_(b.s.k == kind::alltoallv) {
  const spec& s = b.s;
  if (!v_) {
    largest_ = b.bytes(s.count);
    return;
  }
  for (std::uint64_t c : s.recv_counts) largest_ = std::max(largest_, b.bytes(c));
  if (s.in_place) {
    staged_at_.resize(s.recv_counts.size());
    std::uint64_t off = 0;
    for (std::size_t j = 0; j < s.recv_counts.size(); ++j) {
      staged_at_[j] = off;
      if (static_cast<int>(j) != b.rank) off += b.bytes(s.recv_counts[j]);
    }
  } else {
    for (std::uint64_t c : s.send_counts) largest_ = std::max(largest_, b.bytes(c));
  }
}

region alltoall_blocks::from(int i) const {
  const auto j = static_cast<std::size_t>(i);
  if (!v_) return {buffer::recv, b_.bytes(b_.s.count) * j, b_.bytes(b_.s.count)};
  return {buffer::recv, b_.bytes(b_.s.recv_displs[j]), b_.bytes(b_.s.recv_counts[j])};
}

region alltoall_blocks::to(int i) const {
  const auto j = static_cast<std::size_t>(i);
  if (b_.s.in_place) {
    if (i == b_.rank) return from(i);
    if (!v_) return {buffer::tmp, b_.bytes(b_.s.count) * j, b_.bytes(b_.s.count)};
    return {buffer::tmp, staged_at_[j], b_.bytes(b_.s.recv_counts[j])};
  }
  if (!v_) return {buffer::send, b_.bytes(b_.s.count) * j, b_.bytes(b_.s.count)};
  return {buffer::send, b_.bytes(b_.s.send_displs[j]), b_.bytes(b_.s.send_counts[j])};
}

void alltoall_blocks::stage(builder& b) const {
  if (!b.s.in_place) {
    b.copy(to(b.rank), from(b.rank));
    return;
  }
  for (int j = 0; j < b.size; ++j)
    if (j != b.rank) b.copy(from(j), to(j));
}

}  // namespace sidecore::coll::detail
