// bench_coll — collective latency and overlap (the OSU method, bench/README.md "How we measure"), sidecore beside
// MPICH, in one run.
// Per kind and size: the blocking collective's latency, the nonblocking one's `pure` time (start + wait), then
// start, compute for `pure`, wait: overall; overlap % = max(0, 100 - 100 (overall - compute) / pure). Idle-peer
// configuration: rank 0 computes and reports, the other ranks start and wait at once. Medians of --reps runs.
// Not a Google Benchmark program: a driver of its own loops (run-coll.sh prints the table with issue 14's targets).
//   mpiexec -n 2 ./bench_coll --impl=sidecore|mpi [--kinds=allreduce,bcast,allgather,alltoall] [--reps=N]
//            [--max-bytes=N]
// bytes: what each rank contributes (allreduce: the vector of doubles; bcast: the buffer; allgather: its block;
// alltoall: its block for each peer). With --impl=sidecore the mode comes from SIDECORE_PROGRESS.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <sidecore/sidecore.hpp>

namespace {

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "bench_coll: %s\n", m.c_str());
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

// Busy computation for `us` microseconds (a spin on the clock: the core stays busy, as application code would).
double compute(double us) {
  const double t0 = MPI_Wtime(), end = t0 + us * 1e-6;
  volatile double x = 1.0;
  while (MPI_Wtime() < end)
    for (int i = 0; i < 64; ++i) x = x * 1.0000001 + 1e-9;
  return (MPI_Wtime() - t0) * 1e6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// One kind for one implementation: start() begins the nonblocking collective, finish() waits; blocking() runs the
// blocking one.
struct ops {
  std::function<void()> start, finish, blocking;
};

struct buffers {
  std::vector<char> a, b;
};

ops make_ops(const std::string& impl, const std::string& kind, std::size_t bytes, int p, buffers& buf) {
  const std::size_t n = std::max<std::size_t>(bytes, 8);
  const bool all = kind == "allgather" || kind == "alltoall";
  buf.a.assign(kind == "alltoall" ? n * static_cast<std::size_t>(p) : n, 1);
  buf.b.assign(all ? n * static_cast<std::size_t>(p) : n, 0);
  char* a = buf.a.data();
  char* b = buf.b.data();
  const auto doubles = static_cast<std::int64_t>(n / 8);
  const auto cnt = static_cast<std::int64_t>(n);
  ops o;
  if (impl == "mpi") {
    auto req = std::make_shared<MPI_Request>(MPI_REQUEST_NULL);
    o.finish = [req] { MPI_Wait(req.get(), MPI_STATUS_IGNORE); };
    const int ic = static_cast<int>(cnt), id = static_cast<int>(doubles);
    if (kind == "allreduce") {
      o.start = [=] { MPI_Iallreduce(a, b, id, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, req.get()); };
      o.blocking = [=] { MPI_Allreduce(a, b, id, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); };
    } else if (kind == "bcast") {
      o.start = [=] { MPI_Ibcast(a, ic, MPI_BYTE, 0, MPI_COMM_WORLD, req.get()); };
      o.blocking = [=] { MPI_Bcast(a, ic, MPI_BYTE, 0, MPI_COMM_WORLD); };
    } else if (kind == "allgather") {
      o.start = [=] { MPI_Iallgather(a, ic, MPI_BYTE, b, ic, MPI_BYTE, MPI_COMM_WORLD, req.get()); };
      o.blocking = [=] { MPI_Allgather(a, ic, MPI_BYTE, b, ic, MPI_BYTE, MPI_COMM_WORLD); };
    } else {
      o.start = [=] { MPI_Ialltoall(a, ic, MPI_BYTE, b, ic, MPI_BYTE, MPI_COMM_WORLD, req.get()); };
      o.blocking = [=] { MPI_Alltoall(a, ic, MPI_BYTE, b, ic, MPI_BYTE, MPI_COMM_WORLD); };
    }
    return o;
  }
  using namespace sidecore;
  auto req = std::make_shared<request>();
  o.finish = [req] { (void)wait(*req); };
  if (kind == "allreduce") {
    o.start = [=] { *req = iallreduce(a, b, doubles, dtype::float64, op::sum); };
    o.blocking = [=] { allreduce(a, b, doubles, dtype::float64, op::sum); };
  } else if (kind == "bcast") {
    o.start = [=] { *req = ibcast(a, cnt, dtype::byte, 0); };
    o.blocking = [=] { bcast(a, cnt, dtype::byte, 0); };
  } else if (kind == "allgather") {
    o.start = [=] { *req = iallgather(a, b, cnt, dtype::byte); };
    o.blocking = [=] { allgather(a, b, cnt, dtype::byte); };
  } else {
    o.start = [=] { *req = ialltoall(a, b, cnt, dtype::byte); };
    o.blocking = [=] { alltoall(a, b, cnt, dtype::byte); };
  }
  return o;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= s.size()) {
    const std::size_t c = s.find(',', at);
    out.push_back(s.substr(at, c == std::string::npos ? std::string::npos : c - at));
    if (c == std::string::npos) break;
    at = c + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  std::string impl = "sidecore", kinds = "allreduce,bcast,allgather,alltoall";
  long reps = 21, max_bytes = 16L << 20;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&](const char* name) { return a.substr(std::strlen(name)); };
    char* end = nullptr;
    if (a.rfind("--impl=", 0) == 0) impl = val("--impl=");
    else if (a.rfind("--kinds=", 0) == 0) kinds = val("--kinds=");
    else if (a.rfind("--reps=", 0) == 0) reps = std::strtol(val("--reps=").c_str(), &end, 10), (void)end;
    else if (a.rfind("--max-bytes=", 0) == 0) max_bytes = std::strtol(val("--max-bytes=").c_str(), &end, 10);
    else die("unknown option '" + a + "'; accepted: --impl=sidecore|mpi --kinds=LIST --reps=N --max-bytes=N");
  }
  if (impl != "sidecore" && impl != "mpi") die("--impl=" + impl + " is not accepted: give sidecore or mpi");
  if (reps < 1 || reps > 100000) die("--reps=" + std::to_string(reps) + " is not accepted: give 1 .. 100000");
  if (max_bytes < 8) die("--max-bytes=" + std::to_string(max_bytes) + " is not accepted: give 8 or more");
  for (const std::string& k : split(kinds))
    if (k != "allreduce" && k != "bcast" && k != "allgather" && k != "alltoall")
      die("--kinds: '" + k + "' is not accepted: give allreduce, bcast, allgather, alltoall");
  if (impl == "sidecore") sidecore::init();
  const char* mode_env = std::getenv("SIDECORE_PROGRESS");
  const std::string mode = impl == "mpi" ? "mpich" : (mode_env && *mode_env ? mode_env : "off");
  // Between repetitions the ranks meet in a barrier that a peer waits in as the idle-peer configuration says (in
  // blocking mode, taking little CPU): sidecore's own, for sidecore, whose waits follow SIDECORE_IDLE. MPICH's
  // MPI_Barrier polls without pause: in core mode the peer shares the progress core, and a peer done with its part
  // of a collective, polling in the barrier, kept rank 0's progress thread off that core for up to a scheduler tick
  // (perf sched: 2-4.8 ms scheduling delays; 1 MiB allreduce pure 2-4 ms instead of 0.65-1 ms).
  const auto sync = [&] {
    if (impl == "sidecore") sidecore::barrier();
    else MPI_Barrier(MPI_COMM_WORLD);
  };
  const std::size_t sizes[] = {8, 64, 512, 4096, 32768, 65536, 262144, 1048576, 4194304, 16777216};
  if (rank == 0) std::printf("# impl mode kind bytes blocking_us pure_us compute_us overall_us overlap_pct\n");
  for (const std::string& kind : split(kinds)) {
    for (std::size_t bytes : sizes) {
      if (bytes > static_cast<std::size_t>(max_bytes)) break;
      buffers buf;
      ops o = make_ops(impl, kind, bytes, p, buf);
      const long r = bytes >= (1U << 22) ? std::max(3L, reps / 4) : reps;
      std::vector<double> blk, pure, comp, all;
      for (long i = 0; i < 2; ++i) o.blocking();  // warm-up (connections, caches, schedules)
      for (long i = 0; i < r; ++i) {
        sync();
        double t = MPI_Wtime();
        o.blocking();
        blk.push_back((MPI_Wtime() - t) * 1e6);
        sync();
        t = MPI_Wtime();
        o.start();
        o.finish();
        pure.push_back((MPI_Wtime() - t) * 1e6);
      }
      const double t_pure = median(pure);
      for (long i = 0; i < r; ++i) {
        sync();
        const double t = MPI_Wtime();
        o.start();
        if (rank == 0) comp.push_back(compute(t_pure));
        o.finish();
        all.push_back((MPI_Wtime() - t) * 1e6);
      }
      sync();  // the peer starts the next size (its buffers, on the shared core) once rank 0's last one is done
      if (rank == 0) {
        const double c = median(comp), ov = median(all);
        const double pct = std::max(0.0, 100.0 - 100.0 * (ov - c) / t_pure);
        std::printf("%s %s %s %zu %.2f %.2f %.2f %.2f %.1f\n", impl.c_str(), mode.c_str(), kind.c_str(), bytes,
                    median(blk), t_pure, c, ov, pct);
        std::fflush(stdout);
      }
    }
  }
  if (impl == "sidecore") sidecore::finalize();
  MPI_Finalize();
  return 0;
}
