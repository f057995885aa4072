// Point-to-point overlap of computation and communication, the micro-benchmark of seed 000 Section 3 and
// bench/README.md ("How we measure"), in the idle-peer configuration.
//
// Rank 0 is measured. For each pattern, size and computation length it times, per repetition:
//   t_comm  — init → wait with no computation (the transfer alone),
//   t_comp  — the computation alone (a calibrated spin loop on rank 0's core, compute.hpp),
//   t_total — init → compute → wait,
// each the median over the phase's iterations (robust to the scheduler hiccups of a shared 2-core machine), and
//   overlap % = 100 * (t_comm + t_comp - t_total) / min(t_comm, t_comp), clipped to [0, 100].
// The computation is a fixed multiple (0, 0.5, 1, 2, 4) of a t_comm measured once per pattern and size before
// the benchmarks, so every repetition does the same work.
//
// Patterns, named after rank 0's side (the nonblocking side; the peer's calls are blocking):
//   sender   (Isend–Recv): rank 0 isend, compute, wait; the peer has its receive posted (a blocking Recv).
//   receiver (Send–Irecv): rank 0 irecv, compute, wait; the peer sends (blocking) once rank 0 has posted.
//   both     (Isend–Irecv): rank 0 irecv + isend, compute, wait both; the peer irecv + isend, "computes" by
//            sleeping as long as rank 0 computes (--peer-compute=sleep, the default; none skips it), waits both.
// Between iterations a 0-byte message over the transport under test orders the two sides; it is not timed.
//
// Self (run on 1 rank): rank 0 sends to itself, so no peer has to share the progress core on a 2-core machine.
//   sender:   irecv posted untimed; timed isend, compute, wait(send); the receive is then waited untimed.
//   receiver: timed irecv, isend (the "remote" send, not waited), compute, wait(recv); the send waited untimed.
//   both:     timed irecv, isend, compute, wait both.
#pragma once

#include <sys/prctl.h>

#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "compute.hpp"

namespace scb {

enum overlap_pattern : std::int64_t { pat_sender = 0, pat_receiver = 1, pat_both = 2 };
inline constexpr std::array<const char*, 3> pattern_names{"sender", "receiver", "both"};
inline constexpr std::array<const char*, 3> pattern_calls{"Isend-Recv", "Send-Irecv", "Isend-Irecv"};
inline constexpr std::int64_t op_overlap = 3;
inline constexpr int sync_tag = 3;

/// The overlap % of bench/README.md, clipped to [0, 100]; NaN when there is nothing to overlap (no computation).
inline double overlap_percent(double t_comm, double t_comp, double t_total) {
  const double denom = std::min(t_comm, t_comp);
  if (!(denom > 0)) return std::nan("");
  return std::clamp(100.0 * (t_comm + t_comp - t_total) / denom, 0.0, 100.0);
}

inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

/// "0", "0.5", "1", "2", "4": the computation as a multiple of t_comm.
inline std::string factor_label(double f) {
  char s[32];
  std::snprintf(s, sizeof s, "%g", f);
  return s;
}

template <class T>
class overlap_bench {
 public:
  overlap_bench(T& t, std::size_t max_bytes, bool peer_sleeps, bool self)
      : t_(t), max_(std::max<std::size_t>(max_bytes, 1)), peer_sleeps_(peer_sleeps), self_(self) {
    sbuf_ = std::make_unique<char[]>(max_);
    rbuf_ = std::make_unique<char[]>(max_);
    std::memset(sbuf_.get(), 1, max_);  // first touch outside any timed region
    std::memset(rbuf_.get(), 0, max_);
  }

  [[nodiscard]] const spinner& spin() const { return spin_; }

  /// Median t_comm (seconds) of one pattern and size: sets the computation lengths of the sweep.
  double reference_t_comm(overlap_pattern p, std::size_t bytes, std::int64_t iters) {
    return median_of(comm_phase(p, bytes, iters));
  }

  /// One repetition of one point of the sweep; Google Benchmark's time is t_total per iteration.
  void run(benchmark::State& st, overlap_pattern p, std::size_t bytes, double comp_seconds) {
    const std::int64_t iters = st.max_iterations;
    const double t_comm = median_of(comm_phase(p, bytes, iters));

    const std::uint64_t steps = spin_.steps_for(comp_seconds);
    std::vector<double> comp(static_cast<std::size_t>(iters));
    for (auto& c : comp) {
      auto t0 = clock::now();
      spinner::run(steps);
      c = seconds_between(t0, clock::now());
    }
    const double t_comp = steps ? median_of(comp) : 0.0;

    if (!self_)
      send_command(command{op_overlap, p, static_cast<std::int64_t>(bytes), iters, warmup, 0,
                           peer_sleeps_ ? static_cast<std::int64_t>(comp_seconds * 1e9) : 0},
                   1);
    for (int i = 0; i < warmup; ++i) one(p, bytes, steps);
    std::vector<double> total;
    total.reserve(static_cast<std::size_t>(iters));
    for (auto _ : st) {
      total.push_back(one(p, bytes, steps));
      st.SetIterationTime(total.back());
    }
    const double t_total = median_of(total);
    st.counters["t_comm_us"] = t_comm * 1e6;
    st.counters["t_comp_us"] = t_comp * 1e6;
    st.counters["t_total_us"] = t_total * 1e6;
    if (const double ov = overlap_percent(t_comm, t_comp, t_total); !std::isnan(ov)) st.counters["overlap_pct"] = ov;
  }

