// Integer helpers the schedule builders share: powers of two, bit reversal, and the even partition of a vector
// into parts (the blocks of reduce-scatter, ring and scatter-allgather algorithms).
#pragma once

#include <bit>
#include <cstdint>

namespace sidecore::coll::detail {

/// Largest power of two <= n (n >= 1).
[[nodiscard]] constexpr int pof2_floor(int n) noexcept {
  return static_cast<int>(std::bit_floor(static_cast<unsigned>(n)));
}

/// log2 of a power of two.
[[nodiscard]] constexpr int log2_exact(int pof2) noexcept { return std::countr_zero(static_cast<unsigned>(pof2)); }

/// The lowest set bit of v (v >= 1).
[[nodiscard]] constexpr int lowbit(int v) noexcept { return v & -v; }

/// The `bits` low bits of v in reverse order.
[[nodiscard]] constexpr int bit_reverse(int v, int bits) noexcept {
  int out = 0;
  for (int i = 0; i < bits; ++i) out |= ((v >> i) & 1) << (bits - 1 - i);
  return out;
}

/// First element of part i when `count` elements are split into `parts` parts whose sizes differ by at most one
/// (the first count % parts parts get the extra element). part_start(count, parts, parts) == count.
[[nodiscard]] constexpr std::uint64_t part_start(std::uint64_t count, std::uint64_t parts, std::uint64_t i) noexcept {
  const std::uint64_t q = count / parts;
  const std::uint64_t rem = count % parts;
  return i * q + (i < rem ? i : rem);
}

/// Binomial tree over relative ranks v = (rank - root) mod p (MPICH's numbering): the parent of v > 0 is
/// v - lowbit(v), its children are v + m for the powers of two m < lowbit(v) with v + m < p (the root: every m < p),
/// and its subtree is the contiguous range [v, v + subtree(v)).
struct binomial_tree {
  int p;
  int root = 0;
  [[nodiscard]] constexpr int relative(int rank) const noexcept { return (rank - root + p) % p; }
  [[nodiscard]] constexpr int rank_of(int v) const noexcept { return (v + root) % p; }
  [[nodiscard]] constexpr int span(int v) const noexcept { return v == 0 ? p : lowbit(v); }
  [[nodiscard]] constexpr int parent(int v) const noexcept { return v - lowbit(v); }
  [[nodiscard]] constexpr int subtree(int v) const noexcept { return v == 0 ? p : (span(v) < p - v ? span(v) : p - v); }
  /// The largest subtree among the root's children (0 when p == 1).
  [[nodiscard]] constexpr int largest_child_subtree() const noexcept {
    int most = 0;
    children_ascending(0, [&](int c) { most = subtree(c) > most ? subtree(c) : most; });
    return most;
  }
  /// Children from the smallest subtree up: call f(child) for each.
  template <class F>
  constexpr void children_ascending(int v, F f) const {
    for (long m = 1; m < span(v) && v + m < p; m *= 2) f(static_cast<int>(v + m));
  }
  /// Children from the largest subtree down (sending the largest subtree first shortens the critical path).
  template <class F>
  constexpr void children_descending(int v, F f) const {
    int kids[32];
    int n = 0;
    children_ascending(v, [&](int c) { kids[n++] = c; });
    while (n > 0) f(kids[--n]);
  }
};

/// The fold that reduces a non-power-of-two communicator to pof2 participants (Thakur, Rabenseifner & Gropp 2005):
/// of the first 2*rem ranks, each even rank hands its data to the odd rank above it and sits out.
/// Participant "newranks" 0..pof2-1 are the odd ranks below 2*rem, then the ranks from 2*rem up, in rank order, so
/// each newrank stands for a contiguous interval of ranks ({2i, 2i+1} or {r}): combining newranks in order combines
/// ranks in order.
struct fold {
  int p, pof2, rem, steps;  // steps = log2(pof2)
  explicit constexpr fold(int size) noexcept
      : p(size), pof2(pof2_floor(size)), rem(size - pof2_floor(size)), steps(log2_exact(pof2_floor(size))) {}
  /// -1 for the even ranks below 2*rem that sit out.
  [[nodiscard]] constexpr int newrank(int r) const noexcept {
    return r < 2 * rem ? (r % 2 != 0 ? r / 2 : -1) : r - rem;
  }
  [[nodiscard]] constexpr int oldrank(int nr) const noexcept { return nr < rem ? 2 * nr + 1 : nr + rem; }
  [[nodiscard]] constexpr bool sits_out(int r) const noexcept { return r < 2 * rem && r % 2 == 0; }
  [[nodiscard]] constexpr bool absorbs(int r) const noexcept { return r < 2 * rem && r % 2 != 0; }
};

}  // namespace sidecore::coll::detail
