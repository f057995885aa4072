// CPU time of an idle sidecore process (issue 2: an idle progress thread in block/hybrid uses under 5 % of a core).
// One message to itself (so the engine has run), then the application thread sleeps for a window; the process's
// user + system CPU time over that window, divided by its length, is what the idle progress thread (core mode) or
// nothing (off mode) costs. Run: SIDECORE_PROGRESS=core SIDECORE_IDLE=hybrid mpiexec -n 1 bin/bench_idle_cpu [SECONDS]
#include <mpi.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <sidecore/sidecore.hpp>

namespace {
double process_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}
}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  char* end = nullptr;
  const double window = argc > 1 ? std::strtod(argv[1], &end) : 2.0;
  if (argc > 1 && (end == argv[1] || *end != '\0' || !(window > 0.0 && window <= 3600.0))) {
    std::fprintf(stderr, "bench_idle_cpu: SECONDS='%s' is not accepted; accepted: a number of seconds in (0, 3600]\n",
                 argv[1]);
    MPI_Finalize();
    return 2;
  }
  try {
    sidecore::init();
    char b[8] = {0};
    sidecore::request r = sidecore::irecv(b, sizeof b, sidecore::rank(), 1);
    sidecore::request s = sidecore::isend(b, sizeof b, sidecore::rank(), 1);
    (void)sidecore::wait(r);
    (void)sidecore::wait(s);
    const double c0 = process_cpu_s();
    std::this_thread::sleep_for(std::chrono::duration<double>(window));
    const double c1 = process_cpu_s();
    const sidecore::runtime_info i = sidecore::info();
    const char* idle = std::getenv("SIDECORE_IDLE");
    std::printf("mode %s, SIDECORE_IDLE=%s, idle window %.1f s: process CPU %.2f %% of a core\n", i.mode.c_str(),
                idle ? idle : "(default)", window, (c1 - c0) / window * 100.0);
    sidecore::finalize();
  } catch (const sidecore::error& e) {
    std::fprintf(stderr, "bench_idle_cpu: %s\n", e.what());
    MPI_Finalize();
    return 1;
  }
  MPI_Finalize();
  return 0;
}