  /// Rank 1: answers rank 0's commands until it says done. It never spins to compute: it sleeps.
  void respond() {
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);  // sleep for the time asked, not 50 µs more
    for (;;) {
      command c = recv_command(0);
      if (c.op == 0) return;
      if (c.op != op_overlap) die("unknown command " + std::to_string(c.op));
      for (std::int64_t i = 0; i < c.warmup + c.iterations; ++i)
        peer_one(static_cast<overlap_pattern>(c.pattern), static_cast<std::size_t>(c.bytes), c.peer_sleep_ns);
    }
  }

 private:
  static constexpr int warmup = 2;

  std::vector<double> comm_phase(overlap_pattern p, std::size_t bytes, std::int64_t iters) {
    if (!self_) send_command(command{op_overlap, p, static_cast<std::int64_t>(bytes), iters, warmup, 0, 0}, 1);
    for (int i = 0; i < warmup; ++i) one(p, bytes, 0);
    std::vector<double> v(static_cast<std::size_t>(iters));
    for (auto& x : v) x = one(p, bytes, 0);
    return v;
  }

  /// One timed iteration on rank 0: seconds from the initiation to the end of the wait.
  double one(overlap_pattern p, std::size_t bytes, std::uint64_t steps) {
    char* sb = sbuf_.get();
    char* rb = rbuf_.get();
    if (self_) return one_self(p, bytes, steps);
    if (p == pat_sender) {
      t_.recv(rb, 0, 1, sync_tag);  // the peer's receive is posted
      auto t0 = clock::now();
      auto s = t_.isend(sb, bytes, 1, data_tag_);
      spinner::run(steps);
      t_.wait(s);
      return seconds_between(t0, clock::now());
    }
    if (p == pat_receiver) {
      auto t0 = clock::now();
      auto r = t_.irecv(rb, bytes, 1, data_tag_);
      t_.send(sb, 0, 1, sync_tag);  // posted: the peer may send (0 B, inside the region in every phase alike)
      spinner::run(steps);
      t_.wait(r);
      return seconds_between(t0, clock::now());
    }
    t_.recv(rb, 0, 1, sync_tag);
    auto t0 = clock::now();
    auto r = t_.irecv(rb, bytes, 1, data_tag_);
    auto s = t_.isend(sb, bytes, 1, data_tag_);
    spinner::run(steps);
    t_.wait(s);
    t_.wait(r);
    return seconds_between(t0, clock::now());
  }

  /// One timed iteration of the self configuration (rank 0 sends to itself).
  double one_self(overlap_pattern p, std::size_t bytes, std::uint64_t steps) {
    char* sb = sbuf_.get();
    char* rb = rbuf_.get();
    if (p == pat_sender) {
      auto r = t_.irecv(rb, bytes, 0, data_tag_);
      auto t0 = clock::now();
      auto s = t_.isend(sb, bytes, 0, data_tag_);
      spinner::run(steps);
      t_.wait(s);
      const double dt = seconds_between(t0, clock::now());
      t_.wait(r);
      return dt;
    }
    auto t0 = clock::now();
    auto r = t_.irecv(rb, bytes, 0, data_tag_);
    auto s = t_.isend(sb, bytes, 0, data_tag_);
    spinner::run(steps);
    t_.wait(r);
    if (p == pat_receiver) {
      const double dt = seconds_between(t0, clock::now());
      t_.wait(s);
      return dt;
    }
    t_.wait(s);
    return seconds_between(t0, clock::now());
  }

  /// The peer's side of one iteration: blocking calls only, and sleep where the pattern computes.
  void peer_one(overlap_pattern p, std::size_t bytes, std::int64_t sleep_ns) {
    char* sb = sbuf_.get();
    char* rb = rbuf_.get();
    if (p == pat_sender) {
      auto r = t_.irecv(rb, bytes, 0, data_tag_);
      t_.send(sb, 0, 0, sync_tag);
      t_.wait(r);
    } else if (p == pat_receiver) {
      t_.recv(rb, 0, 0, sync_tag);
      t_.send(sb, bytes, 0, data_tag_);
    } else {
      auto r = t_.irecv(rb, bytes, 0, data_tag_);
      t_.send(sb, 0, 0, sync_tag);
      auto s = t_.isend(sb, bytes, 0, data_tag_);
      if (sleep_ns > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(sleep_ns));
      t_.wait(s);
      t_.wait(r);
    }
  }

