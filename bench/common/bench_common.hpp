// sidecore benchmarks — what every two-rank benchmark shares.
//
// The benchmarks follow bench/README.md ("How we measure"): rank 0 is the measured rank and runs Google Benchmark;
// rank 1 (the peer) runs a responder loop driven by commands that rank 0 sends over MPI_COMM_WORLD before each
// benchmark run (operation, size, iteration count), so both sides always agree on what to do whatever Google
// Benchmark's flags (filter, repetitions) select. The control channel is outside every timed region.
//
// Each program prints, besides Google Benchmark's own report, a compact table (size, median, min, max over the
// repetitions) and can write the same rows to a summary file that the driver scripts join into one table.
#pragma once

#include <benchmark/benchmark.h>
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace scb {

using clock = std::chrono::steady_clock;

/// Seconds between two steady_clock points (the only clock used for manual timing here).
inline double seconds_between(clock::time_point a, clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/// Prints a message naming the rank and aborts the whole MPI job: a benchmark that lost its peer must not hang.
[[noreturn]] inline void die(const std::string& what) {
  int rank = -1;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "bench: rank %d: %s\n", rank, what.c_str());
  std::fflush(stderr);
  if (initialized) MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

// ---- options ----------------------------------------------------------------------------------------------------

/// Options shared by the benchmarks; Google Benchmark's own --benchmark_* flags are removed before parsing.
struct options {
  bool quick = false;             ///< --quick: fewer sizes, iterations and repetitions (make demo)
  int repetitions = 0;            ///< --reps=N (0: 5, or 3 with --quick)
  std::string summary;            ///< --summary=FILE: write "metric size median min max" rows for the drivers
  std::string csv;                ///< --csv=FILE: every aggregate row (overlap: the whole sweep)
  bool verbose = false;           ///< --verbose: print the whole sweep in the compact table
  std::map<std::string, std::string> extra;  ///< program-specific --key=value options

  [[nodiscard]] int reps() const { return repetitions > 0 ? repetitions : (quick ? 3 : 5); }
  [[nodiscard]] std::string get(const std::string& key, const std::string& fallback) const {
    auto it = extra.find(key);
    return it == extra.end() ? fallback : it->second;
  }
};

/// Parses our options; `known` lists the program-specific keys accepted as --key=value. Unknown options are
/// rejected with the list of accepted ones (a typo must not silently run the default benchmark).
inline options parse_options(int argc, char** argv, const std::vector<std::string>& known) {
  options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string key = a;
    std::string value;
    if (auto eq = a.find('='); eq != std::string::npos) {
      key = a.substr(0, eq);
      value = a.substr(eq + 1);
    }
    if (key == "--quick") {
      o.quick = true;
    } else if (key == "--verbose") {
      o.verbose = true;
    } else if (key == "--reps") {
      char* end = nullptr;
      long n = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n < 1 || n > 1000)
        die("--reps=" + value + " is not accepted: give an integer from 1 to 1000");
      o.repetitions = static_cast<int>(n);
    } else if (key == "--summary") {
      o.summary = value;
    } else if (key == "--csv") {
      o.csv = value;
    } else if (key.rfind("--", 0) == 0 &&
               std::find(known.begin(), known.end(), key.substr(2)) != known.end() && !value.empty()) {
      o.extra[key.substr(2)] = value;
    } else {
      std::string accepted = "--quick, --verbose, --reps=N, --summary=FILE, --csv=FILE";
      for (const auto& k : known) accepted += ", --" + k + "=VALUE";
      die("option '" + a + "' is not accepted; accepted: " + accepted + " and Google Benchmark's --benchmark_*");
    }
  }
  return o;
}

/// The command line as typed, for the report header.
inline std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

/// The CPUs this thread may run on, as a list ("0", "0-1", "1,3").
inline std::string affinity_list() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "?";
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!out.empty()) out += ',';
    out += last == c ? std::to_string(c) : std::to_string(c) + "-" + std::to_string(last);
    c = last;
  }
  return out;
}

