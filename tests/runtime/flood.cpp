// A storm of small messages sent before the receiver posts any receive (issue 17): the receiver's memory must stay
// bounded by sidecore's settings, not by the number of messages the sender chose to send, and every message must
// arrive exactly once, in order, with its bytes.
//
//   flood <messages> <bytes> <rss growth bound, MB> [<seconds the receiver progresses without matching>]
//
// Two ranks. Rank 0 starts <messages> isends of <bytes> bytes to rank 1 (tag i % 1000, a sequence number and a
// pattern in the payload), then one "all started" message on another tag, and waits for every send. Rank 1
// progresses the engine without matching any of the storm: it tests a receive of the "all started" message in a
// loop, then goes on testing an unrelated receive for the given time (default 0.5 s), so that everything the
// provider can pull in has been pulled in and matched against nothing. That is the expensive case: with manual
// progress, data the receiver does not progress stays in the sender's socket and the kernel's buffers. Rank 1 then
// reads its peak RSS (VmHWM), receives the messages (in windows of 4096 posted receives, so that its own receive
// slots are not counted as the storm's), checks each, and fails when the peak RSS grew more than the bound over
// its RSS after init. Prints the figures and "flood: passed" or lines with FAILED.
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <sidecore/sidecore.hpp>

namespace {

using clk = std::chrono::steady_clock;

constexpr int done_tag = 1'000'000;    // "all started", outside the storm's tags 0..999
constexpr int unrelated_tag = 2'000'000;  // never sent
constexpr std::size_t window = 4096;

int g_failures = 0;

void check(bool ok, const std::string& what) {
  if (ok) return;
  ++g_failures;
  std::fprintf(stderr, "flood: rank 1: FAILED: %s\n", what.c_str());
}

// A field of /proc/self/status (VmRSS, VmHWM) in MB; -1 when it cannot be read.
double status_mb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::size_t n = std::strlen(field);
  while (std::getline(in, line)) {
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
      return static_cast<double>(std::atol(line.c_str() + n + 1)) / 1024.0;
  }
  return -1;
}

double seconds_since(clk::time_point t0) { return std::chrono::duration<double>(clk::now() - t0).count(); }

unsigned char pattern(std::uint64_t seq, std::size_t i) { return static_cast<unsigned char>(seq * 31 + i * 7 + 1); }

void fill(std::vector<unsigned char>& m, std::uint64_t seq) {
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = pattern(seq, i);
  if (m.size() >= sizeof seq) std::memcpy(m.data(), &seq, sizeof seq);
}

void sender(std::size_t count, std::size_t bytes) {
  std::vector<std::vector<unsigned char>> out(count, std::vector<unsigned char>(bytes));
  std::vector<sidecore::request> reqs(count);
  const auto t0 = clk::now();
  for (std::size_t i = 0; i < count; ++i) {
    fill(out[i], i);
    reqs[i] = sidecore::isend(out[i].data(), static_cast<std::int64_t>(bytes), 1, static_cast<int>(i % 1000));
  }
  const std::uint64_t started = count;
  sidecore::send(&started, sizeof started, 1, done_tag);
  const double t_started = seconds_since(t0);
  sidecore::waitall(reqs);
  std::printf("flood: rank 0: %zu sends of %zu B started in %.2f s, all complete after %.2f s\n", count, bytes,
              t_started, seconds_since(t0));
}

