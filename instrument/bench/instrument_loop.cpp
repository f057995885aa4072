// A fixed number of instrumentation events in a plain loop, for counting instructions per event under callgrind: a
// figure the machine's timing noise cannot move (bench_instrument measures time). Run it twice, with N and N/5
// iterations; the difference of the two instruction totals divided by 4N/5 is the loop's alone, start-up and the
// final fold of the profile cancelled (docs/instrument.md, "Cost"):
//   valgrind --tool=callgrind --callgrind-out-file=cg.long instrument_loop --case=xfer_owner --iterations=100000
//   valgrind --tool=callgrind --callgrind-out-file=cg.short instrument_loop --case=xfer_owner --iterations=20000
//   callgrind_annotate cg.long | grep 'PROGRAM TOTALS'   (and the same for cg.short)
// Cases and their events per iteration: call (enter + exit: 2), xfer_owner and xfer_other (begin + end recorded by
// the owner thread / for another owner: 2), mix (isend + wait: 6), region (enter + exit: 2), coll (a monitored
// collective instance: arrival + departure, 2).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "sidecore/instrument/collectives.hpp"
#include "sidecore/instrument/instrument.hpp"

namespace si = sidecore::instrument;
using sidecore::category;

namespace {

[[noreturn]] void usage(const char* bad) {
  std::fprintf(
      stderr,
      "instrument_loop: %s is not accepted\nusage: instrument_loop --case=call|xfer_owner|xfer_other|mix|region|coll "
      "--iterations=N (N: an integer 1..1000000000)\n",
      bad);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::string which;
  long long n = -1;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strncmp(a, "--case=", 7) == 0) {
      which = a + 7;
    } else if (std::strncmp(a, "--iterations=", 13) == 0) {
      char* end = nullptr;
      n = std::strtoll(a + 13, &end, 10);
      if (*end != '\0' || n < 1 || n > 1000000000) usage(a);
    } else {
      usage(a);
    }
  }
  if (n < 0) usage("a missing --iterations");
  si::config c;
  c.profile = true;
  si::start(c, 0, 1);
  si::set_xfer_time_table({{0, 1e-6}, {1 << 20, 1e-4}}, "instrument_loop");
  const std::uint32_t me = si::current_thread_id();
  std::uint32_t other = 0;
  std::thread([&] { other = si::current_thread_id(); }).join();
  int events = 2;
  if (which == "call") {
    for (long long i = 0; i < n; ++i) {
      si::call_enter(category::test);
      si::call_exit(category::test);
    }
  } else if (which == "xfer_owner" || which == "xfer_other") {
    const std::uint32_t owner = which == "xfer_owner" ? me : other;
    for (long long i = 0; i < n; ++i) {
      si::xfer_begin(static_cast<std::uint64_t>(i), 4096, 1, owner);
      si::xfer_end(static_cast<std::uint64_t>(i), owner);
    }
  } else if (which == "mix") {
    events = 6;
    for (long long i = 0; i < n; ++i) {
      si::call_enter(category::init);
      si::xfer_begin(static_cast<std::uint64_t>(i), 4096, 1, me);
      si::call_exit(category::init);
      si::call_enter(category::wait);
      si::xfer_end(static_cast<std::uint64_t>(i), me);
      si::call_exit(category::wait);
    }
  } else if (which == "region") {
    for (long long i = 0; i < n; ++i) {
      si::region_enter("solve");
      si::region_exit();
    }
  } else if (which == "coll") {
    for (long long i = 0; i < n; ++i) {
      si::coll_arrive(si::op_kind::allreduce, 7, static_cast<std::uint64_t>(i), 64, 4);
      si::coll_depart(7, static_cast<std::uint64_t>(i));
    }
  } else {
    usage(("--case=" + which).c_str());
  }
  const std::string profile = si::rank_profile_json();
  si::stop();
  std::printf("instrument_loop: %s, %lld iterations, %d events each, event clock %s, profile %zu bytes\n",
              which.c_str(), n, events, si::active_clock() == si::event_clock::tsc ? "tsc" : "monotonic",
              profile.size());
  return 0;
}
