// Point-to-point latency and bandwidth, one loop for every transport (raw libfabric, MPI, sidecore), so that
// the ratios between them measure the transports and nothing else.
//
// Latency: ping-pong. Rank 0 pre-posts its receive, sends, waits for both; the peer receives then sends back.
// The reported time is half the round trip, averaged over a batch timed as a whole (one clock read per batch,
// so the timer does not weigh on sub-microsecond latencies).
// Bandwidth: streaming, as osu_bw. Rank 0 sends a window of messages from one buffer, waits for all of them, and
// the peer acknowledges each window with a 0-byte message; bytes per second over the whole batch.
// Self (run on 1 rank): rank 0 sends to itself — latency = irecv + isend + both waits, bandwidth = windows of such
// pairs. No peer shares a core with anything, which is how core mode's own cost is measured on a 2-core machine.
#pragma once

#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace scb {

enum p2p_op : std::int64_t { op_done = 0, op_pingpong = 1, op_stream = 2 };
inline constexpr int data_tag = 1;
inline constexpr int ack_tag = 2;

/// Messages in flight per bandwidth iteration: 64 as osu_bw, fewer for large messages (64 MiB per window at most).
inline std::int64_t window_for(std::size_t bytes) {
  return std::clamp<std::int64_t>(static_cast<std::int64_t>((std::size_t{64} << 20) / std::max<std::size_t>(bytes, 1)),
                                  2, 64);
}

template <class T>
class p2p_bench {
 public:
  /// `which` goes in every command's `pattern` field: a program that runs several transports side by side
  /// (bench_p2p_paired) tells the peer which one answers.
  p2p_bench(T& t, std::size_t max_bytes, bool self, std::int64_t which = 0)
      : t_(t), max_(max_bytes), self_(self), peer_(self ? 0 : 1), which_(which) {
    // Touch both buffers once so that first-touch page faults are never timed.
    sbuf_ = std::make_unique<char[]>(std::max<std::size_t>(max_, 1));
    rbuf_ = std::make_unique<char[]>(std::max<std::size_t>(max_, 1));
    std::memset(sbuf_.get(), 1, std::max<std::size_t>(max_, 1));
    std::memset(rbuf_.get(), 0, std::max<std::size_t>(max_, 1));
  }

  // ---- rank 0 ----
  void latency(benchmark::State& st, std::size_t bytes) {
    command c{op_pingpong, which_, static_cast<std::int64_t>(bytes), st.max_iterations, warmup(st), 0, 0};
    if (!self_) send_command(c, 1);
    for (std::int64_t i = 0; i < c.warmup; ++i) ping(bytes);
    std::int64_t left = st.max_iterations;
    const double one_way = self_ ? 1.0 : 0.5;  // a ping-pong is two one-way trips, a message to self one
    auto t0 = clock::now();
    for (auto _ : st) {
      ping(bytes);
      if (--left == 0) st.SetIterationTime(seconds_between(t0, clock::now()) * one_way);
    }
  }

  void bandwidth(benchmark::State& st, std::size_t bytes) {
    const std::int64_t window = window_for(bytes);
    command c{op_stream, which_, static_cast<std::int64_t>(bytes), st.max_iterations, warmup(st), window, 0};
    if (!self_) send_command(c, 1);
    std::vector<typename T::request> reqs(static_cast<std::size_t>(self_ ? 2 * window : window));
    for (std::int64_t i = 0; i < c.warmup; ++i) stream_send(bytes, reqs);
    std::int64_t left = st.max_iterations;
    auto t0 = clock::now();
    for (auto _ : st) {
      stream_send(bytes, reqs);
      if (--left == 0) st.SetIterationTime(seconds_between(t0, clock::now()));
    }
    st.SetBytesProcessed(st.iterations() * window * static_cast<std::int64_t>(bytes));
  }

  /// Seconds per iteration of latency (kind 0) or bandwidth (kind 1) at `bytes`, from a few untimed iterations:
  /// sets the fixed iteration counts, so a slow configuration (a peer that sleeps in its waits) keeps the run short.
  double probe(int kind, std::size_t bytes) { return timed(kind, bytes, 4); }