void receiver(std::size_t count, std::size_t bytes, double bound_mb, double progress_s) {
  // The receive window's buffers are this program's, not the storm's: touched before the baseline.
  std::vector<std::vector<unsigned char>> in(window, std::vector<unsigned char>(bytes + 1, 1));
  std::vector<sidecore::request> reqs(window);
  std::vector<sidecore::status> st(window);
  std::vector<unsigned char> want(bytes);
  const double rss0 = status_mb("VmRSS");
  const auto t0 = clk::now();
  // Progress without matching the storm: only the "all started" message and a receive nothing sends to.
  std::uint64_t started = 0;
  sidecore::request done = sidecore::irecv(&started, sizeof started, 0, done_tag);
  while (!sidecore::test(done)) {
  }
  const double t_done = seconds_since(t0);
  char dummy = 0;
  sidecore::request unrelated = sidecore::irecv(&dummy, 1, 0, unrelated_tag);
  const auto t1 = clk::now();
  while (seconds_since(t1) < progress_s) (void)sidecore::test(unrelated);
  const double t_progressed = seconds_since(t0);
  const double rss_unmatched = status_mb("VmRSS");
  const double hwm_unmatched = status_mb("VmHWM");
  check(started == count, "the \"all started\" message says " + std::to_string(started));

  const auto t2 = clk::now();
  std::size_t bad = 0;
  for (std::size_t base = 0; base < count; base += window) {
    const std::size_t n = count - base < window ? count - base : window;
    for (std::size_t k = 0; k < n; ++k) {
      std::memset(in[k].data(), 0, in[k].size());
      // One byte more than sent: a message of the wrong size shows in the status.
      reqs[k] = sidecore::irecv(in[k].data(), static_cast<std::int64_t>(bytes + 1), 0,
                                static_cast<int>((base + k) % 1000));
    }
    sidecore::waitall(std::span<sidecore::request>(reqs.data(), n), std::span<sidecore::status>(st.data(), n));
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint64_t seq = base + k;
      fill(want, seq);
      const bool ok = st[k].ok() && st[k].bytes == bytes && st[k].source == 0 &&
                      st[k].tag == static_cast<int>(seq % 1000) && std::memcmp(in[k].data(), want.data(), bytes) == 0;
      if (!ok && bad++ < 5) {
        std::uint64_t got = 0;
        if (bytes >= sizeof got) std::memcpy(&got, in[k].data(), sizeof got);
        check(false, "receive " + std::to_string(seq) + " (tag " + std::to_string(seq % 1000) + "): status " +
                         sidecore::errc_name(st[k].error) + ", " + std::to_string(st[k].bytes) + " B, sequence " +
                         std::to_string(got));
      }
    }
  }
  const double t_received = seconds_since(t2);
  check(bad == 0, std::to_string(bad) + " of " + std::to_string(count) + " messages wrong");
  // Nothing more may come: a message delivered twice would still be waiting.
  unsigned char extra = 0;
  sidecore::request probe = sidecore::irecv(&extra, 1, sidecore::any_source, sidecore::any_tag);
  const auto t3 = clk::now();
  bool more = false;
  while (seconds_since(t3) < 0.2 && !more) more = sidecore::test(probe);
  check(!more, "a message beyond the storm arrived");
  if (!more) sidecore::cancel(probe), (void)sidecore::wait(probe);
  sidecore::cancel(unrelated);
  (void)sidecore::wait(unrelated);

  const double hwm = status_mb("VmHWM");
  const double rss_end = status_mb("VmRSS");
  const double growth_mb = hwm - rss0;
  std::printf("flood: rank 1: RSS after init %.1f MB; progressed %.2f s without matching (\"all started\" after "
              "%.2f s): RSS %.1f MB, peak %.1f MB; received in %.2f s; peak %.1f MB (growth %.1f MB, bound %.0f MB), "
              "RSS at the end %.1f MB\n",
              rss0, t_progressed, t_done, rss_unmatched,
              hwm_unmatched, t_received, hwm, growth_mb, bound_mb, rss_end);
  check(growth_mb <= bound_mb, "peak RSS grew " + std::to_string(growth_mb) + " MB, more than the bound of " +
                                   std::to_string(bound_mb) + " MB");
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4 || size != 2) {
    if (rank == 0)
      std::fprintf(stderr, "usage: mpiexec -n 2 %s <messages> <bytes> <rss growth bound, MB> [<progress seconds>]\n",
                   argv[0]);
    MPI_Finalize();
    return 2;
  }
  const auto count = static_cast<std::size_t>(std::strtoull(argv[1], nullptr, 10));
  const auto bytes = static_cast<std::size_t>(std::strtoull(argv[2], nullptr, 10));
  const double bound_mb = std::strtod(argv[3], nullptr);
  const double progress_s = argc > 4 ? std::strtod(argv[4], nullptr) : 0.5;
  sidecore::init();
  if (rank == 0) sender(count, bytes);
  else receiver(count, bytes, bound_mb, progress_s);
  std::fflush(stdout);
  sidecore::finalize();
  int failures = g_failures, all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 1 && all == 0) std::printf("flood: passed\n");
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
