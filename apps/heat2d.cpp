// heat2d — a hybrid MPI+OpenMP mini-app on sidecore: 2-D Jacobi heat diffusion on an N x N grid, split in row
// blocks across ranks. Each iteration posts the halo exchange (irecv/isend of one row to each neighbour),
// updates the interior rows with OpenMP while the halos travel, waits, then updates the two boundary rows.
// In SIDECORE_PROGRESS=core the halos move during the interior update; in off mode they move in the wait.
//
//   mpiexec -n 2 apps/heat2d [--n 2048] [--iters 200] [--check]
//
// --check recomputes the same iterations on rank 0 alone and compares a checksum of every cell's value and place:
// every cell is computed with the same arithmetic on any decomposition, so the grids are equal to the last bit. (The
// grid's sum would not do: the stencil conserves it until the heat reaches the walls, so halo rows crossed or taken
// from the wrong neighbour leave it unchanged.)
#include <array>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include <sidecore/sidecore.hpp>

#include "common/checksum.hpp"
#include "common/cli.hpp"
#include "common/collectives.hpp"
#include "common/decomp.hpp"
#include "common/run.hpp"

namespace {

struct options {
  int n = 2048;
  int iters = 200;
  bool check = false;
};

double initial(int gi, int j, int n) {  // a hot square in the middle, cold edges
  return (gi > n / 4 && gi < 3 * n / 4 && j > n / 4 && j < 3 * n / 4) ? 100.0 : 0.0;
}

// One Jacobi sweep of rows [r0, r1) of `u` into `v` (rows include one halo row above and below; columns
// 0 and n-1 are fixed boundaries).
void sweep(const std::vector<double>& u, std::vector<double>& v, int n, int r0, int r1) {
#pragma omp parallel for schedule(static)
  for (int r = r0; r < r1; ++r) {
    const double* up = &u[static_cast<std::size_t>(r - 1) * n];
    const double* mid = &u[static_cast<std::size_t>(r) * n];
    const double* dn = &u[static_cast<std::size_t>(r + 1) * n];
    double* out = &v[static_cast<std::size_t>(r) * n];
    for (int j = 1; j < n - 1; ++j) out[j] = 0.25 * (up[j] + dn[j] + mid[j - 1] + mid[j + 1]);
  }
}

int run_heat2d(const options& o) {
  const int rank = sidecore::rank(), size = sidecore::size();
  if (o.n < 2 * size)
    throw apps::usage_error{"--n " + std::to_string(o.n) + " gives fewer than 2 rows per rank to " +
                            std::to_string(size) + " ranks: give at least " + std::to_string(2 * size)};
  const int n = o.n;
  // Row block of this rank: rows [g0, g0 + rows) of the global grid; global rows 0 and n-1 are fixed.
  const apps::block mine = apps::block_of(n, size, rank);
  const int rows = mine.count, g0 = mine.begin;
  // u and v with their two halo rows; --check's recomputation holds the whole grid twice more on rank 0.
  const double grid_row_bytes = 2.0 * sizeof(double) * n;
  apps::require_memory(grid_row_bytes * (rows + 2) + (o.check && rank == 0 ? grid_row_bytes * (n + 2) : 0.0),
                       "--n " + std::to_string(n) + (o.check ? " with --check" : ""));
  if (rank == 0)
    std::printf("heat2d: %dx%d grid in row blocks of %d to %d rows, %d iterations; %s\n", n, n,
                apps::block_of(n, size, size - 1).count, apps::block_of(n, size, 0).count, o.iters,
                apps::describe_runtime().c_str());
  const std::size_t stride = static_cast<std::size_t>(n);
  std::vector<double> u((rows + 2) * stride, 0.0), v;
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < n; ++j) u[(r + 1) * stride + j] = initial(g0 + r, j, n);
  v = u;
  const int up = rank > 0 ? rank - 1 : -1, down = rank + 1 < size ? rank + 1 : -1;
  // Global first/last rows are fixed boundaries: local rows that are updated.
  const int first = (g0 == 0) ? 2 : 1, last = (g0 + rows == n) ? rows - 1 : rows;  // update rows [first, last]
  const std::int64_t row_bytes = static_cast<std::int64_t>(stride * sizeof(double));

