// A program outside the sidecore tree, built against an installed or exported sidecore the way a user builds
// theirs (find_package from the build tree, from the install tree, or pkg-config in a Makefile). Each rank sends
// its rank to the next one while an OpenMP loop runs, and checks what it received from the previous one.
#include <omp.h>

#include <cstdio>

#include <sidecore/sidecore.hpp>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rc = 0;
  try {
    sidecore::init();
    const int rank = sidecore::rank(), size = sidecore::size();
    int out = rank, in = -1;
    sidecore::request r = sidecore::irecv(&in, sizeof in, (rank + size - 1) % size, 3);
    sidecore::request s = sidecore::isend(&out, sizeof out, (rank + 1) % size, 3);
    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (long i = 0; i < 100000; ++i) sum += i % 7;
    const sidecore::status st = sidecore::wait(r);
    (void)sidecore::wait(s);
    if (!st.ok() || in != (rank + size - 1) % size || sum != 299995) {
      std::fprintf(stderr, "consumer: rank %d received %d (expected %d), sum %ld\n", rank, in, (rank + size - 1) % size,
                   sum);
      rc = 1;
    }
    if (rank == 0 && rc == 0)
      std::printf("consumer: OK, %d ranks, mode %s, %d OpenMP threads\n", size, sidecore::info().mode.c_str(),
                  omp_get_max_threads());
    sidecore::finalize();
  } catch (const sidecore::error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
