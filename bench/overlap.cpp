// bench_overlap — point-to-point overlap (seed 000 Section 3, bench/README.md "How we measure"), idle-peer
// configuration: sender side (Isend–Recv), receiver side (Send–Irecv) and both, 1 KiB – 8 MiB, computation
// 0 … 4 × t_comm.
// Run: mpiexec -n 2 ./bench_overlap --impl=sidecore|mpi [--quick] [--reps=N] [--peer-compute=sleep|none]
//      [--report-factor=1] [--verbose] [--summary=FILE] [--csv=FILE] [--benchmark_*]
// With --impl=sidecore the mode comes from SIDECORE_PROGRESS (off|core) of each rank.
#include "common/overlap.hpp"
#include "common/p2p.hpp"  // mpi_session
#include "common/transport_mpi.hpp"
#include "common/transport_sidecore.hpp"

int main(int argc, char** argv) {
  const std::string cmd = scb::command_line(argc, argv);  // before MPI and Google Benchmark edit argv
  scb::mpi_session mpi(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  const scb::options o = scb::parse_options(argc, argv, {"impl", "peer-compute", "report-factor"});
  const std::string impl = o.get("impl", "sidecore");
  int rc = 0;
  if (impl == "sidecore") {
    scb::sidecore_transport transport;
    rc = scb::run_overlap(o, cmd, transport);
  } else if (impl == "mpi") {
    scb::mpi_transport transport;
    rc = scb::run_overlap(o, cmd, transport);
  } else {
    scb::die("--impl=" + impl + " is not accepted: give sidecore or mpi");
  }
  benchmark::Shutdown();
  return rc;
}