  apps::barrier();
  const double t0 = apps::seconds();
  double interior_s = 0.0, wait_s = 0.0, boundary_s = 0.0;
  int messages = 0;
  for (int it = 0; it < o.iters; ++it) {
    sidecore::request reqs[4];
    int k = 0;
    if (up >= 0) {
      reqs[k++] = sidecore::irecv(&u[0], row_bytes, up, 1);
      reqs[k++] = sidecore::isend(&u[1 * stride], row_bytes, up, 0);
    }
    if (down >= 0) {
      reqs[k++] = sidecore::irecv(&u[(rows + 1) * stride], row_bytes, down, 0);
      reqs[k++] = sidecore::isend(&u[rows * stride], row_bytes, down, 1);
    }
    messages = k;
    // Interior rows need no halo: compute them while the halos travel.
    const double t1 = apps::seconds();
    if (last - 1 >= first + 1) sweep(u, v, n, first + 1, last);
    const double t2 = apps::seconds();
    sidecore::waitall(std::span<sidecore::request>(reqs, static_cast<std::size_t>(k)));
    const double t3 = apps::seconds();
    if (first <= last) sweep(u, v, n, first, first + 1);
    if (last > first) sweep(u, v, n, last, last + 1);
    interior_s += t2 - t1;
    wait_s += t3 - t2;
    boundary_s += apps::seconds() - t3;
    std::swap(u, v);
  }
  const double elapsed = apps::allreduce_max(apps::seconds() - t0);
  interior_s = apps::allreduce_max(interior_s);
  wait_s = apps::allreduce_max(wait_s);
  boundary_s = apps::allreduce_max(boundary_s);

  std::array<double, 1> total{0.0};
  for (int r = 1; r <= rows; ++r)
    for (int j = 0; j < n; ++j) total[0] += u[r * stride + j];
  apps::allreduce_sum(total);
  // Local row r is global row g0 + r - 1.
  auto grid_hash = [n, stride](const std::vector<double>& grid, int first_global, int count) {
    std::uint64_t h = 0;
    for (int r = 1; r <= count; ++r)
      for (int j = 0; j < n; ++j)
        h += apps::cell_hash(static_cast<std::uint64_t>(first_global + r - 1) * stride + static_cast<std::size_t>(j),
                             grid[r * stride + static_cast<std::size_t>(j)]);
    return h;
  };
  std::array<std::uint64_t, 1> hash{0};
  if (o.check) {
    hash[0] = grid_hash(u, g0, rows);
    apps::allreduce_sum(hash);
  }
  int bad = 0;
  if (rank == 0) {
    // Half of rank 0's messages are sends of one row each.
    std::printf("heat2d: rank 0: %d messages per iteration (irecv + isend), %.1f KiB sent per iteration\n", messages,
                static_cast<double>(messages / 2) * static_cast<double>(row_bytes) / 1024.0);
    std::printf("heat2d: %.3f s (%.3f ms/iter; slowest rank: interior rows %.3f s, halo wait %.3f s, boundary rows "
                "%.3f s), sum=%.6f\n",
                elapsed, 1e3 * elapsed / o.iters, interior_s, wait_s, boundary_s, total[0]);
    if (o.check) {
      std::vector<double> a((n + 2) * stride, 0.0), b;
      for (int r = 0; r < n; ++r)
        for (int j = 0; j < n; ++j) a[(r + 1) * stride + j] = initial(r, j, n);
      b = a;
      for (int it = 0; it < o.iters; ++it) {
        sweep(a, b, n, 2, n);  // global rows 1..n-2 are local rows 2..n-1
        std::swap(a, b);
      }
      const std::uint64_t ref = grid_hash(a, 0, n);
      if (ref != hash[0])
        std::printf("heat2d: check: the grid differs from the one-rank recomputation's (checksum %016llx, one rank "
                    "%016llx)\n",
                    static_cast<unsigned long long>(hash[0]), static_cast<unsigned long long>(ref));
      std::printf("heat2d: check against one rank: %s\n", ref == hash[0] ? "every cell equal: OK" : "MISMATCH");
      bad = ref == hash[0] ? 0 : 1;
    }
  }
  return apps::allreduce_max(bad);
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  apps::cli cli("heat2d",
                "2-D Jacobi heat diffusion on an N x N grid in row blocks: each iteration posts the halo rows "
                "(irecv/isend to each neighbour), updates the interior rows with OpenMP while they travel, waits, "
                "then updates the two boundary rows.");
  cli.option("n", o.n, 16, 65536, "grid points per side");
  cli.option("iters", o.iters, 1, 1000000, "iterations");
  cli.flag("check", o.check, "recompute on rank 0 alone and compare every cell (exact)");
  return apps::run(argc, argv, cli, [&] { return run_heat2d(o); });
}
