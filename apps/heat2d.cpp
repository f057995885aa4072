// heat2d — a hybrid MPI+OpenMP mini-app on sidecore: 2-D Jacobi heat diffusion on an N x N grid, split in row
// blocks across ranks. Each iteration posts the halo exchange (irecv/isend of one row to each neighbour),
// updates the interior rows with OpenMP while the halos travel, waits, then updates the two boundary rows.
// In SIDECORE_PROGRESS=core the halos move during the interior update; in off mode they move in the wait.
//
//   mpiexec -n 2 apps/heat2d [--n 2048] [--iters 200] [--check]
//
// --check recomputes the same iterations on rank 0 alone and compares (exact: same arithmetic order).
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sidecore/sidecore.hpp>

namespace {

struct options {
  int n = 2048;
  int iters = 200;
  bool check = false;
};

[[noreturn]] void usage_error(const std::string& msg) {
  std::fprintf(stderr, "heat2d: %s\nusage: heat2d [--n N (16..65536)] [--iters K (1..1000000)] [--check]\n", msg.c_str());
  std::exit(2);
}

int parse_int(const char* opt, const char* v, int lo, int hi) {
  if (!v) usage_error(std::string(opt) + " needs a value");
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*v == '\0' || *end != '\0' || x < lo || x > hi)
    usage_error(std::string(opt) + "='" + v + "' is not accepted; accepted: an integer " + std::to_string(lo) + ".." +
                std::to_string(hi));
  return static_cast<int>(x);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--n") o.n = parse_int("--n", i + 1 < argc ? argv[++i] : nullptr, 16, 65536);
    else if (a == "--iters") o.iters = parse_int("--iters", i + 1 < argc ? argv[++i] : nullptr, 1, 1000000);
    else if (a == "--check") o.check = true;
    else usage_error("unknown option '" + a + "'");
  }
  return o;
}

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

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  const options o = parse(argc, argv);
  try {
    sidecore::init();
  } catch (const sidecore::error& e) {
    std::fprintf(stderr, "heat2d: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int rank = sidecore::rank(), size = sidecore::size();
  if (o.n < 2 * size) usage_error("--n must be at least 2 rows per rank");
  const int n = o.n;
  // Row block of this rank: rows [g0, g0 + rows) of the global grid; global rows 0 and n-1 are fixed.
  const int base = n / size, extra = n % size;
  const int rows = base + (rank < extra ? 1 : 0);
  const int g0 = rank * base + (rank < extra ? rank : extra);
  const std::size_t stride = static_cast<std::size_t>(n);
  std::vector<double> u((rows + 2) * stride, 0.0), v;
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < n; ++j) u[(r + 1) * stride + j] = initial(g0 + r, j, n);
  v = u;
  const int up = rank > 0 ? rank - 1 : -1, down = rank + 1 < size ? rank + 1 : -1;
  // Global first/last rows are fixed boundaries: local rows that are updated.
  const int first = (g0 == 0) ? 2 : 1, last = (g0 + rows == n) ? rows - 1 : rows;  // update rows [first, last]
  const std::int64_t row_bytes = static_cast<std::int64_t>(stride * sizeof(double));

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
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
  const double elapsed = MPI_Wtime() - t0;

  double local = 0.0, total = 0.0;
  for (int r = 1; r <= rows; ++r)
    for (int j = 0; j < n; ++j) local += u[r * stride + j];
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  double tmax = 0.0;
  MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  int rc = 0;
  if (rank == 0) {
    const auto inf = sidecore::info();
    std::printf("heat2d: n=%d iters=%d ranks=%d mode=%s provider=%s omp_threads=%d: %.3f s (%.3f ms/iter), sum=%.6f\n",
                n, o.iters, size, inf.mode.c_str(), inf.provider.c_str(), inf.omp_threads, tmax,
                1e3 * tmax / o.iters, total);
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
      const bool ok = std::fabs(ref - total) <= 1e-9 * std::fmax(1.0, std::fabs(ref));
      std::printf("heat2d: check against one rank: reference sum=%.6f: %s\n", ref, ok ? "OK" : "MISMATCH");
      rc = ok ? 0 : 1;
    }
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  sidecore::finalize();
  MPI_Finalize();
  return rc;
}