  /// Seconds per iteration of latency (kind 0: a ping-pong, or one message to self) or bandwidth (kind 1: a window
  /// and its acknowledgement) at `bytes`, over `n` iterations after one untimed.
  double timed(int kind, std::size_t bytes, std::int64_t n) {
    const std::int64_t window = window_for(bytes);
    command c{kind == 0 ? op_pingpong : op_stream, which_, static_cast<std::int64_t>(bytes), n, 1, window, 0};
    if (!self_) send_command(c, 1);
    std::vector<typename T::request> reqs(static_cast<std::size_t>(self_ ? 2 * window : window));
    auto once = [&] { kind == 0 ? ping(bytes) : stream_send(bytes, reqs); };
    once();
    auto t0 = clock::now();
    for (std::int64_t i = 0; i < n; ++i) once();
    return seconds_between(t0, clock::now()) / static_cast<double>(n);
  }

  // ---- rank 1 ----
  /// Answers rank 0's commands until it says done.
  void respond() {
    for (command c = recv_command(0); c.op != op_done; c = recv_command(0)) respond_one(c);
  }

  /// Runs one command of rank 0's (not op_done).
  void respond_one(const command& c) {
    const auto bytes = static_cast<std::size_t>(c.bytes);
    const std::int64_t n = c.warmup + c.iterations;
    if (c.op == op_pingpong) {
      for (std::int64_t i = 0; i < n; ++i) pong(bytes);
    } else if (c.op == op_stream) {
      std::vector<typename T::request> reqs(static_cast<std::size_t>(c.window));
      for (std::int64_t i = 0; i < n; ++i) stream_recv(bytes, reqs);
    } else {
      die("unknown command " + std::to_string(c.op));
    }
  }

 private:
  static std::int64_t warmup(const benchmark::State& st) { return std::min<std::int64_t>(st.max_iterations, 10); }

  void ping(std::size_t bytes) {
    auto r = t_.irecv(rbuf_.get(), bytes, peer_, data_tag);
    auto s = t_.isend(sbuf_.get(), bytes, peer_, data_tag);
    t_.wait(s);
    t_.wait(r);
  }
  void pong(std::size_t bytes) {
    auto r = t_.irecv(rbuf_.get(), bytes, 0, data_tag);
    t_.wait(r);
    auto s = t_.isend(sbuf_.get(), bytes, 0, data_tag);
    t_.wait(s);
  }
  void stream_send(std::size_t bytes, std::vector<typename T::request>& reqs) {
    if (self_) {  // receives posted first, then the sends, as a peer with pre-posted receives would see them
      const std::size_t w = reqs.size() / 2;
      for (std::size_t i = 0; i < w; ++i) reqs[i] = t_.irecv(rbuf_.get(), bytes, 0, data_tag);
      for (std::size_t i = w; i < 2 * w; ++i) reqs[i] = t_.isend(sbuf_.get(), bytes, 0, data_tag);
      t_.waitall(std::span(reqs));
      return;
    }
    for (auto& r : reqs) r = t_.isend(sbuf_.get(), bytes, 1, data_tag);
    t_.waitall(std::span(reqs));
    t_.recv(rbuf_.get(), 0, 1, ack_tag);
  }
  void stream_recv(std::size_t bytes, std::vector<typename T::request>& reqs) {
    for (auto& r : reqs) r = t_.irecv(rbuf_.get(), bytes, 0, data_tag);
    t_.waitall(std::span(reqs));
    t_.send(sbuf_.get(), 0, 0, ack_tag);
  }

  T& t_;
  std::size_t max_;
  bool self_;
  int peer_;
  std::int64_t which_;
  std::unique_ptr<char[]> sbuf_, rbuf_;
};

