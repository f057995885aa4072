// bench_p2p_sidecore — ping-pong latency and streaming bandwidth, 0 B to 16 MiB, over sidecore (isend/irecv/wait; mode
// from SIDECORE_PROGRESS). Run: mpiexec -n 2 ./bench_p2p_sidecore [--quick] [--reps=N] [--summary=FILE] [--benchmark_*]
#include "common/p2p.hpp"
#include "common/transport_sidecore.hpp"

int main(int argc, char** argv) {
  const std::string cmd = scb::command_line(argc, argv);  // before MPI and Google Benchmark edit argv
  scb::mpi_session mpi(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  scb::sidecore_transport transport;
  return scb::run_p2p(argc, argv, cmd, "bench_p2p_sidecore", transport);
}
