// Multi-rank check of the overlap bounds (issue 3): rank 0 posts an irecv of 1 MiB, computes for 20 ms, waits,
// while rank 1 sends at once. In core mode the progress thread moves the data during the computation, so the
// truth is "the whole transfer overlapped": the bounds must bracket it (min <= xfer_time <= max, per transfer
// xfer_time is the a-priori transfer time), with min close to it. With no computation between irecv and wait the
// overlap must collapse to zero. The two phases are separate regions of the profile.
//
//   SIDECORE_PROGRESS=core SIDECORE_PROFILE=<dir>/bounds.%r.json mpiexec -n 2 bounds_mpi <dir>/bounds.0.json
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <sidecore/sidecore.hpp>

namespace {

void spin_for(double seconds) {
  const double end = MPI_Wtime() + seconds;
  while (MPI_Wtime() < end) {
  }
}

int failures = 0;
void check(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  } else {
    std::fprintf(stderr, "ok: %s\n", what.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (argc != 2) {
    std::fprintf(stderr, "usage: bounds_mpi RANK0_PROFILE.json\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  sidecore::init();
  const int rank = sidecore::rank();
  constexpr int iters = 10;
  constexpr std::int64_t bytes = 1 << 20;
  std::vector<char> buf(bytes, 1);
  for (const char* phase : {"compute", "nocompute"}) {
    const bool compute = std::string(phase) == "compute";
    sidecore::region region(phase);
    for (int i = 0; i < iters; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) {
        sidecore::request r = sidecore::irecv(buf.data(), bytes, 1, i);
        if (compute) spin_for(0.02);
        (void)sidecore::wait(r);
      } else if (rank == 1) {
        sidecore::send(buf.data(), bytes, 0, i);
      }
    }
  }
  const bool core = sidecore::info().mode == "core";
  sidecore::finalize();
  if (rank == 0) {
    std::ifstream in(argv[1]);
    const nlohmann::json p = nlohmann::json::parse(in, nullptr, false);
    check(!p.is_discarded(), std::string("the rank-0 profile ") + argv[1] + " is JSON");
    if (!p.is_discarded()) {
      std::fprintf(stderr, "xfer_time_source: %s\n", p["overlap"]["xfer_time_source"].dump().c_str());
      for (const auto& reg : p["overlap"]["by_region"]) {
        const std::string name = reg["name"];
        const double mn = reg["min_s"], mx = reg["max_s"], xt = reg["xfer_time_s"];
        std::fprintf(stderr, "region %s: count %d min %.6f max %.6f xfer_time %.6f s\n", name.c_str(),
                     reg["count"].get<int>(), mn, mx, xt);
        if (name.find("nocompute") != std::string::npos) {
          check(mx <= 0.05 * xt, name + ": no computation between irecv and wait: max overlap ~ 0");
        } else if (name.find("compute") != std::string::npos && core) {
          check(mn <= xt * 1.0001 && xt <= mx * 1.0001, name + ": min <= xfer_time <= max (the whole transfer overlapped)");
          check(mn >= 0.5 * xt, name + ": the lower bound is close to the truth (>= 50 % of xfer_time)");
        }
        if (name.find("compute") != std::string::npos) check(reg["count"].get<int>() >= iters, name + ": every transfer counted");
      }
    }
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
