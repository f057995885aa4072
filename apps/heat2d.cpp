// heat2d — a hybrid MPI+OpenMP mini-app on sidecore: 2-D Jacobi heat diffusion on an N x N grid, split in row
// blocks across ranks. Each iteration posts the halo exchange (irecv/isend of one row to each neighbour),
// updates the interior rows with OpenMP while the halos travel, waits, then updates the two boundary rows.
// In SIDECORE_PROGRESS=core the halos move during the interior update; in off mode they move in the wait.
//
//   mpiexec -n 2 apps/heat2d [--n 2048] [--iters 200] [--check]
//
// --check recomputes the same iterations on rank 0 alone and compares the grid sums (every cell is computed with
// the same arithmetic; the sums, added in another order, agree to 1e-9).
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include <sidecore/sidecore.hpp>

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
    // Interior rows need no halo: compute them while the halos travel.
    if (last - 1 >= first + 1) sweep(u, v, n, first + 1, last);
    sidecore::waitall(std::span<sidecore::request>(reqs, static_cast<std::size_t>(k)));
    if (first <= last) sweep(u, v, n, first, first + 1);
    if (last > first) sweep(u, v, n, last, last + 1);
    std::swap(u, v);
  }
  const double elapsed = apps::allreduce_max(apps::seconds() - t0);

  std::array<double, 1> total{0.0};
  for (int r = 1; r <= rows; ++r)
    for (int j = 0; j < n; ++j) total[0] += u[r * stride + j];
  apps::allreduce_sum(total);
  int bad = 0;
  if (rank == 0) {
    std::printf("heat2d: n=%d iters=%d %s: %.3f s (%.3f ms/iter), sum=%.6f\n", n, o.iters,
                apps::describe_runtime().c_str(), elapsed, 1e3 * elapsed / o.iters, total[0]);
    if (o.check) {
      std::vector<double> a((n + 2) * stride, 0.0), b;
      for (int r = 0; r < n; ++r)
        for (int j = 0; j < n; ++j) a[(r + 1) * stride + j] = initial(r, j, n);
      b = a;
      for (int it = 0; it < o.iters; ++it) {
        sweep(a, b, n, 2, n);  // global rows 1..n-2 are local rows 2..n-1
        std::swap(a, b);
      }
      double ref = 0.0;
      for (int r = 1; r <= n; ++r)
        for (int j = 0; j < n; ++j) ref += a[r * stride + j];
      const bool ok = std::fabs(ref - total[0]) <= 1e-9 * std::fmax(1.0, std::fabs(ref));
      std::printf("heat2d: check against one rank: reference sum=%.6f: %s\n", ref, ok ? "OK" : "MISMATCH");
      bad = ok ? 0 : 1;
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
  cli.flag("check", o.check, "recompute on rank 0 alone and compare the grid's sum");
  return apps::run(argc, argv, cli, [&] { return run_heat2d(o); });
}
