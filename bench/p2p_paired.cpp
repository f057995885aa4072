// bench_p2p_paired — sidecore against raw libfabric and the system MPI in one run, block by block: the latency and
// bandwidth ratios of issue 2's targets (against raw libfabric) and issue 18's (against MPI, and against the better
// of the two), measured so that every side of each ratio sees the same machine.
//
// Why: on our 2-vCPU VMs the cost of a cache line crossing between the vCPUs (and with it a small message's
// latency) flips between two levels every few seconds, up to 4x apart. Two programs run one after the other (as
// bench_p2p_raw and bench_p2p_sidecore in run-p2p.sh, or even run-targets.sh's cycles of a few seconds) often land
// in different phases, and the ratio then measures the VM. Here one process pair holds both transports (raw
// libfabric endpoints of its own, and sidecore's engine) and alternates short blocks of the same loop (p2p.hpp):
// raw, sidecore, sidecore, raw, ... (ABBA, so neither side always goes first). Each block lasts --block-ms; the
// ratio is taken per pair of neighbouring blocks, and the result is the median [min, max] over --blocks pairs.
//
// Run: mpiexec -n 2 ./bench_p2p_paired [options]   (idle-peer: rank 1 only answers), or -n 1 (self).
// Options: --blocks=N (pairs of blocks, default 31; 11 with --quick), --block-ms=MS (default 20),
//          --latency-bytes=B (default 8), --bandwidth-bytes=B (default 1048576), --summary=FILE.
// Mode and provider as for bench_p2p_sidecore (SIDECORE_PROGRESS, SIDECORE_PROVIDER). In core mode with 2 ranks
// the progress thread of rank 0 shares core 1 with rank 1 during the raw blocks too (it spins for
// SIDECORE_SPIN_US after the last sidecore block, yielding): raw then runs beside an idle progress thread, which is
// what an application gets when it mixes sidecore with other communication. run-targets.sh uses this program for
// mode off and for the self configuration, and keeps separate programs for core mode with 2 ranks.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "common/p2p.hpp"
#include "common/transport_fabric.hpp"
#include "common/transport_mpi.hpp"
#include "common/transport_sidecore.hpp"

namespace {

std::int64_t positive_option(const scb::options& o, const std::string& key, std::int64_t fallback, std::int64_t max) {
  const std::string v = o.get(key, "");
  if (v.empty()) return fallback;
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (*end != '\0' || n < 1 || n > max) {
    scb::die("--" + key + "=" + v + " is not accepted: give an integer from 1 to " + std::to_string(max));
  }
  return n;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

scb::triple summarize(const std::vector<double>& v) {
  return {median(v), *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end())};
}

}  // namespace

