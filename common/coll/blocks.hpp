// Where each rank's block lies in the buffers of the all-to-all family: allgather and allgatherv (one block per
// rank in recv), alltoall and alltoallv (one block per peer in send and in recv). The linear, ring and pairwise
// algorithms are the same for the uniform and the v-variants; only these layouts differ.
#pragma once

#include <cstdint>
#include <vector>

#include "builder.hpp"

namespace sidecore::coll::detail {

/// allgather(v): block i of recv comes from rank i; this rank's contribution is send (or its block of recv, in place).
class allgather_blocks {
 public:
  explicit allgather_blocks(const builder& b);
  [[nodiscard]] region block(int i) const;
  /// This rank's own contribution, where it is before keep_own().
  [[nodiscard]] region input() const;
  [[nodiscard]] std::uint64_t largest() const noexcept { return largest_; }
  /// Copies the contribution into its block of recv (nothing in place).
  void keep_own(builder& b) const;

 private:
  const builder& b_;
  bool v_;
  std::uint64_t largest_ = 0;
};

/// alltoall(v): to(j) is what goes to rank j, from(i) where rank i's block lands. In place, the input is in recv
/// (laid out as the output) and stage() first copies every block that goes to another rank into scratch.
class alltoall_blocks {
 public:
  explicit alltoall_blocks(const builder& b);
  [[nodiscard]] region to(int j) const;
  [[nodiscard]] region from(int i) const;
  [[nodiscard]] std::uint64_t largest() const noexcept { return largest_; }
  /// In place: copies the outgoing blocks into scratch (before anything is received over them). Otherwise: copies
  /// the block to itself from send to recv.
  void stage(builder& b) const;

 private:
  const builder& b_;
  bool v_;
  std::uint64_t largest_ = 0;
  std::vector<std::uint64_t> staged_at_;  // in-place v-variant: scratch offset of each outgoing block
};

}  // namespace sidecore::coll::detail
