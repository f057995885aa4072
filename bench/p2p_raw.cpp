// bench_p2p_raw — ping-pong latency and streaming bandwidth, 0 B to 16 MiB, over raw libfabric (fi_* directly; MPI only
// exchanges endpoint names). Run: mpiexec -n 2 ./bench_p2p_raw [--quick] [--reps=N] [--summary=FILE] [--benchmark_*]
#include "common/p2p.hpp"
#include "common/transport_fabric.hpp"

int main(int argc, char** argv) {
  const std::string cmd = scb::command_line(argc, argv);  // before MPI and Google Benchmark edit argv
  scb::mpi_session mpi(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  scb::fabric_transport transport;
  return scb::run_p2p(argc, argv, cmd, "bench_p2p_raw", transport);
}