/// The whole program after MPI_Init and the transport's set-up: options, header, benchmarks on rank 0, the
/// responder on rank 1, the compact table and the summary file.
template <class T>
int run_p2p(int argc, char** argv, const std::string& cmdline, const std::string& program, T& t) {
  options o = parse_options(argc, argv, {});
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 && size != 1)
    die(program + " runs on 2 ranks (mpiexec -n 2), or on 1 to send to itself, not " + std::to_string(size));
  const bool self = size == 1;

  const auto sizes = p2p_sizes(o.quick);
  p2p_bench<T> bench(t, sizes.back(), self);
  const auto modes = gather_strings(t.mode());
  const auto pinning = gather_strings(affinity_list());
  if (rank != 0) {
    bench.respond();
    return 0;
  }

  header h;
  h.add("command", cmdline);
  h.add("program", program + " (" + t.name() + ")");
  h.add("mode", per_rank(modes));
  h.add("provider", t.provider());
  h.add("configuration",
        self ? "self: 1 rank sending to itself (no peer); latency = irecv + isend + both waits; "
               "bandwidth = windows of up to 64 receive/send pairs"
             : "2 ranks on one host; rank 0 measured (Google Benchmark), rank 1 responds; latency = "
               "ping-pong / 2 with pre-posted receive; bandwidth = windows of up to 64 messages + 0 B ack");
  h.add("pinning", "cpus allowed at start: " + per_rank(pinning));
  h.add("repetitions", std::to_string(o.reps()) + (o.quick ? " (--quick)" : ""));
  h.print();

  // Fixed iteration counts, agreed with the peer through each run's command: about `bytes_budget` bytes and at
  // most `time_budget` seconds per repetition (from a probe), within [lo, hi].
  const std::size_t bytes_budget = o.quick ? (std::size_t{16} << 20) : (std::size_t{128} << 20);
  const double time_budget = o.quick ? 0.02 : 0.1;
  const std::int64_t max_iters = o.quick ? 2000 : 20000;
  auto iterations = [&](int kind, std::size_t b, std::size_t bytes_per_iter, std::int64_t lo, std::int64_t hi) {
    const double t_iter = std::max(bench.probe(kind, b), 1e-9);
    const auto by_time = static_cast<std::int64_t>(time_budget / t_iter);
    return std::clamp(std::min(iterations_for(bytes_per_iter, bytes_budget, lo, hi), by_time), lo, hi);
  };
  for (std::size_t b : sizes) {
    with_min_max(benchmark::RegisterBenchmark(("latency/" + size_label(b)).c_str(),
                                              [&bench, b](benchmark::State& st) { bench.latency(st, b); }))
        ->Iterations(iterations(0, b, b, 10, max_iters))
        ->Repetitions(o.reps())
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->DisplayAggregatesOnly(true);
  }
  for (std::size_t b : sizes) {
    if (b == 0) continue;  // no bandwidth of nothing
    const auto bytes_per_iter = static_cast<std::size_t>(window_for(b)) * b;
    with_min_max(benchmark::RegisterBenchmark(("bandwidth/" + size_label(b)).c_str(),
                                              [&bench, b](benchmark::State& st) { bench.bandwidth(st, b); }))
        ->Iterations(iterations(1, b, bytes_per_iter / 2, 3, max_iters / 10))
        ->Repetitions(o.reps())
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->DisplayAggregatesOnly(true);
  }

  table_reporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  if (!self) send_command(command{}, 1);  // op_done

  // The compact table: what the read-me and the notes quote.
  summary_file sum(o.summary);
  std::printf("\n%s — %s, provider %s; median [min, max] over %d repetitions\n", program.c_str(), t.name().c_str(),
              t.provider().c_str(), o.reps());
  std::printf("%8s  %32s  %32s\n", "size", "one-way latency (us)", "bandwidth (GB/s, 1e9 B/s)");
  for (std::size_t b : sizes) {
    const triple* lat = rep.find("latency/" + size_label(b), "time");
    const triple* bw = rep.find("bandwidth/" + size_label(b), "bytes_per_second");
    if (!lat && !bw) continue;
    char lat_s[64] = "-", bw_s[64] = "-";
    if (lat) {
      std::snprintf(lat_s, sizeof lat_s, "%9.3f [%9.3f, %9.3f]", lat->median, lat->min, lat->max);
      sum.row("latency_us", std::to_string(b), *lat);
    }
    if (bw) {
      triple g{bw->median / 1e9, bw->min / 1e9, bw->max / 1e9};
      std::snprintf(bw_s, sizeof bw_s, "%9.3f [%9.3f, %9.3f]", g.median, g.min, g.max);
      sum.row("bandwidth_GBps", std::to_string(b), g);
    }
    std::printf("%8s  %32s  %32s\n", size_label(b).c_str(), lat_s, bw_s);
  }
  std::fflush(stdout);
  benchmark::Shutdown();
  return 0;
}

/// MPI_Init_thread / MPI_Finalize around everything else (declared first in main, destroyed last).
struct mpi_session {
  mpi_session(int* argc, char*** argv) {
    int provided = 0;
    // FUNNELED: only the main thread calls MPI here (sidecore's progress thread never does).
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  }
  ~mpi_session() { MPI_Finalize(); }
  mpi_session(const mpi_session&) = delete;
  mpi_session& operator=(const mpi_session&) = delete;
};

}  // namespace scb