  static constexpr int data_tag_ = 1;
  T& t_;
  std::size_t max_;
  bool peer_sleeps_;
  bool self_;
  spinner spin_;
  std::unique_ptr<char[]> sbuf_, rbuf_;
};

/// Sizes of the sweep: 1 KiB to 8 MiB (powers of 4, then 8 MiB), or 4 sizes with --quick.
inline std::vector<std::size_t> overlap_sizes(bool quick) {
  if (quick) return {1024, 65536, 1 << 20, 8 << 20};
  return {1024, 4096, 16384, 65536, 262144, 1 << 20, 4 << 20, 8 << 20};
}

/// The program after MPI_Init and the transport's set-up.
template <class T>
int run_overlap(const options& o, const std::string& cmdline, T& t) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 && size != 1)
    die("bench_overlap runs on 2 ranks (mpiexec -n 2), or on 1 to send to itself, not " + std::to_string(size));
  const bool self = size == 1;

  const std::string peer_compute = o.get("peer-compute", "sleep");
  if (peer_compute != "sleep" && peer_compute != "none")
    die("--peer-compute=" + peer_compute + " is not accepted: give sleep or none");
  const std::string rf = o.get("report-factor", "1");
  char* rf_end = nullptr;
  const double report_factor = std::strtod(rf.c_str(), &rf_end);
  const std::vector<double> factors = o.quick ? std::vector<double>{0, 1, 2} : std::vector<double>{0, 0.5, 1, 2, 4};
  if (rf.empty() || *rf_end != '\0' || report_factor <= 0 ||
      std::find(factors.begin(), factors.end(), report_factor) == factors.end())
    die("--report-factor=" + rf + " is not accepted: give a point of the sweep with computation (0.5, 1, 2, 4; " +
        "--quick: 1, 2)");

  const auto sizes = overlap_sizes(o.quick);
  overlap_bench<T> bench(t, sizes.back(), peer_compute == "sleep", self);
  const auto modes = gather_strings(t.mode());
  const auto pinning = gather_strings(affinity_list());
  if (rank != 0) {
    bench.respond();
    return 0;
  }

  // Fixed iteration counts per side and size, agreed with the peer through each phase's command: about
  // `bytes_budget` bytes and at most `time_budget` seconds of transfer per phase, within [lo, hi].
  const std::size_t bytes_budget = o.quick ? (std::size_t{32} << 20) : (std::size_t{128} << 20);
  const double time_budget = o.quick ? 0.005 : 0.02;
  const std::int64_t lo = o.quick ? 10 : 20, hi = o.quick ? 100 : 400;
  auto iters_for = [&](std::size_t b, double t_comm) {
    const auto by_time = static_cast<std::int64_t>(time_budget / std::max(t_comm, 1e-9));
    return std::clamp(std::min(iterations_for(b, bytes_budget, lo, hi), by_time), lo, hi);
  };

  header h;
  h.add("command", cmdline);
  h.add("program", "bench_overlap (" + t.name() + ")");
  h.add("mode", per_rank(modes));
  h.add("provider", t.provider());
  const std::string spin_ns = std::to_string(bench.spin().ns_per_step()).substr(0, 5);
  const std::string formula = "; overlap = 100*(t_comm+t_comp-t_total)/min(t_comm,t_comp) from per-phase medians, "
                              "clipped to [0,100]; reported at t_comp = " + factor_label(report_factor) + " x t_comm";
  if (self)
    h.add("configuration", "self: 1 rank sending to itself (no peer), computes with a calibrated spin loop (" +
                               spin_ns + " ns/step)" + formula);
  else
    h.add("configuration",
          "idle-peer: rank 0 measured, computes with a calibrated spin loop (" + spin_ns +
              " ns/step); rank 1 only communicates with blocking calls and, in 'both', " +
              (peer_compute == "sleep" ? "sleeps while rank 0 computes (--peer-compute=sleep)"
                                       : "does not compute (--peer-compute=none)") + formula);
  h.add("pinning", "cpus allowed after init: " + per_rank(pinning));
  h.add("repetitions", std::to_string(o.reps()) + (o.quick ? " (--quick)" : ""));
  h.print();

  // t_comm once per pattern and size: the computation of every repetition is a fixed multiple of it.
  std::map<std::pair<int, std::size_t>, double> ref;
  for (int p = 0; p < 3; ++p)
    for (std::size_t b : sizes)
      ref[{p, b}] = bench.reference_t_comm(static_cast<overlap_pattern>(p), b, lo);

  auto bench_name = [](int p, std::size_t b, double f) {
    return std::string("overlap/") + pattern_names[static_cast<std::size_t>(p)] + "/" + size_label(b) + "/x" +
           factor_label(f);
  };
  for (int p = 0; p < 3; ++p)
    for (std::size_t b : sizes)
      for (double f : factors) {
        const double comp = f * ref[{p, b}];
        with_min_max(benchmark::RegisterBenchmark(bench_name(p, b, f).c_str(),
                                                  [&bench, p, b, comp](benchmark::State& st) {
                                                    bench.run(st, static_cast<overlap_pattern>(p), b, comp);
                                                  }))
            ->Iterations(iters_for(b, ref[{p, b}]))
            ->Repetitions(o.reps())
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond)
            ->DisplayAggregatesOnly(true);
      }

  table_reporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  if (!self) send_command(command{}, 1);

  // Compact table: per size, t_comm and the overlap at the reported point, for each pattern.
  summary_file sum(o.summary);
  std::FILE* csv = o.csv.empty() ? nullptr : std::fopen(o.csv.c_str(), "w");
  if (!o.csv.empty() && !csv) die("cannot write the CSV file '" + o.csv + "'");
  if (csv)
    std::fprintf(csv, "impl,pattern,bytes,factor,t_comm_us,t_comp_us,t_total_us,overlap_median,overlap_min,"
                      "overlap_max\n");
  std::printf("\nbench_overlap — %s; overlap %% at t_comp = %s x t_comm, median [min, max] over %d repetitions\n",
              modes[0].c_str(), factor_label(report_factor).c_str(), o.reps());
  std::printf("sides (rank 0's calls first): sender = %s, receiver = %s, both = %s%s\n", pattern_calls[0],
              pattern_calls[1], pattern_calls[2], self ? "; self: rank 0 is both ends" : "");
  std::printf("%6s", "size");
  for (int p = 0; p < 3; ++p) std::printf("  %10s %-28s", "t_comm us", pattern_names[static_cast<std::size_t>(p)]);
  std::printf("\n");
  for (std::size_t b : sizes) {
    std::printf("%6s", size_label(b).c_str());
    for (int p = 0; p < 3; ++p) {
      const std::string pn = pattern_names[static_cast<std::size_t>(p)];
      for (double f : factors) {
        const std::string name = bench_name(p, b, f);
        const triple* ov = rep.find(name, "overlap_pct");
        const triple* tc = rep.find(name, "t_comm_us");
        if (ov) sum.row("overlap_" + pn + "_x" + factor_label(f), std::to_string(b), *ov);
        if (csv && tc) {
          const triple* tp = rep.find(name, "t_comp_us");
          const triple* tt = rep.find(name, "t_total_us");
          std::fprintf(csv, "%s,%s,%zu,%g,%.3f,%.3f,%.3f,", t.label().c_str(), pn.c_str(), b, f,
                       tc->median, tp ? tp->median : 0.0, tt ? tt->median : 0.0);
          if (ov)
            std::fprintf(csv, "%.1f,%.1f,%.1f\n", ov->median, ov->min, ov->max);
          else
            std::fprintf(csv, ",,\n");
        }
        if (f != report_factor) continue;
        if (ov) sum.row("overlap_" + pn, std::to_string(b), *ov);
        if (tc) sum.row("tcomm_us_" + pn, std::to_string(b), *tc);
        char cell[64] = "-";
        if (ov) std::snprintf(cell, sizeof cell, "%5.1f [%5.1f, %5.1f]", ov->median, ov->min, ov->max);
        std::printf("  %10.2f %-28s", tc ? tc->median : 0.0, cell);
      }
    }
    std::printf("\n");
  }
  if (o.verbose) {
    std::printf(
        "\nwhole sweep: pattern size factor t_comm t_comp t_total (us, medians) overlap %% median [min, max]\n");
    for (int p = 0; p < 3; ++p)
      for (std::size_t b : sizes)
        for (double f : factors) {
          const std::string name = bench_name(p, b, f);
          const triple* tc = rep.find(name, "t_comm_us");
          if (!tc) continue;
          const triple* tp = rep.find(name, "t_comp_us");
          const triple* tt = rep.find(name, "t_total_us");
          const triple* ov = rep.find(name, "overlap_pct");
          std::printf("%-8s %6s x%-4s %10.2f %10.2f %10.2f  ", pattern_names[static_cast<std::size_t>(p)],
                      size_label(b).c_str(), factor_label(f).c_str(), tc->median, tp ? tp->median : 0.0,
                      tt ? tt->median : 0.0);
          if (ov)
            std::printf("%5.1f [%5.1f, %5.1f]\n", ov->median, ov->min, ov->max);
          else
            std::printf("    -\n");
        }
  }
  if (csv) std::fclose(csv);
  std::fflush(stdout);
  return 0;
}

}  // namespace scb