int main(int argc, char** argv) {
  const std::string cmd = scb::command_line(argc, argv);
  scb::mpi_session mpi(&argc, &argv);
  const scb::options o = scb::parse_options(argc, argv, {"blocks", "block-ms", "latency-bytes", "bandwidth-bytes"});
  const std::int64_t blocks = positive_option(o, "blocks", o.quick ? 11 : 31, 10000);
  const std::int64_t block_ms = positive_option(o, "block-ms", 20, 10000);
  const auto lat_bytes = static_cast<std::size_t>(positive_option(o, "latency-bytes", 8, std::int64_t{1} << 30));
  const auto bw_bytes = static_cast<std::size_t>(positive_option(o, "bandwidth-bytes", 1 << 20, std::int64_t{1} << 30));

  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 && size != 1) {
    scb::die("bench_p2p_paired runs on 2 ranks (mpiexec -n 2), or on 1 to send to itself, not " + std::to_string(size));
  }
  const bool self = size == 1;
  scb::fabric_transport raw;
  scb::sidecore_transport sc;
  scb::mpi_transport mp;
  const std::size_t max_bytes = std::max(lat_bytes, bw_bytes);
  scb::p2p_bench<scb::fabric_transport> braw(raw, max_bytes, self, 0);
  scb::p2p_bench<scb::sidecore_transport> bsc(sc, max_bytes, self, 1);
  scb::p2p_bench<scb::mpi_transport> bmpi(mp, max_bytes, self, 2);
  const auto modes = scb::gather_strings(sc.mode());
  const auto pinning = scb::gather_strings(scb::affinity_list());
  if (rank != 0) {
    for (scb::command c = scb::recv_command(0); c.op != scb::op_done; c = scb::recv_command(0)) {
      if (c.pattern == 0) {
        braw.respond_one(c);
      } else if (c.pattern == 1) {
        bsc.respond_one(c);
      } else {
        bmpi.respond_one(c);
      }
    }
    return 0;
  }

  std::printf("# command: %s\n# program: bench_p2p_paired (raw libfabric, sidecore and the system MPI, alternating "
              "blocks)\n",
              cmd.c_str());
  std::printf("# mode: %s\n# provider: raw %s; sidecore %s; mpi %s\n", scb::per_rank(modes).c_str(),
              raw.provider().c_str(), sc.provider().c_str(), mp.provider().c_str());
  std::printf("# configuration: %s\n", self ? "self: 1 rank sending to itself; latency = irecv + isend + both waits"
                                            : "idle peer: 2 ranks, rank 0 measured, rank 1 answers; latency = "
                                              "ping-pong / 2; bandwidth = windows of messages + 0 B ack");
  std::printf("# pinning: cpus allowed at start: %s\n", scb::per_rank(pinning).c_str());
  std::printf("# blocks: %lld rounds of three %lld ms blocks (raw, sidecore, mpi, then mpi, sidecore, raw: sidecore "
              "always between the two it is compared with), ratios per round\n",
              static_cast<long long>(blocks), static_cast<long long>(block_ms));
  std::fflush(stdout);

  scb::summary_file sum(o.summary);
  std::printf("\n%-26s %-24s %-24s %-24s %-22s %-22s %-22s\n", "metric", "raw libfabric", "sidecore", "mpi",
              "sidecore / raw", "sidecore / mpi", "sidecore / better");
  for (int kind = 0; kind < 2; ++kind) {
    const std::size_t bytes = kind == 0 ? lat_bytes : bw_bytes;
    // Iterations per block from one probe of each side (the slower one decides, so no block is shorter).
    const double t_probe = std::max({braw.probe(kind, bytes), bsc.probe(kind, bytes), bmpi.probe(kind, bytes), 1e-9});
    const auto n = std::clamp<std::int64_t>(static_cast<std::int64_t>(static_cast<double>(block_ms) * 1e-3 / t_probe),
                                            kind == 0 ? 100 : 2, 10'000'000);
    // Seconds per iteration -> the metric: one-way latency in µs, or bandwidth in GB/s.
    const double per_iter = kind == 0 ? (self ? 1.0 : 0.5) * 1e6
                                      : static_cast<double>(scb::window_for(bytes)) * static_cast<double>(bytes) / 1e9;
    auto metric = [&](double s) { return kind == 0 ? s * per_iter : per_iter / s; };
    // "better": the faster of raw libfabric and MPI in the same round (lower latency, higher bandwidth).
    std::vector<double> vr, vs, vm, ratio, ratio_mpi, ratio_best;
    for (std::int64_t b = 0; b < blocks; ++b) {
      double tr = 0, ts = 0, tm = 0;
      if (b % 2 == 0) {
        tr = braw.timed(kind, bytes, n);
        ts = bsc.timed(kind, bytes, n);
        tm = bmpi.timed(kind, bytes, n);
      } else {
        tm = bmpi.timed(kind, bytes, n);
        ts = bsc.timed(kind, bytes, n);
        tr = braw.timed(kind, bytes, n);
      }
      vr.push_back(metric(tr));
      vs.push_back(metric(ts));
      vm.push_back(metric(tm));
      ratio.push_back(vs.back() / vr.back());
      ratio_mpi.push_back(vs.back() / vm.back());
      ratio_best.push_back(vs.back() / (kind == 0 ? std::min(vr.back(), vm.back()) : std::max(vr.back(), vm.back())));
    }
    const std::string name = kind == 0 ? "latency_us" : "bandwidth_GBps";
    const std::string units = bytes % (1 << 20) == 0 ? std::to_string(bytes >> 20) + " MiB"
                              : bytes % 1024 == 0     ? std::to_string(bytes >> 10) + " KiB"
                                                      : std::to_string(bytes) + " B";
    const std::string label = units + (kind == 0 ? " latency (us)" : " bandwidth (GB/s)");
    const scb::triple r = summarize(vr), s = summarize(vs), m = summarize(vm), q = summarize(ratio),
                      qm = summarize(ratio_mpi), qb = summarize(ratio_best);
    auto fmt = [](const scb::triple& t) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%.3f [%.3f, %.3f]", t.median, t.min, t.max);
      return std::string(buf);
    };
    std::printf("%-26s %-24s %-24s %-24s %-22s %-22s %-22s\n", label.c_str(), fmt(r).c_str(), fmt(s).c_str(),
                fmt(m).c_str(), fmt(q).c_str(), fmt(qm).c_str(), fmt(qb).c_str());
    sum.row(name + "_raw", std::to_string(bytes), r);
    sum.row(name + "_sidecore", std::to_string(bytes), s);
    sum.row(name + "_mpi", std::to_string(bytes), m);
    sum.row(name + "_ratio", std::to_string(bytes), q);
    sum.row(name + "_ratio_mpi", std::to_string(bytes), qm);
    sum.row(name + "_ratio_best", std::to_string(bytes), qb);
  }
  if (!self) scb::send_command(scb::command{}, 1);  // op_done
  std::fflush(stdout);
  return 0;
}
