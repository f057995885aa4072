// sidecore-loggp-probe: measures PRTT(n, d, s) as seed 001 Section 2 defines it, through sidecore (the mode
// and provider of the environment: SIDECORE_PROGRESS, SIDECORE_PROVIDER) and through the system MPI, in one
// run of 2 ranks, and writes the measurement file `sidecore loggp` fits (docs/loggp.md).
//
//   mpiexec -n 2 sidecore-loggp-probe --output prtt.json [--max-bytes 16777216] [--per-octave 4]
//                                     [--reps 11] [--n 10] [--sample-ns 50000] [--transports sidecore,mpi]
//
// Rank 0 is the client, rank 1 the server. Per size s and transport, each a median over --reps samples
// after one warm-up, measured in rounds over all sizes (measured(), below); a sample is the mean of as many
// back-to-back measurements as fill --sample-ns (at least one):
//   PRTT(1,0,s)  client: send s, receive s;             server: receive, send
//   PRTT(n,0,s)  client: n sends back to back, receive; server: n receives, send
//   PRTT(n,d,s)  as PRTT(n,0,s), the client waiting d = PRTT(1,0,s) (busy) before each send but the first
//   o_r(s)       server sends s; the client waits 2 PRTT(1,0,s) + 20 us for it to arrive, then times its
//                receive (Kielmann's method, seed 001 Section 2.3); a 1-byte ack starts the next repetition
// Sends are blocking (sidecore::send, MPI_Send), as in the paper's measurements.
#include <mpi.h>
#include <unistd.h>

#include <sidecore/sidecore.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sidecore/model/loggp/files.hpp"

namespace lg = sidecore::model::loggp;

namespace {

struct options {
  std::string output;
  std::uint64_t max_bytes = std::uint64_t{16} << 20;
  int per_octave = 4;
  int reps = 11;
  int n = 10;
  double sample_ns = 50000;
  bool sidecore = true, mpi = true;
};

constexpr const char* usage =
    "usage: mpiexec -n 2 sidecore-loggp-probe --output FILE [--max-bytes B] [--per-octave K] [--reps R] [--n N]\n"
    "           [--sample-ns NS] [--transports sidecore,mpi]\n"
    "Measures PRTT(n, d, s) (Hoefler et al.) through sidecore and the system MPI and writes FILE (schema\n"
    "sidecore-prtt) for `sidecore loggp FILE`; docs/loggp.md lists the options and their defaults.\n";

[[noreturn]] void usage_error(const std::string& msg) {
  std::fprintf(stderr, "sidecore-loggp-probe: %s\n", msg.c_str());
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

std::uint64_t parse_uint(const std::string& opt, const std::string& v, std::uint64_t lo, std::uint64_t hi) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || v[0] == '-' || errno != 0 || *end != '\0' || x < lo || x > hi)
    usage_error(fmt::format("{}={} is not accepted; give an integer from {} to {}", opt, v, lo, hi));
  return x;
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], v;
    const auto eq = a.find('=');
    if (eq != std::string::npos) {
      v = a.substr(eq + 1);
      a = a.substr(0, eq);
    } else if (i + 1 < argc && a.rfind("--", 0) == 0) {
      v = argv[++i];
    }
    if (a == "--output") o.output = v;
    else if (a == "--max-bytes") o.max_bytes = parse_uint(a, v, 1, std::uint64_t{1} << 30);
    else if (a == "--per-octave") o.per_octave = static_cast<int>(parse_uint(a, v, 1, 16));
    else if (a == "--reps") o.reps = static_cast<int>(parse_uint(a, v, 1, 1000));
    else if (a == "--n") o.n = static_cast<int>(parse_uint(a, v, 2, 1000));
    else if (a == "--sample-ns") o.sample_ns = static_cast<double>(parse_uint(a, v, 0, 100000000));
    else if (a == "--transports") {
      o.sidecore = o.mpi = false;
      std::size_t from = 0;
      for (std::size_t comma;; from = comma + 1) {
        comma = v.find(',', from);
        const std::string item = v.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
        if (item == "sidecore" && !o.sidecore) o.sidecore = true;
        else if (item == "mpi" && !o.mpi) o.mpi = true;
        else usage_error(fmt::format("--transports={} is not accepted; give sidecore, mpi or sidecore,mpi", v));
        if (comma == std::string::npos) break;
      }
    } else {
      usage_error(fmt::format("unknown option {}; accepted: --output FILE --max-bytes B --per-octave K --reps R "
                              "--n N --sample-ns NS --transports sidecore,mpi", a));
    }
  }
  if (o.output.empty()) usage_error("--output FILE is required");
  return o;
}

std::vector<std::uint64_t> sizes(const options& o) {
  std::vector<std::uint64_t> out;
  for (int j = 0;; ++j) {
    const auto s = static_cast<std::uint64_t>(std::llround(std::pow(2.0, static_cast<double>(j) / o.per_octave)));
    if (s > o.max_bytes) break;
    if (out.empty() || s > out.back()) out.push_back(s);
  }
  if (out.back() != o.max_bytes) out.push_back(o.max_bytes);
  return out;
}