/// One string from every rank, gathered on all ranks (at most 255 characters each).
inline std::vector<std::string> gather_strings(const std::string& mine) {
  constexpr std::size_t width = 256;
  char buf[width] = {};
  std::snprintf(buf, width, "%s", mine.c_str());
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<char> all(static_cast<std::size_t>(size) * width);
  MPI_Allgather(buf, width, MPI_CHAR, all.data(), width, MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (int r = 0; r < size; ++r) out.emplace_back(&all[static_cast<std::size_t>(r) * width]);
  return out;
}

/// "rank0: <a>; rank1: <b>" from one string per rank.
inline std::string per_rank(const std::vector<std::string>& v) {
  std::string out;
  for (std::size_t r = 0; r < v.size(); ++r) out += (r ? "; rank" : "rank") + std::to_string(r) + ": " + v[r];
  return out;
}

/// An environment variable or a fallback.
inline std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

/// Records one key of the report header: Google Benchmark's custom context (in its console and JSON output) and
/// our own header lines, printed on stdout before the run, so that the compact table quoted in notes keeps them.
class header {
 public:
  void add(const std::string& key, const std::string& value) {
    benchmark::AddCustomContext(key, value);
    rows_.emplace_back(key, value);
  }
  void print() const {
    for (const auto& [k, v] : rows_) std::printf("# %s: %s\n", k.c_str(), v.c_str());
    std::fflush(stdout);
  }

 private:
  std::vector<std::pair<std::string, std::string>> rows_;
};

// ---- sizes and iteration counts -------------------------------------------------------------------------------

/// 0 and the powers of two from 1 B to `max` (p2p), or a short list with --quick.
inline std::vector<std::size_t> p2p_sizes(bool quick, std::size_t max = std::size_t{16} << 20) {
  if (quick) return {0, 8, 64, 1024, 16384, 131072, 1 << 20, max};
  std::vector<std::size_t> s{0};
  for (std::size_t b = 1; b <= max; b *= 2) s.push_back(b);
  return s;
}

/// Iterations for a message size: about `budget` bytes per repetition, within [lo, hi].
inline std::int64_t iterations_for(std::size_t bytes, std::size_t budget, std::int64_t lo, std::int64_t hi) {
  auto n = static_cast<std::int64_t>(budget / std::max<std::size_t>(bytes, 1));
  return std::clamp(n, lo, hi);
}

/// "8", "1K", "16M": compact size labels for benchmark names and tables.
inline std::string size_label(std::size_t b) {
  if (b >= (1u << 20) && b % (1u << 20) == 0) return std::to_string(b >> 20) + "M";
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + "K";
  return std::to_string(b);
}

// ---- control channel (MPI_COMM_WORLD, outside timed regions) --------------------------------------------------

/// What rank 0 asks the peer to do next. One command per benchmark run; `op == 0` ends the responder loop.
struct command {
  std::int64_t op = 0;
  std::int64_t pattern = 0;     ///< program-specific sub-operation
  std::int64_t bytes = 0;
  std::int64_t iterations = 0;  ///< timed iterations
  std::int64_t warmup = 0;      ///< untimed iterations before them
  std::int64_t window = 0;      ///< bandwidth: messages in flight per iteration
  std::int64_t peer_sleep_ns = 0;  ///< overlap: the peer's "computation", slept (idle-peer configuration)
};
inline constexpr int control_tag = 7001;

inline void send_command(const command& c, int peer) {
  MPI_Send(&c, sizeof c, MPI_BYTE, peer, control_tag, MPI_COMM_WORLD);
}

/// Receives the next command without spinning: the peer may share its core with rank 0's progress thread
/// (core mode on 2 cores), so between runs it polls every 50 µs instead of busy-waiting in MPI_Recv.
inline command recv_command(int from) {
  command c;
  MPI_Request r;
  MPI_Irecv(&c, sizeof c, MPI_BYTE, from, control_tag, MPI_COMM_WORLD, &r);
  for (int done = 0;;) {
    MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    if (done) break;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return c;
}

// ---- aggregates and the compact table -------------------------------------------------------------------------

/// Registers min and max next to Google Benchmark's default mean/median/stddev/cv.
inline benchmark::internal::Benchmark* with_min_max(benchmark::internal::Benchmark* b) {
  return b
      ->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
      ->ComputeStatistics("max", [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); });
}

/// One value's median, min and max over the repetitions.
struct triple {
  double median = 0, min = 0, max = 0;
};

/// A console reporter that also keeps the median/min/max aggregates, by benchmark name and value
/// ("time" = the reported time in the benchmark's unit, or a counter's name).
class table_reporter : public benchmark::ConsoleReporter {
 public:
  // Colour only on a terminal: the driver scripts capture the output into files.
  table_reporter() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Aggregate) {
        // One repetition (--reps=1) makes no aggregates: the single run is its own median, min and max.
        if (r.repetitions != 1) continue;
        auto& by_value = results_[r.run_name.function_name];
        by_value["time"] = triple{r.GetAdjustedRealTime(), r.GetAdjustedRealTime(), r.GetAdjustedRealTime()};
        for (const auto& [name, counter] : r.counters)
          by_value[name] = triple{counter.value, counter.value, counter.value};
        continue;
      }
      const std::string& agg = r.aggregate_name;
      if (agg != "median" && agg != "min" && agg != "max") continue;
      auto& by_value = results_[r.run_name.function_name];
      set(by_value["time"], agg, r.GetAdjustedRealTime());
      for (const auto& [name, counter] : r.counters) set(by_value[name], agg, counter.value);
    }
  }
  /// The aggregates of one value of one benchmark, or nullptr when it did not run (filtered out).
  [[nodiscard]] const triple* find(const std::string& bench, const std::string& value) const {
    auto b = results_.find(bench);
    if (b == results_.end()) return nullptr;
    auto v = b->second.find(value);
    return v == b->second.end() ? nullptr : &v->second;
  }

 private:
  static void set(triple& t, const std::string& agg, double v) {
    if (agg == "median") t.median = v;
    if (agg == "min") t.min = v;
    if (agg == "max") t.max = v;
  }
  std::map<std::string, std::map<std::string, triple>> results_;
};

/// Rows for the summary file: "metric<TAB>size<TAB>median<TAB>min<TAB>max".
class summary_file {
 public:
  explicit summary_file(const std::string& path) {
    if (path.empty()) return;
    out_.open(path);
    if (!out_) die("cannot write the summary file '" + path + "'");
  }
  void row(const std::string& metric, const std::string& size, const triple& t) {
    if (out_) out_ << metric << '\t' << size << '\t' << t.median << '\t' << t.min << '\t' << t.max << '\n';
  }

 private:
  std::ofstream out_;
};

}  // namespace scb
