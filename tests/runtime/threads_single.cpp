// Threads that communicate at once although MPI's thread level is below MPI_THREAD_MULTIPLE (MPI_Init, not
// MPI_Init_thread): the application breaks its promise, and mode off must say so (one warning) and still lose no
// message and corrupt none of its lists (a plain load and store for the lock lost one about 1 run in 100). Four OpenMP
// threads per rank exchange messages with their neighbours (eager and rendezvous sizes, a tag per thread) and run
// allreduces on a communicator each; every value is checked.
// Usage: threads_single [ITERATIONS]
#include <mpi.h>
#include <omp.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <sidecore/sidecore.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  sidecore::init();
  const int iters = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int r = sidecore::rank(), p = sidecore::size();
  constexpr int threads = 4;
  std::vector<sidecore::comm> comms;
  for (int t = 0; t < threads; ++t) comms.push_back(sidecore::world().dup());
  std::atomic<int> bad{0};
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const int to = (r + 1) % p, from = (r + p - 1) % p;
    for (int it = 0; it < iters; ++it) {
      const std::size_t n = it % 7 == 0 ? 20000 : static_cast<std::size_t>(it % 3) * 100 + 8;
      std::vector<std::int64_t> out(n / 8 + 1), in(n / 8 + 1, -1);
      for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = std::int64_t{r} * 1000000 + t * 10000 + it + static_cast<std::int64_t>(i);
      const int tag = t * 1000 + it % 1000;
      sidecore::request rq = sidecore::irecv(in.data(), n, from, tag);
      sidecore::request sq = sidecore::isend(out.data(), n, to, tag);
      const sidecore::status st = sidecore::wait(rq);
      (void)sidecore::wait(sq);
      if (!st.ok() || st.bytes != n || st.source != from) ++bad;
      for (std::size_t i = 0; i < n / 8; ++i)
        if (in[i] != std::int64_t{from} * 1000000 + t * 10000 + it + static_cast<std::int64_t>(i)) {
          ++bad;
          break;
        }
      std::int64_t x = t + it, y = 0;
      sidecore::allreduce(&x, &y, 1, sidecore::dtype::int64, sidecore::op::sum, comms[static_cast<std::size_t>(t)]);
      if (y != std::int64_t{p} * (t + it)) ++bad;
    }
  }
  for (auto& c : comms) c.free();
  int mine = bad.load(), all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (r == 0) std::printf(all == 0 ? "threads_single: passed\n" : "threads_single: %d wrong results\n", all);
  sidecore::finalize();
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
