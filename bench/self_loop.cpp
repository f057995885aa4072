// bench_self_loop: the 8-byte self round trip (irecv, isend, wait the send, wait the receive) of rank 0 with
// itself, `--iterations=N` times (default 100000), with sidecore (mode from SIDECORE_PROGRESS), sidecore through its
// C API (`--impl=c-api`), raw libfabric (`--impl=raw`) or the system MPI (`--impl=mpi`). Not a timing program:
// bench/run-instructions.sh runs it under valgrind's callgrind and divides the instructions each library executed
// by N — a figure the VM's noise cannot move, for comparing builds. bench_self_loop_fortran (self_loop.f90) is the
// same loop through the Fortran module.
// One rank only: `mpiexec -n 1 bin/bench_self_loop [--impl=sidecore|c-api|raw|mpi] [--iterations=N]`.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <sidecore/sidecore.h>

#include "common/transport_fabric.hpp"
#include "common/transport_mpi.hpp"
#include "common/transport_sidecore.hpp"

namespace {

template <class T>
void loop(T& t, long n) {
  std::uint64_t out = 1, in = 0;
  for (long i = 0; i < n; ++i) {
    auto r = t.irecv(&in, 8, 0, 1);
    auto s = t.isend(&out, 8, 0, 1);
    t.wait(s);
    t.wait(r);
  }
  if (in != out) scb::die("self loop: received " + std::to_string(in) + ", sent " + std::to_string(out));
}

// The loop through the C API (sidecore.h), as a C or Fortran program makes it.
void c_api_loop(long n) {
  std::uint64_t out = 1, in = 0;
  if (sidecore_init(MPI_COMM_WORLD) != SIDECORE_SUCCESS)
    scb::die(std::string("sidecore_init: ") + sidecore_last_error());
  for (long i = 0; i < n; ++i) {
    sidecore_request r = SIDECORE_REQUEST_NULL, s = SIDECORE_REQUEST_NULL;
    if (sidecore_irecv(&in, 8, 0, 1, SIDECORE_COMM_WORLD, &r) != SIDECORE_SUCCESS ||
        sidecore_isend(&out, 8, 0, 1, SIDECORE_COMM_WORLD, &s) != SIDECORE_SUCCESS ||
        sidecore_wait(&s, nullptr) != SIDECORE_SUCCESS || sidecore_wait(&r, nullptr) != SIDECORE_SUCCESS)
      scb::die(std::string("self loop through the C API: ") + sidecore_last_error());
  }
  if (in != out) scb::die("self loop: received " + std::to_string(in) + ", sent " + std::to_string(out));
  if (sidecore_finalize() != SIDECORE_SUCCESS) scb::die(std::string("sidecore_finalize: ") + sidecore_last_error());
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  std::string impl = "sidecore";
  long n = 100000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--impl=", 0) == 0) impl = a.substr(7);
    else if (a.rfind("--iterations=", 0) == 0) n = std::strtol(a.c_str() + 13, nullptr, 10);
    else scb::die("unknown option '" + a + "'; accepted: --impl=sidecore|c-api|raw|mpi, --iterations=N");
  }
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 1) scb::die("bench_self_loop runs on 1 rank (mpiexec -n 1), not " + std::to_string(size));
  if (n <= 0) scb::die("--iterations=" + std::to_string(n) + " is not accepted: give a positive count");
  if (impl == "sidecore") {
    scb::sidecore_transport t;
    loop(t, n);
  } else if (impl == "c-api") {
    c_api_loop(n);
  } else if (impl == "raw") {
    scb::fabric_transport t;
    loop(t, n);
  } else if (impl == "mpi") {
    scb::mpi_transport t;
    loop(t, n);
  } else {
    scb::die("--impl=" + impl + " is not accepted: give sidecore, c-api, raw or mpi");
  }
  std::printf("# bench_self_loop: %s, %ld iterations\n", impl.c_str(), n);
  MPI_Finalize();
  return 0;
}
