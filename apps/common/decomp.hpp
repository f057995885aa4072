// Splitting work over ranks: contiguous blocks of a range, and a balanced grid of ranks.
#pragma once

#include <mpi.h>

#include <array>

namespace apps {

/// The `index`-th of `parts` contiguous blocks of [0, n): the first n % parts blocks have one item more.
struct block {
  int begin = 0;
  int count = 0;
};
[[nodiscard]] inline block block_of(int n, int parts, int index) {
  const int base = n / parts, extra = n % parts;
  return {index * base + (index < extra ? index : extra), base + (index < extra ? 1 : 0)};
}

/// `ranks` arranged in a grid of D dimensions as square as possible, largest extent first (MPI_Dims_create);
/// extents the caller fixed (non-zero in `fixed`) are kept, and then must divide `ranks`, or equal it in product
/// when every extent is fixed (false otherwise).
template <std::size_t D>
[[nodiscard]] bool rank_grid(int ranks, std::array<int, D>& fixed) {
  // The product is built only while it still divides `ranks`: extents up to the options' limits would overflow it.
  int product = 1;
  bool all_fixed = true;
  for (const int e : fixed) {
    if (e <= 0) {
      all_fixed = false;
      continue;
    }
    if (ranks % e != 0 || ranks / e % product != 0) return false;
    product *= e;
  }
  // MPICH's MPI_Dims_create accepts a fully fixed grid of fewer ranks than the job has: every rank would then run
  // the same block.
  if (all_fixed && product != ranks) return false;
  return MPI_Dims_create(ranks, static_cast<int>(D), fixed.data()) == MPI_SUCCESS;
}

/// Coordinates of `rank` in a row-major grid of extents `dims` (the last dimension varies fastest).
template <std::size_t D>
[[nodiscard]] std::array<int, D> grid_coords(int rank, const std::array<int, D>& dims) {
  std::array<int, D> c{};
  for (std::size_t d = D; d-- > 0;) {
    c[d] = rank % dims[d];
    rank /= dims[d];
  }
  return c;
}

/// The rank at `coords` (each taken modulo its extent: periodic) in a row-major grid of extents `dims`.
template <std::size_t D>
[[nodiscard]] int grid_rank(std::array<int, D> coords, const std::array<int, D>& dims) {
  int r = 0;
  for (std::size_t d = 0; d < D; ++d) r = r * dims[d] + ((coords[d] % dims[d]) + dims[d]) % dims[d];
  return r;
}

}  // namespace apps