double now_ns() {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

void spin_for(double ns) {
  const double until = now_ns() + ns;
  while (now_ns() < until) {
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Blocking point-to-point of one transport.
struct transport {
  std::function<void(const void*, std::uint64_t, int, int)> send;
  std::function<void(void*, std::uint64_t, int, int)> recv;
};

transport sidecore_transport() {
  return {
      [](const void* b, std::uint64_t s, int to, int tag) { sidecore::send(b, static_cast<std::int64_t>(s), to, tag); },
      [](void* b, std::uint64_t s, int from, int tag) {
        const sidecore::status st = sidecore::recv(b, static_cast<std::int64_t>(s), from, tag);
        if (!st.ok()) usage_error("sidecore receive failed");
      }};
}

transport mpi_transport() {
  return {[](const void* b, std::uint64_t s, int to, int tag) {
            MPI_Send(b, static_cast<int>(s), MPI_BYTE, to, tag, MPI_COMM_WORLD);
          },
          [](void* b, std::uint64_t s, int from, int tag) {
            MPI_Recv(b, static_cast<int>(s), MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          }};
}

// k PRTT(n, d, s) back to back on both ranks; the client's mean time (the server's return value is meaningless).
double prtt(const transport& t, int rank, std::vector<char>& buf, std::uint64_t s, int n, double d, int k) {
  const int peer = 1 - rank;
  if (rank == 0) {
    const double t0 = now_ns();
    for (int j = 0; j < k; ++j) {
      for (int i = 0; i < n; ++i) {
        if (i > 0 && d > 0) spin_for(d);
        t.send(buf.data(), s, peer, 1);
      }
      t.recv(buf.data(), s, peer, 2);
    }
    return (now_ns() - t0) / k;
  }
  for (int j = 0; j < k; ++j) {
    for (int i = 0; i < n; ++i) t.recv(buf.data(), s, peer, 1);
    t.send(buf.data(), s, peer, 2);
  }
  return 0;
}

// k receive overheads; the client's mean.
double receive_overhead(const transport& t, int rank, std::vector<char>& buf, std::uint64_t s, double wait_ns, int k) {
  const int peer = 1 - rank;
  char ack = 0;
  double sum = 0;
  for (int j = 0; j < k; ++j) {
    if (rank == 0) {
      spin_for(wait_ns);
      const double t0 = now_ns();
      t.recv(buf.data(), s, peer, 3);
      sum += now_ns() - t0;
      t.send(&ack, 1, peer, 4);
    } else {
      t.send(buf.data(), s, peer, 3);
      t.recv(&ack, 1, peer, 4);
    }
  }
  return sum / k;
}

// Per size, the median over reps of once(size index), measured in rounds: each round takes one repetition of every
// size, after a warm-up round. A slow spell of the host (another tenant, a frequency change) then falls on all sizes
// alike instead of on the few measured during it, which would bend the curve the fit must follow. The rounds go down
// and up the sizes in turn, so that each size follows a neighbour (right after a 16 MiB message a 1-byte round trip
// found the caches and the peer cold: 20 us instead of 0.5 us), and a size up to warm_bytes is repeated once
// unmeasured first. The server's results are dropped.
//
// A sample, once(i, batch), is the mean of `batch` back-to-back measurements, batch chosen per size from
// the warm-up round so that a sample lasts about sample_ns (the client decides; both ranks must run the same
// count): a single 0.5 us round trip, measured once per round, varied +-10 % from size to size on a VM, more
// than a fit within 5 % can absorb; the mean of 100 varies far less, and the median over rounds still drops
// the samples a host tick or another tenant fell on. `unmeasured(i)` is the time a repetition spends outside
// what it measures (o_r's wait for the message to arrive): it counts toward the sample's length.
constexpr std::uint64_t warm_bytes = std::uint64_t{1} << 20;
constexpr int max_batch = 1000;

std::vector<double> measured(const std::vector<std::uint64_t>& sizes, int reps, double sample_ns,
                             const std::function<double(std::size_t, int)>& once,
                             const std::function<double(std::size_t)>& unmeasured = {}) {
  const std::size_t k = sizes.size();
  std::vector<int> batch(k, 1);
  for (std::size_t i = 0; i < k; ++i) {
    const double t = once(i, 1) + (unmeasured ? unmeasured(i) : 0.0);
    if (t > 0) batch[i] = static_cast<int>(std::clamp(std::ceil(sample_ns / t), 1.0, static_cast<double>(max_batch)));
  }
  MPI_Bcast(batch.data(), static_cast<int>(k), MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<std::vector<double>> v(k);
  for (int r = 0; r < reps; ++r)
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t i = r % 2 ? j : k - 1 - j;  // down, then up: each size follows a neighbour
      if (sizes[i] <= warm_bytes) (void)once(i, 1);
      v[i].push_back(once(i, batch[i]));
    }
  std::vector<double> out;
  for (const std::vector<double>& x : v) out.push_back(median(x));
  return out;
}

lg::prtt_series measure(const transport& t, int rank, const options& o, std::string name, std::string provider,
                        std::string mode) {
  lg::prtt_series series;
  series.transport = std::move(name);
  series.provider = std::move(provider);
  series.mode = std::move(mode);
  series.n = o.n;
  std::vector<char> buf(o.max_bytes, 1);
  const std::vector<std::uint64_t> s = sizes(o);
  const std::size_t k = s.size();
  const double ns = o.sample_ns;
  std::vector<double> prtt1 =
      measured(s, o.reps, ns, [&](std::size_t i, int b) { return prtt(t, rank, buf, s[i], 1, 0, b); });
  MPI_Bcast(prtt1.data(), static_cast<int>(k), MPI_DOUBLE, 0, MPI_COMM_WORLD);  // d = PRTT(1,0,s), known to both
  const std::vector<double> prttn =
      measured(s, o.reps, ns, [&](std::size_t i, int b) { return prtt(t, rank, buf, s[i], o.n, 0, b); });
  const std::vector<double> prttd =
      measured(s, o.reps, ns, [&](std::size_t i, int b) { return prtt(t, rank, buf, s[i], o.n, prtt1[i], b); });
  // A repetition of o_r waits 2 PRTT(1,0,s) + 20 us first: batched by its whole length, o_r's few samples per
  // size cost a few rounds' time (batched by o_r alone, up to 1000 x 21 us per sample), and their weight in the
  // fit is small (fit_options::overhead_weight).
  auto wait_of = [&](std::size_t i) { return 2 * prtt1[i] + 20000; };
  const std::vector<double> o_r = measured(
      s, o.reps, ns, [&](std::size_t i, int b) { return receive_overhead(t, rank, buf, s[i], wait_of(i), b); },
      wait_of);
  for (std::size_t i = 0; i < k; ++i) {
    lg::prtt_point p;
    p.bytes = s[i];
    p.prtt1_ns = prtt1[i];
    p.prttn_ns = prttn[i];
    p.prttd_ns = prttd[i];
    p.o_r_ns = o_r[i];
    series.points.push_back(p);
  }
  return series;
}

std::string first_line(const char* s) {
  std::string x(s);
  const auto nl = x.find('\n');
  return nl == std::string::npos ? x : x.substr(0, nl);
}

// The first "model name" of /proc/cpuinfo ("unknown" where there is none, as on some ARM kernels): the figures
// of a measurement depend on the processor, so the file says which one.
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto first = line.find_first_not_of(" \t", colon + 1);
    return first == std::string::npos ? std::string("unknown") : line.substr(first);
  }
  return "unknown";
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      if (rank == 0) std::fputs(usage, stdout);
      MPI_Finalize();
      return 0;
    }
  const options o = parse(argc, argv);
  if (size != 2) usage_error(fmt::format("run it on exactly 2 ranks (mpiexec -n 2), not {}", size));

  lg::measurement m;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(mpi_version, &len);
  std::string cmd;
  for (int i = 0; i < argc; ++i) cmd += (i ? " " : "") + std::string(argv[i]);
  m.machine = {{"host", host},
               {"cpu_model", cpu_model()},
               {"online_cpus", ::sysconf(_SC_NPROCESSORS_ONLN)},
               {"command", cmd},
               {"mpi", first_line(mpi_version)},
               {"ranks", 2}};

  if (o.sidecore) {
    sidecore::init(MPI_COMM_WORLD);
    const sidecore::runtime_info info = sidecore::info();
    m.machine["sidecore_eager_max"] = std::getenv("SIDECORE_EAGER_MAX") ? std::getenv("SIDECORE_EAGER_MAX") : "default";
    m.series.push_back(measure(sidecore_transport(), rank, o, "sidecore", info.provider, info.mode));
    sidecore::finalize();
  }
  if (o.mpi) m.series.push_back(measure(mpi_transport(), rank, o, "mpi", first_line(mpi_version), ""));

  int rc = 0;
  if (rank == 0) {
    std::ofstream out(o.output, std::ios::trunc);
    out << lg::measurement_json(m).dump(1) << "\n";
    out.flush();
    if (!out) {
      std::fprintf(stderr, "sidecore-loggp-probe: cannot write %s\n", o.output.c_str());
      rc = 2;
    } else {
      std::printf("sidecore-loggp-probe: wrote %s (%zu sizes, 1..%llu B)\n", o.output.c_str(),
                  m.series.front().points.size(), static_cast<unsigned long long>(o.max_bytes));
      try {
        std::vector<lg::series_fit> fits;
        for (const lg::prtt_series& s : m.series) fits.push_back(lg::fit(s));
        std::printf("fitted (sidecore loggp %s gives the files):\n%s", o.output.c_str(),
                    lg::params_table(fits).c_str());
      } catch (const std::exception& e) {
        std::printf("no fit: %s\n", e.what());
      }
    }
  }
  MPI_Finalize();
  return rc;
}
